//! PDF: text with per-character font size, weight and position from pdfium, then layout analysis.
//!
//! The conversion runs in two stages. Stage one walks the pages one at a time, reading every
//! character (unicode, box, baseline, font size, weight and font name), grouping characters into
//! line fragments, detecting text columns and putting the fragments into reading order; each page
//! leaves behind only compact [`Line`] records (its text and dominant style) plus style statistics.
//! Stage two works on those records document-wide: it finds the body style, removes running
//! headers, footers and page numbers, skips printed table-of-contents pages, groups lines into
//! paragraphs (joining hyphenated line ends), and decides headings and their levels.
//!
//! Heading levels come, in this order, from the PDF's bookmarks (when
//! [`ConvertOptions::use_bookmarks`]), or from the printed contents list when the PDF has no
//! bookmarks (each entry matched to its heading line), then from tagged-PDF heading roles (H1..H6
//! in the structure tree, matched to text through marked-content ids), numbering patterns ("1.2.3",
//! "CHAPTER ONE", "ARTICLE IV"), and font size and weight relative to the body text, heading styles
//! clustered across the whole document.
//!
//! pdfium is bound once per process and used by one conversion at a time.

use crate::{ConvertOptions, Converter, ErrorKind};
use folio_core::model::{BlockKind, Document, DocumentBuilder, Format, PageRange};
use folio_core::numbering::{split_heading_number, Container, Label};
use pdfium_render::prelude::*;
use regex::Regex;
use std::collections::HashMap;
use std::ffi::c_void;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// Converts PDF files with pdfium.
#[derive(Debug, Default, Clone, Copy)]
pub struct PdfConverter;

impl Converter for PdfConverter {
    fn format(&self) -> Format {
        Format::Pdf
    }

    fn convert(&self, name: &str, bytes: &[u8], options: &ConvertOptions) -> Result<Document, ErrorKind> {
        if !has_eof_marker(bytes) {
            return Err(ErrorKind::Corrupt("the PDF is truncated (no end-of-file marker)".into()));
        }
        let pdfium = engine(options)?;
        // pdfium is not thread-safe across documents: one conversion at a time.
        let _guard = ENGINE_LOCK.lock().unwrap_or_else(|p| p.into_inner());
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            convert_document(pdfium, name, bytes, options)
        }));
        match run {
            Ok(result) => result,
            Err(_) => Err(ErrorKind::Corrupt("the PDF engine failed on this file".into())),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The engine: found and bound once per process.
// ---------------------------------------------------------------------------------------------

static ENGINE: OnceLock<Result<Pdfium, String>> = OnceLock::new();
static ENGINE_LOCK: Mutex<()> = Mutex::new(());

const LIBRARY_NAME: &str = "libpdfium.so";

/// Where `libpdfium.so` lies: the option, `$FOLIO_PDFIUM`, then `.assets/pdfium/` in the working
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
    if let Some(p) = std::env::var_os("FOLIO_PDFIUM").filter(|v| !v.is_empty()) {
        if let Some(f) = as_file(PathBuf::from(p)) {
            return Some(f);
        }
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

fn has_eof_marker(bytes: &[u8]) -> bool {
    let tail = &bytes[bytes.len().saturating_sub(16 * 1024)..];
    tail.windows(5).any(|w| w == b"%%EOF")
}

// ---------------------------------------------------------------------------------------------
// Raw pdfium handles with RAII closing.
// ---------------------------------------------------------------------------------------------

struct RawDoc<'a> {
    b: &'a dyn PdfiumLibraryBindings,
    doc: FPDF_DOCUMENT,
}

impl Drop for RawDoc<'_> {
    fn drop(&mut self) {
        unsafe { self.b.FPDF_CloseDocument(self.doc) }
    }
}

struct RawPage<'a> {
    b: &'a dyn PdfiumLibraryBindings,
    page: FPDF_PAGE,
    text: FPDF_TEXTPAGE,
}

impl Drop for RawPage<'_> {
    fn drop(&mut self) {
        unsafe {
            if !self.text.is_null() {
                self.b.FPDFText_ClosePage(self.text);
            }
            self.b.FPDF_ClosePage(self.page);
        }
    }
}

fn open_document<'a>(b: &'a dyn PdfiumLibraryBindings, bytes: &'a [u8]) -> Result<RawDoc<'a>, ErrorKind> {
    let doc = unsafe { b.FPDF_LoadMemDocument64(bytes, None) };
    if doc.is_null() {
        let code = unsafe { b.FPDF_GetLastError() };
        return Err(match code as u32 {
            4 | 5 => ErrorKind::Encrypted,
            2 | 3 => ErrorKind::Corrupt("pdfium cannot parse the file".into()),
            _ => ErrorKind::Corrupt(format!("pdfium cannot open the file (error {code})")),
        });
    }
    Ok(RawDoc { b, doc })
}

fn utf16_buffer_to_string(buf: &[u16]) -> String {
    let end = buf.iter().position(|&c| c == 0).unwrap_or(buf.len());
    String::from_utf16_lossy(&buf[..end])
}

fn meta_text(d: &RawDoc, tag: &str) -> String {
    unsafe {
        let len = d.b.FPDF_GetMetaText(d.doc, tag, std::ptr::null_mut(), 0) as usize;
        if len <= 2 || len > 1 << 16 {
            return String::new();
        }
        let mut buf = vec![0u16; len / 2 + 1];
        d.b.FPDF_GetMetaText(d.doc, tag, buf.as_mut_ptr() as *mut c_void, (buf.len() * 2) as _);
        utf16_buffer_to_string(&buf)
    }
}

/// One bookmark: its depth (0 = top), title, and destination page (0-based) and y.
#[derive(Debug, Clone)]
struct Bookmark {
    depth: u8,
    title: String,
    page: Option<u32>,
    y: Option<f32>,
}

fn read_bookmarks(d: &RawDoc, page_count: u32) -> Vec<Bookmark> {
    let mut out = Vec::new();
    let mut stack: Vec<(FPDF_BOOKMARK, u8)> = Vec::new();
    let first = unsafe { d.b.FPDFBookmark_GetFirstChild(d.doc, std::ptr::null_mut()) };
    if !first.is_null() {
        stack.push((first, 0));
    }
    // Depth-first, pre-order. An outline may be cyclic (an item's /Next or /First leading back
    // to an item already read): pdfium hands out one handle per outline dictionary, so each handle
    // is read once.
    let mut seen = std::collections::HashSet::new();
    while let Some((bm, depth)) = stack.pop() {
        if out.len() > 20_000 {
            break;
        }
        if !seen.insert(bm as usize) {
            continue;
        }
        let title = unsafe {
            let len = d.b.FPDFBookmark_GetTitle(bm, std::ptr::null_mut(), 0) as usize;
            if len > 2 && len < 1 << 14 {
                let mut buf = vec![0u16; len / 2 + 1];
                d.b.FPDFBookmark_GetTitle(bm, buf.as_mut_ptr() as *mut c_void, (buf.len() * 2) as _);
                utf16_buffer_to_string(&buf)
            } else {
                String::new()
            }
        };
        let (page, y) = unsafe {
            let mut dest = d.b.FPDFBookmark_GetDest(d.doc, bm);
            if dest.is_null() {
                let action = d.b.FPDFBookmark_GetAction(bm);
                if !action.is_null() {
                    dest = d.b.FPDFAction_GetDest(d.doc, action);
                }
            }
            if dest.is_null() {
                (None, None)
            } else {
                let idx = d.b.FPDFDest_GetDestPageIndex(d.doc, dest);
                let page = (idx >= 0 && (idx as u32) < page_count).then_some(idx as u32);
                let (mut hx, mut hy, mut hz) = (0, 0, 0);
                let (mut x, mut y, mut z) = (0f32, 0f32, 0f32);
                let ok =
                    d.b.FPDFDest_GetLocationInPage(dest, &mut hx, &mut hy, &mut hz, &mut x, &mut y, &mut z);
                (page, (ok != 0 && hy != 0 && y.is_finite()).then_some(y))
            }
        };
        out.push(Bookmark { depth, title: title.trim().to_string(), page, y });
        let next = unsafe { d.b.FPDFBookmark_GetNextSibling(d.doc, bm) };
        if !next.is_null() {
            stack.push((next, depth));
        }
        let child = unsafe { d.b.FPDFBookmark_GetFirstChild(d.doc, bm) };
        if !child.is_null() && depth < 30 {
            stack.push((child, depth + 1));
        }
    }
    out
}

/// One entry of a PDF's bookmark outline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutlineEntry {
    /// 1 for top-level bookmarks.
    pub level: u8,
    pub title: String,
    /// 1-based destination page.
    pub page: Option<u32>,
}

fn with_document<T>(
    bytes: &[u8],
    options: &ConvertOptions,
    f: impl FnOnce(&RawDoc) -> T,
) -> Result<T, ErrorKind> {
    let pdfium = engine(options)?;
    let _guard = ENGINE_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let doc = open_document(pdfium.bindings(), bytes)?;
        Ok(f(&doc))
    }))
    .unwrap_or_else(|_| Err(ErrorKind::Corrupt("the PDF engine failed on this file".into())))
}

/// The PDF's bookmarks (its declared outline), in document order; empty when it has none.
pub fn read_outline(bytes: &[u8], options: &ConvertOptions) -> Result<Vec<OutlineEntry>, ErrorKind> {
    with_document(bytes, options, |d| {
        let count = unsafe { d.b.FPDF_GetPageCount(d.doc) }.max(0) as u32;
        read_bookmarks(d, count)
            .into_iter()
            .map(|b| OutlineEntry { level: b.depth + 1, title: b.title, page: b.page.map(|p| p + 1) })
            .collect()
    })
}

/// The plain text of each page as pdfium extracts it, without any layout analysis.
pub fn page_texts(bytes: &[u8], options: &ConvertOptions) -> Result<Vec<String>, ErrorKind> {
    with_document(bytes, options, |d| {
        let count = unsafe { d.b.FPDF_GetPageCount(d.doc) }.max(0);
        let mut out = Vec::with_capacity(count as usize);
        for p in 0..count {
            let page = unsafe { d.b.FPDF_LoadPage(d.doc, p) };
            if page.is_null() {
                out.push(String::new());
                continue;
            }
            let raw = RawPage { b: d.b, page, text: unsafe { d.b.FPDFText_LoadPage(page) } };
            if raw.text.is_null() {
                out.push(String::new());
                continue;
            }
            let n = unsafe { d.b.FPDFText_CountChars(raw.text) }.max(0);
            let mut buf = vec![0u16; n as usize + 1];
            let got = unsafe { d.b.FPDFText_GetText(raw.text, 0, n, buf.as_mut_ptr()) };
            buf.truncate((got.max(0) as usize).min(buf.len()));
            out.push(utf16_buffer_to_string(&buf));
        }
        out
    })
}

// ---------------------------------------------------------------------------------------------
// Stage one: characters → fragments → lines in reading order, one page at a time.
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone)]
struct FontInfo {
    name: String,
    bold_name: bool,
    italic: bool,
    fixed: bool,
}

/// Document-wide tables filled while reading pages.
#[derive(Default)]
struct Tables {
    fonts: Vec<FontInfo>,
    font_ids: HashMap<String, u16>,
    /// Characters per (size in half points, weight, font).
    style_chars: HashMap<(u16, i16, u16), u64>,
}

