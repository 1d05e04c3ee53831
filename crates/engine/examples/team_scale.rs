//! A team library at scale: N chunks of the real shape (texts drawn from the ObliQA rulebooks,
//! 384-d MiniLM vectors) in a new database on a PostgreSQL with pgvector. Prints the load rate, the
//! HNSW index's build time, the keyword cache's build time (a client's first open), search
//! latency p50 / p99 through the engine with all three channels, the HNSW index's recall@10
//! against exact search, and the catch-up after another client adds 1,000 chunks.
//!
//!     cargo run --profile dist -p folio-engine --example team_scale -- ADMIN_URL SOURCE_URL [CHUNKS]
//!     cargo run --profile dist -p folio-engine --example team_scale -- --recall SCALE_URL
//!
//! ADMIN_URL: a server where the user may create databases (`scripts/postgres.sh url`).
//! SOURCE_URL: a team library holding the 40 ObliQA rulebooks ingested with MiniLM (the texts and
//! vectors are drawn from it). CHUNKS: 1,000,000 by default.
//!
//! Each copy's vector is its source's plus Gaussian noise, normalised again, the noise sized from
//! the source itself: a copy lies as far from its source as a real chunk lies from its nearest
//! real neighbour (the median over a sample). The copies of one chunk are then a cluster of
//! distinct neighbours, as the chunks of many filings on one subject are, not near-duplicates
//! whose order no index could tell (a smaller noise made 81 copies of each chunk almost equal, and
//! exact search's top ten an arbitrary pick among them).
//!
//! It also measures the other keyword channel: PostgreSQL's full-text search (a client opened with
//! `TeamKeywords::Server` builds no cache).

// Shared with library_million, which uses all of it.
#[allow(dead_code)]
mod scale;

use folio_engine::{Library, TeamAddress, TeamKeywords, TeamLocation};
use folio_index::vectors::VectorStore;
use postgres::{Client, NoTls};
use scale::{calibrated_sigma, dev_questions, percentiles, search_latency, Noise};
use std::io::Write;
use std::time::Instant;

const PER_DOCUMENT: usize = 1000;

fn vector_text(v: &[f32]) -> String {
    let mut s = String::with_capacity(v.len() * 10);
    s.push('[');
    for (i, x) in v.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&format!("{x:.6}"));
    }
    s.push(']');
    s
}

fn copy_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('\t', "\\t").replace('\n', "\\n").replace('\r', "\\r")
}

/// HNSW recall@10 against exact search over the first 100 questions, and the dense channel's
/// latency, for several `hnsw.ef_search` values (the library's own, [`folio_postgres::EF_SEARCH`],
/// among them).
fn recall_sweep(url: &str, embedder: &dyn folio_ai::Embedder, questions: &[String]) {
    let server = std::sync::Arc::new(
        folio_postgres::Server::connect(TeamAddress::parse(url).unwrap()).expect("a connection"),
    );
    let store = folio_postgres::PgVectors::open(server.clone(), embedder.id(), embedder.dim()).unwrap();
    let asked: Vec<(Vec<f32>, Vec<i64>)> = questions
        .iter()
        .take(100)
        .map(|q| {
            let v = embedder.embed_query(q).expect("a query vector");
            let exact = store.search_exact(&v, 10).unwrap().into_iter().map(|h| h.0).collect();
            (v, exact)
        })
        .collect();
    let own = store.ef_search();
    for ef in [40, 100, 200, 400, 800] {
        let vectors = folio_postgres::PgVectors::open(server.clone(), embedder.id(), embedder.dim())
            .unwrap()
            .with_ef_search(ef);
        let (mut found, mut total, mut times) = (0usize, 0usize, Vec::new());
        for (v, exact) in &asked {
            let t = Instant::now();
            let ann: std::collections::HashSet<i64> =
                vectors.search(v, 10, &[]).unwrap().iter().map(|h| h.0).collect();
            times.push(t.elapsed().as_secs_f64() * 1e3);
            found += exact.iter().filter(|id| ann.contains(id)).count();
            total += exact.len();
        }
        let (p50, p99) = percentiles(&mut times);
        let mark = if ef == own { " (the library's)" } else { "" };
        println!(
            "HNSW recall@10 against exact search, ef_search {ef}{mark}: {:.3}; dense search p50 {p50:.1} ms, p99 {p99:.1} ms",
            found as f64 / total as f64
        );
    }
}

