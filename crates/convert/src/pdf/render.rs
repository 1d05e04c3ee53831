//! A page drawn for the reader, with where a passage lies on it.

use super::binding::Page;
use super::engine::with_document;
use super::scan::{needs_ocr, render, OCR_DPI};
use crate::ocr::{OcrEngine, OcrOptions};
use crate::{ConvertOptions, ErrorKind};

/// A PDF page rendered for display, with where a passage lies on it.
#[derive(Debug, Clone)]
pub struct RenderedPage {
    /// PNG bytes (RGB).
    pub png: Vec<u8>,
    /// The image's width in pixels (the `width` asked, kept within 100–4000).
    pub width: u32,
    /// The image's height in pixels, in the page's proportions.
    pub height: u32,
    /// Rectangles around `find`'s text, in image pixels: (x, y, w, h) from the top left.
    pub highlights: Vec<[f32; 4]>,
}

/// Renders page `page` (from 1) `width` pixels wide, and finds where `find` (a passage: a
/// chunk's text) is printed on it: every line of it the page holds, table cells included.
pub fn render_page(
    bytes: &[u8],
    page: u32,
    width: u32,
    find: Option<&str>,
    options: &ConvertOptions,
) -> Result<RenderedPage, ErrorKind> {
    with_document(bytes, options, |d| -> Result<RenderedPage, ErrorKind> {
        let count = d.page_count().unwrap_or(0);
        if page == 0 || page > count {
            return Err(ErrorKind::Corrupt(format!("page {page} of {count}")));
        }
        let p =
            d.page(page - 1).ok_or_else(|| ErrorKind::Corrupt(format!("pdfium cannot load page {page}")))?;
        let (pw, ph) = p.size();
        let scale = width.clamp(100, 4000) as f32 / pw;
        let (w, h) = ((pw * scale).round() as i32, (ph * scale).round() as i32);
        let rgb = p.render_rgb(w, h)?;
        let to_image = |[l, t, r, b]: [f64; 4]| {
            let x = l as f32 * scale;
            let y = (ph - t as f32) * scale;
            [x, y, (r - l) as f32 * scale, (t - b) as f32 * scale]
        };
        let mut highlights = Vec::new();
        if let (Some(text), true) = (find, p.has_text()) {
            let chars: Vec<char> =
                (0..p.char_count()).map(|i| char::from_u32(p.unicode(i)).unwrap_or('\u{fffd}')).collect();
            for (start, end) in super::passage::passage_ranges(&chars, text) {
                highlights.extend(p.range_rects(start, end - start).into_iter().map(to_image));
            }
            // Text the comparison cannot follow (an unusual encoding): the passage's opening
            // words, as the page's own search finds them.
            if highlights.is_empty() {
                for needle in search_needles(text) {
                    highlights = p.find_text(&needle).into_iter().map(to_image).collect();
                    if !highlights.is_empty() {
                        break;
                    }
                }
            }
        }
        if let (Some(text), true, true) = (find, highlights.is_empty(), options.ocr && needs_ocr(&p)) {
            // A scanned page: where the passage's words are, as OCR reads them.
            highlights = ocr_rects(&p, text, scale, &options.ocr_options()).unwrap_or_default();
        }
        Ok(RenderedPage {
            png: encode_png(w as u32, h as u32, &rgb),
            width: w as u32,
            height: h as u32,
            highlights,
        })
    })?
}

/// On a scanned page: the boxes of the OCR words where the passage's opening words are read in
/// order (case and punctuation aside), in image pixels at `scale` pixels a point.
fn ocr_rects(page: &Page<'_>, text: &str, scale: f32, ocr: &OcrOptions) -> Option<Vec<[f32; 4]>> {
    let key =
        |w: &str| w.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect::<String>();
    let want: Vec<String> = text.split_whitespace().map(key).filter(|w| !w.is_empty()).take(8).collect();
    if want.is_empty() {
        return None;
    }
    let image = render(page, 0).ok()?;
    let words = OcrEngine::load(ocr)
        .ok()?
        .recognize(&image.pixels, image.width, image.height, image.width, OCR_DPI)
        .ok()?;
    let keys: Vec<String> = words.iter().map(|w| key(&w.text)).collect();
    // Fewer and fewer words, as OCR may misread one of them.
    let (start, n) = [want.len(), 4, 3]
        .into_iter()
        .filter(|&n| n <= want.len() && n <= keys.len())
        .find_map(|n| (0..=keys.len() - n).find(|&i| keys[i..i + n] == want[..n]).map(|i| (i, n)))?;
    let k = scale * 72.0 / OCR_DPI as f32;
    Some(
        words[start..start + n]
            .iter()
            .map(|w| [w.left as f32 * k, w.top as f32 * k, w.width as f32 * k, w.height as f32 * k])
            .collect(),
    )
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

/// The page as a PNG: 8-bit RGB, fast compression (the image is shown once, at once).
fn encode_png(width: u32, height: u32, rgb: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    let written = encoder.write_header().and_then(|mut w| w.write_image_data(rgb));
    if written.is_err() {
        // Only a buffer of the wrong size fails, which the caller rules out.
        return Vec::new();
    }
    out
}