impl Tables {
    fn intern_font(&mut self, raw: &str, flags: i32) -> u16 {
        if let Some(&id) = self.font_ids.get(raw) {
            return id;
        }
        let base = raw.split_once('+').map(|(p, rest)| if p.len() == 6 { rest } else { raw }).unwrap_or(raw);
        let lower = base.to_ascii_lowercase();
        let bold_name =
            ["bold", "black", "heavy", "semibold", "demi", "-bd", "bx"].iter().any(|k| lower.contains(k))
                || lower.ends_with("-b")
                || (flags & 0x40000) != 0;
        let italic = lower.contains("italic") || lower.contains("oblique") || (flags & 0x40) != 0;
        let fixed = (flags & 1) != 0
            || ["courier", "mono", "consol", "cmtt", "typewriter", "menlo"].iter().any(|k| lower.contains(k));
        let id = self.fonts.len().min(u16::MAX as usize) as u16;
        self.fonts.push(FontInfo { name: base.to_string(), bold_name, italic, fixed });
        self.font_ids.insert(raw.to_string(), id);
        id
    }
}

/// A line of text in reading order, the compact record kept for the whole document.
#[derive(Debug, Clone)]
struct Line {
    /// 0-based page index.
    page: u32,
    x0: f32,
    x1: f32,
    /// Baseline.
    y: f32,
    top: f32,
    /// Dominant effective font size (points).
    size: f32,
    weight: i16,
    font: u16,
    /// Column index on its page (0 for single-column text and spanning lines).
    col: u8,
    /// Left and right edge of the column the line lies in.
    col_x0: f32,
    col_x1: f32,
    text: String,
    /// Share of characters in a monospaced font.
    fixed_frac: f32,
    /// Heading level from the structure tree.
    tag: Option<u8>,
    /// Wide gaps inside the line (table cells set side by side).
    wide_gaps: u8,
    /// Dropped as running header/footer, page number or contents page.
    skip: bool,
    /// Heading level declared by the bookmarks or the printed contents list.
    declared: Option<u8>,
    /// Whether this line was synthesised from a bookmark that matched no printed line.
    synthetic: bool,
}

#[derive(Debug, Clone, Copy)]
struct PageInfo {
    width: f32,
    height: f32,
}

/// A run of characters on one baseline without large gaps.
#[derive(Debug, Clone)]
struct Frag {
    x0: f32,
    x1: f32,
    y: f32,
    top: f32,
    bottom: f32,
    size: f32,
    text: String,
    /// Characters per style key (size in half points, weight, font).
    styles: Vec<((u16, i16, u16), u32)>,
    nchars: u32,
    /// Left edge of the last character (ligature parts share one box).
    last_left: f32,
    /// Characters in a monospaced font.
    fixed_chars: u32,
    /// Heading level from the structure tree (tagged PDFs).
    tag: Option<u8>,
}

impl Frag {
    fn dominant(&self) -> (u16, i16, u16) {
        self.styles.iter().max_by_key(|(_, n)| *n).map(|(k, _)| *k).unwrap_or((0, 400, 0))
    }
    fn width(&self) -> f32 {
        self.x1 - self.x0
    }
}

fn add_style(styles: &mut Vec<((u16, i16, u16), u32)>, key: (u16, i16, u16), n: u32) {
    if let Some(e) = styles.iter_mut().find(|(k, _)| *k == key) {
        e.1 += n;
    } else {
        styles.push((key, n));
    }
}

struct CharStyle {
    obj: FPDF_PAGEOBJECT,
    tag: Option<u8>,
    size: f32,
    weight: i16,
    font: u16,
    rotated: bool,
}

/// Tagged PDFs: the marked-content ids of the page's H1..H6 structure elements, with their level.
fn heading_mcids(b: &dyn PdfiumLibraryBindings, page: FPDF_PAGE) -> HashMap<i32, u8> {
    let mut out = HashMap::new();
    let tree = unsafe { b.FPDF_StructTree_GetForPage(page) };
    if tree.is_null() {
        return out;
    }
    let mut stack: Vec<(FPDF_STRUCTELEMENT, Option<u8>, u8)> = Vec::new();
    let n = unsafe { b.FPDF_StructTree_CountChildren(tree) };
    for i in 0..n.clamp(0, 10_000) {
        let el = unsafe { b.FPDF_StructTree_GetChildAtIndex(tree, i) };
        if !el.is_null() {
            stack.push((el, None, 0));
        }
    }
    let mut visited = 0usize;
    let mut buf = vec![0u16; 64];
    while let Some((el, inherited, depth)) = stack.pop() {
        visited += 1;
        if visited > 200_000 {
            break;
        }
        let len = unsafe {
            b.FPDF_StructElement_GetType(el, buf.as_mut_ptr() as *mut c_void, (buf.len() * 2) as _)
        } as usize;
        let ty = if len > 0 && len <= buf.len() * 2 {
            utf16_buffer_to_string(&buf[..len / 2])
        } else {
            String::new()
        };
        let own = match ty.as_bytes() {
            [b'H', d @ b'1'..=b'6'] => Some(d - b'0'),
            _ => None,
        };
        let level = own.or(inherited);
        if let Some(lv) = level {
            let count = unsafe { b.FPDF_StructElement_GetMarkedContentIdCount(el) };
            for k in 0..count.clamp(0, 1000) {
                let id = unsafe { b.FPDF_StructElement_GetMarkedContentIdAtIndex(el, k) };
                if id >= 0 {
                    out.insert(id, lv);
                }
            }
        }
        if depth < 64 {
            let kids = unsafe { b.FPDF_StructElement_CountChildren(el) };
            for k in 0..kids.clamp(0, 10_000) {
                let c = unsafe { b.FPDF_StructElement_GetChildAtIndex(el, k) };
                if !c.is_null() {
                    stack.push((c, level, depth + 1));
                }
            }
        }
    }
    unsafe { b.FPDF_StructTree_Close(tree) };
    out
}

/// Reads one page's characters into fragments.
fn page_fragments(
    b: &dyn PdfiumLibraryBindings,
    text: FPDF_TEXTPAGE,
    tables: &mut Tables,
    tags: &HashMap<i32, u8>,
) -> Vec<Frag> {
    let n = unsafe { b.FPDFText_CountChars(text) };
    let mut frags: Vec<Frag> = Vec::new();
    let mut cur: Option<Frag> = None;
    let mut style: Option<CharStyle> = None;
    let mut name_buf = vec![0u8; 256];
    let flush = |cur: &mut Option<Frag>, frags: &mut Vec<Frag>| {
        if let Some(mut f) = cur.take() {
            let trimmed = f.text.trim_end().len();
            f.text.truncate(trimmed);
            if f.nchars > 0 && !f.text.trim().is_empty() {
                frags.push(f);
            }
        }
    };
    for i in 0..n.max(0) {
        let u = unsafe { b.FPDFText_GetUnicode(text, i) };
        let ch = match u {
            0x0d | 0x0a => {
                flush(&mut cur, &mut frags);
                continue;
            }
            0x02 | 0xad | 0xfffe => '-',
            0 => continue,
            _ => char::from_u32(u).unwrap_or('\u{fffd}'),
        };
        if ch.is_whitespace() || ch.is_control() {
            if let Some(f) = cur.as_mut() {
                if !f.text.ends_with(' ') {
                    f.text.push(' ');
                }
            }
            continue;
        }
        let obj = unsafe { b.FPDFText_GetTextObject(text, i) };
        if style.as_ref().is_none_or(|s| s.obj != obj || obj.is_null()) {
            let fs = unsafe { b.FPDFText_GetFontSize(text, i) } as f32;
            let mut m = FS_MATRIX { a: 1.0, b: 0.0, c: 0.0, d: 1.0, e: 0.0, f: 0.0 };
            let has_m = unsafe { b.FPDFText_GetMatrix(text, i, &mut m) } != 0;
            let scale = if has_m { (m.c * m.c + m.d * m.d).sqrt() } else { 1.0 };
            let mut size = fs * if scale.is_finite() && scale > 0.0 { scale } else { 1.0 };
            if !size.is_finite() || size <= 0.0 {
                size = fs.max(1.0);
            }
            let rotated = has_m && (m.b.abs() > 0.2 * m.a.abs().max(1e-6) || m.a < 0.0);
            let weight = unsafe { b.FPDFText_GetFontWeight(text, i) }.clamp(-1, 1000) as i16;
            let mut flags = 0i32;
            let len = unsafe {
                b.FPDFText_GetFontInfo(
                    text,
                    i,
                    name_buf.as_mut_ptr() as *mut c_void,
                    name_buf.len() as _,
                    &mut flags,
                )
            } as usize;
            let name = if len > 0 && len <= name_buf.len() {
                let end = name_buf[..len].iter().position(|&c| c == 0).unwrap_or(len);
                String::from_utf8_lossy(&name_buf[..end]).into_owned()
            } else {
                String::new()
            };
            let font = tables.intern_font(&name, flags);
            let tag = if tags.is_empty() || obj.is_null() {
                None
            } else {
                tags.get(&unsafe { b.FPDFPageObj_GetMarkedContentID(obj) }).copied()
            };
            style = Some(CharStyle { obj, tag, size, weight, font, rotated });
        }
        let st = style.as_ref().expect("style set above");
        let fixed = tables.fonts.get(st.font as usize).is_some_and(|f| f.fixed) as u32;
        if st.rotated {
            continue;
        }
        let mut r = FS_RECTF { left: 0.0, top: 0.0, right: 0.0, bottom: 0.0 };
        if unsafe { b.FPDFText_GetLooseCharBox(text, i, &mut r) } == 0 {
            continue;
        }
        let (mut ox, mut oy) = (0f64, 0f64);
        let baseline = if unsafe { b.FPDFText_GetCharOrigin(text, i, &mut ox, &mut oy) } != 0 {
            oy as f32
        } else {
            r.bottom
        };
        let size = st.size;
        let key = ((size * 2.0).round().clamp(0.0, 4000.0) as u16, st.weight, st.font);
        *tables.style_chars.entry(key).or_insert(0) += 1;
        let (left, right) = (r.left.min(r.right), r.left.max(r.right));
        let (bottom, top) = (r.bottom.min(r.top), r.bottom.max(r.top));
        let mut start_new = true;
        if let Some(f) = cur.as_mut() {
            let tol = 0.5 * f.size.max(size);
            let small = size < 0.85 * f.size || f.size < 0.85 * size;
            let dy = (baseline - f.y).abs();
            let same_line = dy <= tol || (small && dy <= 0.75 * f.size.max(size));
            let gap = left - f.x1;
            if same_line && left >= f.last_left - 0.3 * size && gap < 1.6 * f.size.max(size) {
                start_new = false;
                if gap > 0.18 * size.min(f.size) && !f.text.ends_with(' ') {
                    f.text.push(' ');
                }
                f.text.push(ch);
                f.x1 = f.x1.max(right);
                f.last_left = left;
                f.top = f.top.max(top);
                f.bottom = f.bottom.min(bottom);
                f.nchars += 1;
                f.fixed_chars += fixed;
                f.tag = f.tag.or(st.tag);
                if !small || size > f.size {
                    // Superscripts do not move the baseline or size of the fragment.
                    if size > f.size * 1.15 {
                        f.y = baseline;
                        f.size = size;
                    }
                }
                add_style(&mut f.styles, key, 1);
            }
        }
        if start_new {
            flush(&mut cur, &mut frags);
            let mut text = String::new();
            text.push(ch);
            cur = Some(Frag {
                x0: left,
                x1: right,
                y: baseline,
                top,
                bottom,
                size,
                text,
                styles: vec![(key, 1)],
                nchars: 1,
                last_left: left,
                fixed_chars: fixed,
                tag: st.tag,
            });
        }
    }
    flush(&mut cur, &mut frags);
    frags
}

