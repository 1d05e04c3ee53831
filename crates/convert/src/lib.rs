//! Folio's converters: a file's bytes to a [`folio_core::model::Document`].
//!
//! One module per format, each behind the [`Converter`] trait; [`convert_file`] reads a file,
//! checks its size, detects its real format from its bytes, and picks the converter. Every failure is
//! a typed [`ConvertError`] naming the file and the reason; no input may panic.
//!
//! ```no_run
//! use folio_convert::{convert_file, ConvertOptions};
//! let doc = convert_file("rules.md".as_ref(), &ConvertOptions::default()).unwrap();
//! println!("{} blocks", doc.blocks.len());
//! ```

mod archive;
mod blocks;
pub mod detect;
pub mod docx;
pub mod epub;
pub mod error;
pub mod html;
mod list_number;
pub mod markdown;
pub mod ocr;
pub mod pdf;
pub mod uslm;
pub mod worker;

pub use detect::{detect_format, format_from_extension};
pub use error::{ConvertError, ErrorKind};
pub use worker::{convert_file_guarded, convert_file_guarded_reporting};

use folio_core::model::{Document, Format};
use folio_core::progress::{self, Step};
use std::path::{Path, PathBuf};

/// Limits and switches for one conversion.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct ConvertOptions {
    /// Files larger than this are refused with [`ErrorKind::TooLarge`].
    pub max_file_bytes: u64,
    /// Archives (DOCX, EPUB) whose members would inflate past this are refused as zip bombs.
    pub max_uncompressed_bytes: u64,
    /// PDFs with more pages than this are refused.
    pub max_pages: u32,
    /// Whether PDF bookmarks may decide heading levels (off to measure the other signals).
    pub use_bookmarks: bool,
    /// Whether PDF pages are searched for tables (rows × cells with their column headers).
    pub detect_tables: bool,
    /// Whether PDF pages without a text layer (scans) are read with Tesseract.
    pub ocr: bool,
    /// Where `libpdfium.so` lies; `None` looks in `.assets/pdfium/` beside the executable and in
    /// the working directory's ancestors.
    pub pdfium_library: Option<PathBuf>,
    /// Where `libtesseract.so.5` lies (or a folder holding it), for OCR; `None` asks the system
    /// loader.
    pub tesseract_library: Option<PathBuf>,
    /// The folder of Tesseract's `<language>.traineddata` files (or a folder whose `tessdata`
    /// holds them: `TESSDATA_PREFIX`'s convention); `None` looks in Debian's folders.
    pub tessdata: Option<PathBuf>,
    /// How long one file may take to convert ([`convert_file_guarded`]).
    pub time_limit: std::time::Duration,
    /// The address space a worker process may use ([`convert_file_guarded`], Unix).
    pub memory_limit: u64,
    /// The executable started as a worker process per file; `None` converts on a thread of this
    /// process. The default is this program, when its `main` called [`worker::serve_if_asked`].
    pub worker: Option<PathBuf>,
}

impl Default for ConvertOptions {
    fn default() -> Self {
        ConvertOptions {
            max_file_bytes: 512 * 1024 * 1024,
            max_uncompressed_bytes: 1024 * 1024 * 1024,
            max_pages: 20_000,
            use_bookmarks: true,
            detect_tables: true,
            ocr: true,
            pdfium_library: None,
            tesseract_library: None,
            tessdata: None,
            // A 20,000-page PDF converts in about two minutes (~5 ms a page).
            time_limit: std::time::Duration::from_secs(300),
            memory_limit: 4 * 1024 * 1024 * 1024,
            worker: worker::this_executable(),
        }
    }
}

impl ConvertOptions {
    /// The OCR engine's options these name (English, one thread a page).
    pub fn ocr_options(&self) -> ocr::OcrOptions {
        ocr::OcrOptions {
            library: self.tesseract_library.clone(),
            tessdata: self.tessdata.clone(),
            ..ocr::OcrOptions::default()
        }
    }
}

