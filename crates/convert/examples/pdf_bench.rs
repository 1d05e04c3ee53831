//! Converts one PDF and reports speed and peak memory.
//!
//! ```text
//! cargo run --release -p folio-convert --example pdf_bench -- FILE.pdf [--no-bookmarks] [--no-ocr] [--no-tables] [--headings] [--blocks] [--tables]
//! ```
//!
//! Prints pages, seconds, pages per second and the process's peak resident memory (VmHWM).

use folio_convert::pdf::PdfConverter;
use folio_convert::{ConvertOptions, Converter};
use std::time::Instant;

fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.iter().find(|a| !a.starts_with("--")) else {
        eprintln!("usage: pdf_bench FILE.pdf [--no-bookmarks] [--no-ocr] [--no-tables] [--headings] [--blocks] [--tables]");
        std::process::exit(2);
    };
    let flag = |f: &str| args.iter().any(|a| a == f);
    let options = ConvertOptions {
        use_bookmarks: !flag("--no-bookmarks"),
        ocr: !flag("--no-ocr"),
        detect_tables: !flag("--no-tables"),
        ..ConvertOptions::default()
    };
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    let name =
        std::path::Path::new(path).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let start = Instant::now();
    let result = PdfConverter.convert(&name, &bytes, &options);
    let secs = start.elapsed().as_secs_f64();
    let doc = match result {
        Ok(d) => d,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    if flag("--tables") {
        for (b, text) in doc.blocks_with_text() {
            if let folio_core::model::BlockKind::Table { header_rows } = b.kind {
                let pages = b.pages.map(|p| format!("p{}", p.start)).unwrap_or_default();
                println!("--- table {pages} ({header_rows} header rows)\n{text}");
            }
        }
    }
    if flag("--headings") || flag("--blocks") {
        for (b, text) in doc.blocks_with_text() {
            let pages = b.pages.map(|p| format!("p{}", p.start)).unwrap_or_default();
            match &b.kind {
                folio_core::model::BlockKind::Heading { level, number } => {
                    println!(
                        "{pages:>5} {}H{level} [{}] {text}",
                        "  ".repeat(*level as usize),
                        number.as_deref().unwrap_or("")
                    );
                }
                other if flag("--blocks") => {
                    let short: String = text.chars().take(160).collect();
                    let marker = match other {
                        folio_core::model::BlockKind::ListItem { marker: Some(m), .. } => format!("[{m}] "),
                        _ => String::new(),
                    };
                    println!("{pages:>5}     {:<9} {marker}{short}", other.name());
                }
                _ => {}
            }
        }
    }
    let pages = doc.meta.page_count.unwrap_or(0);
    let headings = doc.blocks.iter().filter(|b| b.kind.is_heading()).count();
    println!(
        "title: {}\npages: {pages}\nblocks: {} ({headings} headings)\nseconds: {secs:.3}\npages/s: {:.1}\npeak RSS MB: {}",
        doc.meta.title,
        doc.blocks.len(),
        pages as f64 / secs.max(1e-9),
        peak_rss_mb().map(|m| format!("{m:.1}")).unwrap_or_else(|| "unknown".into())
    );
}