/// Column gutters on a page: x-ranges free of text between well-filled columns.
fn find_columns(frags: &[Frag], page: PageInfo) -> Vec<(f32, f32)> {
    if frags.len() < 12 {
        return Vec::new();
    }
    let xmin = frags.iter().map(|f| f.x0).fold(f32::MAX, f32::min).max(0.0);
    let xmax = frags.iter().map(|f| f.x1).fold(f32::MIN, f32::max).min(page.width.max(1.0) * 1.5);
    let span = xmax - xmin;
    if span < 100.0 {
        return Vec::new();
    }
    let narrow: Vec<&Frag> = frags.iter().filter(|f| f.width() < 0.55 * span).collect();
    if narrow.len() < 10 {
        return Vec::new();
    }
    let bins = span.ceil() as usize + 1;
    let mut cover = vec![0u32; bins];
    for f in &narrow {
        let a = ((f.x0 - xmin).max(0.0)) as usize;
        let z = (((f.x1 - xmin).max(0.0)) as usize).min(bins - 1);
        for c in cover.iter_mut().take(z + 1).skip(a) {
            *c += 1;
        }
    }
    // Maximal (nearly) empty runs, not at the edges; a few crossing lines (a table or a title
    // over the columns) become spanning lines.
    let allowed = (narrow.len() / 40).max(1) as u32;
    let mut gutters = Vec::new();
    let mut i = 0;
    while i < bins {
        if cover[i] <= allowed {
            let s = i;
            while i < bins && cover[i] <= allowed {
                i += 1;
            }
            let e = i;
            if s > 0 && e < bins && (e - s) as f32 >= 3.0 {
                gutters.push((xmin + s as f32, xmin + e as f32));
            }
        } else {
            i += 1;
        }
    }
    if gutters.is_empty() {
        return Vec::new();
    }
    // Keep gutters whose columns hold enough text and are wide enough.
    let mut kept: Vec<(f32, f32)> = Vec::new();
    let mut edges: Vec<f32> = vec![xmin];
    for g in &gutters {
        edges.push((g.0 + g.1) / 2.0);
    }
    edges.push(xmax);
    let col_ok = |lo: f32, hi: f32| -> bool {
        let members: Vec<&&Frag> = narrow.iter().filter(|f| f.x0 >= lo - 1.0 && f.x1 <= hi + 1.0).collect();
        if members.len() < 5 || hi - lo < 0.16 * span {
            return false;
        }
        let mut widths: Vec<f32> = members.iter().map(|f| f.width()).collect();
        widths.sort_by(|a, b| a.total_cmp(b));
        let median = widths[widths.len() / 2];
        let chars: usize = members.iter().map(|f| f.text.len()).sum();
        median >= 0.45 * (hi - lo) && chars >= 150
    };
    // Greedy: a gutter is real when the columns on both sides (up to the neighbouring real
    // gutters or edges) are good. Merge bad columns into their neighbours.
    let mut bounds: Vec<f32> = edges.clone();
    loop {
        let mut changed = false;
        let mut j = 1;
        while j + 1 < bounds.len() {
            let left_ok = col_ok(bounds[j - 1], bounds[j]);
            let right_ok = col_ok(bounds[j], bounds[j + 1]);
            if !(left_ok && right_ok) {
                bounds.remove(j);
                changed = true;
            } else {
                j += 1;
            }
        }
        if !changed {
            break;
        }
    }
    for w in bounds.windows(2).skip(1) {
        let x = w[0];
        if let Some(g) = gutters.iter().find(|g| (g.0 + g.1) / 2.0 == x) {
            kept.push(*g);
        }
    }
    // Column text must overlap vertically on both sides of each gutter.
    kept.retain(|g| {
        let left: Vec<&&Frag> = narrow.iter().filter(|f| f.x1 <= g.0 + 0.5).collect();
        let right: Vec<&&Frag> = narrow.iter().filter(|f| f.x0 >= g.1 - 0.5).collect();
        let range = |v: &[&&Frag]| {
            let lo = v.iter().map(|f| f.bottom).fold(f32::MAX, f32::min);
            let hi = v.iter().map(|f| f.top).fold(f32::MIN, f32::max);
            (lo, hi)
        };
        if left.is_empty() || right.is_empty() {
            return false;
        }
        let (l0, l1) = range(&left);
        let (r0, r1) = range(&right);
        let overlap = l1.min(r1) - l0.max(r0);
        overlap > 0.3 * (l1 - l0).min(r1 - r0)
    });
    kept
}

/// Puts a page's fragments into reading order and merges fragments sharing a baseline.
fn page_lines(mut frags: Vec<Frag>, page_index: u32, page: PageInfo) -> Vec<Line> {
    let gutters = find_columns(&frags, page);
    let ncols = gutters.len() + 1;
    // Column of each fragment; None = spans a gutter.
    let col_of = |f: &Frag| -> Option<usize> {
        for (k, g) in gutters.iter().enumerate() {
            if f.x0 < g.0 + 0.5 && f.x1 > g.1 - 0.5 {
                return None;
            }
            if f.x1 <= g.1 - 0.5 && (k == 0 || f.x0 >= gutters[k - 1].0 - 0.5) {
                return Some(k);
            }
        }
        Some(ncols - 1)
    };
    frags.sort_by(|a, b| b.y.total_cmp(&a.y).then(a.x0.total_cmp(&b.x0)));
    let cols: Vec<Option<usize>> = frags.iter().map(col_of).collect();
    // Band separators: spanning fragments, top to bottom.
    let spanning: Vec<usize> = (0..frags.len()).filter(|&i| cols[i].is_none()).collect();
    let mut col_bounds: Vec<(f32, f32)> = Vec::new();
    {
        let xmin = frags.iter().map(|f| f.x0).fold(f32::MAX, f32::min);
        let xmax = frags.iter().map(|f| f.x1).fold(f32::MIN, f32::max);
        let mut lo = xmin;
        for g in &gutters {
            col_bounds.push((lo, g.0));
            lo = g.1;
        }
        col_bounds.push((lo, xmax));
    }
    // Order: walk bands; in each band, columns left to right.
    let mut order: Vec<(usize, Option<usize>)> = Vec::new(); // (frag index, column)
    let mut band_top = f32::MAX;
    let mut seps: Vec<f32> = spanning.iter().map(|&i| frags[i].y).collect();
    seps.push(f32::MIN);
    let mut si = 0;
    for (k, &sep_y) in seps.iter().enumerate() {
        // Column fragments with band_top > y > sep_y.
        for c in 0..ncols {
            for (i, f) in frags.iter().enumerate() {
                if cols[i] == Some(c) && f.y <= band_top && f.y > sep_y {
                    order.push((i, Some(c)));
                }
            }
        }
        if k < spanning.len() {
            order.push((spanning[si], None));
            si += 1;
        }
        band_top = sep_y;
    }
    // Column fragments exactly on a separator's baseline.
    let placed: std::collections::HashSet<usize> = order.iter().map(|(i, _)| *i).collect();
    for (i, c) in cols.iter().enumerate() {
        if !placed.contains(&i) {
            order.push((i, *c));
        }
    }
    // Merge consecutive fragments of one column sharing a baseline into lines.
    let mut lines: Vec<Line> = Vec::new();
    let mut last_group: Option<(usize, Option<usize>)> = None; // (line index, col)
    for (i, c) in order {
        let f = &frags[i];
        let merge_into = last_group.and_then(|(li, lc)| {
            let l: &Line = &lines[li];
            let tol = 0.5 * l.size.max(f.size);
            ((lc == c) && (f.y - l.y).abs() <= tol && f.x0 >= l.x1 - 0.5 * f.size).then_some(li)
        });
        let (cx0, cx1) = match c {
            Some(k) => col_bounds[k],
            None => (col_bounds[0].0, col_bounds[ncols - 1].1),
        };
        let dom = f.dominant();
        match merge_into {
            Some(li) => {
                let l = &mut lines[li];
                if f.x0 - l.x1 > 2.5 * l.size.max(f.size) {
                    l.wide_gaps = l.wide_gaps.saturating_add(1);
                }
                l.text.push(' ');
                l.text.push_str(&f.text);
                l.x1 = l.x1.max(f.x1);
                l.top = l.top.max(f.top);
                let before = l.text.len() as f32;
                let add = f.text.len() as f32;
                l.fixed_frac = (l.fixed_frac * before + f.fixed_chars as f32 / f.nchars.max(1) as f32 * add)
                    / (before + add).max(1.0);
            }
            None => {
                lines.push(Line {
                    page: page_index,
                    x0: f.x0,
                    x1: f.x1,
                    y: f.y,
                    top: f.top,
                    size: dom.0 as f32 / 2.0,
                    weight: dom.1,
                    font: dom.2,
                    col: c.map(|k| k as u8).unwrap_or(0),
                    col_x0: cx0,
                    col_x1: cx1,
                    text: f.text.clone(),
                    fixed_frac: f.fixed_chars as f32 / f.nchars.max(1) as f32,
                    tag: f.tag,
                    wide_gaps: 0,
                    skip: false,
                    declared: None,
                    synthetic: false,
                });
                last_group = Some((lines.len() - 1, c));
            }
        }
        // Track style counts for merged lines: keep the style of the longer part.
        if let Some(li) = merge_into {
            let l = &mut lines[li];
            if f.nchars as usize > l.text.len() / 2 {
                l.size = dom.0 as f32 / 2.0;
                l.weight = dom.1;
                l.font = dom.2;
            }
        }
    }
    lines
}

// ---------------------------------------------------------------------------------------------
// Stage two: document-wide analysis.
// ---------------------------------------------------------------------------------------------

/// The body text style and derived measures.
#[derive(Debug, Clone, Copy)]
struct Body {
    size: f32,
    weight: i16,
    font: u16,
    /// Typical baseline distance between body lines.
    spacing: f32,
}

fn body_style(tables: &Tables) -> Body {
    let mut by_size: HashMap<u16, u64> = HashMap::new();
    for (&(s, _, _), &n) in &tables.style_chars {
        *by_size.entry(s).or_insert(0) += n;
    }
    let size_q = by_size.iter().max_by_key(|(s, n)| (**n, **s)).map(|(s, _)| *s).unwrap_or(20);
    let mut by_weight: HashMap<i16, u64> = HashMap::new();
    let mut by_font: HashMap<u16, u64> = HashMap::new();
    for (&(s, w, f), &n) in &tables.style_chars {
        if s == size_q {
            *by_weight.entry(w).or_insert(0) += n;
            *by_font.entry(f).or_insert(0) += n;
        }
    }
    let weight = by_weight.iter().max_by_key(|(w, n)| (**n, -**w)).map(|(w, _)| *w).unwrap_or(400);
    let font = by_font.iter().max_by_key(|(f, n)| (**n, **f)).map(|(f, _)| *f).unwrap_or(0);
    let size = (size_q as f32 / 2.0).max(1.0);
    Body { size, weight, font, spacing: size * 1.2 }
}

fn measure_spacing(lines: &[Line], body: &Body) -> f32 {
    let mut deltas: Vec<f32> = Vec::new();
    for w in lines.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        if a.page == b.page
            && a.col == b.col
            && (a.size - body.size).abs() < 0.6
            && (b.size - body.size).abs() < 0.6
        {
            let d = a.y - b.y;
            if d > 0.8 * body.size && d < 2.5 * body.size {
                deltas.push(d);
            }
        }
        if deltas.len() > 20_000 {
            break;
        }
    }
    if deltas.is_empty() {
        return body.size * 1.2;
    }
    deltas.sort_by(|a, b| a.total_cmp(b));
    deltas[deltas.len() / 2]
}

fn squash_digits(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_ascii_digit() {
            if !out.ends_with('#') {
                out.push('#');
            }
        } else if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        }
    }
    out
}

