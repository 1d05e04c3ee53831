//! An experiment of issue 15: does the dense channel find more when a chunk longer than MiniLM's
//! window is scored by its best window (several vectors per chunk) instead of by the average of its
//! windows (one vector, what the library stores)?
//!
//! On an ingested ObliQA library, re-embeds every chunk window by window, then answers the dev
//! questions three ways per dense weight: the library's own keyword and exact rankings, fused (RRF,
//! k = 60) with a dense ranking by (a) the average vector, (b) the best window. Writes one
//! `folio eval`-style JSONL per way, to be scored by `scripts/eval/obliqa.py --score-only FILE`.
//!
//!     cargo run -p folio-engine --example window_vectors -- LIBRARY OUT_DIR [WEIGHT…]
//!
//! Needs `.assets/minilm` and `../shared/data/obliqa`. An experiment: nothing in the app uses it.

use folio_ai::{mean_of_windows, Embedder, MiniLm};
use folio_core::fusion::{fuse, Channel, FusionConfig};
use folio_engine::{Library, LibraryOptions, SearchOptions};
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn top(scores: impl Iterator<Item = (i64, f32)>, n: usize) -> Vec<(i64, f32)> {
    let mut v: Vec<(i64, f32)> = scores.collect();
    v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    v.truncate(n);
    v
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [library, out_dir, weights @ ..] = &args[..] else {
        eprintln!("usage: window_vectors LIBRARY OUT_DIR [DENSE_WEIGHT…]");
        std::process::exit(2);
    };
    let weights: Vec<f32> = if weights.is_empty() {
        vec![0.25]
    } else {
        weights.iter().map(|w| w.parse().expect("a weight")).collect()
    };
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let assets = std::env::var_os("FOLIO_ASSETS_DIR").map(PathBuf::from).unwrap_or(root.join(".assets"));
    let model = Arc::new(MiniLm::load(&assets.join("minilm")).expect("MiniLM loads"));
    let options =
        LibraryOptions { vocab: Some(assets.join("minilm/vocab.txt")), ..LibraryOptions::default() };
    let lib =
        Library::open(std::path::Path::new(library), model.clone(), options).expect("the library opens");
    let paths: HashMap<i64, String> = lib.documents().unwrap().into_iter().map(|d| (d.id, d.path)).collect();
    let chunks = lib.chunks().unwrap();
    eprintln!("{} chunks; embedding their windows…", chunks.len());
    let t = std::time::Instant::now();
    let mut avg: Vec<(i64, Vec<f32>)> = Vec::with_capacity(chunks.len());
    let mut windows: Vec<(i64, Vec<f32>)> = Vec::new();
    let mut long = 0;
    // FOLIO_WINDOW=N: windows of N pieces (the best of them and of the average is the chunk's
    // score); the model's own window by default.
    let window: usize = std::env::var("FOLIO_WINDOW").ok().and_then(|w| w.parse().ok()).unwrap_or(usize::MAX);
    // FOLIO_EVERY=N: every N-th question only (quicker runs; ids stay those of the whole list).
    let every: usize = std::env::var("FOLIO_EVERY").ok().and_then(|w| w.parse().ok()).unwrap_or(1).max(1);
    for batch in chunks.chunks(256) {
        let texts: Vec<&str> = batch.iter().map(|c| c.content.as_str()).collect();
        let whole = model.embed_windows(&texts).unwrap();
        let parts =
            if window == usize::MAX { None } else { Some(model.embed_windows_of(&texts, window).unwrap()) };
        for (k, (c, ws)) in batch.iter().zip(whole).enumerate() {
            long += (ws.len() > 1) as usize;
            let average = mean_of_windows(&ws, model.dim());
            match &parts {
                // The model's windows.
                None => windows.extend(ws.into_iter().map(|(_, v)| (c.id, v))),
                // The average and, for a chunk longer than one short window, each short window.
                Some(parts) => {
                    windows.push((c.id, average.clone()));
                    if parts[k].len() > 1 {
                        windows.extend(parts[k].iter().map(|(_, v)| (c.id, v.clone())));
                    }
                }
            }
            avg.push((c.id, average));
        }
    }
    eprintln!(
        "{} windows ({long} chunks longer than one) in {:.1} s",
        windows.len(),
        t.elapsed().as_secs_f64()
    );
    let by_id: HashMap<i64, &folio_index::catalog::ChunkRow> = chunks.iter().map(|c| (c.id, c)).collect();
    let shared = root.join("../shared/data/obliqa/questions_dev.json");
    let questions: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(&shared).expect("../shared/data/obliqa")).unwrap();
    std::fs::create_dir_all(out_dir).unwrap();
    let mut outs: Vec<(String, std::fs::File)> = Vec::new();
    for w in &weights {
        for way in ["average", "best-window"] {
            let name = format!("{way}-dense{w}.jsonl");
            outs.push((name.clone(), std::fs::File::create(PathBuf::from(out_dir).join(name)).unwrap()));
        }
    }
    let others = SearchOptions {
        limit: 400,
        channels: vec![Channel::Keyword, Channel::Exact],
        ..SearchOptions::default()
    };
    for (qi, q) in questions.iter().enumerate().step_by(every) {
        let query = q["Question"].as_str().unwrap_or_default();
        let qv = model.embed_query(query).unwrap();
        let dense_avg = top(avg.iter().map(|(id, v)| (*id, dot(&qv, v))), 100);
        let mut best: HashMap<i64, f32> = HashMap::new();
        for (id, v) in &windows {
            let s = dot(&qv, v);
            let e = best.entry(*id).or_insert(f32::MIN);
            *e = e.max(s);
        }
        let dense_best = top(best.into_iter(), 100);
        let hits = lib.search(query, &others).unwrap();
        let mut keyword: Vec<(i64, f32, usize)> =
            hits.iter().filter_map(|h| h.keyword.map(|r| (h.chunk_id, r.score, r.rank))).collect();
        keyword.sort_by_key(|k| k.2);
        let keyword: Vec<(i64, f32)> = keyword.into_iter().map(|(id, s, _)| (id, s)).collect();
        let mut exact: Vec<(i64, f32, usize)> =
            hits.iter().filter_map(|h| h.exact.map(|r| (h.chunk_id, r.score, r.rank))).collect();
        exact.sort_by_key(|k| k.2);
        let exact: Vec<(i64, f32)> = exact.into_iter().map(|(id, s, _)| (id, s)).collect();
        let mut o = 0;
        for w in &weights {
            for dense in [&dense_avg, &dense_best] {
                let config = FusionConfig { dense: *w, ..FusionConfig::rrf() };
                let fused = fuse(
                    &[
                        (Channel::Dense, &dense[..]),
                        (Channel::Keyword, &keyword[..]),
                        (Channel::Exact, &exact[..]),
                    ],
                    &config,
                    100,
                );
                let ranked: Vec<serde_json::Value> = fused
                    .iter()
                    .take(30)
                    .filter_map(|f| by_id.get(&f.id))
                    .map(|c| serde_json::json!({"path": paths.get(&c.doc_id), "text": c.content}))
                    .collect();
                let row = serde_json::json!({"id": qi, "ms": 0.0, "hits": ranked});
                writeln!(outs[o].1, "{row}").unwrap();
                o += 1;
            }
        }
        if qi % 500 == 0 {
            eprintln!("{qi} questions");
        }
    }
    for (name, _) in &outs {
        println!("{}", PathBuf::from(out_dir).join(name).display());
    }
}
