//! The pdfium binding: every call into pdfium's C API, behind safe handles that close themselves.
//!
//! This is the only file of the PDF converter with `unsafe` code. Each handle type owns one pdfium
//! object and borrows the bindings it came from, so an object cannot outlive its document or the
//! library; each method checks its inputs (indices, buffer sizes) before it calls pdfium, and each
//! `unsafe` block says why the call is sound.
//!
//! pdfium is not thread-safe: callers hold [`super::engine`]'s lock while any handle is alive.

use super::ErrorKind;
use pdfium_render::prelude::*;
use std::collections::{HashMap, HashSet};
use std::ffi::c_void;

/// An open document.
pub(super) struct Doc<'a> {
    b: &'a dyn PdfiumLibraryBindings,
    doc: FPDF_DOCUMENT,
}

impl Drop for Doc<'_> {
    fn drop(&mut self) {
        // SAFETY: `doc` is a non-null handle from FPDF_LoadMemDocument64 (checked in `open`),
        // closed exactly once here; pages borrow the `Doc`, so none outlives it.
        unsafe { self.b.FPDF_CloseDocument(self.doc) }
    }
}

fn utf16_buffer_to_string(buf: &[u16]) -> String {
    let end = buf.iter().position(|&c| c == 0).unwrap_or(buf.len());
    String::from_utf16_lossy(&buf[..end])
}

/// One bookmark as pdfium reads it: depth (0 = top), title, destination page (0-based) and the
/// destination's y in page space.
#[derive(Debug, Clone)]
pub(super) struct RawBookmark {
    pub depth: u8,
    pub title: String,
    pub page: Option<u32>,
    pub y: Option<f32>,
}

