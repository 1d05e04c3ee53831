//! The one error type of this crate.

use std::path::PathBuf;

/// Why a file could not be converted. User-facing: each says what is wrong with the file.
#[derive(Debug, Clone, PartialEq, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub enum ErrorKind {
    #[error("the file is empty")]
    Empty,
    #[error("the file is truncated or corrupt: {0}")]
    Corrupt(String),
    #[error("the file is encrypted with a password")]
    Encrypted,
    #[error("unsupported file type: {0}")]
    Unsupported(String),
    #[error("the file's extension says {extension} but its bytes are {actual}")]
    WrongExtension { extension: String, actual: String },
    #[error("the file is too large: {size} bytes, the limit is {limit}")]
    TooLarge { size: u64, limit: u64 },
    #[error("the document has {pages} pages, the limit is {limit}")]
    TooManyPages { pages: u32, limit: u32 },
    #[error("the archive would inflate past {limit} bytes (a zip bomb?)")]
    ZipBomb { limit: u64 },
    #[error("the PDF engine is not available: {0}")]
    PdfEngineMissing(String),
    #[error("cannot read the file: {0}")]
    Io(String),
    #[error("converting took longer than the limit of {seconds} s")]
    TimedOut { seconds: f64 },
    #[error("converting needed more memory than the limit of {} MiB", limit / (1024 * 1024))]
    OutOfMemory { limit: u64 },
    #[error("the converter failed on this file: {0}")]
    Crashed(String),
    #[error("cancelled")]
    Cancelled,
}

impl ErrorKind {
    /// A stable machine-readable code, for JSON and the UI.
    pub fn code(&self) -> &'static str {
        match self {
            ErrorKind::Empty => "empty",
            ErrorKind::Corrupt(_) => "corrupt",
            ErrorKind::Encrypted => "encrypted",
            ErrorKind::Unsupported(_) => "unsupported",
            ErrorKind::WrongExtension { .. } => "wrong_extension",
            ErrorKind::TooLarge { .. } => "too_large",
            ErrorKind::TooManyPages { .. } => "too_many_pages",
            ErrorKind::ZipBomb { .. } => "zip_bomb",
            ErrorKind::PdfEngineMissing(_) => "pdf_engine_missing",
            ErrorKind::Io(_) => "io",
            ErrorKind::TimedOut { .. } => "timed_out",
            ErrorKind::OutOfMemory { .. } => "out_of_memory",
            ErrorKind::Crashed(_) => "crashed",
            ErrorKind::Cancelled => "cancelled",
        }
    }

    /// Whether the fault is the file's (a user error) rather than the installation's.
    pub fn is_user_error(&self) -> bool {
        !matches!(self, ErrorKind::PdfEngineMissing(_) | ErrorKind::Io(_) | ErrorKind::Cancelled)
    }
}

/// A conversion failure for one file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}: {kind}", path.display())]
pub struct ConvertError {
    pub path: PathBuf,
    pub kind: ErrorKind,
}

/// Runs a converter body, turning a panic in a parsing library into a typed error: no input may
/// take the process down.
pub(crate) fn guard<T>(f: impl FnOnce() -> Result<T, ErrorKind>) -> Result<T, ErrorKind> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .unwrap_or_else(|_| Err(ErrorKind::Corrupt("the file's structure could not be parsed".into())))
}
