//! The PDF engine: pdfium, found and bound once per process, used by one conversion at a time.

use super::binding::Doc;
use crate::{ConvertOptions, ErrorKind};
use pdfium_render::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

static ENGINE: OnceLock<Result<Pdfium, String>> = OnceLock::new();
static ENGINE_LOCK: Mutex<()> = Mutex::new(());

const LIBRARY_NAME: &str = "libpdfium.so";

/// Where `libpdfium.so` lies: the option, then `.assets/pdfium/` in the working
/// directory and its ancestors, then beside the executable and its ancestors.
pub fn find_pdfium_library(options: &ConvertOptions) -> Option<PathBuf> {
    let as_file = |p: PathBuf| -> Option<PathBuf> {
        if p.is_dir() {
            let f = p.join(LIBRARY_NAME);
            f.is_file().then_some(f)
        } else {
            p.is_file().then_some(p)
        }
    };
    if let Some(p) = &options.pdfium_library {
        return as_file(p.clone());
    }
    let search_up = |start: &Path| -> Option<PathBuf> {
        start.ancestors().map(|d| d.join(".assets/pdfium").join(LIBRARY_NAME)).find(|f| f.is_file())
    };
    if let Ok(cwd) = std::env::current_dir() {
        if let Some(f) = search_up(&cwd) {
            return Some(f);
        }
    }
    if let Ok(exe) = std::env::current_exe() {
        if let Some(dir) = exe.parent() {
            if let Some(f) = as_file(dir.join(LIBRARY_NAME)) {
                return Some(f);
            }
            if let Some(f) = search_up(dir) {
                return Some(f);
            }
        }
    }
    None
}

fn engine(options: &ConvertOptions) -> Result<&'static Pdfium, ErrorKind> {
    if let Some(p) = &options.pdfium_library {
        // An explicitly named library must exist, even when one is already bound.
        if find_pdfium_library(options).is_none() {
            return Err(ErrorKind::PdfEngineMissing(format!("{} does not exist", p.display())));
        }
    }
    if let Some(done) = ENGINE.get() {
        return done.as_ref().map_err(|e| ErrorKind::PdfEngineMissing(e.clone()));
    }
    let Some(path) = find_pdfium_library(options) else {
        // Not cached: the library may be installed later in this process.
        return Err(ErrorKind::PdfEngineMissing(format!(
            "{LIBRARY_NAME} not found (set FOLIO_PDFIUM or put it in .assets/pdfium/)"
        )));
    };
    let result = ENGINE.get_or_init(|| {
        let _guard = ENGINE_LOCK.lock().unwrap_or_else(|p| p.into_inner());
        std::panic::catch_unwind(|| {
            Pdfium::bind_to_library(&path)
                .map(Pdfium::new)
                .map_err(|e| format!("cannot load {}: {e}", path.display()))
        })
        .unwrap_or_else(|_| Err(format!("cannot load {}", path.display())))
    });
    result.as_ref().map_err(|e| ErrorKind::PdfEngineMissing(e.clone()))
}

/// Whether the file ends with a PDF end-of-file marker (a truncated download does not).
pub(super) fn has_eof_marker(bytes: &[u8]) -> bool {
    let tail = &bytes[bytes.len().saturating_sub(16 * 1024)..];
    tail.windows(5).any(|w| w == b"%%EOF")
}

/// Runs `f` with this process's PDFium, holding the engine's lock. PDFium can be bound only once
/// per process, so anything else in a process that converts PDFs (a tool rendering pages, a test)
/// must use the converter's binding through here rather than bind its own.
pub fn with_pdfium<T>(options: &ConvertOptions, f: impl FnOnce(&Pdfium) -> T) -> Result<T, ErrorKind> {
    let pdfium = engine(options)?;
    let _guard = ENGINE_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    Ok(f(pdfium))
}

/// Opens `bytes` as a document and runs `f` on it, holding the engine's lock. A panic in the
/// reading (pdfium's wrapper or Folio's own layout code) is a fault of the reader, not proof the
/// file is damaged: it becomes a `Crashed` error naming what failed, and other files go on.
pub(super) fn with_document<T>(
    bytes: &[u8],
    options: &ConvertOptions,
    f: impl FnOnce(Doc<'_>) -> T,
) -> Result<T, ErrorKind> {
    let pdfium = engine(options)?;
    let _guard = ENGINE_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let doc = Doc::open(pdfium.bindings(), bytes)?;
        Ok(f(doc))
    }))
    .unwrap_or_else(|panic| {
        // The panic's message without the text it quotes, which may be the document's.
        let what = folio_core::panics::message(panic.as_ref());
        Err(ErrorKind::Crashed(format!("the PDF reader stopped on an internal error ({what})")))
    })
}
