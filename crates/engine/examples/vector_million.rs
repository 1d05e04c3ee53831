//! The vector channel at a million chunks: 8-bit inverted lists ([`CompactIndex`]) against exact
//! f32 search, on vectors of the real shape.
//!
//! ```text
//! cargo run -p folio-engine --example vector_million -- LIBRARY [ROWS=1000000] [QUERIES=200]
//! ```
//!
//! LIBRARY is a folder library built with MiniLM (e.g. the 40 ObliQA rulebooks: `folio --library
//! /tmp/oblib ingest ../shared/data/obliqa/documents`). Its chunk vectors are the seeds: each of
//! the ROWS vectors is a random mix of two real chunk vectors (weights 1 and 0 to 0.5) plus a
//! little noise, so the table spreads over the regions real text occupies rather than being
//! copies of a few points. The queries are the ObliQA dev questions embedded by MiniLM. For each
//! share of lists scanned it prints search p50/p99 and recall@10 against exact f32 search over the
//! same vectors; then the index's build time, memory (RSS and its own estimate), and the time to
//! add one 300-page document's worth of vectors (1,500) to it and to an empty index.

// Shared with library_million, which uses all of it.
#[allow(dead_code)]
mod scale;

use folio_ai::{Embedder, MiniLm};
use folio_index::vectors::conformance::record;
use folio_index::vectors::{CompactIndex, LanceVectors, MemoryVectors, VectorRecord, VectorStore};
use scale::rss_mb;
use std::time::Instant;

const QUESTIONS: &str = "/work/shared/data/obliqa/questions_dev.json";

/// A small deterministic generator (xorshift), so runs compare.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn unit(&mut self) -> f32 {
        (self.next() >> 11) as f32 / (1u64 << 53) as f32
    }
    fn normal(&mut self) -> f32 {
        // Sum of uniforms: close enough to Gaussian noise for spreading vectors.
        (0..4).map(|_| self.unit()).sum::<f32>() - 2.0
    }
}

fn normalize(v: &mut [f32]) {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
    v.iter_mut().for_each(|x| *x /= n);
}

fn pct(v: &mut [f64], q: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * q).round() as usize]
}

