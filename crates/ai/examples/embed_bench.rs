//! MiniLM throughput and query latency on every 8-bit kernel this CPU has and in f32: embeds N
//! chunk-sized texts (~150 word pieces each) and times the first 200 ObliQA dev questions as
//! queries (100 generated ones when the data is absent).
//!
//! ```text
//! cargo run -p folio-ai --example embed_bench -- [N=256] [ASSETS=.assets/minilm] [--precision auto|int8|f32|reference] [--threads T]
//! ```
//!
//! Without `--precision` (or `FOLIO_INT8_KERNEL`), one row per way the model runs: each 8-bit
//! kernel, then f32. Each row reads against this machine's measured peaks: the kernel's 8-bit
//! multiply-adds a second and the widest f32 FMA's (one thread, registers only, times the
//! threads), as pieces a second the linear layers alone would allow at that peak; the share is
//! the measured rate over that. `FOLIO_INT8_KERNEL=amx|vnni|avxvnni|avx2|scalar` or `--precision`
//! measures one way alone.
//!
//! Chunks come from `/work/shared/data/obliqa/documents/GEN_VER08.181223.txt` when present
//! (consecutive lines joined up to ~150 pieces), else from generated regulatory-style sentences.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use folio_ai::{Embedder, Int8Kernel, MiniLm, Precision, RunOptions, WordPieceTokenizer};

const CORPUS: &str = "/work/shared/data/obliqa/documents/GEN_VER08.181223.txt";
const QUESTIONS: &str = "/work/shared/data/obliqa/questions_dev.json";
const TARGET_PIECES: usize = 150;
/// Multiply-adds of MiniLM's linear layers per piece: six blocks of 4h² + 2hi (h = 384,
/// i = 1536).
const LINEAR_MACS_PER_PIECE: f64 = 6.0 * (4.0 * 384.0 * 384.0 + 2.0 * 384.0 * 1536.0);

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let precision = match take_value(&mut args, "--precision").as_deref() {
        None => None,
        Some("auto") => Some(Precision::Auto),
        Some("int8") => Some(Precision::Int8),
        Some("f32") => Some(Precision::F32),
        Some("reference") => Some(Precision::Reference),
        Some(p) => return Err(format!("--precision {p}: auto, int8, f32 or reference").into()),
    };
    let threads: Option<usize> = take_value(&mut args, "--threads").map(|t| t.parse()).transpose()?;
    let n: usize = args.first().map(|s| s.parse()).transpose()?.unwrap_or(256);
    let assets = args
        .get(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.assets/minilm"));
    let kernel = match std::env::var("FOLIO_INT8_KERNEL").ok().filter(|k| !k.is_empty()) {
        Some(k) => Some(
            Int8Kernel::parse(&k)
                .ok_or(format!("FOLIO_INT8_KERNEL={k}: amx, vnni, avxvnni, avx2 or scalar"))?,
        ),
        None => None,
    };
    let runs: Vec<RunOptions> = match (precision, kernel) {
        (None, None) => folio_ai::int8_kernels()
            .into_iter()
            .filter(|k| *k != Int8Kernel::Scalar)
            .map(|k| RunOptions { precision: Precision::Int8, kernel: Some(k) })
            .chain([RunOptions { precision: Precision::F32, kernel: None }])
            .collect(),
        (p, k) => vec![RunOptions { precision: p.unwrap_or(Precision::Auto), kernel: k }],
    };
    let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let threads_used = threads.unwrap_or(cpus);
    println!(
        "cpus available: {cpus}; threads: {threads_used}; kernels this CPU has: {:?}",
        folio_ai::int8_kernels()
    );
    let f32_peak = folio_ai::peak::f32_peak();
    if let Some(p) = f32_peak {
        println!("f32 FMA peak: {:.1} GMAC/s a thread", p / 1e9);
    }

    let tok_model = MiniLm::load_run(&assets, runs[0])?;
    let (chunks, source) = chunks(tok_model.tokenizer(), n);
    let pieces: usize = chunks.iter().map(|c| tok_model.tokenizer().count(c)).sum();
    let (queries, qsource) = queries();
    let qpieces: usize = queries.iter().map(|q| tok_model.tokenizer().count(q)).sum();
    drop(tok_model);
    println!(
        "{} chunks from {source}, {:.1} word pieces each; {} queries from {qsource}, {:.1} pieces each",
        chunks.len(),
        pieces as f64 / chunks.len() as f64,
        queries.len(),
        qpieces as f64 / queries.len() as f64
    );
    let refs: Vec<&str> = chunks.iter().map(String::as_str).collect();
    println!(
        "\n{:<22} {:>8} {:>10} {:>13} {:>14} {:>6} {:>9} {:>9}",
        "runs as", "load", "pieces/s", "peak GMAC/s", "pieces/s@peak", "share", "query p50", "query p99"
    );
    for run in runs {
        let t = Instant::now();
        let mut model = MiniLm::load_run(&assets, run)?;
        if let Some(t) = threads {
            model = model.with_threads(t);
        }
        let load = t.elapsed();
        // Warm-up (allocations, thread pools).
        model.embed_documents(&refs[..refs.len().min(8)])?;
        let t = Instant::now();
        let vectors = model.embed_documents(&refs)?;
        let rate = pieces as f64 / t.elapsed().as_secs_f64();
        assert_eq!(vectors.len(), refs.len());
        let mut times: Vec<Duration> = Vec::with_capacity(queries.len());
        for q in &queries {
            let t = Instant::now();
            let v = model.embed_query(q)?;
            times.push(t.elapsed());
            assert_eq!(v.len(), model.dim());
        }
        times.sort();
        let pct = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize];
        let peak = match run.precision {
            Precision::F32 | Precision::Reference => f32_peak,
            _ => folio_ai::peak::int8_peak(run.kernel.unwrap_or_else(folio_ai::int8_kernel)),
        }
        .map(|p| p * threads_used as f64);
        let at_peak = peak.map(|p| p / LINEAR_MACS_PER_PIECE);
        println!(
            "{:<22} {:>8.2?} {:>10.0} {:>13} {:>14} {:>6} {:>9.2?} {:>9.2?}",
            model.precision_name(),
            load,
            rate,
            peak.map_or("-".into(), |p| format!("{:.0}", p / 1e9)),
            at_peak.map_or("-".into(), |p| format!("{p:.0}")),
            at_peak.map_or("-".into(), |p| format!("{:.2}", rate / p)),
            pct(0.5),
            pct(0.99),
        );
    }
    Ok(())
}

