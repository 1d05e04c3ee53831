//! OCR with the real Tesseract on a page drawn here: a PDF with known text, rendered to gray
//! pixels at 150 dpi by pdfium, read back word for word with its boxes.
//!
//! These tests need libtesseract (`tesseract-ocr`, `tesseract-ocr-eng`) and libpdfium
//! (scripts/setup-assets.sh): ignored by a plain `cargo test`; when run, a missing one fails them.

use folio_convert::ocr::{find_tessdata, OcrEngine, OcrError, OcrOptions, OcrWord};
use folio_convert::pdf::with_pdfium;
use folio_convert::ConvertOptions;
use pdfium_render::prelude::*;
use std::sync::OnceLock;

use folio_testkit::pdf::pdf_from_objects;

const DPI: u32 = 150;

/// The page's lines: a heading, then body text (x, y in points from the bottom left, size, text).
const LINES: [(f32, f32, f32, &str); 7] = [
    (72.0, 700.0, 18.0, "Section 12 Licensing of operators"),
    (72.0, 660.0, 12.0, "Every applicant for a licence shall submit the form set out in"),
    (72.0, 644.0, 12.0, "Schedule 3 together with the fee, a copy of the business plan and"),
    (72.0, 628.0, 12.0, "evidence of adequate capital. The Authority may request further"),
    (72.0, 612.0, 12.0, "documents before it decides on the application within ninety days."),
    (72.0, 580.0, 12.0, "A licence granted under this section remains valid for five years"),
    (72.0, 564.0, 12.0, "unless it is revoked, suspended or surrendered before that date."),
];

/// A missing engine fails the test, saying how to install it.
fn missing(what: &str) -> ! {
    panic!(
        "{what}. Install tesseract-ocr and tesseract-ocr-eng (apt) and libpdfium (scripts/setup-assets.sh)"
    );
}

fn engine() -> OcrEngine {
    OcrEngine::load(&OcrOptions::default()).unwrap_or_else(|e| missing(&e.to_string()))
}

/// A page image: 8-bit gray pixels, width, height, stride (bytes a row).
type Page = (Vec<u8>, u32, u32, u32);

/// The test page at 150 dpi.
fn page() -> &'static Page {
    static PAGE: OnceLock<Result<Page, String>> = OnceLock::new();
    match PAGE.get_or_init(render_page) {
        Ok(p) => p,
        Err(e) => missing(e),
    }
}

fn render_page() -> Result<Page, String> {
    let content: String = LINES
        .iter()
        .map(|(x, y, size, text)| format!("BT /F1 {size} Tf {x} {y} Td ({text}) Tj ET\n"))
        .collect();
    let pdf = pdf_from_objects(
        &[
            "<< /Type /Catalog /Pages 2 0 R >>".into(),
            "<< /Type /Pages /Kids [4 0 R] /Count 1 >>".into(),
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".into(),
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>".into(),
            format!("<< /Length {} >>\nstream\n{content}endstream", content.len()),
        ],
        "",
    );
    let rendered = with_pdfium(&ConvertOptions::default(), |pdfium| -> Result<Page, String> {
        let doc = pdfium.load_pdf_from_byte_slice(&pdf, None).map_err(|e| e.to_string())?;
        let page = doc.pages().get(0).map_err(|e| e.to_string())?;
        // BGRx, then gray here: pdfium draws nothing into a PdfBitmapFormat::Gray bitmap.
        let config =
            PdfRenderConfig::new().set_target_width(612 * DPI as i32 / 72).set_format(PdfBitmapFormat::BGRx);
        let bitmap = page.render_with_config(&config).map_err(|e| e.to_string())?;
        let (width, height) = (bitmap.width() as u32, bitmap.height() as u32);
        let bgrx = bitmap.as_raw_bytes();
        let bgrx_stride = bgrx.len() / height as usize;
        assert!(bgrx_stride >= 4 * width as usize);
        // Rows of `width` gray bytes padded to a stride of `width + 3`, to exercise the stride.
        let stride = width + 3;
        let mut pixels = Vec::with_capacity((stride * height) as usize);
        for row in bgrx.chunks(bgrx_stride) {
            let luminance =
                |p: &[u8]| ((p[2] as u32 * 299 + p[1] as u32 * 587 + p[0] as u32 * 114) / 1000) as u8;
            pixels.extend(row[..4 * width as usize].chunks(4).map(luminance));
            pixels.extend([0, 0, 0]);
        }
        Ok((pixels, width, height, stride))
    })
    .map_err(|e| e.to_string())??;
    assert_eq!((rendered.1, rendered.2), (1275, 1650));
    Ok(rendered)
}

