//! `folio eval`: queries from a JSONL file, one JSONL line of ranked hits each (the evaluation
//! scripts' input), with the time to open the library and to the first answer on stderr.

use crate::failure::Failure;
use crate::search_args::SearchArgs;
use folio_engine::Library;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::time::Instant;

/// `opened`: when opening began, and how long it took (model load included). Reported on stderr
/// with the time to the first answer, as `open_ms` and `first_answer_ms`.
pub fn run(
    lib: &Library,
    queries: &PathBuf,
    dest: Option<&PathBuf>,
    args: &SearchArgs,
    opened: (Instant, f64),
) -> Result<(), Failure> {
    let mut first = true;
    let opts = args.options()?;
    let file = std::fs::File::open(queries).map_err(|e| format!("{}: {e}", queries.display()))?;
    let mut sink: Box<dyn Write> = match dest {
        Some(p) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(p).map_err(|e| format!("{}: {e}", p.display()))?,
        )),
        None => Box::new(std::io::stdout()),
    };
    for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| e.to_string())?;
        if line.trim().is_empty() {
            continue;
        }
        let q: serde_json::Value = serde_json::from_str(&line).map_err(|e| format!("line {}: {e}", n + 1))?;
        let text = q["query"].as_str().ok_or(format!("line {}: no \"query\"", n + 1))?;
        let t = Instant::now();
        let hits = lib.search(text, &opts).map_err(|e| e.to_string())?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        if first {
            first = false;
            eprintln!(
                "{}",
                serde_json::json!({"open_ms": opened.1, "first_answer_ms": opened.0.elapsed().as_secs_f64() * 1e3})
            );
        }
        let ranked: Vec<serde_json::Value> = hits
            .iter()
            .map(|h| {
                serde_json::json!({
                    "chunk_id": h.chunk_id, "path": h.path, "section_id": h.section_id, "span": h.span, "text": h.content,
                    "chunk_type": h.chunk_type, "score": h.score,
                    "dense_score": h.dense.map(|r| r.score), "keyword_score": h.keyword.map(|r| r.score), "exact_score": h.exact.map(|r| r.score),
                    "dense": h.dense.map(|r| r.rank), "keyword": h.keyword.map(|r| r.rank), "exact": h.exact.map(|r| r.rank),
                })
            })
            .collect();
        let timings = hits.first().map(|h| h.timings_ms);
        let row = serde_json::json!({"id": q.get("id").cloned().unwrap_or(serde_json::Value::Null), "query": text, "ms": ms, "timings_ms": timings, "hits": ranked});
        writeln!(sink, "{row}")?;
    }
    sink.flush()?;
    Ok(())
}
