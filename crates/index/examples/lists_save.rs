//! What a checkpoint of a large library's 8-bit lists costs after a document is added: appended to
//! the lists' log, against the same lists saved whole (what every checkpoint did before the log).
//!
//! ```text
//! cargo run -p folio-index --example lists_save -- LIBRARY/vectors [ROWS=956]
//! ```
//!
//! It writes to the library's vector table: a document of ROWS random unit vectors (an id no
//! library document has), checkpointed, saved whole, then removed and checkpointed again, so the
//! table ends with the rows it had (three versions later) and its lists saved. Use a library built
//! for measuring (`folio-engine`'s `examples/library_million`), not one you work in.

use folio_index::vectors::conformance::record;
use folio_index::vectors::{LanceVectors, VectorRecord, VectorStore};
use std::time::Instant;

const DIM: usize = 384;
const MODEL: &str = "all-MiniLM-L6-v2";
/// The document written and removed again.
const DOC: i64 = i64::MAX / 2;

fn timed<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let out = f();
    println!("{what}: {:.0} ms", t.elapsed().as_secs_f64() * 1000.0);
    out
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = std::path::PathBuf::from(args.first().ok_or("usage: lists_save LIBRARY/vectors [ROWS]")?);
    let rows: usize = args.get(1).map(|s| s.parse()).transpose()?.unwrap_or(956);
    let store = timed("open", || LanceVectors::open(&dir, MODEL, DIM))?;
    println!(
        "{} rows; lists {}",
        store.len()?,
        if store.lists_were_saved() { "read as saved" } else { "built from the table" }
    );
    if store.is_exact() {
        return Err("the table is below the size at which vectors are kept as 8-bit lists".into());
    }
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    };
    let records: Vec<VectorRecord> = (0..rows as i64)
        .map(|i| {
            let v: Vec<f32> = (0..DIM).map(|_| next()).collect();
            let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            record(DOC + i, DOC, v.into_iter().map(|x| x / n).collect())
        })
        .collect();
    timed(&format!("put a document of {rows} rows"), || store.put_document(DOC, &records))?;
    timed("checkpoint (appended to the log)", || store.checkpoint())?;
    timed("the same lists saved whole", || store.save_lists_whole())?;
    timed("remove the document", || store.remove_document(DOC))?;
    timed("checkpoint (appended to the log)", || store.checkpoint())?;
    let size = |ext: &str| {
        let name = format!("{}.{ext}", folio_index::vectors::table_name(MODEL, DIM));
        std::fs::metadata(dir.join(name)).map(|m| m.len()).unwrap_or(0)
    };
    println!("saved lists: base {} bytes, log {} bytes", size("lists"), size("lists.log"));
    Ok(())
}
