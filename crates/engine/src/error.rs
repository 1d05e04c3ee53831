//! The engine's one error type and the codes the shells match on.
//!
//! Every failure the UI sees carries an [`ErrorCode`]: an enum, serialised in snake_case, that the
//! generated TypeScript bindings turn into a union type, so renaming a code here is a type error
//! where the UI matches it. [`EngineError::is_user_error`] separates what the user can act on (a
//! bad query, a damaged file, a library another window holds) from faults of the installation or
//! of Folio itself.

use folio_index::ServerFailure;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A stable, machine-readable error code, for the UI (`{code, message}`), the CLI's JSON and the
/// catalog's failure records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// A document, section or term that is not in the library.
    NotFound,
    /// A request the engine cannot carry out as asked (an empty query, a bad setting).
    Invalid,
    /// Another Folio process holds the library's write lock.
    ReadOnly,
    /// A store of the library is damaged; repair rebuilds it.
    Damaged,
    /// The catalog, the keyword index or the vector store failed.
    Storage,
    /// An embedding model or an LLM failed.
    Embedding,
    /// The user stopped the work.
    Cancelled,
    /// A fault of Folio itself (a worker thread that stopped).
    Internal,
    /// The file is empty.
    Empty,
    /// The file is truncated or corrupt.
    Corrupt,
    /// The file is encrypted with a password.
    Encrypted,
    /// Folio does not read this kind of file.
    Unsupported,
    /// The file's extension does not match its bytes.
    WrongExtension,
    /// The file is over the size limit.
    TooLarge,
    /// The document is over the page limit.
    TooManyPages,
    /// The archive inflates past the limit.
    ZipBomb,
    /// PDFium could not be loaded.
    PdfEngineMissing,
    /// The file could not be read.
    Io,
    /// Converting the file took longer than the limit.
    TimedOut,
    /// Converting the file needed more memory than the limit.
    OutOfMemory,
    /// The converter crashed on the file.
    Crashed,
    /// The operating system refused to read or write the library's files (permission denied, disk
    /// full, a read-only file system); nothing is damaged.
    Refused,
    /// A team library's server cannot be reached (the network, the server down).
    Unreachable,
    /// A team library's server refused the login (a wrong password, an unknown user).
    LoginRefused,
    /// A team library's database is not ready for Folio (no pgvector, a schema only a role that
    /// may write can bring up to date).
    Unprepared,
}

impl ErrorCode {
    /// Every code, in declaration order.
    pub const ALL: [ErrorCode; 25] = [
        ErrorCode::NotFound,
        ErrorCode::Invalid,
        ErrorCode::ReadOnly,
        ErrorCode::Damaged,
        ErrorCode::Storage,
        ErrorCode::Embedding,
        ErrorCode::Cancelled,
        ErrorCode::Internal,
        ErrorCode::Empty,
        ErrorCode::Corrupt,
        ErrorCode::Encrypted,
        ErrorCode::Unsupported,
        ErrorCode::WrongExtension,
        ErrorCode::TooLarge,
        ErrorCode::TooManyPages,
        ErrorCode::ZipBomb,
        ErrorCode::PdfEngineMissing,
        ErrorCode::Io,
        ErrorCode::TimedOut,
        ErrorCode::OutOfMemory,
        ErrorCode::Crashed,
        ErrorCode::Refused,
        ErrorCode::Unreachable,
        ErrorCode::LoginRefused,
        ErrorCode::Unprepared,
    ];

