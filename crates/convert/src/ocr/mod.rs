//! OCR: the words, with their boxes, of a grayscale page image, by Tesseract.
//!
//! libtesseract (4 or 5) is loaded at run time, so Folio builds and runs without it; then
//! [`OcrEngine::load`] returns [`OcrError::NotInstalled`]. On Debian and Ubuntu the packages
//! `tesseract-ocr` and `tesseract-ocr-eng` (which bring `libtesseract5`) are all it needs.
//!
//! ```no_run
//! use folio_convert::ocr::{OcrEngine, OcrOptions};
//! # let (pixels, width, height) = (vec![255u8; 1275 * 1650], 1275, 1650);
//! let mut engine = OcrEngine::load(&OcrOptions::default())?;
//! for word in engine.recognize(&pixels, width, height, width, 150)? {
//!     println!("{} at ({}, {})", word.text, word.left, word.top);
//! }
//! # Ok::<(), folio_convert::ocr::OcrError>(())
//! ```
//!
//! An engine is `Send` but not `Sync`: start one per worker thread (about 0.1–0.3 s, loading the
//! language model). Each page runs on the calling thread alone unless [`OcrOptions::openmp`]:
//! Tesseract's LSTM otherwise asks OpenMP for four threads a page, which on two cores spin-wait on
//! each other and cost five times the CPU (the engine turns this off per call, with
//! `omp_set_max_active_levels(0)` on the calling thread, whatever `OMP_THREAD_LIMIT` says).
//!
//! Speed, measured with `examples/ocr_bench.rs` on the 2-core build machine (AMD EPYC VM, shared
//! with other builds, so the figures are the best of several runs or from CPU time): Tesseract
//! 5.3.0, Debian's `eng` model (tessdata_fast), US-letter pages rendered at 150 dpi (1275 × 1650).
//!
//! | pages/s (CPU-s a page)                     | dense page: 10 pt, 744 words | 12 pt, 517 words |
//! |--------------------------------------------|------------------------------|------------------|
//! | 1 engine, serial (default; as OMP_THREAD_LIMIT=1) | 0.24–0.27 (3.7–4.1)   | 0.32             |
//! | 2 engines on 2 threads, serial             | 0.48–0.49                    | 0.62             |
//! | 1 engine, OpenMP on (Tesseract's default)  | 0.05–0.08 (18–19)            |                  |
//! | 2 engines on 2 threads, OpenMP on          | 0.10                         |                  |
//!
//! Inverted-text detection is off (`tessedit_do_invert=0`). When on, Tesseract reads each line of
//! low confidence a second time, inverted; on a clean page that made no measurable difference (3.9
//! to 4.6 s a page either way), on a poor scan it costs time, and scanned documents rarely have
//! light text on a dark ground.
//!
//! All `unsafe` code is in the private `ffi` module.

#![deny(unsafe_code)]

#[allow(unsafe_code)]
mod ffi;
mod tsv;

pub use tsv::parse_tsv;

use std::ffi::CString;
use std::path::{Path, PathBuf};

/// The library's file name, as the system loader looks for it.
const LIBRARY_NAME: &str = "libtesseract.so.5";
/// Where Debian and Ubuntu put the language files (Tesseract 5, then 4).
const DEBIAN_TESSDATA: [&str; 2] =
    ["/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata"];

/// One recognised word; coordinates in pixels of the image, from its top-left corner.
#[derive(Debug, Clone, PartialEq)]
pub struct OcrWord {
    /// The word, without surrounding whitespace; never empty.
    pub text: String,
    /// Left edge of the word's box.
    pub left: u32,
    /// Top edge of the word's box.
    pub top: u32,
    /// Width of the word's box.
    pub width: u32,
    /// Height of the word's box.
    pub height: u32,
    /// Tesseract's confidence, 0 to 100.
    pub conf: f32,
    /// The text block (1, 2, …) in Tesseract's reading order.
    pub block: u32,
    /// The paragraph within the block (1, 2, …).
    pub par: u32,
    /// The line within the paragraph (1, 2, …): `(block, par, line)` names a line of the page.
    pub line: u32,
}

/// Where Tesseract and its language files are, and which language to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OcrOptions {
    /// `libtesseract.so.5` (or a folder holding it); `None` tries `libtesseract.so.5` and
    /// `libtesseract.so` through the system loader.
    pub library: Option<PathBuf>,
    /// The folder of `<language>.traineddata` files, or a folder whose `tessdata` subfolder holds
    /// them (`TESSDATA_PREFIX`'s convention); `None` tries Debian's folders for Tesseract 5 and 4.
    pub tessdata: Option<PathBuf>,
    /// Tesseract language code(s): "eng", or several joined with '+' ("eng+deu").
    pub language: String,
    /// Let Tesseract spread each page over its OpenMP threads (its own default; `OMP_THREAD_LIMIT`
    /// caps them). Off (the default), a page runs on the calling thread alone: faster even for a
    /// single engine on a small machine (see the module's figures), and what one engine per worker
    /// thread needs.
    pub openmp: bool,
}

impl Default for OcrOptions {
    fn default() -> Self {
        OcrOptions { library: None, tessdata: None, language: "eng".into(), openmp: false }
    }
}

/// Why OCR could not run; the messages are meant for the user.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OcrError {
    /// libtesseract or the language file is missing.
    #[error("OCR engine not installed: {0}")]
    NotInstalled(String),
    /// Tesseract is there but would not start.
    #[error("OCR engine could not start: {0}")]
    InitFailed(String),
    /// The image given is not one Tesseract can be given (empty, too large, buffer too short).
    #[error("OCR cannot read this image: {0}")]
    InvalidImage(String),
    /// Tesseract failed on the image.
    #[error("OCR failed on this page: {0}")]
    RecognitionFailed(String),
}