impl<'a> Doc<'a> {
    /// Opens a document held in memory. `bytes` must outlive the document, which the lifetime
    /// ties together.
    pub fn open(b: &'a dyn PdfiumLibraryBindings, bytes: &'a [u8]) -> Result<Doc<'a>, ErrorKind> {
        // SAFETY: pdfium reads `bytes` for as long as the document is open; the returned `Doc`
        // borrows `bytes` for 'a, so the buffer outlives the handle. No password is passed.
        let doc = unsafe { b.FPDF_LoadMemDocument64(bytes, None) };
        if doc.is_null() {
            // SAFETY: reads pdfium's thread-local last error; no arguments.
            let code = unsafe { b.FPDF_GetLastError() };
            return Err(match code as u32 {
                4 | 5 => ErrorKind::Encrypted,
                2 | 3 => ErrorKind::Corrupt("pdfium cannot parse the file".into()),
                _ => ErrorKind::Corrupt(format!("pdfium cannot open the file (error {code})")),
            });
        }
        Ok(Doc { b, doc })
    }

    /// The number of pages; `None` when the page tree is unreadable.
    pub fn page_count(&self) -> Option<u32> {
        // SAFETY: `self.doc` is a valid open document.
        let n = unsafe { self.b.FPDF_GetPageCount(self.doc) };
        (n >= 0).then_some(n as u32)
    }

    /// A metadata string of the document information dictionary ("Title", "Author").
    pub fn meta_text(&self, tag: &str) -> String {
        // SAFETY: a null buffer of length 0 asks only for the needed size in bytes.
        let len = unsafe { self.b.FPDF_GetMetaText(self.doc, tag, std::ptr::null_mut(), 0) } as usize;
        if len <= 2 || len > 1 << 16 {
            return String::new();
        }
        let mut buf = vec![0u16; len / 2 + 1];
        // SAFETY: `buf` holds `buf.len() * 2` bytes, the length passed; pdfium writes at most that.
        unsafe {
            self.b.FPDF_GetMetaText(self.doc, tag, buf.as_mut_ptr() as *mut c_void, (buf.len() * 2) as _);
        }
        utf16_buffer_to_string(&buf)
    }

    /// Loads page `index` (0-based) with its text layer; `None` when pdfium cannot load it.
    pub fn page(&self, index: u32) -> Option<Page<'_>> {
        if index >= self.page_count().unwrap_or(0) {
            return None;
        }
        // SAFETY: `index` is within the page count (checked above).
        let page = unsafe { self.b.FPDF_LoadPage(self.doc, index as i32) };
        if page.is_null() {
            return None;
        }
        // SAFETY: `page` is a valid, non-null page of this document.
        let text = unsafe { self.b.FPDFText_LoadPage(page) };
        Some(Page { b: self.b, page, text })
    }

    /// The bookmark outline, depth first in document order. At most 20,000 entries; a cyclic
    /// outline is read once per outline item.
    pub fn bookmarks(&self) -> Vec<RawBookmark> {
        let page_count = self.page_count().unwrap_or(0);
        let mut out = Vec::new();
        let mut stack: Vec<(FPDF_BOOKMARK, u8)> = Vec::new();
        // SAFETY: a null parent asks for the first top-level bookmark of a valid document.
        let first = unsafe { self.b.FPDFBookmark_GetFirstChild(self.doc, std::ptr::null_mut()) };
        if !first.is_null() {
            stack.push((first, 0));
        }
        // pdfium hands out one handle per outline dictionary, so each handle is read once even
        // when an item's /Next or /First leads back to an item already read.
        let mut seen = HashSet::new();
        while let Some((bm, depth)) = stack.pop() {
            if out.len() > 20_000 {
                break;
            }
            if !seen.insert(bm as usize) {
                continue;
            }
            // SAFETY: `bm` is a non-null bookmark handle of this document (only non-null handles
            // are pushed); a null buffer of length 0 asks for the title's size in bytes.
            let len = unsafe { self.b.FPDFBookmark_GetTitle(bm, std::ptr::null_mut(), 0) } as usize;
            let title = if len > 2 && len < 1 << 14 {
                let mut buf = vec![0u16; len / 2 + 1];
                // SAFETY: `buf` holds `buf.len() * 2` bytes, the length passed.
                unsafe {
                    self.b.FPDFBookmark_GetTitle(bm, buf.as_mut_ptr() as *mut c_void, (buf.len() * 2) as _);
                }
                utf16_buffer_to_string(&buf)
            } else {
                String::new()
            };
            let (page, y) = self.destination(bm, page_count);
            out.push(RawBookmark { depth, title: title.trim().to_string(), page, y });
            // SAFETY: `bm` is a valid bookmark handle of this document.
            let next = unsafe { self.b.FPDFBookmark_GetNextSibling(self.doc, bm) };
            if !next.is_null() {
                stack.push((next, depth));
            }
            // SAFETY: as above.
            let child = unsafe { self.b.FPDFBookmark_GetFirstChild(self.doc, bm) };
            if !child.is_null() && depth < 30 {
                stack.push((child, depth + 1));
            }
        }
        out
    }

    /// A bookmark's destination page (0-based, within the document) and y.
    fn destination(&self, bm: FPDF_BOOKMARK, page_count: u32) -> (Option<u32>, Option<f32>) {
        // SAFETY: `bm` is a valid bookmark handle of this document; a null destination falls back
        // to the bookmark's action, whose destination is read only when the action is non-null.
        let dest = unsafe {
            let mut dest = self.b.FPDFBookmark_GetDest(self.doc, bm);
            if dest.is_null() {
                let action = self.b.FPDFBookmark_GetAction(bm);
                if !action.is_null() {
                    dest = self.b.FPDFAction_GetDest(self.doc, action);
                }
            }
            dest
        };
        if dest.is_null() {
            return (None, None);
        }
        // SAFETY: `dest` is a non-null destination of this document.
        let idx = unsafe { self.b.FPDFDest_GetDestPageIndex(self.doc, dest) };
        let page = (idx >= 0 && (idx as u32) < page_count).then_some(idx as u32);
        let (mut hx, mut hy, mut hz) = (0, 0, 0);
        let (mut x, mut y, mut z) = (0f32, 0f32, 0f32);
        // SAFETY: every out-parameter points to a live local.
        let ok = unsafe {
            self.b.FPDFDest_GetLocationInPage(dest, &mut hx, &mut hy, &mut hz, &mut x, &mut y, &mut z)
        };
        (page, (ok != 0 && hy != 0 && y.is_finite()).then_some(y))
    }
}

