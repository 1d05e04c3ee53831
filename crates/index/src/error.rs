//! The storage layer's error, and what a failure means: damage that `folio repair` mends, or the
//! environment refusing (permission denied, disk full, a read-only file system), which no repair
//! mends and which must not be reported as damage.

use std::io::ErrorKind;

/// Errors of the storage layer.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// The catalog (SQLite) failed.
    #[error("catalog: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The keyword index (tantivy) failed.
    #[error("keyword index: {0}")]
    Tantivy(#[from] tantivy::TantivyError),
    /// The vector store (LanceDB) failed.
    #[error("vector store: {0}")]
    Lance(#[from] lancedb::Error),
    /// A batch of vectors could not be built.
    #[error("vector batch: {0}")]
    Arrow(#[from] arrow_schema::ArrowError),
    /// Reading or writing a store's files failed.
    #[error("storage I/O: {0}")]
    Io(#[from] std::io::Error),
    /// A stored JSON value could not be read or written.
    #[error("encoding: {0}")]
    Json(#[from] serde_json::Error),
    /// A store's files are damaged (the message says what was found).
    #[error("the library is damaged: {0}")]
    Corrupt(String),
    /// The library was written by a later version of Folio.
    #[error("{0}")]
    Newer(String),
    /// A value that storage cannot hold or does not expect.
    #[error("invalid data: {0}")]
    Invalid(String),
    /// A team library's server failed or refused (the message names the server, never a
    /// password).
    #[error("{message}")]
    Server {
        /// What kind of failure.
        failure: ServerFailure,
        /// What happened, in words.
        message: String,
    },
    /// An error with what was being done when it happened ("the library's vector store in … could
    /// not be opened").
    #[error("{context}: {source}")]
    In {
        /// What was being done.
        context: String,
        /// What went wrong.
        source: Box<IndexError>,
    },
}

/// What kind of failure a team library's server reported (see [`IndexError::Server`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerFailure {
    /// No host could be reached, or the connection was lost and could not be made again.
    Unreachable,
    /// The server refused the login: a wrong password, an unknown user, no access to the database.
    LoginRefused,
    /// The role may only read: adding or removing documents is refused.
    ReadOnly,
    /// The database is not ready for Folio: no pgvector, or a schema from a later Folio.
    Unprepared,
    /// Anything else the server answered.
    Failed,
}

impl IndexError {
    /// Whether a team library's server could not be reached (a retry may succeed).
    pub fn is_unreachable(&self) -> bool {
        match self {
            IndexError::Server { failure, .. } => *failure == ServerFailure::Unreachable,
            IndexError::In { source, .. } => source.is_unreachable(),
            _ => false,
        }
    }

    /// The server failure, if the error is one (through any context).
    pub fn server_failure(&self) -> Option<ServerFailure> {
        match self {
            IndexError::Server { failure, .. } => Some(*failure),
            IndexError::In { source, .. } => source.server_failure(),
            _ => None,
        }
    }

    /// Whether the error means a store's files are damaged: what `folio repair` is for. Only
    /// evidence of damage counts (a checksum or a parse that failed, a file the store lists that is
    /// gone, a file that ends early); a refused read or write (see [`IndexError::refusal`]), a busy
    /// lock or a library from a later version is not damage.
    pub fn is_damage(&self) -> bool {
        use rusqlite::ErrorCode::{DatabaseCorrupt, NotADatabase};
        use tantivy::directory::error::OpenReadError;
        use tantivy::TantivyError as T;
        if self.refusal().is_some() {
            return false;
        }
        match self {
            IndexError::In { source, .. } => source.is_damage(),
            IndexError::Corrupt(_) => true,
            IndexError::Sqlite(e) => matches!(e.sqlite_error_code(), Some(DatabaseCorrupt | NotADatabase)),
            IndexError::Tantivy(e) => match e {
                T::DataCorruption(_) | T::DeserializeError(_) => true,
                T::OpenReadError(OpenReadError::FileDoesNotExist(_)) => true,
                T::OpenReadError(OpenReadError::IoError { io_error, .. }) => is_damage_kind(io_error.kind()),
                T::IoError(io) => is_damage_kind(io.kind()),
                _ => false,
            },
            IndexError::Lance(e) => match e {
                lancedb::Error::TableCorrupted { .. } => true,
                lancedb::Error::Lance { source } => match source {
                    lance_core::Error::CorruptFile { .. } | lance_core::Error::NotFound { .. } => true,
                    other => io_kind(other).is_some_and(is_damage_kind),
                },
                other => io_kind(other).is_some_and(is_damage_kind),
            },
            IndexError::Io(e) => is_damage_kind(e.kind()),
            _ => false,
        }
    }

    /// The refusal behind the error, when the operating system refused to read or write a store's
    /// files (permission denied, disk full, a read-only file system, a path that is not a folder):
    /// nothing is damaged, and the user (or an administrator) has to change the environment.
    pub fn refusal(&self) -> Option<ErrorKind> {
        let kind = match self {
            IndexError::In { source, .. } => return source.refusal(),
            IndexError::Io(e) => Some(e.kind()),
            IndexError::Sqlite(e) => sqlite_refusal(e),
            IndexError::Tantivy(e) => tantivy_io_kind(e),
            // LanceDB passes some I/O errors on only as text ("… IO { … kind: PermissionDenied …")
            // in an `InvalidInput` message: the kind is read from it where the chain has none.
            IndexError::Lance(e) => io_kind(e).or_else(|| refusal_in_text(&e.to_string())),
            _ => None,
        }?;
        is_refusal_kind(kind).then_some(kind)
    }

    /// The refusal in words a user reads ("permission is denied"), when the error is one.
    pub fn refusal_words(&self) -> Option<&'static str> {
        Some(match self.refusal()? {
            ErrorKind::PermissionDenied => "permission is denied",
            ErrorKind::StorageFull => "the disk is full",
            ErrorKind::QuotaExceeded => "the disk quota is exceeded",
            ErrorKind::ReadOnlyFilesystem => "the file system is read-only",
            ErrorKind::NotADirectory => "a file stands where its folder should be",
            ErrorKind::IsADirectory => "a folder stands where its file should be",
            ErrorKind::OutOfMemory => "the system is out of memory",
            _ => "the operating system refused",
        })
    }
}

/// The refusal an error's text names in the form Rust prints an I/O error's kind (`kind:
/// PermissionDenied`), for errors that kept only the text of theirs.
fn refusal_in_text(text: &str) -> Option<ErrorKind> {
    const KINDS: [(&str, ErrorKind); 6] = [
        ("PermissionDenied", ErrorKind::PermissionDenied),
        ("StorageFull", ErrorKind::StorageFull),
        ("QuotaExceeded", ErrorKind::QuotaExceeded),
        ("ReadOnlyFilesystem", ErrorKind::ReadOnlyFilesystem),
        ("NotADirectory", ErrorKind::NotADirectory),
        ("IsADirectory", ErrorKind::IsADirectory),
    ];
    KINDS.iter().find(|(name, _)| text.contains(&format!("kind: {name}"))).map(|(_, k)| *k)
}

/// The kind of the first I/O error in an error's chain of sources, the error itself included.
fn io_kind(e: &(dyn std::error::Error + 'static)) -> Option<ErrorKind> {
    let mut cur = Some(e);
    while let Some(err) = cur {
        if let Some(io) = err.downcast_ref::<std::io::Error>() {
            return Some(io.kind());
        }
        if let Some(io) = err.downcast_ref::<std::sync::Arc<std::io::Error>>() {
            return Some(io.kind());
        }
        cur = err.source();
    }
    None
}

/// The kind of the I/O error tantivy wraps, where it wraps one (its errors keep the I/O error in
/// a field, not as their source).
fn tantivy_io_kind(e: &tantivy::TantivyError) -> Option<ErrorKind> {
    use tantivy::directory::error::{LockError, OpenDirectoryError, OpenReadError, OpenWriteError};
    use tantivy::TantivyError as T;
    match e {
        T::IoError(io) => Some(io.kind()),
        T::OpenReadError(OpenReadError::IoError { io_error, .. })
        | T::OpenWriteError(OpenWriteError::IoError { io_error, .. })
        | T::OpenDirectoryError(OpenDirectoryError::IoError { io_error, .. }) => Some(io_error.kind()),
        T::LockFailure(LockError::IoError(io), _) => Some(io.kind()),
        _ => io_kind(e),
    }
}

/// What SQLite's result codes say of a refusal.
fn sqlite_refusal(e: &rusqlite::Error) -> Option<ErrorKind> {
    use rusqlite::ErrorCode as C;
    match e.sqlite_error_code()? {
        C::PermissionDenied => Some(ErrorKind::PermissionDenied),
        C::DiskFull => Some(ErrorKind::StorageFull),
        C::ReadOnly => Some(ErrorKind::ReadOnlyFilesystem),
        _ => None,
    }
}

/// Kinds that mean the environment refused, not that a file is damaged.
fn is_refusal_kind(kind: ErrorKind) -> bool {
    matches!(
        kind,
        ErrorKind::PermissionDenied
            | ErrorKind::StorageFull
            | ErrorKind::QuotaExceeded
            | ErrorKind::ReadOnlyFilesystem
            | ErrorKind::NotADirectory
            | ErrorKind::IsADirectory
            | ErrorKind::OutOfMemory
            | ErrorKind::ResourceBusy
    )
}

/// Kinds that, while reading a store that exists, mean its files are damaged: a file it lists is
/// gone, ends early or does not parse.
fn is_damage_kind(kind: ErrorKind) -> bool {
    matches!(kind, ErrorKind::NotFound | ErrorKind::UnexpectedEof | ErrorKind::InvalidData)
}

impl From<tantivy::directory::error::OpenDirectoryError> for IndexError {
    /// The keyword folder could not be opened: it is missing, not a folder, or unreadable. None of
    /// these is damage to the index (its files were never read).
    fn from(e: tantivy::directory::error::OpenDirectoryError) -> Self {
        use tantivy::directory::error::OpenDirectoryError as O;
        match e {
            O::IoError { io_error, directory_path } => IndexError::Io(std::io::Error::new(
                io_error.kind(),
                format!("{} ({})", io_error, directory_path.display()),
            )),
            O::NotADirectory(p) => IndexError::Io(std::io::Error::new(
                ErrorKind::NotADirectory,
                format!("{} is not a folder", p.display()),
            )),
            other => IndexError::Invalid(other.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_read_is_not_damage_and_a_file_that_ends_early_is() {
        let denied = IndexError::Io(std::io::Error::new(ErrorKind::PermissionDenied, "denied"));
        assert_eq!(denied.refusal(), Some(ErrorKind::PermissionDenied));
        assert!(!denied.is_damage());
        let full = IndexError::Tantivy(tantivy::TantivyError::IoError(std::sync::Arc::new(
            std::io::Error::new(ErrorKind::StorageFull, "no space left on device"),
        )));
        assert_eq!(full.refusal(), Some(ErrorKind::StorageFull));
        assert!(!full.is_damage());
        let truncated = IndexError::Tantivy(tantivy::TantivyError::IoError(std::sync::Arc::new(
            std::io::Error::new(ErrorKind::UnexpectedEof, "failed to fill whole buffer"),
        )));
        assert!(truncated.is_damage());
        assert_eq!(truncated.refusal(), None);
        assert!(IndexError::Corrupt("x".into()).is_damage());
        assert!(!IndexError::Newer("later".into()).is_damage());
    }

    #[test]
    fn a_refusal_lancedb_passes_on_as_text_is_a_refusal() {
        let e = IndexError::Lance(lancedb::Error::InvalidInput {
            message: "Failed to connect to namespace: IO { source: Generic { inner: Io { err: Os { code: 13, kind: PermissionDenied, message: \"Permission denied\" } } } }".into(),
        });
        assert_eq!(e.refusal(), Some(ErrorKind::PermissionDenied));
        assert_eq!(e.refusal_words(), Some("permission is denied"));
        assert!(!e.is_damage());
        let plain = IndexError::Lance(lancedb::Error::InvalidInput { message: "a bad filter".into() });
        assert_eq!(plain.refusal(), None);
    }

    #[test]
    fn a_keyword_folder_that_cannot_be_opened_is_not_damage() {
        let e = IndexError::from(tantivy::directory::error::OpenDirectoryError::NotADirectory("/x".into()));
        assert!(!e.is_damage(), "{e}");
        assert_eq!(e.refusal(), Some(ErrorKind::NotADirectory));
        let e = IndexError::from(tantivy::directory::error::OpenDirectoryError::DoesNotExist("/y".into()));
        assert!(!e.is_damage(), "{e}");
    }

    #[test]
    fn sqlite_s_disk_full_and_read_only_codes_are_refusals() {
        let code =
            |c: i32| IndexError::Sqlite(rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(c), None));
        assert_eq!(code(rusqlite::ffi::SQLITE_FULL).refusal(), Some(ErrorKind::StorageFull));
        assert_eq!(code(rusqlite::ffi::SQLITE_READONLY).refusal(), Some(ErrorKind::ReadOnlyFilesystem));
        assert!(code(rusqlite::ffi::SQLITE_CORRUPT).is_damage());
        assert!(!code(rusqlite::ffi::SQLITE_BUSY).is_damage());
    }
}
