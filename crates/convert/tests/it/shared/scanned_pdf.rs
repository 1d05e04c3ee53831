//! A scanned PDF made here from a text PDF: every page of the USLM Review Guide (17 pages) is
//! rendered at 150 dpi in gray (`pdftoppm`) and the images are rebuilt into a PDF without a text
//! layer. The converter must read it with OCR: word accuracy against the original's text layer
//! (converted the same way),
//! the original's outline (its bookmarks) from the page alone, and passages on the right pages.
//!
//! Needs `../shared/data/uslm`, `libpdfium.so`, Tesseract (`tesseract-ocr`, `tesseract-ocr-eng`)
//! and `pdftoppm` (`poppler-utils`); without them the test says so and fails unless
//! `FOLIO_ALLOW_MISSING_ASSETS=1` is set, in which case it prints `SKIP`.

use folio_convert::ocr::{OcrEngine, OcrOptions};
use folio_convert::pdf::{find_pdfium_library, page_texts, read_outline, render_page, PdfConverter};
use folio_convert::{ConvertOptions, Converter};
use folio_core::model::Document;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use folio_testkit::pdf as pdf_file;
use pdf_file::pdf_from_objects;

const SCAN_DPI: u32 = 150;

/// The original PDF; the test fails, saying what is missing, without it, PDFium, Tesseract or pdftoppm.
fn original() -> PathBuf {
    let path = folio_testkit::paths::require_shared("data/uslm/USLM-2_0-Review-Guide-v2_0_12.pdf");
    assert!(
        find_pdfium_library(&ConvertOptions::default()).is_some(),
        "libpdfium.so not found (run scripts/setup-assets.sh or set FOLIO_PDFIUM)"
    );
    if let Err(e) = OcrEngine::load(&OcrOptions::default()) {
        panic!("{e} (apt-get install tesseract-ocr tesseract-ocr-eng)");
    }
    assert!(
        Command::new("pdftoppm").arg("-v").output().is_ok(),
        "pdftoppm not installed (apt-get install poppler-utils)"
    );
    path
}

/// A binary PGM's width, height and pixels.
fn read_pgm(path: &Path) -> (u32, u32, Vec<u8>) {
    let bytes = std::fs::read(path).unwrap();
    let mut fields = Vec::new();
    let mut at = 0;
    while fields.len() < 4 {
        while bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        let start = at;
        while !bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        fields.push(String::from_utf8_lossy(&bytes[start..at]).into_owned());
    }
    assert_eq!(fields[0], "P5", "{}", path.display());
    let (w, h): (u32, u32) = (fields[1].parse().unwrap(), fields[2].parse().unwrap());
    let data = bytes[at + 1..].to_vec();
    assert_eq!(data.len(), (w * h) as usize);
    (w, h, data)
}

/// An image-only PDF of the gray page images, each page sized for `dpi`.
fn image_pdf(pages: &[(u32, u32, Vec<u8>)], dpi: u32) -> Vec<u8> {
    let n = pages.len();
    // 1 catalog, 2 pages, then per page: page, content, image.
    let kids: Vec<String> = (0..n).map(|i| format!("{} 0 R", 3 + 3 * i)).collect();
    let mut objects = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        format!("<< /Type /Pages /Kids [{}] /Count {n} >>", kids.join(" ")),
    ];
    for (i, (w, h, px)) in pages.iter().enumerate() {
        let (pw, ph) = (*w as f32 * 72.0 / dpi as f32, *h as f32 * 72.0 / dpi as f32);
        let (content, image) = (4 + 3 * i, 5 + 3 * i);
        objects.push(format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {pw:.2} {ph:.2}] /Contents {content} 0 R /Resources << /XObject << /Im0 {image} 0 R >> >> >>"
        ));
        let ops = format!("q {pw:.2} 0 0 {ph:.2} 0 0 cm /Im0 Do Q");
        objects.push(format!("<< /Length {} >>\nstream\n{ops}\nendstream", ops.len()));
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        z.write_all(px).unwrap();
        let hex: String = z.finish().unwrap().iter().map(|b| format!("{b:02x}")).collect();
        objects.push(format!(
            "<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter [/ASCIIHexDecode /FlateDecode] /Length {} >>\nstream\n{hex}>\nendstream",
            hex.len() + 1
        ));
    }
    pdf_from_objects(&objects, "")
}

