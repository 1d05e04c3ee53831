//! MiniLM throughput: embeds N chunk-sized texts (~150 word pieces each) and times the first 200
//! ObliQA dev questions as queries (100 generated ones when the data is absent).
//!
//! ```text
//! cargo run --release -p folio-ai --example embed_bench -- [N=256] [ASSETS=.assets/minilm] [--precision auto|int8|f32|reference] [--threads T]
//! ```
//!
//! Prints pieces/s beside this machine's measured f32 matrix-product rate (a 1024³ product in
//! candle on all cores) and the model's operations per piece, so the figure reads against the
//! hardware's limit.
//!
//! Chunks come from `/work/shared/data/obliqa/documents/GEN_VER08.181223.txt` when present
//! (consecutive lines joined up to ~150 pieces), else from generated regulatory-style sentences.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use folio_ai::{Embedder, MiniLm, Precision, WordPieceTokenizer};

const CORPUS: &str = "/work/shared/data/obliqa/documents/GEN_VER08.181223.txt";
const QUESTIONS: &str = "/work/shared/data/obliqa/questions_dev.json";
const TARGET_PIECES: usize = 150;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let precision = match take_value(&mut args, "--precision").as_deref() {
        None | Some("auto") => Precision::Auto,
        Some("int8") => Precision::Int8,
        Some("f32") => Precision::F32,
        Some("reference") => Precision::Reference,
        Some(p) => return Err(format!("--precision {p}: auto, int8, f32 or reference").into()),
    };
    let threads = take_value(&mut args, "--threads").map(|t| t.parse()).transpose()?;
    let n: usize = args.first().map(|s| s.parse()).transpose()?.unwrap_or(256);
    let assets = args
        .get(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.assets/minilm"));

    // FOLIO_INT8_KERNEL=amx|vnni|avx2|scalar measures a lesser kernel than the CPU's best.
    let kernel = match std::env::var("FOLIO_INT8_KERNEL").ok().filter(|k| !k.is_empty()) {
        Some(k) => Some(
            folio_ai::Int8Kernel::parse(&k)
                .ok_or(format!("FOLIO_INT8_KERNEL={k}: amx, vnni, avx2 or scalar"))?,
        ),
        None => None,
    };
    let t = Instant::now();
    let mut model = MiniLm::load_run(&assets, folio_ai::RunOptions { precision, kernel })?;
    if let Some(t) = threads {
        model = model.with_threads(t);
    }
    println!(
        "loaded {} ({} dims, {}) in {:.2?}",
        model.id(),
        model.dim(),
        model.precision_name(),
        t.elapsed()
    );
    println!("cpus available: {}", std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));

    let (chunks, source) = chunks(model.tokenizer(), n);
    let pieces: usize = chunks.iter().map(|c| model.tokenizer().count(c)).sum();
    println!(
        "{} chunks from {source}, {:.1} word pieces each on average",
        chunks.len(),
        pieces as f64 / chunks.len() as f64
    );
    let refs: Vec<&str> = chunks.iter().map(String::as_str).collect();

    // Warm-up (allocations, thread pools).
    model.embed_documents(&refs[..refs.len().min(8)])?;

    let t = Instant::now();
    let vectors = model.embed_documents(&refs)?;
    let took = t.elapsed();
    assert_eq!(vectors.len(), refs.len());
    let rate = pieces as f64 / took.as_secs_f64();
    println!(
        "documents: {} in {:.2?} = {:.1} chunks/s ({rate:.0} pieces/s)",
        refs.len(),
        took,
        refs.len() as f64 / took.as_secs_f64(),
    );
    // Operations per piece: the six linear layers of each block (4h² + 2hi multiply-adds), and
    // attention's two products over the text's length (2 · len · h).
    let (h, inner, layers) = (384.0, 1536.0, 6.0);
    let avg_len = pieces as f64 / refs.len() as f64 + 2.0;
    let flops = 2.0 * layers * (4.0 * h * h + 2.0 * h * inner + 2.0 * avg_len * h);
    let gflops = f32_gemm_rate()?;
    println!(
        "model: {:.1} MFLOP per piece at {avg_len:.0} pieces a text; this machine's f32 product rate {gflops:.0} GFLOP/s \
         = {:.0} pieces/s at f32 peak; measured {rate:.0} pieces/s = {:.2}× that",
        flops / 1e6,
        gflops * 1e9 / flops,
        rate / (gflops * 1e9 / flops)
    );

    let (queries, qsource) = queries();
    let mut times: Vec<Duration> = Vec::with_capacity(queries.len());
    for q in &queries {
        let t = Instant::now();
        let v = model.embed_query(q)?;
        times.push(t.elapsed());
        assert_eq!(v.len(), model.dim());
    }
    let qpieces: usize = queries.iter().map(|q| model.tokenizer().count(q)).sum();
    println!(
        "{} queries from {qsource}, {:.1} word pieces each on average",
        queries.len(),
        qpieces as f64 / queries.len() as f64
    );
    times.sort();
    let pct = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize];
    println!(
        "query latency over {}: p50 {:.2?}, p99 {:.2?}, max {:.2?}",
        times.len(),
        pct(0.5),
        pct(0.99),
        pct(1.0)
    );
    Ok(())
}

/// The f32 matrix-product rate of this machine in GFLOP/s: the best of five 1024³ products in
/// candle (its `gemm` kernels, on all cores).
fn f32_gemm_rate() -> Result<f64, Box<dyn std::error::Error>> {
    use candle_core::{Device, Tensor};
    let a = Tensor::rand(0f32, 1.0, (1024, 1024), &Device::Cpu)?;
    let b = Tensor::rand(0f32, 1.0, (1024, 1024), &Device::Cpu)?;
    a.matmul(&b)?;
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t = Instant::now();
        a.matmul(&b)?;
        best = best.min(t.elapsed().as_secs_f64());
    }
    Ok(2.0 * 1024f64.powi(3) / best / 1e9)
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
