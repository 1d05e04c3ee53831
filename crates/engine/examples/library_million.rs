//! A folder library of a million chunks, built through the engine's own ingest, as a user's
//! library grows: then its cold open, search latency with all three channels, memory, disk, the
//! dense channel's recall@10 against exact f32 search, and the time to add a 300-page PDF to it
//! beside the time to add it to an empty library.
//!
//! ```text
//! cargo run -p folio-engine --example library_million -- OUT [CHUNKS=1000000]
//! ```
//!
//! The texts are the 40 ObliQA rulebooks (`../shared/data/obliqa/documents`), ingested again and
//! again as new files (each copy's last line says which copy it is, so its content is new and
//! nothing is reused from the documents before it). Conversion, chunking, the catalog, the keyword
//! index and LanceDB all do their full work for every copy.
//!
//! Embedding a million chunks with MiniLM would take hours on two cores, so the embedder is
//! MiniLM recorded: the first time a text is embedded, MiniLM embeds it; when the same text comes
//! again in a later copy, its recorded vector is perturbed by Gaussian noise sized from the real
//! vectors (a copy lies as far from its source as a real chunk lies from its nearest real
//! neighbour). The million vectors are then clusters of distinct neighbours over the regions real
//! text occupies. Queries are the ObliQA dev questions, embedded by MiniLM.
//!
//! OUT keeps the library (`OUT/library`) and the copies (`OUT/sources`); a second run finds the
//! library built (`OUT/built`) and measures it again. The 300-page PDF is four development filings
//! joined by `pdfunite` ([`PDF_PARTS`]: 299 pages).

mod scale;

use folio_ai::{AiError, Embedder};
use folio_engine::{Cancel, EmbeddingModel, Environment, Library, LibraryOptions, SearchOptions};
use scale::{calibrated_sigma, dev_questions, rss_mb, search_latency, Noise};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

type Failure = Box<dyn std::error::Error>;

/// The filings joined into a 300-page PDF (130 + 139 + 16 + 14 pages; eBay's and Oracle's are
/// encrypted, which `pdfunite` refuses).
const PDF_PARTS: [&str; 4] = [
    "LOCKHEEDMARTIN_2022_10K.pdf",
    "FEDEX_2023_annualreport.pdf",
    "PEPSICO_2023Q1_EARNINGS.pdf",
    "AMCOR_2023Q4_EARNINGS.pdf",
];

/// MiniLM, recorded: a text's first vector comes from the model; its repeats get that vector
/// perturbed (once the noise is calibrated).
struct Recorded {
    model: Arc<dyn Embedder>,
    seen: Mutex<HashMap<String, Vec<f32>>>,
    noise: Mutex<(Noise, f32)>,
    repeats: AtomicUsize,
    embedded: AtomicUsize,
}

impl Recorded {
    fn new(model: Arc<dyn Embedder>) -> Recorded {
        Recorded {
            model,
            seen: Mutex::new(HashMap::new()),
            noise: Mutex::new((Noise(0x5EED_F011), 0.0)),
            repeats: AtomicUsize::new(0),
            embedded: AtomicUsize::new(0),
        }
    }

    /// Saves the recorded vectors and the noise's size (so that a run stopped part way goes on
    /// where it was, `load` giving them back).
    fn save(&self, path: &Path) -> std::io::Result<()> {
        let seen = self.seen.lock().unwrap();
        let mut out = Vec::new();
        out.extend_from_slice(&self.noise.lock().unwrap().1.to_le_bytes());
        for (text, v) in seen.iter() {
            out.extend_from_slice(&(text.len() as u64).to_le_bytes());
            out.extend_from_slice(text.as_bytes());
            out.extend_from_slice(&(v.len() as u64).to_le_bytes());
            v.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
        }
        std::fs::write(path, out)
    }