/// Converts the bytes of one format to a document.
pub trait Converter {
    /// The format this converter reads.
    fn format(&self) -> Format;
    /// Converts `bytes`. `name` is the file name, used for the title fallback and messages.
    fn convert(&self, name: &str, bytes: &[u8], options: &ConvertOptions) -> Result<Document, ErrorKind>;
    /// Converts `bytes`, giving `steps` a [`folio_core::progress::Stage::Converting`] step (pages read of pages in all)
    /// as pages are read, for formats that have pages (PDF); the others read in one step and say
    /// nothing.
    fn convert_reporting(
        &self,
        name: &str,
        bytes: &[u8],
        options: &ConvertOptions,
        steps: &mut dyn FnMut(Step),
    ) -> Result<Document, ErrorKind> {
        let _ = steps;
        self.convert(name, bytes, options)
    }
}

/// Reads and converts one file, choosing the converter from the file's bytes (and its extension
/// where the bytes do not decide, as for text and Markdown).
/// Runs in the caller's thread, without the limits of [`convert_file_guarded`].
pub fn convert_file(path: &Path, options: &ConvertOptions) -> Result<Document, ConvertError> {
    convert_file_reporting(path, options, &mut progress::ignore)
}

/// [`convert_file`], giving `steps` the pages of a paged format as they are read.
pub fn convert_file_reporting(
    path: &Path,
    options: &ConvertOptions,
    steps: &mut dyn FnMut(Step),
) -> Result<Document, ConvertError> {
    let fail = |kind| ConvertError { path: path.to_path_buf(), kind };
    check_file(path, options).map_err(fail)?;
    let bytes = std::fs::read(path).map_err(|e| fail(ErrorKind::Io(e.to_string())))?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut doc = convert_bytes_reporting(&name, &bytes, options, steps).map_err(fail)?;
    doc.meta.source_path = Some(path.display().to_string());
    Ok(doc)
}

/// Refuses what needs no reading: a folder, or a file over the size limit.
fn check_file(path: &Path, options: &ConvertOptions) -> Result<(), ErrorKind> {
    let meta = std::fs::metadata(path).map_err(|e| ErrorKind::Io(e.to_string()))?;
    if meta.is_dir() {
        return Err(ErrorKind::Unsupported("a folder, not a file".into()));
    }
    if meta.len() > options.max_file_bytes {
        return Err(ErrorKind::TooLarge { size: meta.len(), limit: options.max_file_bytes });
    }
    Ok(())
}

/// Converts in-memory bytes; `name` (a file name) gives the extension used to cross-check the bytes.
pub fn convert_bytes(name: &str, bytes: &[u8], options: &ConvertOptions) -> Result<Document, ErrorKind> {
    convert_bytes_reporting(name, bytes, options, &mut progress::ignore)
}

/// [`convert_bytes`], giving `steps` the pages of a paged format as they are read.
pub fn convert_bytes_reporting(
    name: &str,
    bytes: &[u8],
    options: &ConvertOptions,
    steps: &mut dyn FnMut(Step),
) -> Result<Document, ErrorKind> {
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        return Err(ErrorKind::Empty);
    }
    let format = detect_format(name, bytes)?;
    let converter = converter_for(format);
    converter.convert_reporting(name, bytes, options, steps)
}

/// The converter of a format.
pub fn converter_for(format: Format) -> Box<dyn Converter> {
    match format {
        Format::Text => Box::new(text::TextConverter),
        Format::Pdf => Box::new(pdf::PdfConverter),
        Format::Docx => Box::new(docx::DocxConverter),
        Format::Html => Box::new(html::HtmlConverter),
        Format::Epub => Box::new(epub::EpubConverter),
        Format::Markdown => Box::new(markdown::MarkdownConverter),
        Format::Xml => Box::new(uslm::UslmConverter),
    }
}

pub mod text;