/// The exact top 10 of each query over `flat` (rows × dim): the library's own exact f32 search
/// ([`MemoryVectors`], what a smaller library's mirror answers with), 500 rows a document.
fn exact_top10(
    flat: &[f32],
    dim: usize,
    queries: &[Vec<f32>],
) -> Result<Vec<Vec<i64>>, Box<dyn std::error::Error>> {
    let exact = MemoryVectors::default();
    for (d, rows) in flat.chunks(500 * dim).enumerate() {
        let records: Vec<VectorRecord> = rows
            .chunks_exact(dim)
            .enumerate()
            .map(|(i, v)| record((d * 500 + i) as i64, d as i64, v.to_vec()))
            .collect();
        exact.put_document(d as i64, &records)?;
    }
    let mut out = Vec::with_capacity(queries.len());
    for q in queries {
        out.push(exact.search(q, 10, &[])?.into_iter().map(|h| h.0).collect());
    }
    Ok(out)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let library = args.first().ok_or("usage: vector_million LIBRARY [ROWS] [QUERIES]")?;
    let rows: usize = args.get(1).map(|s| s.parse()).transpose()?.unwrap_or(1_000_000);
    let nq: usize = args.get(2).map(|s| s.parse()).transpose()?.unwrap_or(200);
    let assets = std::env::var("FOLIO_ASSETS_DIR").unwrap_or_else(|_| ".assets".into());
    let model = MiniLm::load(&std::path::Path::new(&assets).join("minilm"))?;
    let dim = model.dim();

    let seeds_store = LanceVectors::open(&std::path::Path::new(library).join("vectors"), model.id(), dim)?;
    let seeds: Vec<Vec<f32>> = seeds_store.records()?.into_iter().map(|r| r.embedding).collect();
    drop(seeds_store);
    if seeds.is_empty() {
        return Err(format!("{library} holds no {} vectors", model.id()).into());
    }
    let raw = std::fs::read_to_string(QUESTIONS)?;
    let questions: Vec<String> = serde_json::from_str::<Vec<serde_json::Value>>(&raw)?
        .iter()
        .filter_map(|q| q.get("Question").and_then(|v| v.as_str()).map(str::to_string))
        .take(nq)
        .collect();
    let queries: Vec<Vec<f32>> = questions.iter().map(|q| model.embed_query(q)).collect::<Result<_, _>>()?;
    println!(
        "{} seed vectors from {library}; {} queries (ObliQA dev questions, MiniLM); building {rows} rows",
        seeds.len(),
        queries.len()
    );

    let mut rng = Rng(0x5EED_F011);
    let mut flat = vec![0f32; rows * dim];
    for row in flat.chunks_exact_mut(dim) {
        let a = &seeds[rng.next() as usize % seeds.len()];
        let b = &seeds[rng.next() as usize % seeds.len()];
        let w = rng.unit() * 0.5;
        for ((x, p), q) in row.iter_mut().zip(a).zip(b) {
            *x = p + w * q + 0.01 * rng.normal();
        }
        normalize(row);
    }
    let t = Instant::now();
    let truth = exact_top10(&flat, dim, &queries)?;
    println!(
        "exact f32 search (the library's own, the reference): {:.1} s to load and answer {nq} queries",
        t.elapsed().as_secs_f64()
    );

    let before = rss_mb();
    let t = Instant::now();
    let mut index = CompactIndex::new(dim);
    for (i, v) in flat.chunks_exact(dim).enumerate() {
        // 500 chunks a document.
        index.insert((i / 500) as i64, i as i64, v);
    }
    index.train_if_due();
    println!(
        "8-bit lists: {} rows in {} lists, built in {:.1} s; RSS +{:.0} MB, {:.0} MB by its own count",
        index.len(),
        index.lists(),
        t.elapsed().as_secs_f64(),
        rss_mb() - before,
        index.heap_bytes() as f64 / 1e6
    );

    println!("{:>8} {:>8} {:>8} {:>10}", "scanned", "p50 ms", "p99 ms", "recall@10");
    for share in [0.01f32, 0.02, 0.04, 0.08, 0.16] {
        index.set_probe_share(share);
        let (mut times, mut found) = (Vec::new(), 0usize);
        for (q, truth) in queries.iter().zip(&truth) {
            let t = Instant::now();
            let hits = index.search(q, 10, &[]);
            times.push(t.elapsed().as_secs_f64() * 1e3);
            found += hits.iter().filter(|h| truth.contains(&h.0)).count();
        }
        println!(
            "{:>7.0}% {:>8.2} {:>8.2} {:>10.3}",
            share * 100.0,
            pct(&mut times, 0.5),
            pct(&mut times, 0.99),
            found as f64 / (10 * truth.len()) as f64
        );
    }

    // Adding a 300-page document's worth of vectors, to this index and to an empty one.
    let doc: Vec<Vec<f32>> = flat.chunks_exact(dim).take(1500).map(|v| v.to_vec()).collect();
    let doc_rows: Vec<(i64, &[f32])> =
        doc.iter().enumerate().map(|(i, v)| ((rows + i) as i64, v.as_slice())).collect();
    let t = Instant::now();
    index.put_document(-7, &doc_rows);
    let into_big = t.elapsed();
    let mut empty = CompactIndex::new(dim);
    let t = Instant::now();
    empty.put_document(-7, &doc_rows);
    println!(
        "adding 1,500 vectors: {:.1} ms into the {rows}-row index, {:.1} ms into an empty one",
        into_big.as_secs_f64() * 1e3,
        t.elapsed().as_secs_f64() * 1e3
    );
    Ok(())
}