/// How many of `expected`'s words `got` has, in order (longest common subsequence).
fn words_matched(expected: &[&str], got: &[&str]) -> usize {
    let mut row = vec![0usize; got.len() + 1];
    for e in expected {
        let mut diagonal = 0;
        for (j, g) in got.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if e == g { diagonal + 1 } else { row[j + 1].max(row[j]) };
            diagonal = above;
        }
    }
    row[got.len()]
}

#[test]
#[ignore = "needs Tesseract and .assets/pdfium; scripts/test.sh runs it"]
fn reads_a_rendered_page_with_word_boxes() {
    let (mut engine, (pixels, width, height, stride)) = (engine(), page());
    let words = engine.recognize(pixels, *width, *height, *stride, DPI).expect("OCR");
    let expected: Vec<&str> = LINES.iter().flat_map(|l| l.3.split_whitespace()).collect();
    let got: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
    let accuracy = words_matched(&expected, &got) as f64 / expected.len() as f64;
    eprintln!(
        "Tesseract {}: {} of {} words right ({:.1} %), {} read",
        engine.version(),
        words_matched(&expected, &got),
        expected.len(),
        accuracy * 100.0,
        got.len()
    );
    assert!(accuracy >= 0.95, "word accuracy {accuracy:.3}: {got:?}");
    assert!(got.len() <= expected.len() + 2, "extra words: {got:?}");

    for w in &words {
        assert!(
            w.width > 0 && w.height > 0 && w.left + w.width <= *width && w.top + w.height <= *height,
            "{w:?}"
        );
        assert!((0.0..=100.0).contains(&w.conf));
    }
    // The lines, top to bottom, as Tesseract grouped them.
    let mut lines: Vec<Vec<&OcrWord>> = Vec::new();
    for w in &words {
        match lines.last_mut() {
            Some(l) if (l[0].block, l[0].par, l[0].line) == (w.block, w.par, w.line) => l.push(w),
            _ => lines.push(vec![w]),
        }
    }
    assert_eq!(lines.len(), LINES.len(), "{lines:?}");
    let px = |pt: f32| pt * DPI as f32 / 72.0;
    for (line, (x, y, size, text)) in lines.iter().zip(LINES) {
        let first = line[0];
        assert!((first.left as f32 - px(x)).abs() < 6.0, "{text}: starts at {}", first.left);
        // The baseline, in pixels from the top: each word's middle lies between it and the
        // height of a capital above it, and most words' boxes end at it or a descender below.
        let baseline = px(792.0 - y);
        for w in line {
            let middle = w.top as f32 + w.height as f32 / 2.0;
            assert!(middle > baseline - px(size * 0.72) && middle < baseline, "{text}: {w:?}");
        }
        let on_baseline = line
            .iter()
            .filter(|w| (baseline - 3.0..baseline + px(size * 0.3)).contains(&((w.top + w.height) as f32)))
            .count();
        assert!(on_baseline * 2 >= line.len(), "{text}: {line:?}");
        assert!(line.windows(2).all(|p| p[0].left + p[0].width < p[1].left), "{text}: words overlap");
    }
    for pair in lines.windows(2) {
        let below = pair[0].iter().map(|w| w.top + w.height).max().unwrap();
        assert!(pair[1].iter().all(|w| w.top >= below - 2), "lines out of order");
    }
    assert_eq!(lines[0][0].text, "Section");
    assert!(lines[0][0].height > lines[1][0].height, "the 18 pt heading is taller than the 12 pt body");
    // The blank line between the paragraphs separates them.
    assert_ne!((lines[4][0].block, lines[4][0].par), (lines[5][0].block, lines[5][0].par));
}

#[test]
#[ignore = "needs Tesseract and .assets/pdfium; scripts/test.sh runs it"]
fn engines_work_on_other_threads() {
    let (engine, (pixels, width, height, stride)) = (engine(), page());
    let mut second = OcrEngine::load(&OcrOptions::default()).expect("a second engine");
    let moved = std::thread::spawn(move || {
        let mut engine = engine;
        engine.recognize(pixels, *width, *height, *stride, DPI).map(|w| w.len())
    });
    let here = second.recognize(pixels, *width, *height, *stride, DPI).expect("OCR here").len();
    assert_eq!(moved.join().unwrap().expect("OCR there"), here);
}