    fn load(&self, path: &Path) -> Result<bool, Failure> {
        let Ok(bytes) = std::fs::read(path) else { return Ok(false) };
        let mut at = 0;
        let mut take = |n: usize| -> Result<&[u8], Failure> {
            let got = bytes.get(at..at + n).ok_or("the recorded vectors end early")?;
            at += n;
            Ok(got)
        };
        let sigma = f32::from_le_bytes(take(4)?.try_into()?);
        let mut seen = self.seen.lock().unwrap();
        while let Ok(len) = take(8) {
            let len = u64::from_le_bytes(len.try_into()?) as usize;
            let text = String::from_utf8(take(len)?.to_vec())?;
            let dim = u64::from_le_bytes(take(8)?.try_into()?) as usize;
            let v =
                take(dim * 4)?.chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect();
            seen.insert(text, v);
        }
        self.noise.lock().unwrap().1 = sigma;
        Ok(true)
    }

    /// Sizes the noise from the vectors recorded so far; returns the median nearest-neighbour
    /// cosine and the noise per dimension.
    fn calibrate(&self) -> (f32, f32) {
        let seen = self.seen.lock().unwrap();
        let vectors: Vec<&[f32]> = seen.values().map(|v| v.as_slice()).collect();
        let (median, sigma) = calibrated_sigma(&vectors);
        self.noise.lock().unwrap().1 = sigma;
        (median, sigma)
    }
}

impl Embedder for Recorded {
    fn id(&self) -> &str {
        self.model.id()
    }
    fn dim(&self) -> usize {
        self.model.dim()
    }
    fn max_tokens(&self) -> usize {
        self.model.max_tokens()
    }
    fn embed_documents(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, AiError> {
        let mut out: Vec<Option<Vec<f32>>> = vec![None; texts.len()];
        {
            let seen = self.seen.lock().unwrap();
            let mut noise = self.noise.lock().unwrap();
            let sigma = noise.1;
            for (slot, text) in out.iter_mut().zip(texts) {
                if let Some(v) = seen.get(*text) {
                    *slot = Some(noise.0.perturb(v, sigma));
                }
            }
        }
        let missing: Vec<usize> = (0..texts.len()).filter(|i| out[*i].is_none()).collect();
        self.repeats.fetch_add(texts.len() - missing.len(), Ordering::Relaxed);
        if !missing.is_empty() {
            let asked: Vec<&str> = missing.iter().map(|i| texts[*i]).collect();
            let got = self.model.embed_documents(&asked)?;
            self.embedded.fetch_add(got.len(), Ordering::Relaxed);
            let mut seen = self.seen.lock().unwrap();
            for (i, v) in missing.into_iter().zip(got) {
                seen.insert(texts[i].to_string(), v.clone());
                out[i] = Some(v);
            }
        }
        Ok(out.into_iter().map(Option::unwrap_or_default).collect())
    }
    fn embed_query(&self, text: &str) -> Result<Vec<f32>, AiError> {
        self.model.embed_query(text)
    }
}

/// Bytes of a file, or of the files under a folder.
fn disk_bytes(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return std::fs::metadata(dir).map_or(0, |m| m.len());
    };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => disk_bytes(&e.path()),
            Ok(_) => e.metadata().map_or(0, |m| m.len()),
            Err(_) => 0,
        })
        .sum()
}

/// Writes copy `k` of the rulebooks under `sources` (copy 0 as they are; later copies end with a
/// line naming the copy) and returns its folder.
fn write_copy(documents: &Path, sources: &Path, k: usize) -> Result<PathBuf, Failure> {
    let folder = sources.join(format!("copy-{k:03}"));
    std::fs::create_dir_all(&folder)?;
    for entry in std::fs::read_dir(documents)? {
        let path = entry?.path();
        let mut text = std::fs::read_to_string(&path)?;
        if k > 0 {
            text.push_str(&format!("\n\nCopy {k} of this text.\n"));
        }
        std::fs::write(folder.join(path.file_name().ok_or("a file name")?), text)?;
    }
    Ok(folder)
}

