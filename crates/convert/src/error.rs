//! The one error type of this crate.

use std::path::PathBuf;

/// Why a file could not be converted. User-facing: each says what is wrong with the file.
#[derive(Debug, Clone, PartialEq, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub enum ErrorKind {
    /// The file holds no text: no bytes, only whitespace, or no block a converter could read.
    #[error("the file is empty")]
    Empty,
    /// The file's structure cannot be parsed (the detail says where it breaks).
    #[error("the file is truncated or corrupt: {0}")]
    Corrupt(String),
    /// The file (a PDF, DOCX or EPUB) needs a password.
    #[error("the file is encrypted with a password")]
    Encrypted,
    /// No converter reads this kind of file: a folder, a legacy Office file, XML that is not USLM,
    /// a scan OCR could not read, … (named in the detail).
    #[error("unsupported file type: {0}")]
    Unsupported(String),
    /// The bytes are of another format than the extension names (random bytes named `.pdf`, a PDF
    /// named `.docx`).
    #[error("the file's extension says {extension} but its bytes are {actual}")]
    WrongExtension {
        /// The file's extension, without the dot (`none` when it has none).
        extension: String,
        /// What the bytes are, in words ("a PDF", "plain text", …).
        actual: String,
    },
    /// The file is larger than [`ConvertOptions::max_file_bytes`](crate::ConvertOptions::max_file_bytes).
    #[error("the file is too large: {size} bytes, the limit is {limit}")]
    TooLarge {
        /// The file's size, in bytes.
        size: u64,
        /// The limit, in bytes.
        limit: u64,
    },
    /// The PDF has more pages than [`ConvertOptions::max_pages`](crate::ConvertOptions::max_pages).
    #[error("the document has {pages} pages, the limit is {limit}")]
    TooManyPages {
        /// The document's page count.
        pages: u32,
        /// The limit, in pages.
        limit: u32,
    },
    /// An archive's (DOCX, EPUB) members would inflate past
    /// [`ConvertOptions::max_uncompressed_bytes`](crate::ConvertOptions::max_uncompressed_bytes).
    #[error("the archive would inflate past {limit} bytes (a zip bomb?)")]
    ZipBomb {
        /// The limit, in uncompressed bytes.
        limit: u64,
    },
    /// pdfium could not be found or loaded (the detail says which library and why).
    #[error("the PDF engine is not available: {0}")]
    PdfEngineMissing(String),
    /// The file could not be read, or the converter thread or process could not start (the OS's
    /// message).
    #[error("cannot read the file: {0}")]
    Io(String),
    /// The conversion ran past [`ConvertOptions::time_limit`](crate::ConvertOptions::time_limit).
    #[error("converting took longer than the limit of {seconds} s")]
    TimedOut {
        /// The limit, in seconds.
        seconds: f64,
    },
    /// The converter process allocated past
    /// [`ConvertOptions::memory_limit`](crate::ConvertOptions::memory_limit).
    #[error("converting needed more memory than the limit of {} MiB", limit / (1024 * 1024))]
    OutOfMemory {
        /// The limit, in bytes.
        limit: u64,
    },
    /// The converter panicked, or its process died or gave an unreadable answer (the detail says which).
    #[error("the converter failed on this file: {0}")]
    Crashed(String),
    /// The caller cancelled the conversion.
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
    /// The file that failed.
    pub path: PathBuf,
    /// Why it failed.
    pub kind: ErrorKind,
}

/// Runs a converter body, turning a panic in a parsing library into a typed error: no input may
/// take the process down.
pub(crate) fn guard<T>(f: impl FnOnce() -> Result<T, ErrorKind>) -> Result<T, ErrorKind> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .unwrap_or_else(|_| Err(ErrorKind::Corrupt("the file's structure could not be parsed".into())))
}
