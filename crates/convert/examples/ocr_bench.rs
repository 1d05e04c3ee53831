//! OCR speed: pages per second of Tesseract on US-letter pages rendered to gray pixels by pdfium.
//!
//! ```text
//! cargo run -p folio-convert --example ocr_bench -- [FILE.pdf] [--pages N] [--threads T] [--dpi D]
//!     [--font PT] [--openmp] [--save PAGE.pgm]
//! ```
//!
//! Without a file, OCRs a generated page of body text (Helvetica, 10 pt unless `--font`, on lines
//! 1.2 times that apart). Each of T threads starts its own engine and reads N pages (default 8; a
//! file's pages in turn). `--openmp` lets Tesseract use its OpenMP threads for each page (see
//! [`OcrOptions::openmp`]; `OMP_THREAD_LIMIT` caps them). Prints
//! engine start time, words a page and pages per second over all threads. `--save` writes the
//! first page as a PGM image (for `tesseract PAGE.pgm - tsv`) and exits. (The dev profile is as
//! fast as release here: the time is spent in libtesseract.)

use folio_convert::ocr::{OcrEngine, OcrOptions};
use folio_convert::pdf::with_pdfium;
use folio_convert::ConvertOptions;
use pdfium_render::prelude::*;
use std::time::Instant;

use folio_testkit::pdf as pdf_file;

/// A page as (gray pixels, width, height); rows are `width` bytes.
type Page = (Vec<u8>, u32, u32);

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str, default: u32| -> u32 {
        args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).map_or(default, |v| {
            v.parse().unwrap_or_else(|_| fail(&format!("{flag} takes a number, not {v:?}")))
        })
    };
    let (pages_each, threads, dpi) = (value("--pages", 8), value("--threads", 1).max(1), value("--dpi", 150));
    const WITH_VALUE: [&str; 5] = ["--pages", "--threads", "--dpi", "--font", "--save"];
    let file = (0..args.len())
        .find(|&i| !args[i].starts_with("--") && (i == 0 || !WITH_VALUE.contains(&args[i - 1].as_str())))
        .map(|i| &args[i]);
    let pdf = match file {
        Some(path) => std::fs::read(path).unwrap_or_else(|e| fail(&format!("{path}: {e}"))),
        None => body_text_pdf(value("--font", 10) as f32),
    };
    let pages = render(&pdf, dpi);
    let (pixels, width, height) = &pages[0];
    if let Some(path) = args.iter().position(|a| a == "--save").and_then(|i| args.get(i + 1)) {
        let mut pgm = format!("P5 {width} {height} 255\n").into_bytes();
        pgm.extend_from_slice(pixels);
        std::fs::write(path, pgm).unwrap_or_else(|e| fail(&format!("{path}: {e}")));
        return;
    }
    println!(
        "{} page(s) of {width} × {height} px at {dpi} dpi; {threads} thread(s) × {pages_each} pages; \
         OpenMP {}, OMP_THREAD_LIMIT={}",
        pages.len(),
        if args.iter().any(|a| a == "--openmp") { "on" } else { "off" },
        std::env::var("OMP_THREAD_LIMIT").unwrap_or_else(|_| "(unset)".into())
    );

    let pages = &pages;
    let cpu_start = cpu_seconds();
    let options = &OcrOptions { openmp: args.iter().any(|a| a == "--openmp"), ..OcrOptions::default() };
    let start = Instant::now();
    let results: Vec<(f64, usize)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    let started = Instant::now();
                    let mut engine = OcrEngine::load(options).unwrap_or_else(|e| fail(&e.to_string()));
                    let startup = started.elapsed().as_secs_f64();
                    let mut words = 0;
                    for i in 0..pages_each as usize {
                        let (pixels, w, h) = &pages[(t as usize + i) % pages.len()];
                        words += engine
                            .recognize(pixels, *w, *h, *w, dpi)
                            .unwrap_or_else(|e| fail(&e.to_string()))
                            .len();
                    }
                    (startup, words)
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().expect("worker")).collect()
    });
    let secs = start.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu_start;
    let startup = results.iter().map(|r| r.0).fold(0.0, f64::max);
    let total_pages = (pages_each * threads) as f64;
    let words = results.iter().map(|r| r.1).sum::<usize>() as f64 / total_pages;
    println!("engine start: {:.0} ms; {words:.0} words a page", startup * 1000.0);
    println!(
        "{total_pages} pages in {secs:.2} s: {:.2} pages/s ({:.2} pages/s after engine start)",
        total_pages / secs,
        total_pages / (secs - startup)
    );
    // Below `threads` cores busy means other programs had the CPU part of the time.
    println!(
        "CPU {cpu:.1} s ({:.2} cores busy): {:.2} CPU-s a page; {:.2} pages/s with {threads} free core(s)",
        cpu / secs,
        cpu / total_pages,
        threads as f64 * total_pages / cpu
    );
}