/// A loaded page and its text layer (which may be absent).
pub(super) struct Page<'a> {
    b: &'a dyn PdfiumLibraryBindings,
    page: FPDF_PAGE,
    text: FPDF_TEXTPAGE,
}

impl Drop for Page<'_> {
    fn drop(&mut self) {
        // SAFETY: both handles came from this document, are closed once, text page first.
        unsafe {
            if !self.text.is_null() {
                self.b.FPDFText_ClosePage(self.text);
            }
            self.b.FPDF_ClosePage(self.page);
        }
    }
}

/// A character's style as pdfium reports it.
pub(super) struct CharFont {
    /// The font size times the text matrix's vertical scale (the size as printed).
    pub size: f32,
    /// Whether the text runs other than left to right (rotated or mirrored).
    pub rotated: bool,
    pub weight: i16,
    /// The font's name and its descriptor flags.
    pub name: String,
    pub flags: i32,
}

/// A character's box and baseline origin in page space.
pub(super) struct CharBox {
    pub left: f32,
    pub right: f32,
    pub bottom: f32,
    pub top: f32,
    pub baseline: f32,
}

/// A thin horizontal bar the page draws (a path at most [`RULE_HEIGHT`] tall and several times
/// as wide): an underline, a table's rule, a signature line. Page space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct HRule {
    pub x0: f32,
    pub x1: f32,
    /// The middle of its height.
    pub y: f32,
}

/// The most a path's box may be tall to be a rule (points): a stroke or a filled bar.
const RULE_HEIGHT: f32 = 2.0;
/// The most segments a rule's path has: a line is two, a rectangle five (closed).
const RULE_SEGMENTS: i32 = 6;