/// Ingests copies until the library holds `target` chunks; prints each copy's time, so a
/// slowdown with size shows.
fn build(
    dir: &Path,
    sources: &Path,
    target: usize,
    recorded: &Arc<Recorded>,
    options: &LibraryOptions,
) -> Result<usize, Failure> {
    let documents = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/obliqa/documents");
    let mut lib = Library::open(dir, recorded.clone(), options.clone())?;
    let memo = sources.join("recorded.bin");
    if recorded.load(&memo)? {
        println!("going on from {} chunks, with the vectors recorded before", lib.chunk_count()?);
    }
    let start = Instant::now();
    let mut chunks = lib.chunk_count()?;
    let mut k = 0;
    println!(
        "{:>5} {:>9} {:>8} {:>9} {:>10} {:>8}",
        "copy", "chunks", "copy s", "total s", "repeats", "RSS MB"
    );
    while chunks < target {
        let folder = write_copy(&documents, sources, k)?;
        let t = Instant::now();
        let report = lib.ingest(&[folder], &mut |_| {}, &Cancel::new());
        if !report.failed.is_empty() {
            return Err(
                format!("copy {k}: {} files failed: {:?}", report.failed.len(), report.failed[0]).into()
            );
        }
        chunks = lib.chunk_count()?;
        if k == 0 && !memo.exists() {
            let (median, sigma) = recorded.calibrate();
            println!("noise: median nearest-neighbour cosine {median:.3}; sigma {sigma:.4} per dimension");
            recorded.save(&memo)?;
        }
        println!(
            "{k:>5} {chunks:>9} {:>8.1} {:>9.1} {:>10} {:>8.0}",
            t.elapsed().as_secs_f64(),
            start.elapsed().as_secs_f64(),
            recorded.repeats.load(Ordering::Relaxed),
            rss_mb()
        );
        k += 1;
    }
    println!(
        "built: {chunks} chunks in {:.0} s; {} texts embedded by MiniLM, {} repeats perturbed",
        start.elapsed().as_secs_f64(),
        recorded.embedded.load(Ordering::Relaxed),
        recorded.repeats.load(Ordering::Relaxed)
    );
    Ok(chunks)
}

/// Cold open to the first answer, search latency, memory and disk.
fn measure(dir: &Path, env: &Environment, questions: &[String]) -> Result<(), Failure> {
    let before = rss_mb();
    let t = Instant::now();
    let (model, options) = folio_engine::assets::library_setup(EmbeddingModel::Minilm, env)?;
    let lib = Library::open(dir, model, options)?;
    let opened = t.elapsed().as_secs_f64();
    lib.search(&questions[0], &SearchOptions::default())?;
    println!(
        "cold open: {:.0} ms to open, {:.0} ms to the first answer; RSS +{:.0} MB",
        opened * 1e3,
        t.elapsed().as_secs_f64() * 1e3,
        rss_mb() - before
    );
    for q in questions.iter().take(20) {
        lib.search(q, &SearchOptions::default())?;
    }
    search_latency(&lib, questions, "a million chunks");
    println!("RSS after the searches: {:.0} MB", rss_mb());
    let mb = |p: &str| disk_bytes(&dir.join(p)) as f64 / 1e6;
    println!(
        "disk: {:.0} MB in all: catalog {:.0} MB, keyword index {:.0} MB, vectors (LanceDB) {:.0} MB, saved lookup tables {:.0} MB",
        disk_bytes(dir) as f64 / 1e6,
        mb("catalog.sqlite") + mb("catalog.sqlite-wal"),
        mb("keyword"),
        mb("vectors"),
        mb("lookups.bin")
    );
    Ok(())
}