fn is_page_number_text(s: &str) -> bool {
    let t = s.trim().trim_matches(|c: char| c == '-' || c == '–' || c == '—' || c.is_whitespace());
    let t = t.strip_prefix("Page ").or_else(|| t.strip_prefix("page ")).unwrap_or(t).trim();
    if t.is_empty() || t.len() > 12 {
        return false;
    }
    if t.chars().all(|c| c.is_ascii_digit()) {
        return true;
    }
    // "3 of 10", roman numerals.
    if let Some((a, b)) = t.split_once(" of ") {
        return a.trim().chars().all(|c| c.is_ascii_digit()) && b.trim().chars().all(|c| c.is_ascii_digit());
    }
    folio_core::numbering::roman_value(&t.to_ascii_lowercase()).is_some() && t.len() <= 6
}

/// A leading or trailing integer of a margin line ("4 Chapter 1. About", "Guide 12").
fn edge_number(s: &str) -> Option<i64> {
    let t = s.trim();
    let lead: String = t.chars().take_while(|c| c.is_ascii_digit()).collect();
    let trail: String = {
        let mut v: Vec<char> = t.chars().rev().take_while(|c| c.is_ascii_digit()).collect();
        v.reverse();
        v.into_iter().collect()
    };
    let ok = |d: &str| !d.is_empty() && d.len() <= 5;
    if ok(&trail) {
        return trail.parse().ok();
    }
    if ok(&lead) {
        return lead.parse().ok();
    }
    None
}

/// Marks running headers, footers and page numbers as skipped.
fn remove_page_furniture(lines: &mut [Line], pages: &[PageInfo]) {
    let npages = pages.len();
    // Margin candidates: lines in the top or bottom 11% of the page, plus the outermost line.
    let mut by_page: Vec<Vec<usize>> = vec![Vec::new(); npages];
    for (i, l) in lines.iter().enumerate() {
        by_page[l.page as usize].push(i);
    }
    let mut margin: Vec<usize> = Vec::new();
    let mut outermost: std::collections::HashSet<usize> = std::collections::HashSet::new();
    for (p, idx) in by_page.iter().enumerate() {
        if idx.is_empty() {
            continue;
        }
        let h = pages[p].height.max(1.0);
        let top = idx.iter().copied().max_by(|&a, &b| lines[a].y.total_cmp(&lines[b].y));
        let bot = idx.iter().copied().min_by(|&a, &b| lines[a].y.total_cmp(&lines[b].y));
        for &i in idx {
            let l = &lines[i];
            let in_zone = l.y > h * 0.89 || l.y < h * 0.11;
            let outer = Some(i) == top && l.y > h * 0.8 || Some(i) == bot && l.y < h * 0.2;
            if in_zone || outer {
                margin.push(i);
            }
            if Some(i) == top || Some(i) == bot {
                outermost.insert(i);
            }
        }
    }
    // Repeated text at about the same height, digits ignored.
    let in_zone = |l: &Line| {
        let h = pages[l.page as usize].height.max(1.0);
        l.y > h * 0.905 || l.y < h * 0.095
    };
    let mut counts: HashMap<(String, i32), Vec<u32>> = HashMap::new();
    for &i in &margin {
        let l = &lines[i];
        if !in_zone(l) {
            continue;
        }
        let key = squash_digits(&l.text);
        if key.is_empty() {
            continue;
        }
        let yb = (l.y / 6.0).round() as i32;
        let e = counts.entry((key, yb)).or_default();
        if e.last() != Some(&l.page) {
            e.push(l.page);
        }
    }
    let threshold = if npages <= 4 { 2 } else { 3 };
    // Running text recurs on many pages or on pages close together.
    let running = |v: &Vec<u32>| {
        let near = v.windows(2).filter(|w| w[1] - w[0] <= 2).count();
        v.len() >= threshold && (v.len() * 10 >= npages || near * 2 >= v.len())
    };
    let repeated = |l: &Line| -> bool {
        let key = squash_digits(&l.text);
        let yb = (l.y / 6.0).round() as i32;
        (-1..=1).any(|d| counts.get(&(key.clone(), yb + d)).is_some_and(running))
    };
    // The printed page number offset: physical page - printed number, most common.
    let mut offsets: HashMap<i64, u32> = HashMap::new();
    for &i in &margin {
        let l = &lines[i];
        if let Some(n) = edge_number(&l.text) {
            *offsets.entry(l.page as i64 + 1 - n).or_insert(0) += 1;
        }
    }
    let best_offset = offsets
        .iter()
        .filter(|(_, &n)| n as usize >= 3.max(npages / 5))
        .max_by_key(|(o, n)| (**n, -o.abs()))
        .map(|(o, _)| *o);
    for &i in &margin {
        let l = &lines[i];
        let numbered_furniture = outermost.contains(&i)
            && best_offset.is_some_and(|off| {
                edge_number(&l.text) == Some(l.page as i64 + 1 - off) && l.text.chars().count() <= 90
            });
        if is_page_number_text(&l.text) || (in_zone(l) && repeated(l)) || numbered_furniture {
            lines[i].skip = true;
        }
    }
}

/// One entry of a printed contents list.
#[derive(Debug, Clone)]
struct TocEntry {
    title: String,
    number: Option<String>,
    depth: Option<usize>,
    page: Option<i64>,
    x0: f32,
}

fn toc_line_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"^(?P<title>.*?\S)\s*(?P<lead>(?:[.·…_]\s*){3,})\s*(?P<page>\d{1,4}|[ivxlcdmIVXLCDM]{1,7})$",
        )
        .expect("valid toc regex")
    })
}

fn trailing_page_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"^(?P<title>.*?[^\d\s.])\s+(?P<page>\d{1,4})$").expect("valid regex"))
}

fn is_contents_word(s: &str) -> bool {
    if s.chars().any(|c| c.is_ascii_digit()) {
        return false;
    }
    let t: String = s.chars().filter(|c| c.is_alphabetic() || *c == ' ').collect::<String>().to_lowercase();
    let t = t.trim();
    t == "contents" || t == "table of contents" || t == "content"
}

/// Finds printed contents pages, marks their lines skipped and returns their entries.
fn detect_toc(lines: &mut [Line], npages: usize) -> Vec<TocEntry> {
    let mut by_page: Vec<Vec<usize>> = vec![Vec::new(); npages];
    for (i, l) in lines.iter().enumerate() {
        if !l.skip {
            by_page[l.page as usize].push(i);
        }
    }
    let mut entries = Vec::new();
    let mut prev_toc = false;
    let scan_pages = npages.min(40.max(npages / 8));
    for (p, idx) in by_page.iter().enumerate().take(scan_pages) {
        if idx.is_empty() {
            continue;
        }
        let leaders = idx.iter().filter(|&&i| toc_line_re().is_match(lines[i].text.trim())).count();
        let numbered = idx
            .iter()
            .filter(|&&i| {
                let t = lines[i].text.trim();
                toc_line_re().is_match(t) || trailing_page_re().is_match(t)
            })
            .count();
        let has_word = idx.iter().any(|&i| is_contents_word(&lines[i].text));
        let n = idx.len();
        let is_toc = (leaders >= 3 && leaders * 10 >= n * 3)
            || (has_word && numbered * 2 >= n && numbered >= 3)
            || (prev_toc && numbered * 2 >= n && numbered >= 2);
        if !is_toc {
            if prev_toc && p > 0 {
                prev_toc = false;
            }
            continue;
        }
        prev_toc = true;
        let mut pending: Option<(String, f32)> = None;
        for &i in idx {
            lines[i].skip = true;
            let l = &lines[i];
            let t = l.text.trim();
            if is_contents_word(t) {
                continue;
            }
            let caps = toc_line_re().captures(t).or_else(|| trailing_page_re().captures(t));
            match caps {
                Some(c) => {
                    let mut title = c["title"].trim().to_string();
                    let mut x0 = l.x0;
                    if let Some((prev, px)) = pending.take() {
                        title = format!("{prev} {title}");
                        x0 = px;
                    }
                    let page_txt = &c["page"];
                    let page = page_txt.parse::<i64>().ok();
                    let (number, depth) = match split_heading_number(&title) {
                        Some(h) if !h.title.is_empty() => {
                            (Some(clean_number(h.label)), Some(label_depth(&h.parsed, h.label)))
                        }
                        _ => (None, None),
                    };
                    entries.push(TocEntry { title, number, depth, page, x0 });
                }
                None => {
                    // A wrapped entry: keep the text for the next line.
                    if t.chars().count() < 120 {
                        pending = Some(match pending.take() {
                            Some((prev, px)) => (format!("{prev} {t}"), px),
                            None => (t.to_string(), l.x0),
                        });
                    }
                }
            }
        }
    }
    entries
}

fn clean_number(label: &str) -> String {
    let t = label.trim().trim_end_matches([':', '.']).trim();
    t.to_string()
}

/// Numbering depth: "1.2.3" → 3; keyword labels count their value tokens.
fn label_depth(parsed: &Label, _label: &str) -> usize {
    parsed.depth().max(1)
}

/// Lower-case alphanumerics only, digits dropped: the key titles are matched by.
pub fn normalise_title(s: &str) -> String {
    s.chars().filter(|c| c.is_alphanumeric() && !c.is_numeric()).flat_map(|c| c.to_lowercase()).collect()
}

/// A line's text without its leading numbering label, normalised.
fn normalised_heading_text(s: &str) -> String {
    let t = unglue_number(chapter_label_free(s));
    match split_heading_number(&t) {
        Some(h) if !h.title.is_empty() => normalise_title(h.title),
        _ => normalise_title(&t),
    }
}

fn chapter_label_free(s: &str) -> &str {
    s.trim()
}

// ---------------------------------------------------------------------------------------------
// Number words and chapter labels ("CHAPTER" / "TWENTYONE" / "TITLE TEXT").
// ---------------------------------------------------------------------------------------------

/// The value of a chapter number token: digits, number words or roman numerals.
fn label_value(token: &str) -> Option<String> {
    let t = token.trim().trim_end_matches(['.', ':']);
    if !t.is_empty() && t.len() <= 4 && t.chars().all(|c| c.is_ascii_digit()) {
        return Some(t.trim_start_matches('0').to_string()).filter(|s| !s.is_empty());
    }
    if let Some(n) = folio_core::numbering::number_word_value(t) {
        return Some(n.to_string());
    }
    if t.len() <= 7 {
        if let Some(n) = folio_core::numbering::roman_value(&t.to_ascii_lowercase()) {
            return Some(n.to_string());
        }
    }
    if t.len() == 1 && t.chars().all(|c| c.is_ascii_uppercase()) {
        return Some(t.to_string());
    }
    None
}

fn container_keyword(word: &str) -> Option<Container> {
    let w = word.trim().trim_end_matches(['.', ':']);
    match w.to_ascii_lowercase().as_str() {
        "chapter" => Some(Container::Chapter),
        "part" => Some(Container::Part),
        "appendix" => Some(Container::Appendix),
        "article" => Some(Container::Article),
        "book" | "title" => Some(Container::Title),
        "annex" => Some(Container::Annex),
        "schedule" => Some(Container::Schedule),
        "section" => Some(Container::Section),
        _ => None,
    }
}

/// Sentence case for a title set in capitals: "ABOUT THIS MANUAL" → "About this manual".
fn sentence_case(s: &str) -> String {
    let letters: Vec<char> = s.chars().filter(|c| c.is_alphabetic()).collect();
    if letters.is_empty() || letters.iter().any(|c| c.is_lowercase()) {
        return s.to_string();
    }
    let lower = s.to_lowercase();
    let mut out = String::with_capacity(lower.len());
    let mut first = true;
    for c in lower.chars() {
        if first && c.is_alphabetic() {
            out.extend(c.to_uppercase());
            first = false;
        } else {
            out.push(c);
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Blocks.
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone)]
struct Blk {
    /// Indices into the line list.
    lines: Vec<usize>,
    text: String,
    kind: BlkKind,
    pages: PageRange,
    /// Heading facts.
    number: Option<String>,
    /// Numbering-derived level, when the label decides it.
    num_level: Option<u8>,
    level: Option<u8>,
    declared: Option<u8>,
    gap_before: f32,
}

#[derive(Debug, Clone, PartialEq)]
enum BlkKind {
    Para,
    List { marker: String, depth: u8 },
    Code,
    Heading,
}

fn list_marker(text: &str) -> Option<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"^(?:[•◦▪▫●○■□‣⁃∙·*–—-]|\(?[0-9]{1,3}[.)]|\((?:[a-zA-Z]|[ivxlc]{2,5})\)|[a-z][.)])\s+\S")
            .expect("valid list regex")
    });
    let t = text.trim_start();
    if re.is_match(t) {
        let m = t.split_whitespace().next().unwrap_or("").to_string();
        return Some(m);
    }
    None
}

