//! What the scale benchmarks (`team_scale`, `library_million`) share: a deterministic noise
//! generator, the noise's calibration from real vectors, the ObliQA dev questions, search latency
//! through the engine, percentiles and the process's memory.

use folio_engine::{Library, SearchOptions};
use std::time::Instant;

/// A small deterministic generator (xorshift), so runs compare.
pub struct Noise(pub u64);

impl Noise {
    /// Uniform in (0, 1].
    pub fn uniform(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        ((self.0 >> 40) as f32 + 1.0) / (1u64 << 24) as f32
    }

    /// Standard normal (Box–Muller).
    pub fn gaussian(&mut self) -> f32 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (std::f32::consts::TAU * v).cos()
    }

    /// `v` plus Gaussian noise of `sigma` per dimension, normalised again.
    pub fn perturb(&mut self, v: &[f32], sigma: f32) -> Vec<f32> {
        let mut w: Vec<f32> = v.iter().map(|x| x + sigma * self.gaussian()).collect();
        let norm = w.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
        w.iter_mut().for_each(|x| *x /= norm);
        w
    }
}

pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The noise's standard deviation per dimension, with the median it was sized from: a copy's cosine
/// to its source is then about the median cosine between a source vector and its nearest other
/// vector (over a sample of 300). The copies of one vector are a cluster of distinct neighbours, as
/// the chunks of many documents on one subject are, not near-duplicates whose order no index could
/// tell.
pub fn calibrated_sigma(vectors: &[&[f32]]) -> (f32, f32) {
    let step = (vectors.len() / 300).max(1);
    let mut nearest: Vec<f32> = (0..vectors.len())
        .step_by(step)
        .map(|i| {
            (0..vectors.len())
                .filter(|&j| j != i && dot(vectors[i], vectors[j]) < 0.999)
                .map(|j| dot(vectors[i], vectors[j]))
                .fold(f32::MIN, f32::max)
        })
        .collect();
    nearest.sort_by(f32::total_cmp);
    let median = nearest[nearest.len() / 2];
    // |source + noise| has cosine 1/sqrt(1 + r²) to the source for a noise of norm r.
    let r = (1.0 / (median * median) - 1.0).max(0.0).sqrt();
    (median, r / (vectors[0].len() as f32).sqrt())
}

/// p50 and p99 of `times` (sorted here).
pub fn percentiles(times: &mut [f64]) -> (f64, f64) {
    times.sort_by(f64::total_cmp);
    let at = |p: f64| times[((times.len() - 1) as f64 * p) as usize];
    (at(0.5), at(0.99))
}

/// The first 200 ObliQA dev questions (or, without ../shared, what `fallback` gives).
pub fn dev_questions(fallback: impl FnOnce() -> Vec<String>) -> Vec<String> {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data/obliqa/questions_dev.json"
    ))
    .ok()
    .and_then(|s| serde_json::from_str::<Vec<serde_json::Value>>(&s).ok())
    .map(|qs| qs.iter().take(200).filter_map(|q| q["Question"].as_str().map(String::from)).collect())
    .unwrap_or_else(fallback)
}

/// Runs each question through the engine, all channels; prints p50 / p99 overall and per channel
/// and returns the overall pair.
pub fn search_latency(lib: &Library, questions: &[String], what: &str) -> (f64, f64) {
    let (mut total, mut dense, mut keyword, mut exact, mut embed) = (vec![], vec![], vec![], vec![], vec![]);
    for q in questions {
        let t = Instant::now();
        let hits = lib.search(q, &SearchOptions::default()).expect("a search");
        total.push(t.elapsed().as_secs_f64() * 1e3);
        if let Some(h) = hits.first() {
            embed.push(h.timings_ms.embed);
            dense.push(h.timings_ms.dense);
            keyword.push(h.timings_ms.keyword);
            exact.push(h.timings_ms.exact);
        }
    }
    let (p50, p99) = percentiles(&mut total);
    println!("search, all channels, {what}, {} questions: p50 {p50:.1} ms, p99 {p99:.1} ms", questions.len());
    for (name, times) in
        [("embed", &mut embed), ("dense", &mut dense), ("keyword", &mut keyword), ("exact", &mut exact)]
    {
        if !times.is_empty() {
            let (p50, p99) = percentiles(times);
            println!("  {name}: p50 {p50:.1} ms, p99 {p99:.1} ms");
        }
    }
    (p50, p99)
}

/// The process's resident memory, in MB (Linux; 0 elsewhere).
pub fn rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}