    /// The code's name as serialised (`"not_found"`).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::NotFound => "not_found",
            ErrorCode::Invalid => "invalid",
            ErrorCode::ReadOnly => "read_only",
            ErrorCode::Damaged => "damaged",
            ErrorCode::Storage => "storage",
            ErrorCode::Embedding => "embedding",
            ErrorCode::Cancelled => "cancelled",
            ErrorCode::Internal => "internal",
            ErrorCode::Empty => "empty",
            ErrorCode::Corrupt => "corrupt",
            ErrorCode::Encrypted => "encrypted",
            ErrorCode::Unsupported => "unsupported",
            ErrorCode::WrongExtension => "wrong_extension",
            ErrorCode::TooLarge => "too_large",
            ErrorCode::TooManyPages => "too_many_pages",
            ErrorCode::ZipBomb => "zip_bomb",
            ErrorCode::PdfEngineMissing => "pdf_engine_missing",
            ErrorCode::Io => "io",
            ErrorCode::TimedOut => "timed_out",
            ErrorCode::OutOfMemory => "out_of_memory",
            ErrorCode::Crashed => "crashed",
            ErrorCode::Refused => "refused",
            ErrorCode::Unreachable => "unreachable",
            ErrorCode::LoginRefused => "login_refused",
            ErrorCode::Unprepared => "unprepared",
        }
    }

    /// The code a stored name stands for; a name this version does not know (a catalog written by
    /// a later one) reads as [`ErrorCode::Internal`].
    pub fn parse(name: &str) -> ErrorCode {
        ErrorCode::ALL.into_iter().find(|c| c.as_str() == name).unwrap_or(ErrorCode::Internal)
    }

    /// The code of a conversion failure.
    pub fn of_conversion(kind: &folio_convert::ErrorKind) -> ErrorCode {
        use folio_convert::ErrorKind as K;
        match kind {
            K::Empty => ErrorCode::Empty,
            K::Corrupt(_) => ErrorCode::Corrupt,
            K::Encrypted => ErrorCode::Encrypted,
            K::Unsupported(_) => ErrorCode::Unsupported,
            K::WrongExtension { .. } => ErrorCode::WrongExtension,
            K::TooLarge { .. } => ErrorCode::TooLarge,
            K::TooManyPages { .. } => ErrorCode::TooManyPages,
            K::ZipBomb { .. } => ErrorCode::ZipBomb,
            K::PdfEngineMissing(_) => ErrorCode::PdfEngineMissing,
            K::Io(_) => ErrorCode::Io,
            K::TimedOut { .. } => ErrorCode::TimedOut,
            K::OutOfMemory { .. } => ErrorCode::OutOfMemory,
            K::Crashed(_) => ErrorCode::Crashed,
            K::Cancelled => ErrorCode::Cancelled,
        }
    }

    /// Whether the user can act on it (change the request, the file, close the other window, stop
    /// asking) rather than it being a fault of the installation or of Folio.
    pub fn is_user_error(self) -> bool {
        match self {
            ErrorCode::NotFound
            | ErrorCode::Invalid
            | ErrorCode::ReadOnly
            | ErrorCode::Cancelled
            | ErrorCode::Empty
            | ErrorCode::Corrupt
            | ErrorCode::Encrypted
            | ErrorCode::Unsupported
            | ErrorCode::WrongExtension
            | ErrorCode::TooLarge
            | ErrorCode::TooManyPages
            | ErrorCode::ZipBomb
            | ErrorCode::TimedOut
            | ErrorCode::OutOfMemory
            | ErrorCode::Crashed
            | ErrorCode::Refused
            | ErrorCode::Unreachable
            | ErrorCode::LoginRefused
            | ErrorCode::Unprepared => true,
            ErrorCode::Damaged
            | ErrorCode::Storage
            | ErrorCode::Embedding
            | ErrorCode::Internal
            | ErrorCode::PdfEngineMissing
            | ErrorCode::Io => false,
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Errors the shells show. User errors (a bad query, an unknown document, a damaged file) apart
/// from internal ones: see [`EngineError::is_user_error`].
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// A document, section or term that is not in the library.
    #[error("{0}")]
    NotFound(String),
    /// A request that cannot be carried out as asked.
    #[error("{0}")]
    Invalid(String),
    /// A store of the library is damaged (the message says which, and what to do).
    #[error("{0}")]
    Damaged(String),
    /// Another process holds the library's write lock.
    #[error("{0}")]
    ReadOnly(String),
    /// The operating system refused to read or write the library's files (the message names the
    /// store and what was refused).
    #[error("{0}")]
    Refused(String),
    /// A file could not be converted (never [`folio_convert::ErrorKind::Cancelled`]: that is
    /// [`EngineError::Cancelled`]).
    #[error(transparent)]
    Convert(folio_convert::ConvertError),
    /// The user stopped the work.
    #[error("cancelled")]
    Cancelled,
    /// A fault of Folio itself (a worker thread that panicked).
    #[error("{0}")]
    Internal(String),
    /// The catalog, the keyword index or the vector store failed.
    #[error(transparent)]
    Storage(#[from] folio_index::IndexError),
    /// An embedder or LLM failed (never [`folio_ai::AiError::Cancelled`]).
    #[error(transparent)]
    Embedding(folio_ai::AiError),
}

impl EngineError {
    /// The code the shells match on.
    pub fn code(&self) -> ErrorCode {
        match self {
            EngineError::NotFound(_) => ErrorCode::NotFound,
            EngineError::Invalid(_) => ErrorCode::Invalid,
            EngineError::ReadOnly(_) => ErrorCode::ReadOnly,
            EngineError::Damaged(_) => ErrorCode::Damaged,
            EngineError::Convert(e) => ErrorCode::of_conversion(&e.kind),
            EngineError::Cancelled => ErrorCode::Cancelled,
            EngineError::Internal(_) => ErrorCode::Internal,
            EngineError::Refused(_) => ErrorCode::Refused,
            EngineError::Storage(e) if e.refusal().is_some() => ErrorCode::Refused,
            EngineError::Storage(e) if e.server_failure().is_some() => match e.server_failure() {
                Some(ServerFailure::Unreachable) => ErrorCode::Unreachable,
                Some(ServerFailure::LoginRefused) => ErrorCode::LoginRefused,
                Some(ServerFailure::ReadOnly) => ErrorCode::ReadOnly,
                Some(ServerFailure::Unprepared) => ErrorCode::Unprepared,
                Some(ServerFailure::Failed) | None => ErrorCode::Storage,
            },
            EngineError::Storage(_) => ErrorCode::Storage,
            EngineError::Embedding(_) => ErrorCode::Embedding,
        }
    }

    /// Whether the user can act on it (see [`ErrorCode::is_user_error`]).
    pub fn is_user_error(&self) -> bool {
        self.code().is_user_error()
    }

    /// The message without the file's path, for reports that name the file already.
    pub fn reason(&self) -> String {
        match self {
            EngineError::Convert(e) => e.kind.to_string(),
            e => e.to_string(),
        }
    }
}

impl From<folio_convert::ConvertError> for EngineError {
    fn from(e: folio_convert::ConvertError) -> EngineError {
        match e.kind {
            folio_convert::ErrorKind::Cancelled => EngineError::Cancelled,
            _ => EngineError::Convert(e),
        }
    }
}

impl From<folio_ai::AiError> for EngineError {
    fn from(e: folio_ai::AiError) -> EngineError {
        match e {
            folio_ai::AiError::Cancelled => EngineError::Cancelled,
            e => EngineError::Embedding(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_serialise_as_their_names_and_parse_back() {
        for code in ErrorCode::ALL {
            let json = serde_json::to_string(&code).unwrap();
            assert_eq!(json, format!("\"{}\"", code.as_str()));
            assert_eq!(ErrorCode::parse(code.as_str()), code);
        }
        assert_eq!(ErrorCode::parse("a_code_from_a_later_version"), ErrorCode::Internal);
    }

    #[test]
    fn every_conversion_failure_has_its_own_code_with_the_converters_name() {
        use folio_convert::ErrorKind as K;
        let kinds = [
            K::Empty,
            K::Corrupt("x".into()),
            K::Encrypted,
            K::Unsupported("x".into()),
            K::WrongExtension { extension: "pdf".into(), actual: "zip".into() },
            K::TooLarge { size: 2, limit: 1 },
            K::TooManyPages { pages: 2, limit: 1 },
            K::ZipBomb { limit: 1 },
            K::PdfEngineMissing("x".into()),
            K::Io("x".into()),
            K::TimedOut { seconds: 1.0 },
            K::OutOfMemory { limit: 1 },
            K::Crashed("x".into()),
            K::Cancelled,
        ];
        for k in &kinds {
            let code = ErrorCode::of_conversion(k);
            assert_eq!(code.as_str(), k.code(), "{k:?}");
            assert_eq!(code.is_user_error(), k.is_user_error() || code == ErrorCode::Cancelled, "{k:?}");
        }
    }

    #[test]
    fn cancellation_is_one_variant_whichever_layer_stopped() {
        let converted = EngineError::from(folio_convert::ConvertError {
            path: "a.pdf".into(),
            kind: folio_convert::ErrorKind::Cancelled,
        });
        assert!(matches!(converted, EngineError::Cancelled));
        assert!(matches!(EngineError::from(folio_ai::AiError::Cancelled), EngineError::Cancelled));
        assert_eq!(EngineError::Cancelled.code(), ErrorCode::Cancelled);
    }

    #[test]
    fn a_conversion_failure_keeps_its_path_in_the_message_and_drops_it_in_the_reason() {
        let e = EngineError::from(folio_convert::ConvertError {
            path: "/x/a.pdf".into(),
            kind: folio_convert::ErrorKind::Encrypted,
        });
        assert_eq!(e.code(), ErrorCode::Encrypted);
        assert!(e.is_user_error());
        assert!(e.to_string().contains("/x/a.pdf"), "{e}");
        assert_eq!(e.reason(), "the file is encrypted with a password");
        assert!(!EngineError::Damaged("x".into()).is_user_error());
    }
}