fn main() {
    folio_engine::serve_converter_if_asked();
    let args: Vec<String> = std::env::args().skip(1).collect();
    // `--recall URL`: only the recall sweep, on a library this benchmark built before.
    if let [flag, url] = &args[..] {
        if flag == "--recall" {
            let env = folio_engine::Environment::from_process().expect("the environment");
            let (embedder, _) =
                folio_engine::assets::library_setup(folio_engine::EmbeddingModel::Minilm, &env)
                    .expect("MiniLM");
            let questions = dev_questions(|| vec!["What must an Authorised Person notify?".into()]);
            recall_sweep(url, embedder.as_ref(), &questions);
            return;
        }
    }
    let [admin, source, rest @ ..] = &args[..] else {
        eprintln!("usage: team_scale ADMIN_URL SOURCE_URL [CHUNKS]");
        std::process::exit(2);
    };
    let n: usize = rest.first().map(|s| s.parse().expect("a number of chunks")).unwrap_or(1_000_000);
    let env = folio_engine::Environment::from_process().expect("the environment");
    let (embedder, options) =
        folio_engine::assets::library_setup(folio_engine::EmbeddingModel::Minilm, &env).expect("MiniLM");

    // The source: texts and MiniLM vectors of the real library.
    let mut src = Client::connect(source, NoTls).expect("the source library");
    let table = folio_index::vectors::table_name(embedder.id(), embedder.dim());
    let rows = src
        .query(
            &format!("SELECT c.content, c.section_id, c.chunk_type, v.embedding FROM chunks c JOIN {table} v ON v.id = c.id ORDER BY c.id"),
            &[],
        )
        .expect("the source's chunks");
    let source: Vec<(String, String, String, Vec<f32>)> = rows
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get::<_, pgvector::Vector>(3).to_vec()))
        .collect();
    println!("source: {} chunks with vectors", source.len());
    let (median, sigma) = calibrated_sigma(&source.iter().map(|s| &s.3[..]).collect::<Vec<_>>());
    println!(
        "noise: median nearest-neighbour cosine in the source {median:.3}; sigma {sigma:.4} per dimension"
    );

    // A new database.
    let name = format!("folio_scale_{n}");
    let mut a = Client::connect(admin, NoTls).expect("the admin server");
    a.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).unwrap();
    a.batch_execute(&format!("CREATE DATABASE {name}")).unwrap();
    let url = format!("{}/{name}", admin.rsplit_once('/').unwrap().0);
    let cache = tempfile::tempdir().unwrap();
    let team_with = |computer: &str, keywords: TeamKeywords| TeamLocation {
        address: TeamAddress::parse(&url).unwrap(),
        cache: cache.path().join(computer),
        computer: computer.into(),
        keywords,
    };
    let team = |computer: &str| team_with(computer, TeamKeywords::Cache);
    // The schema and the (empty) vector table, with its index, as a client makes them.
    drop(Library::open_team(&team("setup"), embedder.clone(), options.clone()).expect("the schema"));
    let mut c = Client::connect(&url, NoTls).unwrap();
    // A bulk load: the indexes are built once the rows are in.
    c.batch_execute(&format!("DROP INDEX {table}_hnsw; DROP INDEX chunks_words;")).unwrap();

    // Load: documents of 1,000 chunks, chunks and vectors by COPY.
    let load = Instant::now();
    let mut noise = Noise(0x5EED);
    let docs = n.div_ceil(PER_DOCUMENT);
    let mut chunk_id: i64 = 0;
    for d in 0..docs {
        let doc_id: i64 = c
            .query_one(
                "INSERT INTO documents (path, label, title, format, content_hash, mtime, size, status, text) VALUES ($1, $2, $3, 'text', $4, 0, 0, 'indexed', '') RETURNING id",
                &[&format!("/scale/doc{d}.txt"), &format!("D{d}"), &format!("Scale document {d}"), &format!("hash{d}")],
            )
            .unwrap()
            .get(0);
        let count = PER_DOCUMENT.min(n - d * PER_DOCUMENT);
        let mut chunks = Vec::with_capacity(count * 300);
        let mut vectors = Vec::with_capacity(count * 3000);
        for k in 0..count {
            chunk_id += 1;
            let (text, section, kind, v) = &source[(chunk_id as usize * 7919) % source.len()];
            let w = noise.perturb(v, sigma);
            writeln!(
                chunks,
                "{chunk_id}\t{doc_id}\t{k}\t{section}\t[]\t[]\t1\t{kind}\t\\N\t\\N\t0\t{}\th{chunk_id}\t{}\t\t[]\tnone",
                text.len(),
                copy_escape(text)
            )
            .unwrap();
            writeln!(vectors, "{chunk_id}\t{doc_id}\t{}", vector_text(&w)).unwrap();
        }
        let mut w = c
            .copy_in(
                "COPY chunks (id, doc_id, chunk_index, section_id, section_ids, parent_chain, heading_level, chunk_type, page_start, page_end, span_start, span_end, content_hash, content, context, defined_terms, context_source) FROM STDIN",
            )
            .unwrap();
        w.write_all(&chunks).unwrap();
        w.finish().unwrap();
        let mut w = c.copy_in(&format!("COPY {table} (id, doc_id, embedding) FROM STDIN")).unwrap();
        w.write_all(&vectors).unwrap();
        w.finish().unwrap();
        c.execute("INSERT INTO changes (doc_id, removed) VALUES ($1, false)", &[&doc_id]).unwrap();
    }
    c.batch_execute(&format!("SELECT setval('chunks_id_seq', {chunk_id})")).unwrap();
    let load_s = load.elapsed().as_secs_f64();
    println!("load: {n} chunks in {load_s:.1} s ({:.0} chunks/s)", n as f64 / load_s);

    let build = Instant::now();
    c.batch_execute(&format!(
        "SET maintenance_work_mem = '2GB'; SET max_parallel_maintenance_workers = 2;
         CREATE INDEX {table}_hnsw ON {table} USING hnsw (embedding vector_cosine_ops); ANALYZE {table}; ANALYZE chunks;"
    ))
    .unwrap();
    println!("HNSW build: {:.1} s", build.elapsed().as_secs_f64());
    let build = Instant::now();
    c.batch_execute(
        "SET maintenance_work_mem = '2GB'; CREATE INDEX chunks_words ON chunks USING gin (words);",
    )
    .unwrap();
    println!("full-text (GIN) index build: {:.1} s", build.elapsed().as_secs_f64());
    let mut size = |what: &str| -> i64 {
        c.query_one(&format!("SELECT pg_total_relation_size('{what}')"), &[]).unwrap().get(0)
    };
    let (chunk_bytes, vector_bytes) = (size("chunks"), size(&table));
    println!(
        "disk on the server: chunks (with the words and their index) {:.2} GB, vectors (with HNSW) {:.2} GB",
        chunk_bytes as f64 / 1e9,
        vector_bytes as f64 / 1e9
    );

    // A client's first open builds its keyword cache from the stored chunks.
    let open = Instant::now();
    let mut lib = Library::open_team(&team("client"), embedder.clone(), options.clone()).expect("opens");
    println!("first open (keyword cache built, lookups): {:.1} s", open.elapsed().as_secs_f64());

    let questions =
        dev_questions(|| source.iter().take(200).map(|s| s.0.chars().take(80).collect()).collect());
    search_latency(&lib, &questions, "keywords from the cache");
    let open = Instant::now();
    let server_ranked = Library::open_team(
        &team_with("client-fulltext", TeamKeywords::Server),
        embedder.clone(),
        options.clone(),
    )
    .expect("opens");
    println!(
        "first open, keywords ranked by the server (lookups only): {:.1} s",
        open.elapsed().as_secs_f64()
    );
    // Fewer questions: every chunk holding any of a question's words is ranked on the server.
    search_latency(
        &server_ranked,
        &questions[..questions.len().min(50)],
        "keywords from PostgreSQL full-text",
    );
    drop(server_ranked);

    recall_sweep(&url, embedder.as_ref(), &questions);

    // Another client adds a document of 1,000 chunks; this one catches up.
    let other = tempfile::tempdir().unwrap();
    let file = other.path().join("added.txt");
    let body: Vec<&str> = source.iter().take(1000).map(|s| s.0.as_str()).collect();
    std::fs::write(&file, body.join("\n\n")).unwrap();
    let mut writer = Library::open_team(&team("writer"), embedder.clone(), options).expect("opens");
    let report = writer.ingest(&[file], &mut |_| {}, &folio_engine::Cancel::new());
    println!("another client added {} chunks", report.chunks);
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let catch = Instant::now();
    lib.refresh().expect("catches up");
    println!("catch-up of this client: {:.2} s", catch.elapsed().as_secs_f64());
}