impl Page<'_> {
    /// Width and height in points (at least 1).
    pub fn size(&self) -> (f32, f32) {
        // SAFETY: `self.page` is a valid page handle.
        let (w, h) = unsafe { (self.b.FPDF_GetPageWidthF(self.page), self.b.FPDF_GetPageHeightF(self.page)) };
        (w.max(1.0), h.max(1.0))
    }

    /// Whether pdfium could load the page's text layer.
    pub fn has_text(&self) -> bool {
        !self.text.is_null()
    }

    /// The number of characters of the text layer (0 without one).
    pub fn char_count(&self) -> usize {
        if self.text.is_null() {
            return 0;
        }
        // SAFETY: `self.text` is a valid, non-null text page.
        unsafe { self.b.FPDFText_CountChars(self.text) }.max(0) as usize
    }

    /// The unicode value of character `i` (< `char_count()`; 0 otherwise).
    pub fn unicode(&self, i: usize) -> u32 {
        // SAFETY: pdfium checks the text page for null and `i` against its character count, and
        // returns 0 for either.
        unsafe { self.b.FPDFText_GetUnicode(self.text, i as i32) }
    }

    /// An identifier of the text object character `i` belongs to (0 when none): characters of one
    /// object share a style.
    pub fn text_object(&self, i: usize) -> usize {
        // SAFETY: as in `unicode`; a null result means no object.
        unsafe { self.b.FPDFText_GetTextObject(self.text, i as i32) as usize }
    }

    /// The marked-content id of character `i`'s text object (-1 when it has none).
    pub fn marked_content_id(&self, i: usize) -> i32 {
        // SAFETY: as in `unicode`; the object handle is checked for null before it is used.
        unsafe {
            let obj = self.b.FPDFText_GetTextObject(self.text, i as i32);
            if obj.is_null() {
                -1
            } else {
                self.b.FPDFPageObj_GetMarkedContentID(obj)
            }
        }
    }

    /// Character `i`'s font: printed size, direction, weight, name and flags.
    pub fn char_font(&self, i: usize, name_buf: &mut [u8]) -> CharFont {
        let i = i as i32;
        // SAFETY: as in `unicode`.
        let fs = unsafe { self.b.FPDFText_GetFontSize(self.text, i) } as f32;
        let mut m = FS_MATRIX { a: 1.0, b: 0.0, c: 0.0, d: 1.0, e: 0.0, f: 0.0 };
        // SAFETY: `m` is a live local the call writes to.
        let has_m = unsafe { self.b.FPDFText_GetMatrix(self.text, i, &mut m) } != 0;
        let scale = if has_m { (m.c * m.c + m.d * m.d).sqrt() } else { 1.0 };
        let mut size = fs * if scale.is_finite() && scale > 0.0 { scale } else { 1.0 };
        if !size.is_finite() || size <= 0.0 {
            size = fs.max(1.0);
        }
        let rotated = has_m && (m.b.abs() > 0.2 * m.a.abs().max(1e-6) || m.a < 0.0);
        // SAFETY: as in `unicode`.
        let weight = unsafe { self.b.FPDFText_GetFontWeight(self.text, i) }.clamp(-1, 1000) as i16;
        let mut flags = 0i32;
        // SAFETY: `name_buf` is writable for its whole length, the length passed; `flags` is a
        // live local.
        let len = unsafe {
            self.b.FPDFText_GetFontInfo(
                self.text,
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
        CharFont { size, rotated, weight, name, flags }
    }

    /// Character `i`'s loose box and baseline; `None` when pdfium has no box for it.
    pub fn char_box(&self, i: usize) -> Option<CharBox> {
        let mut r = FS_RECTF { left: 0.0, top: 0.0, right: 0.0, bottom: 0.0 };
        // SAFETY: as in `unicode`; `r` is a live local.
        if unsafe { self.b.FPDFText_GetLooseCharBox(self.text, i as i32, &mut r) } == 0 {
            return None;
        }
        let (mut ox, mut oy) = (0f64, 0f64);
        // SAFETY: as in `unicode`; `ox` and `oy` are live locals.
        let has_origin = unsafe { self.b.FPDFText_GetCharOrigin(self.text, i as i32, &mut ox, &mut oy) } != 0;
        Some(CharBox {
            left: r.left.min(r.right),
            right: r.left.max(r.right),
            bottom: r.bottom.min(r.top),
            top: r.bottom.max(r.top),
            baseline: if has_origin { oy as f32 } else { r.bottom },
        })
    }

    /// The page's top-level objects of one type (2 = path, 3 = image), in the order the page
    /// draws them. Form objects are not looked into.
    fn objects_of_type(&self, kind: i32) -> impl Iterator<Item = FPDF_PAGEOBJECT> + '_ {
        // SAFETY: `self.page` is a valid page handle.
        let n = unsafe { self.b.FPDFPage_CountObjects(self.page) }.clamp(0, 100_000);
        (0..n).filter_map(move |i| {
            // SAFETY: `i` is below the object count; a null object is skipped.
            let obj = unsafe { self.b.FPDFPage_GetObject(self.page, i) };
            // SAFETY: `obj` is non-null (checked first) and belongs to this page.
            (!obj.is_null() && unsafe { self.b.FPDFPageObj_GetType(obj) } == kind).then_some(obj)
        })
    }

    /// An object's bounding box in page space: left, bottom, right, top.
    fn bounds(&self, obj: FPDF_PAGEOBJECT) -> Option<(f32, f32, f32, f32)> {
        let (mut l, mut b, mut r, mut t) = (0f32, 0f32, 0f32, 0f32);
        // SAFETY: `obj` comes from `objects_of_type`, a valid object of this page; the four
        // out-parameters are live locals.
        let ok = unsafe { self.b.FPDFPageObj_GetBounds(obj, &mut l, &mut b, &mut r, &mut t) } != 0;
        ok.then_some((l, b, r, t))
    }

    /// The share of the page that images cover (0 to 1, overlaps counted once each): a scanned
    /// page is one image over the whole page. Form objects are not looked into.
    pub fn image_cover(&self) -> f32 {
        let (w, h) = self.size();
        let covered: f32 = self
            .objects_of_type(3)
            .filter_map(|obj| self.bounds(obj))
            .map(|(l, b, r, t)| (r.min(w) - l.max(0.0)).max(0.0) * (t.min(h) - b.max(0.0)).max(0.0))
            .sum();
        (covered / (w * h)).min(1.0)
    }

    /// The page's thin horizontal rules, top-level path objects only (a form XObject's paths are
    /// in its own space and are not looked into), in the order the page draws them.
    pub fn horizontal_rules(&self) -> Vec<HRule> {
        self.objects_of_type(2)
            // A rule is a line or a bar: a handful of segments. A chart's curves and shapes, with
            // more, are not measured (their bounds cost a pass over every point).
            // SAFETY: `obj` is a valid path object (its type checked by `objects_of_type`).
            .filter(|&obj| (1..=RULE_SEGMENTS).contains(&unsafe { self.b.FPDFPath_CountSegments(obj) }))
            .filter_map(|obj| self.bounds(obj))
            .filter(|&(l, b, r, t)| {
                let (w, h) = (r - l, t - b);
                h.is_finite() && w.is_finite() && h <= RULE_HEIGHT && w >= 3.0 * RULE_HEIGHT.max(h)
            })
            .map(|(l, b, r, t)| HRule { x0: l, x1: r, y: (b + t) / 2.0 })
            .collect()
    }

    /// The whole text layer as pdfium extracts it, without layout analysis.
    pub fn plain_text(&self) -> String {
        let n = self.char_count();
        if n == 0 {
            return String::new();
        }
        let mut buf = vec![0u16; n + 1];
        // SAFETY: `buf` holds n + 1 UTF-16 units: the n characters and the terminating zero.
        let got = unsafe { self.b.FPDFText_GetText(self.text, 0, n as i32, buf.as_mut_ptr()) };
        buf.truncate((got.max(0) as usize).min(buf.len()));
        utf16_buffer_to_string(&buf)
    }

    /// Tagged PDFs: the marked-content ids of the page's H1..H6 structure elements, with their
    /// level (children inherit their heading's level).
    pub fn heading_mcids(&self) -> HashMap<i32, u8> {
        let b = self.b;
        let mut out = HashMap::new();
        // SAFETY: `self.page` is a valid page; the tree is closed below.
        let tree = unsafe { b.FPDF_StructTree_GetForPage(self.page) };
        if tree.is_null() {
            return out;
        }
        let mut stack: Vec<(FPDF_STRUCTELEMENT, Option<u8>, u8)> = Vec::new();
        // SAFETY: `tree` is a valid, non-null structure tree.
        let n = unsafe { b.FPDF_StructTree_CountChildren(tree) };
        for i in 0..n.clamp(0, 10_000) {
            // SAFETY: `i` is below the child count.
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
            // SAFETY: `el` is a non-null element of the open tree; `buf` holds `buf.len() * 2`
            // bytes, the length passed.
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
                // SAFETY: `el` is valid; indices stay below the count.
                let count = unsafe { b.FPDF_StructElement_GetMarkedContentIdCount(el) };
                for k in 0..count.clamp(0, 1000) {
                    // SAFETY: `k` is below the count.
                    let id = unsafe { b.FPDF_StructElement_GetMarkedContentIdAtIndex(el, k) };
                    if id >= 0 {
                        out.insert(id, lv);
                    }
                }
            }
            if depth < 64 {
                // SAFETY: `el` is valid; indices stay below the count; null children are skipped.
                let kids = unsafe { b.FPDF_StructElement_CountChildren(el) };
                for k in 0..kids.clamp(0, 10_000) {
                    // SAFETY: `k` is below the child count.
                    let c = unsafe { b.FPDF_StructElement_GetChildAtIndex(el, k) };
                    if !c.is_null() {
                        stack.push((c, level, depth + 1));
                    }
                }
            }
        }
        // SAFETY: `tree` came from FPDF_StructTree_GetForPage and is closed once; no element of
        // it is used afterwards.
        unsafe { b.FPDF_StructTree_Close(tree) };
        out
    }

    /// Renders the page `w` × `h` pixels on white; returns 8-bit RGB rows (no padding).
    pub fn render_rgb(&self, w: i32, h: i32) -> Result<Vec<u8>, ErrorKind> {
        self.render(w, h, |px, out| out.extend_from_slice(&[px[2], px[1], px[0]]))
    }

    /// Renders the page `w` × `h` pixels on white; returns 8-bit gray rows (no padding), the
    /// luminance of pdfium's BGR pixels.
    pub fn render_gray(&self, w: i32, h: i32) -> Result<Vec<u8>, ErrorKind> {
        self.render(w, h, |px, out| {
            let (b, g, r) = (px[0] as u32, px[1] as u32, px[2] as u32);
            out.push(((r * 299 + g * 587 + b * 114) / 1000) as u8);
        })
    }

    fn render(
        &self,
        w: i32,
        h: i32,
        mut pixel: impl FnMut(&[u8], &mut Vec<u8>),
    ) -> Result<Vec<u8>, ErrorKind> {
        if w <= 0 || h <= 0 || (w as i64) * (h as i64) > 64 * 1024 * 1024 {
            return Err(ErrorKind::Corrupt(format!("cannot render a page of {w} × {h} pixels")));
        }
        // SAFETY: positive dimensions within a 256 MB buffer (checked above); format 0 = BGRx.
        let bitmap = unsafe { self.b.FPDFBitmap_Create(w, h, 0) };
        if bitmap.is_null() {
            return Err(ErrorKind::Corrupt("cannot allocate the page image".into()));
        }
        let mut out = Vec::with_capacity((w * h * 3) as usize);
        // SAFETY: `bitmap` is a valid w × h bitmap; the page is valid. Rows are read within the
        // bitmap's stride × height buffer (4 bytes a pixel, w pixels a row, stride ≥ 4w), and the
        // bitmap is destroyed once, after the last read.
        unsafe {
            // Fails only for a null bitmap, which `bitmap` is not (checked above).
            let _ = self.b.FPDFBitmap_FillRect(bitmap, 0, 0, w, h, 0xFFFF_FFFF);
            // FPDF_ANNOT | FPDF_LCD_TEXT
            self.b.FPDF_RenderPageBitmap(bitmap, self.page, 0, 0, w, h, 0, 0x01 | 0x02);
            let stride = self.b.FPDFBitmap_GetStride(bitmap) as usize;
            let buf = self.b.FPDFBitmap_GetBuffer(bitmap) as *const u8;
            if !buf.is_null() && stride >= w as usize * 4 {
                for y in 0..h as usize {
                    let row = std::slice::from_raw_parts(buf.add(y * stride), w as usize * 4);
                    for px in row.chunks_exact(4) {
                        pixel(px, &mut out);
                    }
                }
            }
            self.b.FPDFBitmap_Destroy(bitmap);
        }
        if out.is_empty() {
            return Err(ErrorKind::Corrupt("cannot read the page image".into()));
        }
        Ok(out)
    }

    /// Where `needle` is first printed on the page: rectangles (left, top, right, bottom) in page
    /// space.
    pub fn find_text(&self, needle: &str) -> Vec<[f64; 4]> {
        let mut out = Vec::new();
        if self.text.is_null() || needle.is_empty() {
            return out;
        }
        // SAFETY: the text page is non-null; the search handle is closed once below, and result
        // indices come from pdfium itself.
        unsafe {
            let h = self.b.FPDFText_FindStart_str(self.text, needle, 0, 0);
            if h.is_null() {
                return out;
            }
            if self.b.FPDFText_FindNext(h) != 0 {
                let start = self.b.FPDFText_GetSchResultIndex(h);
                let count = self.b.FPDFText_GetSchCount(h);
                out = self.range_rects(start.max(0) as usize, count.max(0) as usize);
            }
            self.b.FPDFText_FindClose(h);
        }
        out
    }

    /// The rectangles (left, top, right, bottom, in page points) that characters `start` to
    /// `start + count` occupy: one a line (pdfium merges the characters of a line).
    pub fn range_rects(&self, start: usize, count: usize) -> Vec<[f64; 4]> {
        let mut out = Vec::new();
        if self.text.is_null() || count == 0 || start + count > self.char_count() {
            return out;
        }
        // SAFETY: the text page is non-null and the range lies within its characters (checked
        // above); GetRect reads the rectangles CountRects computed for it.
        unsafe {
            let n = self.b.FPDFText_CountRects(self.text, start as i32, count as i32);
            for i in 0..n {
                let (mut l, mut t, mut r, mut bo) = (0f64, 0f64, 0f64, 0f64);
                if self.b.FPDFText_GetRect(self.text, i, &mut l, &mut t, &mut r, &mut bo) != 0 {
                    out.push([l, t, r, bo]);
                }
            }
        }
        out
    }
}