fn ends_sentence(s: &str) -> bool {
    let t = s.trim_end().trim_end_matches(['"', '\'', '”', '’', ')']);
    t.ends_with(['.', '!', '?', ':', ';'])
}

struct Ctx<'a> {
    lines: &'a [Line],
    body: Body,
    fonts: &'a [FontInfo],
}

impl Ctx<'_> {
    fn is_bold(&self, l: &Line) -> bool {
        let f = self.fonts.get(l.font as usize);
        let body_bold = self.fonts.get(self.body.font as usize).is_some_and(|f| f.bold_name);
        (l.weight >= self.body.weight + 150 && l.weight >= 450)
            || (f.is_some_and(|f| f.bold_name) && !body_bold)
    }
    /// Monospaced text at most body size, not bold: code.
    fn is_fixed(&self, l: &Line) -> bool {
        l.fixed_frac >= 0.9
            && !self.fonts.get(self.body.font as usize).is_some_and(|f| f.fixed)
            && l.size <= self.body.size * 1.05
            && !self.is_bold(l)
    }
    /// A font family different from the body's and no italic or monospace variant of text.
    fn distinct_font(&self, l: &Line) -> bool {
        if l.font == self.body.font {
            return false;
        }
        match (self.fonts.get(l.font as usize), self.fonts.get(self.body.font as usize)) {
            (Some(f), Some(b)) => f.name != b.name && !f.italic && !f.fixed,
            _ => false,
        }
    }
    fn size_class(&self, l: &Line) -> f32 {
        l.size / self.body.size
    }
    /// Whether a line's style sets it off from body text as a heading.
    fn styled(&self, l: &Line) -> bool {
        let r = self.size_class(l);
        r >= 1.12 || (r >= 0.95 && self.is_bold(l))
    }
    /// Style key used to cluster heading styles.
    fn style_key(&self, l: &Line) -> (u16, bool, u16) {
        ((l.size * 2.0).round() as u16, self.is_bold(l), l.font)
    }
}

/// Groups lines into blocks.
fn group_blocks(ctx: &Ctx, order: &[usize]) -> Vec<Blk> {
    let lines = ctx.lines;
    let body = ctx.body;
    let mut blocks: Vec<Blk> = Vec::new();
    let mut prev: Option<usize> = None;
    for &i in order {
        let l = &lines[i];
        let gap_before = match prev {
            Some(p) if lines[p].page == l.page && lines[p].col == l.col && lines[p].y > l.y => {
                lines[p].y - l.y
            }
            _ => f32::INFINITY,
        };
        let marker = list_marker(&l.text);
        let mut start_new = true;
        if let (Some(p), Some(cur)) = (prev, blocks.last()) {
            let a = &lines[p];
            start_new = breaks_between(ctx, a, l, &cur.kind, marker.is_some(), gap_before);
        }
        if l.declared.is_some() || l.synthetic {
            start_new = true;
        }
        if let Some(p) = prev {
            if lines[p].declared.is_some() || lines[p].synthetic {
                // A declared heading may continue onto a second line of the same style.
                let a = &lines[p];
                let cont = !l.synthetic
                    && l.declared.is_none()
                    && a.page == l.page
                    && (a.size - l.size).abs() < 0.3
                    && ctx.is_bold(a) == ctx.is_bold(l)
                    && ((ctx.styled(a) && ctx.styled(l))
                        || (ctx.distinct_font(a) && ctx.distinct_font(l) && !ctx.styled(a)))
                    && gap_before < 1.8 * l.size
                    && blocks.last().is_some_and(|b| b.text.len() + l.text.len() < 250)
                    && declared_continues(blocks.last(), l);
                start_new = !cont;
            }
        }
        if start_new {
            let kind = if ctx.is_fixed(l) {
                BlkKind::Code
            } else if let Some(m) = marker {
                let depth = (((l.x0 - l.col_x0).max(0.0)) / (2.5 * body.size)).floor().min(3.0) as u8;
                BlkKind::List { marker: m, depth }
            } else {
                BlkKind::Para
            };
            blocks.push(Blk {
                lines: vec![i],
                text: l.text.trim().to_string(),
                kind,
                pages: PageRange::single(l.page + 1),
                number: None,
                num_level: None,
                level: None,
                declared: l.declared,
                gap_before,
            });
        } else if let Some(cur) = blocks.last_mut() {
            cur.lines.push(i);
            join_line(&mut cur.text, &l.text, cur.kind == BlkKind::Code);
            cur.pages = cur.pages.cover(PageRange::single(l.page + 1));
        }
        prev = Some(i);
    }
    blocks
}

fn declared_continues(block: Option<&Blk>, l: &Line) -> bool {
    // Continue only when the block has no closing punctuation and the next line is short.
    block.is_some_and(|b| !ends_sentence(&b.text)) && l.text.chars().count() < 120
}

fn join_line(text: &mut String, next: &str, keep_lines: bool) {
    let next = next.trim();
    if keep_lines {
        text.push('\n');
        text.push_str(next);
        return;
    }
    let ends_hyphen = {
        let mut it = text.chars().rev();
        matches!((it.next(), it.next()), (Some('-' | '\u{2010}'), Some(c)) if c.is_alphabetic())
    };
    if ends_hyphen {
        if next.chars().next().is_some_and(|c| c.is_lowercase()) {
            text.pop();
        }
        text.push_str(next);
    } else {
        text.push(' ');
        text.push_str(next);
    }
}

fn breaks_between(ctx: &Ctx, a: &Line, b: &Line, kind: &BlkKind, b_marker: bool, gap: f32) -> bool {
    let body = ctx.body;
    if b_marker {
        return true;
    }
    let size_change = (a.size - b.size).abs() > 0.08 * a.size.max(b.size);
    let bold_change = ctx.is_bold(a) != ctx.is_bold(b);
    let fixed_change = ctx.is_fixed(a) != ctx.is_fixed(b);
    if fixed_change {
        return true;
    }
    if *kind == BlkKind::Code {
        return gap > 2.5 * body.spacing;
    }
    if size_change || (bold_change && (ctx.styled(a) || ctx.styled(b))) {
        return true;
    }
    if !ctx.styled(a) && !ctx.styled(b) && ctx.distinct_font(a) != ctx.distinct_font(b) {
        return true;
    }
    let same_flow = a.page == b.page && a.col == b.col;
    let scale = (a.size / body.size).max(0.5);
    if same_flow {
        if gap.is_infinite() || gap <= 0.0 {
            return true;
        }
        if gap > body.spacing * scale * 1.32 {
            return true;
        }
        // The short last line of a paragraph.
        let short = a.x1 < a.col_x1 - 4.0 * a.size;
        if short && ends_sentence(&a.text) {
            return true;
        }
        // First-line indent (not a hanging list continuation).
        let indented = b.x0 > a.x0 + 0.9 * b.size;
        if indented && !matches!(kind, BlkKind::List { .. }) && ends_sentence(&a.text) {
            return true;
        }
        false
    } else {
        // Across a column or page break: continue a sentence left open.
        let open = !ends_sentence(&a.text);
        let cont_start = b.text.chars().next().is_some_and(|c| c.is_lowercase());
        !(open || cont_start) || ctx.styled(a) || ctx.styled(b)
    }
}

// ---------------------------------------------------------------------------------------------
// Headings.
// ---------------------------------------------------------------------------------------------

/// Merges label-only heading lines ("CHAPTER", "ONE") into the title block that follows.
fn merge_chapter_labels(ctx: &Ctx, blocks: &mut Vec<Blk>) {
    let mut i = 0;
    while i < blocks.len() {
        let b = &blocks[i];
        let words: Vec<&str> = b.text.split_whitespace().collect();
        let kw = words.first().and_then(|w| container_keyword(w));
        let lone_kw = kw.is_some() && words.len() == 1;
        let kw_value = kw.is_some() && words.len() == 2 && label_value(words[1]).is_some();
        if (lone_kw || kw_value) && b.lines.len() <= 2 && i + 1 < blocks.len() {
            let same_page = |j: usize| blocks[j].pages.start == blocks[i].pages.end;
            let mut j = i + 1;
            let mut value = if kw_value { label_value(words[1]) } else { None };
            if value.is_none() && j < blocks.len() && same_page(j) {
                let t = blocks[j].text.trim();
                if t.split_whitespace().count() == 1 {
                    value = label_value(t);
                    if value.is_some() {
                        j += 1;
                    }
                }
            }
            if let Some(v) = value {
                if j < blocks.len() && same_page(j) {
                    let title_line = &ctx.lines[blocks[j].lines[0]];
                    let title_ok = blocks[j].text.chars().count() < 200
                        && (ctx.styled(title_line)
                            || blocks[j].declared.is_some()
                            || ctx.lines[blocks[i].lines[0]].top - title_line.y < 12.0 * ctx.body.size);
                    if title_ok && blocks[j].kind != BlkKind::Code {
                        let title = sentence_case(blocks[j].text.trim());
                        let declared = blocks[j].declared.or(blocks[i].declared);
                        let mut merged_lines: Vec<usize> = Vec::new();
                        for b in &blocks[i..=j] {
                            merged_lines.extend(&b.lines);
                        }
                        let pages = blocks[i].pages.cover(blocks[j].pages);
                        let kind = kw.unwrap_or(Container::Chapter);
                        let new = Blk {
                            lines: merged_lines,
                            text: format!("{v} {title}"),
                            kind: BlkKind::Heading,
                            pages,
                            number: Some(v.clone()),
                            num_level: None,
                            level: None,
                            declared,
                            gap_before: blocks[i].gap_before,
                        };
                        blocks.splice(i..=j, [new]);
                        blocks[i].num_level = Some(container_rank(kind));
                        // num_level holds the container rank for now; resolved later.
                        blocks[i].number = Some(v);
                        i += 1;
                        continue;
                    }
                }
            }
        }
        i += 1;
    }
}

/// Rank of a keyword container: lower is higher in the hierarchy.
fn container_rank(c: Container) -> u8 {
    match c {
        Container::Title => 1,
        Container::Division => 2,
        Container::Part => 3,
        Container::Subpart => 4,
        Container::Chapter | Container::Appendix | Container::Annex | Container::Schedule => 5,
        Container::Article => 6,
        Container::Section => 7,
        Container::Guidance => 8,
    }
}

/// Facts about a heading candidate's numbering.
#[derive(Debug, Clone)]
struct NumInfo {
    label: String,
    /// Explicit keyword container of the first segment.
    keyword: Option<Container>,
    /// Decimal depth for plain numbers ("1.2.3" → 3).
    depth: usize,
    tokens: Vec<String>,
    plain_decimal: bool,
    trailing_dot: bool,
}

/// "12.2URL REFERENCES" → "12.2 URL REFERENCES": a multi-level number glued to its title.
fn unglue_number(text: &str) -> std::borrow::Cow<'_, str> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| Regex::new(r"^(\d{1,3}(?:\.\d{1,3})+)(\p{Lu})").expect("valid regex"));
    re.replace(text, "$1 $2")
}

