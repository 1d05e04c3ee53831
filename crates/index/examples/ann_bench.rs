//! Where the 8-bit inverted lists should take over from exact f32 search over the RAM mirror
//! ([`folio_index::vectors::ANN_THRESHOLD`]): times exact search at several table sizes, then
//! writes the vectors to a LanceDB table, keeps them as 8-bit lists and times those queries and
//! their recall@10 against exact search on the same vectors.
//!
//! ```text
//! cargo run -p folio-index --example ann_bench -- [ROWS=120000] [QUERIES=200]
//! ```
//!
//! Vectors are clustered like sentence embeddings (384 dimensions, 600 topics, unit length); each
//! query is a perturbed stored vector.

use folio_index::vectors::conformance::record;
use folio_index::vectors::{LanceVectors, MemoryVectors, VectorRecord, VectorStore};
use std::time::Instant;

const DIM: usize = 384;

/// A small deterministic generator (xorshift), so runs compare.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) as f32 * 2.0 - 1.0
    }
}

fn unit(mut v: Vec<f32>) -> Vec<f32> {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
    v.iter_mut().for_each(|x| *x /= n);
    v
}

fn pct(v: &mut [f64], q: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * q) as usize]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<usize> = std::env::args().skip(1).map(|a| a.parse()).collect::<Result<_, _>>()?;
    let rows = args.first().copied().unwrap_or(120_000).max(10_000);
    let nq = args.get(1).copied().unwrap_or(200);
    let mut rng = Rng(0x5EED);
    let centers: Vec<Vec<f32>> = (0..600).map(|_| unit((0..DIM).map(|_| rng.next()).collect())).collect();
    let vectors: Vec<Vec<f32>> = (0..rows)
        .map(|i| {
            let c = &centers[(i * 7919) % centers.len()];
            unit(c.iter().map(|x| x + 0.35 * rng.next() / (DIM as f32).sqrt() * 8.0).collect())
        })
        .collect();
    let queries: Vec<Vec<f32>> = (0..nq)
        .map(|i| unit(vectors[(i * 104_729) % rows].iter().map(|x| x + 0.02 * rng.next()).collect()))
        .collect();

    println!("exact search over the RAM mirror (ms per query, {nq} queries):");
    let mut exact_top: Vec<Vec<i64>> = Vec::new();
    let sizes: Vec<usize> =
        [10_000, 50_000, 100_000].into_iter().filter(|n| *n < rows).chain([rows]).collect();
    for n in sizes {
        let m = MemoryVectors::default();
        let recs: Vec<VectorRecord> =
            (0..n).map(|i| record(i as i64, i as i64 / 200, vectors[i].clone())).collect();
        for chunk in recs.chunks(200) {
            m.put_document(chunk[0].doc_id, chunk)?;
        }
        let mut t = Vec::new();
        for q in &queries {
            let s = Instant::now();
            let hits = m.search(q, 10, &[])?;
            t.push(s.elapsed().as_secs_f64() * 1e3);
            if n == rows {
                exact_top.push(hits.iter().map(|h| h.0).collect());
            }
        }
        println!("  {n:>7} rows: p50 {:.2}  p99 {:.2}", pct(&mut t, 0.5), pct(&mut t, 0.99));
    }

    let dir = std::env::temp_dir().join(format!("folio-ann-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut store = LanceVectors::open(&dir, "bench", DIM)?;
    let recs: Vec<VectorRecord> =
        (0..rows).map(|i| record(i as i64, i as i64 / 200, vectors[i].clone())).collect();
    let s = Instant::now();
    store.put_document(-1, &recs)?;
    store.use_compact_index();
    println!(
        "LanceDB: {rows} rows written and kept as 8-bit lists in {:.1} s (exact mirror: {})",
        s.elapsed().as_secs_f64(),
        store.is_exact()
    );
    let mut t = Vec::new();
    let mut found = 0usize;
    for (q, truth) in queries.iter().zip(&exact_top) {
        let s = Instant::now();
        let hits = store.search(q, 10, &[])?;
        t.push(s.elapsed().as_secs_f64() * 1e3);
        found += hits.iter().filter(|h| truth.contains(&h.0)).count();
    }
    println!(
        "  8-bit lists: p50 {:.2} ms  p99 {:.2} ms  recall@10 vs exact {:.3}",
        pct(&mut t, 0.5),
        pct(&mut t, 0.99),
        found as f64 / (10 * exact_top.len()) as f64
    );
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