/// The dense channel's recall@10 against exact f32 search over the table on disk.
fn dense_recall(dir: &Path, model: &dyn Embedder, questions: &[String]) -> Result<(), Failure> {
    let t = Instant::now();
    let store = folio_index::vectors::LanceVectors::open(&dir.join("vectors"), model.id(), model.dim())?;
    println!(
        "vector store alone: opened with its mirror in {:.0} ms ({}); {} fragments, {} versions kept",
        t.elapsed().as_secs_f64() * 1e3,
        if store.is_exact() { "exact f32" } else { "8-bit lists" },
        store.fragments()?,
        store.versions()?
    );
    let queries: Vec<Vec<f32>> = questions.iter().map(|q| model.embed_query(q)).collect::<Result<_, _>>()?;
    let t = Instant::now();
    let exact = store.search_exact(&queries, 10)?;
    println!("exact f32 reference: {:.1} s for {} queries", t.elapsed().as_secs_f64(), queries.len());
    let mut found = 0;
    for (q, truth) in queries.iter().zip(&exact) {
        let hits = folio_index::vectors::VectorStore::search(&store, q, 10, &[])?;
        found += hits.iter().filter(|h| truth.iter().any(|t| t.0 == h.0)).count();
    }
    println!("dense recall@10 against exact f32: {:.3}", found as f64 / (10 * exact.len()) as f64);
    Ok(())
}

/// Adds the 300-page PDF to the library and to an empty one.
fn add_pdf(dir: &Path, out: &Path, env: &Environment) -> Result<(), Failure> {
    let filings = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/filings");
    let pdf = out.join("filings-300.pdf");
    if !pdf.exists() {
        let parts = PDF_PARTS.iter().map(|p| filings.join(p));
        let status = std::process::Command::new("pdfunite")
            .args(parts)
            .arg(&pdf)
            .stderr(std::process::Stdio::null())
            .status()?;
        if !status.success() {
            return Err("pdfunite could not join the filings".into());
        }
    }
    let empty = out.join("empty");
    if empty.exists() {
        std::fs::remove_dir_all(&empty)?;
    }
    for (what, at) in [("the million-chunk library", dir), ("an empty library", empty.as_path())] {
        let (model, options) = folio_engine::assets::library_setup(EmbeddingModel::Minilm, env)?;
        let mut lib = Library::open(at, model, options)?;
        let t = Instant::now();
        let report = lib.ingest(std::slice::from_ref(&pdf), &mut |_| {}, &Cancel::new());
        if !report.failed.is_empty() || report.indexed.is_empty() {
            return Err(format!("adding the PDF to {what}: {:?}", report.failed).into());
        }
        println!(
            "adding a 300-page PDF ({} chunks) to {what}: {:.1} s",
            report.chunks,
            t.elapsed().as_secs_f64()
        );
        lib.remove(&pdf.display().to_string())?;
    }
    Ok(())
}

fn main() -> Result<(), Failure> {
    folio_engine::tune_allocator();
    folio_engine::serve_converter_if_asked();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out = PathBuf::from(args.first().ok_or("usage: library_million OUT [CHUNKS]")?);
    let target: usize = args.get(1).map(|s| s.parse()).transpose()?.unwrap_or(1_000_000);
    let env = Environment::from_process()?;
    let dir = out.join("library");
    let marker = out.join("built");
    println!("int8 kernel for MiniLM: {:?}", folio_ai::int8_kernel());
    if !marker.exists() {
        let (model, options) = folio_engine::assets::library_setup(EmbeddingModel::Minilm, &env)?;
        let recorded = Arc::new(Recorded::new(model));
        let chunks = build(&dir, &out.join("sources"), target, &recorded, &options)?;
        std::fs::write(&marker, format!("{chunks}\n"))?;
    }
    let questions = dev_questions(|| vec!["What must an Authorised Person notify?".into()]);
    measure(&dir, &env, &questions)?;
    let (model, _) = folio_engine::assets::library_setup(EmbeddingModel::Minilm, &env)?;
    dense_recall(&dir, model.as_ref(), &questions)?;
    add_pdf(&dir, &out, &env)?;
    Ok(())
}
