//! PDF: text with per-character font size, weight and position from pdfium, then layout analysis.
//!
//! The conversion runs in two stages, one module per step:
//!
//! 1. Page by page: [`chars`] reads every character (unicode, box, baseline, font size, weight
//!    and font name) into line fragments; [`layout`] finds text columns and puts the fragments into
//!    reading order as compact [`layout::Line`] records (text and dominant style).
//! 2. Document-wide: [`furniture`] finds the body style and removes running headers, footers and
//!    page numbers; [`toc`] skips printed contents pages (and keeps their entries); [`bookmarks`]
//!    and [`toc`] mark the lines that a declared outline names; [`blocks`] groups lines into
//!    paragraphs, list items and code (joining hyphenated line ends), and the tables that
//!    [`tables`] rebuilds from aligned lines into blocks of their own; [`headings`] decides which
//!    blocks are headings and their levels.
//!
//! Heading levels come, in this order, from the PDF's bookmarks (when
//! [`ConvertOptions::use_bookmarks`]), or from the printed contents list when the PDF has no
//! bookmarks (each entry matched to its heading line), then from tagged-PDF heading roles (H1..H6
//! in the structure tree, matched to text through marked-content ids), numbering patterns ("1.2.3",
//! "CHAPTER ONE", "ARTICLE IV"), and font size and weight relative to the body text, heading styles
//! clustered across the whole document.
//!
//! Pages without a text layer are read with Tesseract ([`scan`]) when [`ConvertOptions::ocr`] is
//! on, and go through the same stages.
//!
//! [`binding`] holds every call into pdfium; [`engine`] binds the library once per process and
//! lets one conversion use it at a time; [`render`] draws a page for the reader.

mod binding;
mod blocks;
mod bookmarks;
mod chars;
mod convert;
mod engine;
mod furniture;
mod headings;
mod layout;
pub mod outline_check;
mod passage;
mod render;
mod scan;
mod tables;
mod titles;
mod toc;

pub use bookmarks::{read_outline, OutlineEntry};
pub use engine::{find_pdfium_library, with_pdfium};
pub use render::{render_page, RenderedPage};
pub use titles::normalise_title;

use crate::{ConvertOptions, Converter, ErrorKind};
use folio_core::model::{Document, Format};

/// Converts PDF files with pdfium.
#[derive(Debug, Default, Clone, Copy)]
pub struct PdfConverter;

impl Converter for PdfConverter {
    fn format(&self) -> Format {
        Format::Pdf
    }

    fn convert(&self, name: &str, bytes: &[u8], options: &ConvertOptions) -> Result<Document, ErrorKind> {
        self.convert_reporting(name, bytes, options, &mut folio_core::progress::ignore)
    }

    fn convert_reporting(
        &self,
        name: &str,
        bytes: &[u8],
        options: &ConvertOptions,
        steps: &mut dyn FnMut(folio_core::progress::Step),
    ) -> Result<Document, ErrorKind> {
        if !engine::has_eof_marker(bytes) {
            return Err(ErrorKind::Corrupt("the PDF is truncated (no end-of-file marker)".into()));
        }
        engine::with_document(bytes, options, |doc| {
            convert::convert_document(doc, name, bytes, options, steps)
        })?
    }
}

/// For the fuzzer only: page lines built from arbitrary bytes go through the table builder,
/// which checks its invariants; returns the tables as TSV.
#[doc(hidden)]
pub fn fuzz_table_builder(data: &[u8]) -> Vec<String> {
    tables::fuzz(data)
}

/// The plain text of each page as pdfium extracts it, without any layout analysis.
pub fn page_texts(bytes: &[u8], options: &ConvertOptions) -> Result<Vec<String>, ErrorKind> {
    engine::with_document(bytes, options, |d| {
        (0..d.page_count().unwrap_or(0))
            .map(|p| d.page(p).map(|pg| pg.plain_text()).unwrap_or_default())
            .collect()
    })
}