fn words(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|w| w.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect::<String>())
        .filter(|w| !w.is_empty())
        .collect()
}

/// Longest common subsequence length of two word lists.
fn lcs(a: &[String], b: &[String]) -> usize {
    let mut prev = vec![0usize; b.len() + 1];
    for x in a {
        let mut cur = vec![0usize; b.len() + 1];
        for (j, y) in b.iter().enumerate() {
            cur[j + 1] = if x == y { prev[j] + 1 } else { prev[j + 1].max(cur[j]) };
        }
        prev = cur;
    }
    prev[b.len()]
}

fn page_words(doc: &Document, page: u32) -> Vec<String> {
    doc.blocks_with_text()
        .filter(|(b, _)| b.pages.is_some_and(|p| p.start == page))
        .flat_map(|(_, t)| words(t))
        .collect()
}

fn norm(s: &str) -> String {
    s.chars().filter(|c| c.is_alphabetic()).flat_map(char::to_lowercase).collect()
}

#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn a_scanned_copy_reads_like_the_original() {
    let path = original();
    let dir = tempfile::tempdir().unwrap();
    let status = Command::new("pdftoppm")
        .args(["-r", &SCAN_DPI.to_string(), "-gray"])
        .arg(&path)
        .arg(dir.path().join("page"))
        .status()
        .unwrap();
    assert!(status.success());
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let images: Vec<(u32, u32, Vec<u8>)> = files.iter().map(|f| read_pgm(f)).collect();
    let scan = image_pdf(&images, SCAN_DPI);
    if let Some(keep) = std::env::var_os("FOLIO_KEEP_SCAN") {
        // The scanned copy, to look at (`folio parse`).
        std::fs::write(keep, &scan).unwrap();
    }
    if let Some(out) = std::env::var_os("FOLIO_SCAN_OUT") {
        std::fs::write(out, &scan).unwrap();
    }
    let bytes = std::fs::read(&path).unwrap();
    let pages = page_texts(&bytes, &ConvertOptions::default()).unwrap();
    assert_eq!(images.len(), pages.len());
    assert!(page_texts(&scan, &ConvertOptions::default()).unwrap().iter().all(|t| t.trim().is_empty()));

    let start = Instant::now();
    let doc = PdfConverter.convert("scan.pdf", &scan, &ConvertOptions::default()).expect("the scan converts");
    let secs = start.elapsed().as_secs_f64();
    assert!(doc.meta.warnings.is_empty(), "{:?}", doc.meta.warnings);
    eprintln!("{} scanned pages read in {secs:.1} s: {:.2} pages/s", pages.len(), pages.len() as f64 / secs);

    // Word accuracy, page by page: the words the original's text layer gives (converted the same
    // way, so running heads and contents pages drop out of both) found in order on the same page.
    let options = ConvertOptions { use_bookmarks: false, ..ConvertOptions::default() };
    let text_doc = PdfConverter.convert("original.pdf", &bytes, &options).unwrap();
    let (mut total, mut found) = (0, 0);
    for i in 0..pages.len() {
        let want = page_words(&text_doc, i as u32 + 1);
        let got = page_words(&doc, i as u32 + 1);
        let hit = lcs(&want, &got);
        total += want.len();
        found += hit;
        if want.len() > 20 && (hit as f64) < 0.95 * want.len() as f64 {
            eprintln!("  page {}: {hit} of {} words", i + 1, want.len());
        }
    }
    let accuracy = found as f64 / total as f64;
    eprintln!("word accuracy {accuracy:.4} ({found} of {total} words of the text layer)");
    assert!(accuracy >= 0.97, "word accuracy {accuracy:.4}");

    // The outline: the original's bookmarks, found in order as headings of the scan.
    let outline = read_outline(&bytes, &ConvertOptions::default()).unwrap();
    let want: Vec<String> = outline.iter().map(|e| norm(&e.title)).collect();
    let got: Vec<(String, u8)> =
        doc.blocks_with_text().filter_map(|(b, t)| b.kind.heading_level().map(|l| (norm(t), l))).collect();
    let got_keys: Vec<String> = got.iter().map(|(k, _)| k.clone()).collect();
    let matched = lcs(&want, &got_keys);
    let same_level =
        outline.iter().filter(|e| got.iter().any(|(k, l)| *k == norm(&e.title) && *l == e.level)).count();
    eprintln!("outline: {matched} of {} bookmarks as headings, {same_level} at their level", want.len());
    for e in outline.iter().filter(|e| !got_keys.contains(&norm(&e.title))) {
        eprintln!("    not a heading: {} (level {}, p{:?})", e.title, e.level, e.page);
    }
    if std::env::var_os("FOLIO_SHOW_HEADINGS").is_some() {
        for (b, t) in doc.blocks_with_text().filter(|(b, _)| b.kind.is_heading()) {
            eprintln!("    heading {:?} p{:?}: {t}", b.kind.heading_level(), b.pages.map(|p| p.start));
        }
    }
    // Floor measured so far (the target is the whole outline): 33 of 35; the two missing are
    // headings at their place and level whose small capitals OCR misreads ("6.2 New MobELs").
    assert!(matched as f64 >= 0.90 * want.len() as f64, "{matched} of {} headings", want.len());
    assert!(same_level as f64 >= 0.95 * matched as f64, "{same_level} of {matched} at their level");

    // Passages on the right pages: paragraphs of the original (their first six words) found in
    // a block of the scan on the same page.
    let mut checked = 0;
    let mut misplaced = Vec::new();
    for (b, t) in
        text_doc.blocks_with_text().filter(|(b, t)| !b.kind.is_heading() && words(t).len() >= 12).step_by(3)
    {
        let key = words(t)[..6].join(" ");
        let want = b.pages.map(|p| p.start);
        let got = doc
            .blocks_with_text()
            .find(|(_, u)| words(u).join(" ").contains(&key))
            .and_then(|(b, _)| b.pages);
        checked += 1;
        if got.map(|p| p.start) != want {
            misplaced.push(format!("{key:?}: page {want:?}, found {got:?}"));
        }
    }
    eprintln!("{} of {checked} passages found on their pages", checked - misplaced.len());

    // "Open original" on a scanned page: the passage is highlighted where OCR reads it.
    let (b, t) = text_doc
        .blocks_with_text()
        .find(|(b, t)| !b.kind.is_heading() && words(t).len() >= 12 && b.pages.is_some_and(|p| p.start == 3))
        .expect("a paragraph on page 3");
    let page = render_page(&scan, 3, 850, Some(t), &ConvertOptions::default()).unwrap();
    assert!(!page.highlights.is_empty(), "no highlight for {t:?} on the scanned page");
    let printed = render_page(&bytes, 3, 850, Some(t), &ConvertOptions::default()).unwrap();
    let (a, p) = (page.highlights[0], printed.highlights[0]);
    eprintln!(
        "highlight on the scan at ({:.0}, {:.0}), on the original at ({:.0}, {:.0})",
        a[0], a[1], p[0], p[1]
    );
    assert!((a[0] - p[0]).abs() < 15.0 && (a[1] - p[1]).abs() < 15.0, "{a:?} against {p:?} ({:?})", b.pages);
    assert!(misplaced.len() * 20 <= checked, "{misplaced:#?}");
}