fn take_value(args: &mut Vec<String>, flag: &str) -> Option<String> {
    let i = args.iter().position(|a| a == flag)?;
    let v = args.get(i + 1).cloned();
    args.drain(i..(i + 2).min(args.len()));
    v
}

/// The first 200 ObliQA dev questions when present (what `scripts/eval/latency.py` asks), else
/// short generated questions.
fn queries() -> (Vec<String>, String) {
    if let Ok(raw) = std::fs::read_to_string(QUESTIONS) {
        if let Ok(serde_json::Value::Array(items)) = serde_json::from_str::<serde_json::Value>(&raw) {
            let qs: Vec<String> = items
                .iter()
                .filter_map(|q| q.get("Question").and_then(|v| v.as_str()).map(str::to_string))
                .take(200)
                .collect();
            if !qs.is_empty() {
                return (qs, QUESTIONS.to_string());
            }
        }
    }
    let stems = [
        "how long must records be kept",
        "what is an authorised person",
        "penalty for late filing of the annual return",
        "who may apply for a financial services permission",
        "definition of a recognised body",
    ];
    ((0..100).map(|i| format!("{} {}", stems[i % stems.len()], i)).collect(), "generated questions".into())
}

/// `n` texts of about [`TARGET_PIECES`] word pieces.
fn chunks(tok: &WordPieceTokenizer, n: usize) -> (Vec<String>, String) {
    let mut out = Vec::with_capacity(n);
    if let Ok(text) = std::fs::read_to_string(CORPUS) {
        let mut cur = String::new();
        let mut cur_pieces = 0;
        'outer: loop {
            let before = out.len();
            for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
                if !cur.is_empty() {
                    cur.push(' ');
                }
                cur.push_str(line);
                cur_pieces += tok.count(line);
                if cur_pieces >= TARGET_PIECES {
                    out.push(std::mem::take(&mut cur));
                    cur_pieces = 0;
                    if out.len() == n {
                        break 'outer;
                    }
                }
            }
            if out.len() == before {
                break; // too little text for even one chunk
            }
        }
        if out.len() == n {
            return (out, CORPUS.to_string());
        }
        out.clear();
    }
    let subjects =
        ["The Regulator", "An Authorised Person", "The licensee", "A Recognised Body", "The applicant"];
    let verbs =
        ["must notify", "may require", "shall provide", "is required to inform", "must keep records for"];
    let objects = [
        "the Financial Services Regulatory Authority of any material change in its controllers",
        "information, documents or reports within a reasonable period specified in the notice",
        "a period of at least six years from the date on which the transaction was completed",
        "the auditor with access to all books, accounts and vouchers of the firm",
    ];
    let mut k = 0usize;
    while out.len() < n {
        let mut s = String::new();
        while tok.count(&s) < TARGET_PIECES {
            s.push_str(&format!(
                "{} {} {} under Rule {}.{}. ",
                subjects[k % subjects.len()],
                verbs[(k / 5) % verbs.len()],
                objects[(k / 25) % objects.len()],
                k % 17 + 1,
                k % 7 + 1
            ));
            k += 1;
        }
        out.push(s);
    }
    (out, "generated sentences".to_string())
}