/// CPU seconds this process has used (user and system), from /proc/self/stat (Linux).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // After the command name in parentheses: state is field 3; utime and stime are 14 and 15.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let ticks: Vec<f64> = rest.split_whitespace().skip(11).take(2).filter_map(|v| v.parse().ok()).collect();
    ticks.iter().sum::<f64>() / 100.0 // USER_HZ
}

fn fail(message: &str) -> ! {
    eprintln!("ocr_bench: {message}");
    std::process::exit(1)
}

/// One US-letter page of body text: Helvetica of `size` points on lines 1.2 × that apart, 1 inch
/// margins, words drawn from a legal-sounding vocabulary.
fn body_text_pdf(size: f32) -> Vec<u8> {
    const VOCABULARY: &str =
        "the licence holder shall notify Authority of any change in its business within \
        thirty days and provide documents that support such application for approval a person who \
        carries on regulated activity must keep adequate records capital resources at all times where \
        firm fails to comply with this rule may impose penalty or suspend permission under section 12 \
        Schedule 3 customers funds account report annual financial statements audited by an independent";
    let words: Vec<&str> = VOCABULARY.split_whitespace().collect();
    let mut seed = 12345u32;
    let mut next = || {
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
        (seed >> 16) as usize
    };
    let mut content = String::new();
    let mut y = 720.0;
    let mut sentence_start = true;
    // Helvetica averages about half an em a character: 468 points of line.
    let line_chars = (468.0 / (size * 0.5)) as usize - 4;
    while y >= 72.0 {
        let mut line = String::new();
        while line.len() < line_chars {
            let mut word = words[next() % words.len()].to_string();
            if sentence_start {
                word[..1].make_ascii_uppercase();
            }
            sentence_start = next() % 9 == 0;
            line.push_str(&word);
            line.push_str(if sentence_start {
                ". "
            } else if next() % 13 == 0 {
                ", "
            } else {
                " "
            });
        }
        content.push_str(&format!("BT /F1 {size} Tf 72 {y} Td ({}) Tj ET\n", line.trim_end()));
        y -= size * 1.2;
    }
    pdf_file::pdf_from_objects(
        &[
            "<< /Type /Catalog /Pages 2 0 R >>".into(),
            "<< /Type /Pages /Kids [4 0 R] /Count 1 >>".into(),
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".into(),
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>".into(),
            format!("<< /Length {} >>\nstream\n{content}endstream", content.len()),
        ],
        "",
    )
}

/// Every page of `pdf` at `dpi`, as gray pixels (pdfium renders BGRx; converted here).
fn render(pdf: &[u8], dpi: u32) -> Vec<Page> {
    // The converter's one PDFium binding (pdfium-render binds once per process).
    let pages = with_pdfium(&ConvertOptions::default(), |pdfium| {
        let doc = pdfium.load_pdf_from_byte_slice(pdf, None).unwrap_or_else(|e| fail(&e.to_string()));
        let mut pages = Vec::new();
        for page in doc.pages().iter() {
            let width = (page.width().value * dpi as f32 / 72.0).round() as i32;
            let config = PdfRenderConfig::new().set_target_width(width).set_format(PdfBitmapFormat::BGRx);
            let bitmap = page.render_with_config(&config).unwrap_or_else(|e| fail(&e.to_string()));
            let (w, h) = (bitmap.width() as u32, bitmap.height() as u32);
            let bgrx = bitmap.as_raw_bytes();
            let stride = bgrx.len() / h as usize;
            let gray = bgrx
                .chunks(stride)
                .flat_map(|row| row[..4 * w as usize].chunks(4))
                .map(|p| ((p[2] as u32 * 299 + p[1] as u32 * 587 + p[0] as u32 * 114) / 1000) as u8)
                .collect();
            pages.push((gray, w, h));
        }
        pages
    })
    .unwrap_or_else(|e| fail(&e.to_string()));
    if pages.is_empty() {
        fail("the PDF has no pages");
    }
    pages
}
