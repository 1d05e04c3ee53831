//! How fast searches answer while documents are added, as the desktop app runs them: one thread
//! adds a big PDF and then five text files, one ingest each (the app's queue), while another
//! searches every 200 ms. Prints each search's time and the median, 95th percentile and maximum.
//!
//!     cargo run -p folio-engine --example search_during_ingest -- PDF TEXT…
//!
//! The library is a new one in a temporary folder, with the fast model and GEN, GLO and AML
//! (from `../shared/data/obliqa`) in it first. Needs `.assets` (or `FOLIO_ASSETS_DIR`) and
//! `FOLIO_PDFIUM` for the PDF.

use folio_engine::{EmbeddingModel, Environment, SearchRequest, Settings, Workspace};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn main() {
    folio_engine::serve_converter_if_asked();
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    if args.is_empty() {
        eprintln!("usage: search_during_ingest PDF [TEXT…]");
        std::process::exit(2);
    }
    let env = Environment::from_process().expect("the environment");
    let dir = tempfile::tempdir().expect("a temporary folder");
    let settings = Settings {
        library_dir: dir.path().join("library").display().to_string(),
        model: EmbeddingModel::Fast,
        ..Settings::default()
    };
    let ws =
        Arc::new(Workspace::with_settings(&dir.path().join("settings.json"), settings, &env).expect("opens"));
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/obliqa/documents");
    let first: Vec<PathBuf> =
        ["GEN_VER08.181223.txt", "GLO_VER19.181223.txt", "AML_VER09.211223.txt"].map(|f| root.join(f)).into();
    ws.ingest(&first, &mut |_| {}).expect("the first documents");

    let busy = Arc::new(AtomicBool::new(true));
    let writer = {
        let (ws, busy) = (ws.clone(), busy.clone());
        std::thread::spawn(move || {
            for path in &args {
                let t = Instant::now();
                let report = ws.ingest(std::slice::from_ref(path), &mut |_| {}).expect("ingests");
                eprintln!(
                    "ingested {} in {:.1} s ({} chunks, {} failed)",
                    path.display(),
                    t.elapsed().as_secs_f64(),
                    report.chunks,
                    report.failed.len()
                );
            }
            busy.store(false, Ordering::SeqCst);
        })
    };
    let queries =
        ["client money", "Rule 2.1.1", "notify the Regulator", "package maintainer", "Authorised Person"];
    let mut times = Vec::new();
    let mut i = 0;
    while busy.load(Ordering::SeqCst) {
        let req = SearchRequest {
            query: queries[i % queries.len()].into(),
            limit: 10,
            documents: vec![],
            chunk_types: vec![],
            section: None,
        };
        let t = Instant::now();
        ws.search(&req).expect("searches");
        let ms = t.elapsed().as_secs_f64() * 1e3;
        println!("search {i}: {ms:.1} ms");
        times.push(ms);
        i += 1;
        std::thread::sleep(Duration::from_millis(200));
    }
    writer.join().expect("the ingest thread");
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    println!(
        "{} searches during the ingests: median {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        times.len(),
        at(0.5),
        at(0.95),
        at(1.0)
    );
}
