//! Chunking throughput on the 40 ObliQA rulebooks (plain text), one core.
//!
//! `cargo bench -p folio-core --bench chunking` prints MB/s for each stage: structure inference
//! (plaintext → blocks), outline, definitions, cross-references, and the chunker itself, with the
//! MiniLM WordPiece counter when `.assets/minilm/vocab.txt` exists (else the word estimate).
//! Needs `../shared/data/obliqa`; prints a message and exits when it is absent.

use folio_core::chunker::{chunk_document, ChunkerConfig};
use folio_core::crossref::find_references;
use folio_core::definitions::find_definitions;
use folio_core::model::{DocumentBuilder, Format};
use folio_core::outline::Outline;
use folio_core::plaintext;
use folio_core::tokens::{TokenCounter, WordCounter, WordPieceTokenizer};
use std::path::Path;
use std::time::{Duration, Instant};

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/obliqa/documents");
    let Ok(entries) = std::fs::read_dir(&root) else {
        eprintln!("SKIP: {} not found", root.display());
        return;
    };
    let mut texts: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| std::fs::read(e.path()).ok())
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .collect();
    texts.sort();
    let bytes: usize = texts.iter().map(String::len).sum();
    let vocab = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.assets/minilm/vocab.txt");
    // The benchmark says which counter it used: MiniLM's pieces when the assets are set up.
    let counter: Box<dyn TokenCounter> =
        match std::fs::read_to_string(&vocab).ok().map(|t| WordPieceTokenizer::from_vocab_txt(&t)) {
            Some(Ok(t)) => Box::new(t),
            Some(Err(e)) => panic!("{}: {e}", vocab.display()),
            None => Box::new(WordCounter),
        };
    println!(
        "{} documents, {:.1} MB of text; token counter: {}",
        texts.len(),
        bytes as f64 / 1e6,
        counter.describe()
    );
    let config = ChunkerConfig::default();
    let rounds = 3;
    let mut t = [Duration::ZERO; 5];
    let mut chunks = 0;
    for _ in 0..rounds {
        for text in &texts {
            let s = Instant::now();
            let mut b = DocumentBuilder::new(Format::Text, "doc", text.as_bytes());
            plaintext::parse_into(text, &mut b);
            let doc = b.finish();
            t[0] += s.elapsed();
            let s = Instant::now();
            let outline = Outline::build(&doc);
            t[1] += s.elapsed();
            let s = Instant::now();
            let defs = find_definitions(&doc, &outline);
            t[2] += s.elapsed();
            let s = Instant::now();
            let refs = find_references(&doc, &outline);
            t[3] += s.elapsed();
            let s = Instant::now();
            let c = chunk_document(&doc, &outline, &defs, counter.as_ref(), &config);
            t[4] += s.elapsed();
            chunks += c.len();
            std::hint::black_box((refs.len(), c.len()));
        }
    }
    let mb = (bytes * rounds) as f64 / 1e6;
    let names = ["structure (plaintext)", "outline", "definitions", "cross-references", "chunker"];
    for (name, d) in names.iter().zip(t.iter()) {
        println!("{name:<22} {:>8.1} MB/s  ({:.3} s)", mb / d.as_secs_f64(), d.as_secs_f64());
    }
    let total: Duration = t.iter().sum();
    println!(
        "{:<22} {:>8.1} MB/s  ({:.3} s, {} chunks a round)",
        "all stages",
        mb / total.as_secs_f64(),
        total.as_secs_f64(),
        chunks / rounds
    );
}