fn num_info(text: &str) -> Option<(NumInfo, String)> {
    let text = unglue_number(text);
    let h = split_heading_number(&text)?;
    if h.title.chars().filter(|c| c.is_alphabetic()).count() < 2 {
        return None;
    }
    let first = h.parsed.segments.first()?;
    let keyword = first.explicit.then_some(first.container);
    let plain_decimal = keyword.is_none()
        && h.label
            .trim_end_matches('.')
            .split('.')
            .all(|t| !t.is_empty() && t.chars().all(|c| c.is_ascii_digit()));
    let tokens: Vec<String> = h.parsed.tokens().iter().map(|s| s.to_string()).collect();
    Some((
        NumInfo {
            label: h.label.to_string(),
            keyword,
            depth: h.parsed.depth(),
            tokens,
            plain_decimal,
            trailing_dot: h.label.ends_with('.'),
        },
        h.title.to_string(),
    ))
}

/// Whether `next` continues the numbering sequence after `prev` ("1.2" → "1.3", "1.2.1", "2").
fn in_sequence(prev: &[String], next: &[String]) -> bool {
    let num = |s: &String| s.parse::<u32>().ok();
    if next.is_empty() {
        return false;
    }
    // First child.
    if next.len() == prev.len() + 1 && next[..prev.len()] == prev[..] && next.last().and_then(num) == Some(1)
    {
        return true;
    }
    // Next sibling of prev or of an ancestor.
    if next.len() <= prev.len() {
        let k = next.len() - 1;
        if next[..k] == prev[..k] {
            if let (Some(a), Some(b)) = (num(&prev[k]), num(&next[k])) {
                return b == a + 1;
            }
        }
    }
    false
}

fn decide_headings(ctx: &Ctx, blocks: &mut [Blk], declared_mode: bool, page_count: u32) {
    let lines = ctx.lines;
    let body = ctx.body;
    // A sparse first page of a longer document is a cover page.
    let cover_page = page_count > 2 && lines.iter().filter(|l| l.page == 0 && !l.skip).count() < 20;
    // 1. Candidates.
    let mut cand: Vec<bool> = vec![false; blocks.len()];
    let mut infos: Vec<Option<NumInfo>> = vec![None; blocks.len()];
    let mut tag_levels: Vec<Option<u8>> = vec![None; blocks.len()];
    for (k, b) in blocks.iter().enumerate() {
        if b.kind == BlkKind::Heading {
            cand[k] = true;
            continue;
        }
        if b.declared.is_some() {
            cand[k] = true;
            infos[k] = num_info(&b.text).map(|x| x.0);
            continue;
        }
        if b.kind == BlkKind::Code {
            continue;
        }
        let first = &lines[b.lines[0]];
        let text = b.text.trim();
        let nchars = text.chars().count();
        let letters = text.chars().filter(|c| c.is_alphabetic()).count();
        if letters < 2 || nchars > 250 || b.lines.len() > 4 {
            continue;
        }
        if b.lines.iter().any(|&i| lines[i].wide_gaps >= 2) && ctx.size_class(first) < 1.12 {
            // A table row, not a heading.
            continue;
        }
        if let Some(lv) = first.tag {
            // A heading role in the structure tree decides, after the declared outline.
            cand[k] = true;
            tag_levels[k] = Some(lv);
            infos[k] = num_info(text).map(|x| x.0);
            continue;
        }
        if text.ends_with([',', ';']) || text.starts_with(|c: char| c.is_lowercase()) {
            continue;
        }
        let info = num_info(text).map(|x| x.0);
        let styled = b.lines.iter().all(|&i| ctx.styled(&lines[i]));
        let distinct =
            b.lines.iter().all(|&i| ctx.distinct_font(&lines[i]) && lines[i].size >= 0.95 * body.size);
        let bigger = ctx.size_class(first) >= 1.12;
        let mut info = info;
        if let BlkKind::List { marker, .. } = &b.kind {
            // "(a) Comments Due Date" set bold is a lettered heading; other list items are not.
            let enumerator = marker.chars().any(|c| c.is_alphanumeric());
            if info.is_none() {
                if !(styled && enumerator && nchars <= 80 && !text.ends_with('.')) {
                    continue;
                }
                info = Some(NumInfo {
                    label: marker.clone(),
                    keyword: None,
                    depth: 1,
                    tokens: vec![marker.trim_matches(['(', ')', '.']).to_ascii_lowercase()],
                    plain_decimal: false,
                    trailing_dot: marker.ends_with('.'),
                });
            }
        }
        let ok = if styled {
            // Bold text at body size must stand alone and be short.
            bigger
                || (nchars <= 150
                    && (b.gap_before > 1.15 * body.spacing || b.gap_before.is_infinite())
                    && (!text.ends_with('.') || info.is_some() || text == text.to_uppercase()))
        } else if distinct {
            info.is_some() && nchars <= 200
        } else {
            false
        };
        // Text on a cover page alone does not make headings below the title.
        if ok && cover_page && first.page == 0 && info.is_none() && !bigger {
            continue;
        }
        if ok {
            cand[k] = true;
            infos[k] = info;
        }
    }
    // Numbered list items ("1. Free Redistribution") are no headings where the section numbers
    // are printed without a trailing dot.
    let (mut dotted, mut bare) = (0, 0);
    for inf in infos.iter().flatten() {
        if inf.plain_decimal && inf.depth >= 2 {
            if inf.trailing_dot {
                dotted += 1;
            } else {
                bare += 1;
            }
        }
    }
    if bare >= 3 && bare > 2 * dotted {
        for k in 0..blocks.len() {
            let listy = matches!(blocks[k].kind, BlkKind::List { .. });
            if cand[k] && listy && infos[k].as_ref().is_some_and(|i| i.plain_decimal && i.trailing_dot) {
                cand[k] = false;
                infos[k] = None;
            }
        }
    }
    // 2. Numbered body-style lines in sequence with neighbouring numbered headings.
    if !declared_mode {
        let mut last_tokens: Option<(Vec<String>, bool)> = None;
        for k in 0..blocks.len() {
            if cand[k] {
                if let Some(inf) = &infos[k] {
                    if inf.plain_decimal {
                        last_tokens = Some((inf.tokens.clone(), inf.trailing_dot));
                    }
                }
                continue;
            }
            let b = &blocks[k];
            if b.kind == BlkKind::Code || b.lines.len() > 2 {
                continue;
            }
            let text = b.text.trim();
            if text.chars().count() > 100 || (text.ends_with('.') && text.split_whitespace().count() > 3) {
                continue;
            }
            let Some((inf, title)) = num_info(text) else { continue };
            if !inf.plain_decimal || !title.starts_with(|c: char| c.is_uppercase()) {
                continue;
            }
            let stands_alone = b.gap_before > 1.15 * body.spacing || b.gap_before.is_infinite();
            if !stands_alone {
                continue;
            }
            if let Some((prev, dot)) = &last_tokens {
                if *dot == inf.trailing_dot && in_sequence(prev, &inf.tokens) && inf.depth >= 2 {
                    cand[k] = true;
                    last_tokens = Some((inf.tokens.clone(), inf.trailing_dot));
                    infos[k] = Some(inf);
                }
            }
        }
    }
    // 3. Levels from numbering.
    let mut ranks: Vec<u8> = Vec::new();
    for (k, b) in blocks.iter().enumerate() {
        if !cand[k] {
            continue;
        }
        if b.kind == BlkKind::Heading {
            if let Some(r) = b.num_level {
                ranks.push(r);
            }
        } else if let Some(inf) = &infos[k] {
            if let Some(kw) = inf.keyword {
                ranks.push(container_rank(kw));
            }
        }
    }
    ranks.sort_unstable();
    ranks.dedup();
    let kw_level =
        |rank: u8| -> u8 { ranks.iter().position(|r| *r == rank).map(|p| p as u8 + 1).unwrap_or(1) };
    let max_kw = ranks.len() as u8;
    let mut current_kw: Option<(u8, String)> = None; // (level, number)
    let mut num_levels: Vec<Option<u8>> = vec![None; blocks.len()];
    for k in 0..blocks.len() {
        if !cand[k] {
            continue;
        }
        let b = &blocks[k];
        if b.kind == BlkKind::Heading {
            if let Some(r) = b.num_level {
                let lv = kw_level(r);
                num_levels[k] = Some(lv);
                current_kw = Some((lv, b.number.clone().unwrap_or_default()));
            }
            continue;
        }
        let Some(inf) = &infos[k] else { continue };
        if let Some(kw) = inf.keyword {
            let lv = kw_level(container_rank(kw));
            num_levels[k] = Some(lv + inf.depth.saturating_sub(1) as u8);
            current_kw = Some((lv, inf.tokens.first().cloned().unwrap_or_default()));
        } else if inf.plain_decimal {
            let d = inf.depth as u8;
            num_levels[k] = Some(match &current_kw {
                Some((lv, num)) if inf.tokens.first() == Some(num) => lv + d - 1,
                Some(_) => max_kw + d,
                None => d,
            });
        }
    }
    for k in 0..blocks.len() {
        if tag_levels[k].is_some() {
            num_levels[k] = tag_levels[k];
        }
    }
    // 4. Style clusters give levels to the other candidates.
    let mut cluster_levels: HashMap<(u16, bool, u16), Vec<u8>> = HashMap::new();
    for k in 0..blocks.len() {
        if let Some(lv) = num_levels[k] {
            let l = &lines[blocks[k].lines[blocks[k].lines.len() - 1]];
            cluster_levels.entry(ctx.style_key(l)).or_default().push(lv);
        }
    }
    let mode = |v: &Vec<u8>| -> u8 {
        let mut c: HashMap<u8, usize> = HashMap::new();
        for x in v {
            *c.entry(*x).or_insert(0) += 1;
        }
        c.into_iter().max_by_key(|(lv, n)| (*n, -(*lv as i32))).map(|(lv, _)| lv).unwrap_or(1)
    };
    let known: Vec<((u16, bool, u16), u8)> = cluster_levels.iter().map(|(k, v)| (*k, mode(v))).collect();
    let prominence = |key: &(u16, bool, u16)| key.0 as f32 / 2.0 * if key.1 { 1.08 } else { 1.0 };
    // Unnumbered-only clusters.
    let mut unknown: Vec<(u16, bool, u16)> = Vec::new();
    for k in 0..blocks.len() {
        if cand[k] && num_levels[k].is_none() && blocks[k].declared.is_none() {
            let l = &lines[blocks[k].lines[0]];
            let key = ctx.style_key(l);
            if !cluster_levels.contains_key(&key) && !unknown.contains(&key) {
                unknown.push(key);
            }
        }
    }
    let mut style_level: HashMap<(u16, bool, u16), u8> = known.iter().cloned().collect();
    if known.is_empty() {
        // Rank by prominence, merging near-equal styles.
        let mut proms: Vec<f32> = unknown.iter().map(prominence).collect();
        proms.sort_by(|a, b| b.total_cmp(a));
        let mut tiers: Vec<f32> = Vec::new();
        for p in proms {
            if tiers.last().is_none_or(|t| (t - p).abs() > 0.03 * t) {
                tiers.push(p);
            }
        }
        for key in &unknown {
            let p = prominence(key);
            let tier = tiers.iter().position(|t| (t - p).abs() <= 0.03 * t).unwrap_or(0);
            style_level.insert(*key, (tier as u8 + 1).min(6));
        }
    } else {
        for key in &unknown {
            let p = prominence(key);
            // The known style nearest in prominence; above all known styles → the top level.
            let best = known
                .iter()
                .min_by(|a, b| (prominence(&a.0) - p).abs().total_cmp(&(prominence(&b.0) - p).abs()))
                .map(|(_, lv)| *lv)
                .unwrap_or(1);
            let top = known.iter().map(|(_, lv)| *lv).min().unwrap_or(1);
            let max_p = known.iter().map(|(k, _)| prominence(k)).fold(f32::MIN, f32::max);
            style_level.insert(*key, if p > max_p * 1.05 { top } else { best });
        }
    }
    // 5. Apply.
    for k in 0..blocks.len() {
        let b = &mut blocks[k];
        if !cand[k] {
            if b.kind == BlkKind::Heading {
                b.kind = BlkKind::Para;
            }
            continue;
        }
        let level = if let Some(d) = b.declared {
            Some(d)
        } else if let Some(lv) = num_levels[k] {
            Some(lv)
        } else {
            let l = &lines[b.lines[0]];
            style_level.get(&ctx.style_key(l)).copied()
        };
        let Some(level) = level else { continue };
        b.kind = BlkKind::Heading;
        b.level = Some(level.clamp(1, 9));
        if b.number.is_none() {
            b.number = infos[k]
                .as_ref()
                .map(|i| clean_number(&i.label))
                .or_else(|| num_info(&b.text).map(|(i, _)| clean_number(&i.label)));
        }
    }
}