#[test]
#[ignore = "needs Tesseract and .assets/pdfium; scripts/test.sh runs it"]
fn blank_page_has_no_words() {
    let mut engine = engine();
    let (w, h) = (1275u32, 1650u32);
    let white = vec![255u8; (w * h) as usize];
    assert_eq!(engine.recognize(&white, w, h, w, DPI).unwrap(), Vec::new());
    // A padded stride: every row 1,280 bytes, the padding black (it must not be read as pixels).
    let mut padded = vec![0u8; (1280 * h) as usize];
    padded.chunks_mut(1280).for_each(|row| row[..w as usize].fill(255));
    assert_eq!(engine.recognize(&padded, w, h, 1280, DPI).unwrap(), Vec::new());
}

#[test]
#[ignore = "needs Tesseract and .assets/pdfium; scripts/test.sh runs it"]
fn bad_images_are_refused_before_tesseract() {
    let mut engine = engine();
    let pixels = vec![255u8; 100 * 100];
    let invalid = |r: Result<Vec<OcrWord>, OcrError>| matches!(r, Err(OcrError::InvalidImage(_)));
    assert!(invalid(engine.recognize(&pixels, 100, 100, 99, DPI)), "stride below width");
    assert!(invalid(engine.recognize(&pixels, 100, 101, 100, DPI)), "buffer too short");
    assert!(invalid(engine.recognize(&pixels[..9_999], 100, 100, 100, DPI)), "one byte short");
    assert!(invalid(engine.recognize(&pixels, 0, 100, 100, DPI)), "no width");
    assert!(invalid(engine.recognize(&pixels, 100, 0, 100, DPI)), "no height");
    assert!(invalid(engine.recognize(&pixels, 20_001, 1, 20_001, DPI)), "too wide");
    assert!(invalid(engine.recognize(&pixels, 100, 100, u32::MAX, DPI)), "stride overflow");
    assert!(invalid(engine.recognize(&pixels, 100, 100, 100, 10)), "dpi too low");
    assert!(invalid(engine.recognize(&pixels, 100, 100, 100, 100_000)), "dpi too high");
    let e = engine.recognize(&pixels, 100, 101, 100, DPI).unwrap_err().to_string();
    assert!(e.starts_with("OCR cannot read this image: 10000 bytes"), "{e}");
    // The engine still works after refusals.
    assert!(engine.recognize(&pixels, 100, 100, 100, DPI).unwrap().is_empty());
}

#[test]
fn missing_library_or_language_is_a_typed_error() {
    let options =
        OcrOptions { library: Some("/nonexistent/libtesseract.so.5".into()), ..OcrOptions::default() };
    let e = OcrEngine::load(&options).unwrap_err();
    assert!(matches!(e, OcrError::NotInstalled(_)), "{e:?}");
    assert!(e.to_string().starts_with("OCR engine not installed: /nonexistent/libtesseract.so.5"), "{e}");
    let options = OcrOptions { tessdata: Some("/nonexistent".into()), ..OcrOptions::default() };
    assert!(
        matches!(find_tessdata(&options), Err(OcrError::NotInstalled(m)) if m.contains("eng.traineddata"))
    );
    let options = OcrOptions { language: "../eng".into(), ..OcrOptions::default() };
    assert!(matches!(OcrEngine::load(&options), Err(OcrError::InitFailed(_) | OcrError::NotInstalled(_))));
    let options = OcrOptions { language: "xx".into(), ..OcrOptions::default() };
    assert!(matches!(OcrEngine::load(&options), Err(OcrError::NotInstalled(_))));
}

#[test]
#[ignore = "needs Tesseract and .assets/pdfium; scripts/test.sh runs it"]
fn a_damaged_language_file_fails_to_start() {
    let _engine = engine();
    let dir = std::env::temp_dir().join(format!("folio-ocr-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("eng.traineddata"), b"not a model").unwrap();
    let options = OcrOptions { tessdata: Some(dir.clone()), ..OcrOptions::default() };
    let result = OcrEngine::load(&options);
    std::fs::remove_dir_all(&dir).unwrap();
    let e = result.unwrap_err();
    assert!(matches!(e, OcrError::InitFailed(_)), "{e:?}");
    assert!(e.to_string().starts_with("OCR engine could not start: Tesseract could not load"), "{e}");
}