/// A started Tesseract engine with its language loaded.
///
/// `Send` but not `Sync`: Tesseract's engine may move between threads but must never be used by
/// two at once, and a page takes long enough that sharing one behind a lock would serialise the
/// work. Start one per worker thread.
pub struct OcrEngine {
    engine: ffi::Engine,
    version: String,
}

impl std::fmt::Debug for OcrEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OcrEngine").field("version", &self.version).finish_non_exhaustive()
    }
}

impl OcrEngine {
    /// Loads libtesseract and the language file, and starts an engine (fully automatic page
    /// segmentation, messages silenced, inverted-text detection off).
    pub fn load(options: &OcrOptions) -> Result<Self, OcrError> {
        let language = language_code(&options.language)?;
        let api = load_library(options)?;
        let tessdata = find_tessdata(options)?;
        let version = api.version();
        if version.split('.').next().and_then(|m| m.parse::<u32>().ok()).is_some_and(|major| major < 4) {
            return Err(OcrError::InitFailed(format!(
                "Tesseract {version} is too old; 4 or newer is needed"
            )));
        }
        let dir = tessdata.to_str().and_then(|d| CString::new(d).ok()).ok_or_else(|| {
            OcrError::InitFailed(format!("the language folder's name is unusable: {}", tessdata.display()))
        })?;
        let variables = [(c"tessedit_do_invert", c"0")];
        let engine = ffi::Engine::start(api, &dir, &language, &variables, !options.openmp)
            .map_err(OcrError::InitFailed)?;
        Ok(OcrEngine { engine, version })
    }

    /// Tesseract's version, e.g. "5.3.0".
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The words of a page image, in Tesseract's reading order.
    ///
    /// `pixels`: 8-bit gray, row-major, `stride` bytes per row (`stride >= width`), at least
    /// `stride * height` bytes; `dpi`: the image's resolution (70 to 2400). Sides are limited to
    /// 20,000 pixels. Bad dimensions are refused with [`OcrError::InvalidImage`] before Tesseract
    /// sees the buffer.
    pub fn recognize(
        &mut self,
        pixels: &[u8],
        width: u32,
        height: u32,
        stride: u32,
        dpi: u32,
    ) -> Result<Vec<OcrWord>, OcrError> {
        let image = ffi::GrayImage::new(pixels, width, height, stride).map_err(OcrError::InvalidImage)?;
        if !(70..=2400).contains(&dpi) {
            return Err(OcrError::InvalidImage(format!("{dpi} dpi is outside 70 to 2400")));
        }
        let tsv = self.engine.recognize_tsv(&image, dpi).map_err(OcrError::RecognitionFailed)?;
        Ok(parse_tsv(&tsv))
    }
}

/// The language as Tesseract takes it: ASCII letters, digits, '_' and '-', joined with '+'.
fn language_code(language: &str) -> Result<CString, OcrError> {
    let valid = |part: &str| {
        !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    };
    if !language.split('+').all(valid) {
        return Err(OcrError::InitFailed(format!("{language:?} is not a Tesseract language code")));
    }
    CString::new(language).map_err(|_| OcrError::InitFailed(format!("{language:?} is not a language code")))
}

/// The folder holding every `<language>.traineddata` of `options.language`: `options.tessdata`
/// or its `tessdata` subfolder (only these, when given), else Debian's folders.
pub fn find_tessdata(options: &OcrOptions) -> Result<PathBuf, OcrError> {
    let has_all =
        |dir: &Path| options.language.split('+').all(|l| dir.join(format!("{l}.traineddata")).is_file());
    let candidates: Vec<PathBuf> = match &options.tessdata {
        Some(dir) => vec![dir.join("tessdata"), dir.clone()],
        None => DEBIAN_TESSDATA.iter().map(PathBuf::from).collect(),
    };
    if let Some(found) = candidates.iter().find(|d| has_all(d)) {
        return Ok(found.clone());
    }
    let files: Vec<String> = options.language.split('+').map(|l| format!("{l}.traineddata")).collect();
    let tried: Vec<String> = candidates.iter().map(|d| d.display().to_string()).collect();
    Err(OcrError::NotInstalled(format!(
        "the language data {} is not in {} (install tesseract-ocr-{}, or set TESSDATA_PREFIX to where it is)",
        files.join(" and "),
        tried.join(", "),
        options.language.split('+').next().unwrap_or("eng"),
    )))
}

/// libtesseract: the option's path, else the system loader's `libtesseract.so.5`, then
/// `libtesseract.so`.
fn load_library(options: &OcrOptions) -> Result<&'static ffi::Api, OcrError> {
    if let Some((path, from)) = options.library.clone().map(|p| (p, "FOLIO_TESSERACT")) {
        let path = if path.is_dir() { path.join(LIBRARY_NAME) } else { path };
        // A relative name without a folder would send the system loader searching.
        let path = std::path::absolute(&path).unwrap_or(path);
        let name = path.to_str().ok_or_else(|| {
            OcrError::NotInstalled(format!("{} (from {from}) is not a usable file name", path.display()))
        })?;
        return ffi::Api::load(name)
            .map_err(|e| OcrError::NotInstalled(format!("{name} (from {from}) could not be loaded: {e}")));
    }
    ffi::Api::load(LIBRARY_NAME).or_else(|_| ffi::Api::load("libtesseract.so")).map_err(|_| {
        OcrError::NotInstalled(format!(
            "{LIBRARY_NAME} not found (install the packages tesseract-ocr and tesseract-ocr-eng, or set FOLIO_TESSERACT)"
        ))
    })
}