/// In declared mode keep only declared headings, plus numbered headings that extend the number of
/// the declared heading above them (deeper levels the outline leaves out).
fn restrict_to_declared(blocks: &mut [Blk]) {
    let mut parent: Option<(u8, Vec<String>)> = None;
    for b in blocks.iter_mut() {
        if b.kind != BlkKind::Heading {
            continue;
        }
        let tokens: Vec<String> = b
            .number
            .as_deref()
            .and_then(Label::parse)
            .map(|l| l.tokens().iter().map(|s| s.to_string()).collect())
            .unwrap_or_default();
        if let Some(d) = b.declared {
            b.level = Some(d);
            parent = Some((d, tokens));
            continue;
        }
        let keep = match &parent {
            Some((lv, ptoks))
                if !ptoks.is_empty() && tokens.len() > ptoks.len() && tokens[..ptoks.len()] == ptoks[..] =>
            {
                b.level = Some(lv + (tokens.len() - ptoks.len()) as u8);
                true
            }
            _ => false,
        };
        if !keep {
            b.kind = BlkKind::Para;
            b.level = None;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Declared outlines: bookmarks and printed contents lists matched to lines.
// ---------------------------------------------------------------------------------------------

/// Up to three consecutive unskipped lines starting at `start` whose joined text normalises to
/// `key`; returns how many lines.
fn match_lines(lines: &[Line], order: &[usize], start: usize, key: &str) -> Option<usize> {
    let mut acc = String::new();
    for n in 0..4 {
        let &i = order.get(start + n)?;
        let l = &lines[i];
        if n > 0 && l.page != lines[order[start]].page {
            return None;
        }
        if !acc.is_empty() {
            acc.push(' ');
        }
        acc.push_str(l.text.trim());
        let norm = normalised_heading_text(&acc);
        if norm == key {
            return Some(n + 1);
        }
        if norm.is_empty() && n == 0 {
            continue;
        }
        if !key.starts_with(&norm) || norm.is_empty() {
            return None;
        }
    }
    None
}

/// Marks bookmark targets as declared headings; inserts synthetic lines for unmatched ones.
fn apply_bookmarks(
    lines: &mut Vec<Line>,
    order: &mut Vec<usize>,
    bookmarks: &[Bookmark],
    pages: &[PageInfo],
) {
    let mut pos_of_page: Vec<usize> = vec![usize::MAX; pages.len() + 1];
    let rebuild = |order: &[usize], lines: &[Line], pos_of_page: &mut Vec<usize>| {
        pos_of_page.iter_mut().for_each(|p| *p = usize::MAX);
        for (pos, &i) in order.iter().enumerate() {
            let p = lines[i].page as usize;
            if pos_of_page[p] == usize::MAX {
                pos_of_page[p] = pos;
            }
        }
    };
    rebuild(order, lines, &mut pos_of_page);
    let mut cursor = 0usize;
    for bm in bookmarks {
        let key = normalise_title(&bm.title);
        let level = (bm.depth + 1).min(9);
        let Some(page) = bm.page else { continue };
        if key.is_empty() {
            continue;
        }
        // Search the destination page (below the destination y), then the next page.
        let mut found: Option<(usize, usize)> = None;
        for p in [page, page + 1] {
            let start = pos_of_page.get(p as usize).copied().unwrap_or(usize::MAX);
            if start == usize::MAX {
                continue;
            }
            let mut pos = start.max(if p == page { 0 } else { cursor });
            while pos < order.len() && lines[order[pos]].page == p {
                let l = &lines[order[pos]];
                let below = bm.y.is_none_or(|y| l.top <= y + 2.0 * l.size.max(6.0)) || p != page;
                if below && l.declared.is_none() && !l.skip {
                    if let Some(n) = match_lines(lines, order, pos, &key) {
                        found = Some((pos, n));
                        break;
                    }
                }
                pos += 1;
            }
            if found.is_some() {
                break;
            }
        }
        match found {
            Some((pos, _n)) => {
                let i = order[pos];
                lines[i].declared = Some(level);
                cursor = pos;
            }
            None => {
                // A heading the page does not print: insert it where the destination points.
                let p = page as usize;
                let y = bm.y.unwrap_or(f32::MAX);
                let mut at = pos_of_page.get(p).copied().unwrap_or(usize::MAX);
                if at == usize::MAX {
                    at = pos_of_page
                        .iter()
                        .skip(p + 1)
                        .copied()
                        .find(|&x| x != usize::MAX)
                        .unwrap_or(order.len());
                } else {
                    while at < order.len() && lines[order[at]].page == page && lines[order[at]].top > y + 1.0
                    {
                        at += 1;
                    }
                }
                let size = lines.get(order.get(at).copied().unwrap_or(0)).map(|l| l.size).unwrap_or(12.0);
                lines.push(Line {
                    page,
                    x0: 0.0,
                    x1: 0.0,
                    y: if y.is_finite() && y < f32::MAX { y } else { pages[p].height },
                    top: if y < f32::MAX { y } else { pages[p].height },
                    size,
                    weight: 700,
                    font: 0,
                    col: 0,
                    col_x0: 0.0,
                    col_x1: 0.0,
                    text: bm.title.clone(),
                    fixed_frac: 0.0,
                    tag: None,
                    wide_gaps: 0,
                    skip: false,
                    declared: Some(level),
                    synthetic: true,
                });
                order.insert(at, lines.len() - 1);
                rebuild(order, lines, &mut pos_of_page);
            }
        }
    }
}

/// Uses a printed contents list as the declared outline: each entry matched to a later line.
/// Returns how many entries matched.
fn apply_toc(lines: &mut [Line], order: &[usize], entries: &[TocEntry]) -> usize {
    // Levels: numbering depth, else indentation rank.
    let mut indents: Vec<f32> = Vec::new();
    for e in entries {
        if !indents.iter().any(|x| (x - e.x0).abs() < 4.0) {
            indents.push(e.x0);
        }
    }
    indents.sort_by(|a, b| a.total_cmp(b));
    let indent_level =
        |x: f32| indents.iter().position(|v| (v - x).abs() < 4.0).map(|p| p as u8 + 1).unwrap_or(1);
    let mut cursor = 0usize;
    let mut offset: Option<i64> = None;
    let mut matched = 0;
    for e in entries {
        let key = normalised_heading_text(&e.title);
        if key.is_empty() {
            continue;
        }
        let level = e.depth.map(|d| d.min(9) as u8).unwrap_or_else(|| indent_level(e.x0));
        let limit_page = match (e.page, offset) {
            (Some(p), Some(o)) => Some(p + o + 1),
            _ => None,
        };
        let mut pos = cursor;
        let mut found = None;
        while pos < order.len() {
            let l = &lines[order[pos]];
            if limit_page.is_some_and(|lp| l.page as i64 + 1 > lp) {
                break;
            }
            if !l.skip && l.declared.is_none() {
                let unglued = unglue_number(l.text.trim());
                let num_ok = match (&e.number, split_heading_number(&unglued)) {
                    (Some(n), Some(h)) => clean_number(h.label) == *n,
                    (Some(_), None) => false,
                    _ => true,
                };
                if num_ok && match_lines(lines, order, pos, &key).is_some() {
                    found = Some(pos);
                    break;
                }
            }
            pos += 1;
        }
        if let Some(pos) = found {
            let i = order[pos];
            lines[i].declared = Some(level);
            if let Some(p) = e.page {
                offset = Some(lines[i].page as i64 + 1 - p);
            }
            cursor = pos + 1;
            matched += 1;
        }
    }
    matched
}

// ---------------------------------------------------------------------------------------------
// The conversion.
// ---------------------------------------------------------------------------------------------

fn sensible_title(t: &str) -> bool {
    let t = t.trim();
    let lower = t.to_ascii_lowercase();
    t.chars().filter(|c| c.is_alphabetic()).count() >= 3
        && t.chars().count() <= 300
        && !["untitled", "microsoft word", "document", "title", "slide 1"].iter().any(|b| lower == *b)
        && !lower.starts_with("microsoft word - ")
        && ![".doc", ".docx", ".pdf", ".tex", ".dvi", ".indd", ".qxd"].iter().any(|e| lower.ends_with(e))
}

fn convert_document(
    pdfium: &Pdfium,
    name: &str,
    bytes: &[u8],
    options: &ConvertOptions,
) -> Result<Document, ErrorKind> {
    let b = pdfium.bindings();
    let doc = open_document(b, bytes)?;
    let count = unsafe { b.FPDF_GetPageCount(doc.doc) };
    if count < 0 {
        return Err(ErrorKind::Corrupt("the page tree is unreadable".into()));
    }
    let page_count = count as u32;
    if page_count > options.max_pages {
        return Err(ErrorKind::TooManyPages { pages: page_count, limit: options.max_pages });
    }
    if page_count == 0 {
        return Err(ErrorKind::Empty);
    }

    // Stage one.
    let mut tables = Tables::default();
    let mut lines: Vec<Line> = Vec::new();
    let mut pages: Vec<PageInfo> = Vec::with_capacity(page_count as usize);
    // Structure-tree headings, read only when the first pages show the PDF is tagged with them.
    let mut tagged = false;
    let mut tags: HashMap<i32, u8> = HashMap::new();
    for p in 0..page_count {
        let page = unsafe { b.FPDF_LoadPage(doc.doc, p as i32) };
        if page.is_null() {
            pages.push(PageInfo { width: 612.0, height: 792.0 });
            continue;
        }
        let text = unsafe { b.FPDFText_LoadPage(page) };
        let raw = RawPage { b, page, text };
        let info = unsafe {
            PageInfo {
                width: b.FPDF_GetPageWidthF(raw.page).max(1.0),
                height: b.FPDF_GetPageHeightF(raw.page).max(1.0),
            }
        };
        pages.push(info);
        if raw.text.is_null() {
            continue;
        }
        if p < 8 || tagged {
            tags = heading_mcids(b, raw.page);
            tagged |= !tags.is_empty();
        }
        let frags = page_fragments(b, raw.text, &mut tables, &tags);
        drop(raw);
        lines.extend(page_lines(frags, p, info));
    }
    let title_meta = meta_text(&doc, "Title");
    let bookmarks = if options.use_bookmarks { read_bookmarks(&doc, page_count) } else { Vec::new() };
    drop(doc);

    if lines.iter().all(|l| l.text.trim().is_empty()) {
        return Err(ErrorKind::Unsupported("a PDF without a text layer (scanned images?)".into()));
    }

    // Stage two.
    let mut body = body_style(&tables);
    body.spacing = measure_spacing(&lines, &body);
    remove_page_furniture(&mut lines, &pages);
    let toc = detect_toc(&mut lines, pages.len());

    let mut order: Vec<usize> = (0..lines.len()).filter(|&i| !lines[i].skip).collect();
    let usable_bookmarks: Vec<Bookmark> =
        bookmarks.into_iter().filter(|b| b.page.is_some() && !b.title.is_empty()).collect();
    let mut declared_mode = false;
    if options.use_bookmarks {
        if usable_bookmarks.len() >= 2 {
            apply_bookmarks(&mut lines, &mut order, &usable_bookmarks, &pages);
            declared_mode = true;
        } else if toc.len() >= 3 {
            let matched = apply_toc(&mut lines, &order, &toc);
            declared_mode = matched * 2 >= toc.len();
            if !declared_mode {
                lines.iter_mut().for_each(|l| l.declared = None);
            }
        }
    }

    let fonts = std::mem::take(&mut tables.fonts);
    let ctx = Ctx { lines: &lines, body, fonts: &fonts };
    let mut blocks = group_blocks(&ctx, &order);
    merge_chapter_labels(&ctx, &mut blocks);
    decide_headings(&ctx, &mut blocks, declared_mode, page_count);
    if declared_mode {
        restrict_to_declared(&mut blocks);
    }

    // Title.
    let title = if sensible_title(&title_meta) {
        title_meta.trim().to_string()
    } else {
        largest_text_on_first_page(&lines).unwrap_or_else(|| crate::text::file_stem(name))
    };

    let mut builder = DocumentBuilder::new(Format::Pdf, title, bytes);
    builder.set_page_count(page_count);
    for blk in &blocks {
        let kind = match &blk.kind {
            BlkKind::Heading => {
                BlockKind::Heading { level: blk.level.unwrap_or(1), number: blk.number.clone() }
            }
            BlkKind::Para => BlockKind::Paragraph,
            BlkKind::List { marker, depth } => {
                BlockKind::ListItem { marker: Some(marker.clone()), depth: *depth }
            }
            BlkKind::Code => BlockKind::Code,
        };
        let text = match &blk.kind {
            BlkKind::List { marker, .. } => {
                let t = blk.text.trim_start();
                t.strip_prefix(marker.as_str()).map(str::trim_start).unwrap_or(t).to_string()
            }
            _ => blk.text.clone(),
        };
        builder.push(kind, &text, Some(blk.pages));
    }
    if builder.blocks().is_empty() {
        return Err(ErrorKind::Empty);
    }
    Ok(builder.finish())
}

fn largest_text_on_first_page(lines: &[Line]) -> Option<String> {
    let first_page = lines.iter().find(|l| !l.skip && !l.text.trim().is_empty())?.page;
    let page: Vec<&Line> = lines.iter().filter(|l| l.page == first_page && !l.skip).collect();
    let max = page.iter().map(|l| l.size).fold(0f32, f32::max);
    let mut parts: Vec<&str> = Vec::new();
    let mut started = false;
    for l in &page {
        if (l.size - max).abs() < 0.5 {
            parts.push(l.text.trim());
            started = true;
        } else if started {
            break;
        }
    }
    let t = parts.join(" ");
    (t.chars().filter(|c| c.is_alphabetic()).count() >= 2).then(|| folio_core::model::collapse_whitespace(&t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_words() {
        assert_eq!(folio_core::numbering::number_word_value("ONE"), Some(1));
        assert_eq!(folio_core::numbering::number_word_value("TWENTYONE"), Some(21));
        assert_eq!(folio_core::numbering::number_word_value("twenty-three"), Some(23));
        assert_eq!(folio_core::numbering::number_word_value("thirteen"), Some(13));
        assert_eq!(folio_core::numbering::number_word_value("manual"), None);
        assert_eq!(label_value("IV"), Some("4".into()));
        assert_eq!(label_value("12"), Some("12".into()));
    }

    #[test]
    fn sequences() {
        let v = |s: &str| s.split('.').map(String::from).collect::<Vec<_>>();
        assert!(in_sequence(&v("1.2"), &v("1.3")));
        assert!(in_sequence(&v("1.2"), &v("1.2.1")));
        assert!(in_sequence(&v("1.2.4"), &v("1.3")));
        assert!(in_sequence(&v("1.2.4"), &v("2")));
        assert!(!in_sequence(&v("1.2"), &v("4.9")));
        assert!(!in_sequence(&v("1.2"), &v("1.2.3")));
    }

    #[test]
    fn contents_lines() {
        assert!(toc_line_re().is_match("1.1 Overview ......................... 6"));
        assert!(toc_line_re().is_match("1.3.1 Early history . . . . . . . . . . 4"));
        assert!(!toc_line_re().is_match("This is a sentence. It ends here 5"));
        assert!(trailing_page_re().is_match("1 About this manual 3"));
    }

    #[test]
    fn furniture_texts() {
        assert!(is_page_number_text("12"));
        assert!(is_page_number_text("- 3 -"));
        assert!(is_page_number_text("xiv"));
        assert!(is_page_number_text("Page 4"));
        assert!(!is_page_number_text("1.1 Scope"));
        assert_eq!(edge_number("4 Chapter 1. About this manual"), Some(4));
        assert_eq!(squash_digits("Page 12 of 40"), "page#of#");
    }

    #[test]
    fn hyphenation_and_titles() {
        let mut t = String::from("the docu-");
        join_line(&mut t, "ment is here", false);
        assert_eq!(t, "the document is here");
        let mut t = String::from("FAA-");
        join_line(&mut t, "Approved", false);
        assert_eq!(t, "FAA-Approved");
        assert_eq!(sentence_case("ABOUT THIS MANUAL"), "About this manual");
        assert_eq!(normalise_title("1.1 Scope of Work"), "scopeofwork");
        assert_eq!(normalised_heading_text("1.2.3 Element Text vs. Attributes"), "elementtextvsattributes");
        assert!(!sensible_title("Microsoft Word - report.docx"));
        assert!(sensible_title("Debian Policy Manual"));
    }

    #[test]
    fn list_markers() {
        assert_eq!(list_marker("• The terms must"), Some("•".into()));
        assert_eq!(list_marker("1. Allow existing titles"), Some("1.".into()));
        assert_eq!(list_marker("(a) In general"), Some("(a)".into()));
        assert_eq!(list_marker("1.1 Scope"), None);
    }
}

/// A PDF page rendered for display, with where a passage lies on it.
#[derive(Debug, Clone)]
pub struct RenderedPage {
    /// PNG bytes (RGB).
    pub png: Vec<u8>,
    pub width: u32,
    pub height: u32,
    /// Rectangles around `find`'s text, in image pixels: (x, y, w, h) from the top left.
    pub highlights: Vec<[f32; 4]>,
}

/// Renders page `page` (from 1) `width` pixels wide, and finds where `find` (a passage's opening
/// words) is printed on it.
pub fn render_page(
    bytes: &[u8],
    page: u32,
    width: u32,
    find: Option<&str>,
    options: &ConvertOptions,
) -> Result<RenderedPage, ErrorKind> {
    with_document(bytes, options, |d| -> Result<RenderedPage, ErrorKind> {
        let count = unsafe { d.b.FPDF_GetPageCount(d.doc) }.max(0) as u32;
        if page == 0 || page > count {
            return Err(ErrorKind::Corrupt(format!("page {page} of {count}")));
        }
        let p = unsafe { d.b.FPDF_LoadPage(d.doc, (page - 1) as i32) };
        if p.is_null() {
            return Err(ErrorKind::Corrupt(format!("pdfium cannot load page {page}")));
        }
        let raw = RawPage { b: d.b, page: p, text: unsafe { d.b.FPDFText_LoadPage(p) } };
        let (pw, ph) = unsafe { (d.b.FPDF_GetPageWidthF(p), d.b.FPDF_GetPageHeightF(p)) };
        let scale = width.clamp(100, 4000) as f32 / pw.max(1.0);
        let (w, h) = ((pw * scale).round() as i32, (ph * scale).round() as i32);
        let bitmap = unsafe { d.b.FPDFBitmap_Create(w, h, 0) };
        if bitmap.is_null() {
            return Err(ErrorKind::Corrupt("cannot allocate the page image".into()));
        }
        let rgb = unsafe {
            let _ = d.b.FPDFBitmap_FillRect(bitmap, 0, 0, w, h, 0xFFFF_FFFF);
            // FPDF_ANNOT | FPDF_LCD_TEXT
            d.b.FPDF_RenderPageBitmap(bitmap, p, 0, 0, w, h, 0, 0x01 | 0x02);
            let stride = d.b.FPDFBitmap_GetStride(bitmap) as usize;
            let buf = d.b.FPDFBitmap_GetBuffer(bitmap) as *const u8;
            let mut rgb = Vec::with_capacity((w * h * 3) as usize);
            for y in 0..h as usize {
                let row = std::slice::from_raw_parts(buf.add(y * stride), w as usize * 4);
                for px in row.chunks_exact(4) {
                    rgb.extend_from_slice(&[px[2], px[1], px[0]]); // BGRx → RGB
                }
            }
            d.b.FPDFBitmap_Destroy(bitmap);
            rgb
        };
        let mut highlights = Vec::new();
        if let (Some(text), false) = (find, raw.text.is_null()) {
            for needle in search_needles(text) {
                highlights = find_rects(d.b, raw.text, &needle, scale, ph);
                if !highlights.is_empty() {
                    break;
                }
            }
        }
        drop(raw);
        Ok(RenderedPage {
            png: encode_png(w as u32, h as u32, &rgb),
            width: w as u32,
            height: h as u32,
            highlights,
        })
    })?
}

/// What to search a page for: the passage's first words, fewer and fewer (extraction may have
/// joined hyphenated or re-flowed lines differently from the printed page).
fn search_needles(text: &str) -> Vec<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    [12usize, 6, 3]
        .iter()
        .filter(|n| words.len() >= **n || **n == 3)
        .map(|n| words[..words.len().min(*n)].join(" "))
        .filter(|s| !s.is_empty())
        .collect()
}

fn find_rects(
    b: &dyn PdfiumLibraryBindings,
    text: FPDF_TEXTPAGE,
    needle: &str,
    scale: f32,
    page_h: f32,
) -> Vec<[f32; 4]> {
    let mut out = Vec::new();
    unsafe {
        let h = b.FPDFText_FindStart_str(text, needle, 0, 0);
        if h.is_null() {
            return out;
        }
        if b.FPDFText_FindNext(h) != 0 {
            let start = b.FPDFText_GetSchResultIndex(h);
            let count = b.FPDFText_GetSchCount(h);
            let n = b.FPDFText_CountRects(text, start, count);
            for i in 0..n {
                let (mut l, mut t, mut r, mut bo) = (0f64, 0f64, 0f64, 0f64);
                if b.FPDFText_GetRect(text, i, &mut l, &mut t, &mut r, &mut bo) != 0 {
                    let x = l as f32 * scale;
                    let y = (page_h - t as f32) * scale;
                    out.push([x, y, (r - l) as f32 * scale, (t - bo) as f32 * scale]);
                }
            }
        }
        b.FPDFText_FindClose(h);
    }
    out
}

/// A minimal PNG encoder: 8-bit RGB, no filtering, zlib-compressed.
fn encode_png(width: u32, height: u32, rgb: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut raw = Vec::with_capacity(rgb.len() + height as usize);
    for row in rgb.chunks_exact(width as usize * 3) {
        raw.push(0); // filter: none
        raw.extend_from_slice(row);
    }
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    let _ = z.write_all(&raw);
    let idat = z.finish().unwrap_or_default();
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
    for (kind, data) in [(b"IHDR", &ihdr[..]), (b"IDAT", &idat[..]), (b"IEND", &[][..])] {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let mut chunk = kind.to_vec();
        chunk.extend_from_slice(data);
        out.extend_from_slice(&chunk);
        out.extend_from_slice(&crc32(&chunk).to_be_bytes());
    }
    out
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &byte in data {
        crc ^= byte as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}
