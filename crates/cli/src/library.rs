//! The library commands: ingest, search, define, outline, show, refs, docs, remove, eval.

use clap::{Args, Subcommand};
use folio_core::cancel::Cancel;
use folio_core::fusion::{Channel, FusionConfig};
use folio_engine::assets::{self, EmbeddingModel};
use folio_engine::{Library, SearchOptions, Stage};
use std::io::{BufRead, Write};
use std::path::Path;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Subcommand, Debug)]
pub enum WatchAction {
    /// Watch folders (their files are ingested by `folio watch run` and by the desktop app).
    Add {
        #[arg(required = true)]
        folders: Vec<PathBuf>,
    },
    /// Stop watching folders (their documents stay).
    Remove {
        #[arg(required = true)]
        folders: Vec<PathBuf>,
    },
    /// The watched folders.
    List,
    /// Bring the watched folders in step, then follow them until interrupted (Ctrl-C).
    Run,
}

/// Limits on converting one file (each file converts in a worker process of its own).
#[derive(clap::Args, Debug, Default)]
pub struct FileLimits {
    /// Seconds one file may take to convert before it is given up and reported (default 300).
    #[arg(long, value_name = "SECONDS")]
    file_time_limit: Option<f64>,
    /// Memory one file's conversion may use, in MiB, before it is given up and reported (default 4096).
    #[arg(long, value_name = "MIB")]
    file_memory_limit: Option<u64>,
    /// Do not read scanned PDF pages (pages without a text layer) with OCR.
    #[arg(long)]
    no_ocr: bool,
}

#[derive(Subcommand, Debug)]
pub enum LibraryCommand {
    /// Add files and folders to the library (unchanged files are skipped).
    Ingest {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Most tokens of chunk text.
        #[arg(long)]
        max_tokens: Option<usize>,
        /// Keep each section in chunks of its own instead of merging small sibling sections.
        #[arg(long)]
        no_merge: bool,
        /// Merge small sibling sections only up to this many tokens (default: 64).
        #[arg(long, value_name = "TOKENS")]
        merge_limit: Option<usize>,
        #[command(flatten)]
        limits: FileLimits,
        #[command(flatten)]
        context: crate::context::ContextArgs,
    },
    /// Hybrid search: dense, keyword and exact channels fused by weighted RRF.
    Search {
        query: String,
        #[command(flatten)]
        search: SearchArgs,
        #[arg(long)]
        json: bool,
    },
    /// What a defined term means, where and for what scope.
    Define { term: String },
    /// A document's outline.
    Outline { doc: String },
    /// A section's text (`--doc` when the id is not unique in the library).
    Show {
        section: String,
        #[arg(long)]
        doc: Option<String>,
    },
    /// References out of a section and backlinks into it.
    Refs {
        section: String,
        #[arg(long)]
        doc: Option<String>,
    },
    /// The documents in the library.
    Docs,
    /// Remove a document (id, label, path or file name).
    Remove { doc: String },
    /// What LLM contextualizing has used: tokens and cost per document and in total.
    Usage,
    /// Rebuild the vectors and the keyword index from the catalog, or a damaged catalog from the chunk records (asks no LLM).
    Repair,
    /// Watched folders: the library follows files added, changed, renamed and deleted in them.
    Watch {
        #[command(subcommand)]
        action: WatchAction,
    },
    /// Files that could not be indexed, with why (each is tried again when it changes).
    Failures,
    /// Run queries from a JSONL file ({"id", "query"} a line); write one JSONL line of ranked hits per query.
    Eval {
        queries: PathBuf,
        #[arg(long)]
        out: Option<PathBuf>,
        #[command(flatten)]
        search: SearchArgs,
    },
}

/// `--fusion`: how search combines its channels.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fusion {
    /// Each channel's scores scaled to [0, 1] and weighted (the default).
    Scores,
    /// Weighted Reciprocal Rank Fusion.
    Rrf,
}

#[derive(Args, Debug, Clone)]
pub struct SearchArgs {
    #[arg(long, default_value_t = 10)]
    pub limit: usize,
    /// Candidates per channel before fusion.
    #[arg(long, default_value_t = folio_engine::DEFAULT_DEPTH)]
    pub depth: usize,
    /// Channel weights as dense,keyword,exact (e.g. 1,1,2).
    #[arg(long)]
    pub weights: Option<String>,
    /// How the channels are fused: scores (their scores scaled to [0, 1] and weighted, the
    /// default) or rrf (weighted Reciprocal Rank Fusion); each has its own default weights.
    #[arg(long, value_enum, default_value_t = Fusion::Scores)]
    pub fusion: Fusion,
    /// RRF k (with --fusion rrf).
    #[arg(long, default_value_t = 60.0)]
    pub k: f32,
    /// Channels to run, comma-separated (dense,keyword,exact).
    #[arg(long)]
    pub channels: Option<String>,
    /// Only these documents (comma-separated ids, labels or file names).
    #[arg(long)]
    pub doc: Option<String>,
    /// Only these chunk types (comma-separated: definition,requirement,guidance,note,table,content).
    #[arg(long = "type")]
    pub chunk_type: Option<String>,
    /// Only the subtree of a section: DOC:SECTION_ID.
    #[arg(long)]
    pub section: Option<String>,
    /// Weight of the match between the query and a hit's headings and defined terms (0 = off).
    #[arg(long)]
    pub heading_boost: Option<f32>,
    /// Share of a top hit's score given to the sections it refers to (0 = off).
    #[arg(long)]
    pub follow_refs: Option<f32>,
    /// Pseudo-relevance feedback for BM25: terms taken from the first keyword hits (0 = off).
    #[arg(long)]
    pub feedback_terms: Option<usize>,
    /// The feedback terms' weight against a query word.
    #[arg(long)]
    pub feedback_weight: Option<f32>,
}

impl SearchArgs {
    fn options(&self) -> Result<SearchOptions, String> {
        let base = match self.fusion {
            Fusion::Scores => FusionConfig::default(),
            Fusion::Rrf => FusionConfig::rrf(),
        };
        let mut fusion = FusionConfig { k: self.k, ..base };
        if let Some(w) = &self.weights {
            let v: Vec<f32> = w
                .split(',')
                .map(|x| x.trim().parse::<f32>())
                .collect::<Result<_, _>>()
                .map_err(|e| format!("--weights: {e}"))?;
            if v.len() != 3 {
                return Err("--weights takes three numbers: dense,keyword,exact".into());
            }
            (fusion.dense, fusion.keyword, fusion.exact) = (v[0], v[1], v[2]);
        }
        let channels = match &self.channels {
            Some(c) => c
                .split(',')
                .map(|x| match x.trim() {
                    "dense" => Ok(Channel::Dense),
                    "keyword" | "bm25" => Ok(Channel::Keyword),
                    "exact" => Ok(Channel::Exact),
                    o => Err(format!("unknown channel '{o}'")),
                })
                .collect::<Result<Vec<_>, _>>()?,
            None => Channel::ALL.to_vec(),
        };
        let list = |s: &Option<String>| {
            s.as_deref().map(|x| x.split(',').map(|y| y.trim().to_string()).collect()).unwrap_or_default()
        };
        let section = match &self.section {
            Some(s) => {
                let (d, id) = s.split_once(':').ok_or("--section takes DOC:SECTION_ID")?;
                Some((d.to_string(), id.to_string()))
            }
            None => None,
        };
        Ok(SearchOptions {
            limit: self.limit,
            depth: self.depth,
            fusion,
            channels,
            documents: list(&self.doc),
            chunk_types: list(&self.chunk_type)
                .iter()
                .map(|t| {
                    folio_core::chunker::ChunkType::parse(t).ok_or_else(|| {
                        format!("unknown chunk type '{t}' (definition, requirement, guidance, note, table, content)")
                    })
                })
                .collect::<Result<_, _>>()?,
            section,
            exact_always: false,
            heading_boost: self.heading_boost.unwrap_or(SearchOptions::default().heading_boost),
            follow_refs: self.follow_refs.unwrap_or(SearchOptions::default().follow_refs),
            feedback_terms: self.feedback_terms.unwrap_or(SearchOptions::default().feedback_terms),
            feedback_weight: self.feedback_weight.unwrap_or(SearchOptions::default().feedback_weight),
        })
    }
}

/// The default library folder.
fn default_library() -> PathBuf {
    folio_engine::default_library_dir()
}

/// Which embedding model a command uses.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Model {
    /// all-MiniLM-L6-v2 (384 dimensions).
    Minilm,
    /// potion-base-2M static embeddings (64 dimensions).
    Fast,
}

impl From<Model> for EmbeddingModel {
    fn from(m: Model) -> EmbeddingModel {
        match m {
            Model::Minilm => EmbeddingModel::Minilm,
            Model::Fast => EmbeddingModel::Fast,
        }
    }
}

fn open(
    library: Option<&Path>,
    model: Model,
    (max_tokens, no_merge, merge_limit): (Option<usize>, bool, Option<usize>),
    limits: &FileLimits,
) -> Result<Library, String> {
    let (embedder, mut options) = assets::library_setup(model.into()).map_err(|e| e.to_string())?;
    if let Some(m) = max_tokens {
        options.chunker.max_tokens = m.max(8);
    }
    options.chunker.merge_small = !no_merge;
    if let Some(m) = merge_limit {
        options.chunker.merge_limit = m;
    }
    if let Some(s) = limits.file_time_limit.filter(|s| s.is_finite() && *s > 0.0) {
        options.convert.time_limit = std::time::Duration::from_secs_f64(s);
    }
    if let Some(m) = limits.file_memory_limit {
        options.convert.memory_limit = m.max(16) * 1024 * 1024;
    }
    options.convert.ocr = !limits.no_ocr;
    let dir = library.map(Path::to_path_buf).unwrap_or_else(default_library);
    Library::open(&dir, embedder, options).map_err(|e| format!("{}: {e}", dir.display()))
}

fn repair(library: Option<&Path>, model: Model) -> Result<(), String> {
    let (embedder, options) = assets::library_setup(model.into()).map_err(|e| e.to_string())?;
    let dir = library.map(Path::to_path_buf).unwrap_or_else(default_library);
    let report = Library::repair(&dir, embedder, options, &mut |p| {
        eprint!(
            "\r[{}/{}] {}          ",
            p.file_index + 1,
            p.files,
            Path::new(&p.file).file_name().map(|f| f.to_string_lossy()).unwrap_or_default()
        );
    })
    .map_err(|e| format!("{}: {e}", dir.display()))?;
    eprintln!();
    let rolled_back = if report.rolled_back.is_empty() {
        String::new()
    } else {
        format!("; rolled back half-written: {}", report.rolled_back.join(", "))
    };
    match &report.catalog {
        None => println!(
            "repaired {}: {} documents, {} chunks re-indexed from the catalog ({} embedded again){rolled_back}",
            dir.display(),
            report.documents,
            report.chunks,
            report.embedded,
        ),
        Some(c) => {
            println!(
                "repaired {}: the damaged catalog was rebuilt from the chunk records: {} documents, {} chunks ({} with their source file's outline, {} from the records alone){rolled_back}",
                dir.display(),
                report.documents,
                report.chunks,
                c.from_source,
                c.from_records.len(),
            );
            for path in &c.from_records {
                println!("  from the records alone (file gone or changed): {path}");
            }
            if !c.salvaged.is_empty() {
                println!("  kept from the damaged catalog: {}", c.salvaged.join(", "));
            }
            if !c.lost.is_empty() {
                println!("  unreadable in the damaged catalog: {}", c.lost.join(", "));
            }
            println!("  the damaged catalog was kept as {}", c.damaged_copy.display());
        }
    }
    Ok(())
}

fn fail(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::FAILURE
}

pub fn run(library: Option<&Path>, model: Model, command: &LibraryCommand) -> ExitCode {
    let no_limits = FileLimits::default();
    let (chunking, limits) = match command {
        LibraryCommand::Ingest { max_tokens, no_merge, merge_limit, limits, .. } => {
            ((*max_tokens, *no_merge, *merge_limit), limits)
        }
        _ => ((None, false, None), &no_limits),
    };
    if let LibraryCommand::Repair = command {
        return match repair(library, model) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail(e),
        };
    }
    let opening = Instant::now();
    let mut lib = match open(library, model, chunking, limits) {
        Ok(l) => l,
        Err(e) => return fail(e),
    };
    let open_ms = opening.elapsed().as_secs_f64() * 1e3;
    if !lib.repaired().is_empty() {
        eprintln!(
            "note: an earlier ingest was interrupted; rolled back these half-written documents (ingest them again): {}",
            lib.repaired().join(", ")
        );
    }
    if let LibraryCommand::Watch { action: WatchAction::Run } = command {
        return match watch_run(lib) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail(e),
        };
    }
    let out = std::io::stdout();
    let mut out = out.lock();
    let result: Result<(), String> = match command {
        LibraryCommand::Ingest { paths, context, .. } => ingest(&mut lib, paths, context),
        LibraryCommand::Repair => Ok(()),
        LibraryCommand::Usage => lib.context_runs().map_err(|e| e.to_string()).map(|runs| {
            if runs.is_empty() {
                println!("no LLM contextualizing recorded in this library");
            }
            crate::context::print_runs(&runs);
        }),
        LibraryCommand::Search { query, search, json } => search_cmd(&lib, query, search, *json, &mut out),
        LibraryCommand::Define { term } => lib.define(term).map_err(|e| e.to_string()).map(|defs| {
            if defs.is_empty() {
                let _ = writeln!(out, "no definition of '{term}' in the library");
            }
            for d in defs {
                let scope = d
                    .definition
                    .scope_section
                    .clone()
                    .map_or("the whole document".to_string(), |s| format!("section {s}"));
                let _ = writeln!(
                    out,
                    "{} — {} {} (applies to {scope})\n  {}\n",
                    d.definition.term, d.document, d.definition.section_id, d.definition.text
                );
            }
        }),
        LibraryCommand::Outline { doc } => {
            lib.outline(doc).map_err(|e| e.to_string()).map(|(d, sections)| {
                let _ = writeln!(out, "# {} [{}]", d.title, d.label);
                for s in sections.iter().skip(1) {
                    let pages = s.pages.map(|p| format!(" p. {}", p.start)).unwrap_or_default();
                    let _ = writeln!(
                        out,
                        "{}{} [{}]{pages}",
                        "  ".repeat((s.level.max(1) - 1) as usize),
                        s.heading,
                        s.section_id
                    );
                }
            })
        }
        LibraryCommand::Show { section, doc } => {
            lib.show(doc.as_deref(), section).map_err(|e| e.to_string()).map(|s| {
                let _ = writeln!(out, "{} › {}\n\n{}", s.document, s.parent_chain.join(" › "), s.text);
            })
        }
        LibraryCommand::Refs { section, doc } => {
            lib.references(doc.as_deref(), section).map_err(|e| e.to_string()).map(|r| {
                let _ = writeln!(out, "References from {section} ({}):", r.outgoing.len());
                for x in &r.outgoing {
                    let target = x
                        .target_section
                        .clone()
                        .or_else(|| x.target_doc_section.clone())
                        .unwrap_or_else(|| "unresolved".into());
                    let _ = writeln!(
                        out,
                        "  {} → {}{target}",
                        x.text,
                        x.document.as_deref().map(|d| format!("{d} ")).unwrap_or_default()
                    );
                }
                let _ = writeln!(out, "Referenced by ({}):", r.incoming.len());
                for x in &r.incoming {
                    let _ = writeln!(out, "  {} in doc {} {}", x.text, x.doc_id, x.from_section);
                }
            })
        }
        LibraryCommand::Docs => lib.documents().map_err(|e| e.to_string()).map(|docs| {
            for d in docs {
                let _ =
                    writeln!(out, "{:>4}  {:<10} {:<8} {}  ({})", d.id, d.label, d.format, d.title, d.path);
            }
        }),
        LibraryCommand::Remove { doc } => lib.remove(doc).map_err(|e| e.to_string()).map(|d| {
            let _ = writeln!(out, "removed {} ({})", d.title, d.path);
        }),
        LibraryCommand::Eval { queries, out: dest, search } => {
            eval(&lib, queries, dest.as_ref(), search, (opening, open_ms))
        }
        LibraryCommand::Failures => lib.failures().map_err(|e| e.to_string()).map(|failures| {
            if failures.is_empty() {
                let _ = writeln!(out, "no failed files");
            }
            for f in failures {
                let _ = writeln!(out, "{}: {} ({})", f.path, f.message, f.code);
            }
        }),
        LibraryCommand::Watch { action } => watch(lib, action, &mut out),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(e),
    }
}

fn watch(mut lib: Library, action: &WatchAction, out: &mut impl Write) -> Result<(), String> {
    match action {
        WatchAction::Add { folders } => {
            for f in folders {
                let (abs, added) = lib.add_watched_folder(f).map_err(|e| e.to_string())?;
                let _ = writeln!(
                    out,
                    "{} {}",
                    if added { "watching" } else { "already watching" },
                    abs.display()
                );
            }
            Ok(())
        }
        WatchAction::Remove { folders } => {
            for f in folders {
                let was = lib.remove_watched_folder(f).map_err(|e| e.to_string())?;
                let _ = writeln!(
                    out,
                    "{} {}",
                    if was { "stopped watching" } else { "was not watching" },
                    f.display()
                );
            }
            Ok(())
        }
        WatchAction::List => {
            for f in lib.watched_folders().map_err(|e| e.to_string())? {
                let _ = writeln!(out, "{}{}", f.display(), if f.is_dir() { "" } else { "  (missing)" });
            }
            Ok(())
        }
        WatchAction::Run => unreachable!("`watch run` is handled before stdout is locked"),
    }
}

/// Brings the watched folders in step, then follows them until the process is interrupted.
/// Reports go to stdout line by line (the lock on stdout is not held meanwhile).
fn watch_run(lib: Library) -> Result<(), String> {
    let folders = lib.watched_folders().map_err(|e| e.to_string())?;
    if folders.is_empty() {
        return Err("no watched folders: add one with `folio watch add FOLDER`".into());
    }
    if !lib.is_writable() {
        return Err("another Folio process is writing this library; it keeps the folders in step".into());
    }
    eprintln!(
        "following {} folder(s): {}; Ctrl-C to stop",
        folders.len(),
        folders.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(", ")
    );
    let lib = std::sync::Arc::new(std::sync::RwLock::new(lib));
    let _watcher = folio_engine::FolderWatcher::start(lib, Default::default(), |r| {
        let stamp = if r.rescan { "rescan" } else { "change" };
        for p in &r.indexed {
            println!("{stamp}: indexed {p}");
        }
        for p in &r.removed {
            println!("{stamp}: removed {p}");
        }
        for f in &r.failed {
            println!("{stamp}: failed {}: {} ({})", f.path, f.message, f.code);
        }
    })
    .map_err(|e| e.to_string())?;
    loop {
        std::thread::park();
    }
}

fn ingest(lib: &mut Library, paths: &[PathBuf], context: &crate::context::ContextArgs) -> Result<(), String> {
    lib.set_context(context.mode()?);
    if let Some((estimate, cached)) = lib.estimate_context(paths).map_err(|e| e.to_string())? {
        crate::context::print_estimate(&estimate, cached);
        if context.estimate {
            return Ok(());
        }
    }
    let cancel = Cancel::new();
    let mut last = Instant::now();
    let mut last_stage = None;
    let report = lib.ingest(
        paths,
        &mut |p| {
            let done = matches!(p.stage, Stage::Indexed | Stage::Unchanged | Stage::Failed);
            // At most five redraws a second, but every change of stage is shown.
            if done || last_stage != Some((p.file_index, p.stage)) || last.elapsed().as_millis() > 200 {
                last = Instant::now();
                last_stage = Some((p.file_index, p.stage));
                let bar_len = 30;
                let filled =
                    ((p.file_index * bar_len + if done { bar_len } else { 0 }) / p.files.max(1)).min(bar_len);
                eprint!(
                    "\r[{}{}] {}/{} {:?} {} {}/{}      ",
                    "#".repeat(filled),
                    " ".repeat(bar_len - filled),
                    p.file_index + 1,
                    p.files,
                    p.stage,
                    std::path::Path::new(&p.file)
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                    p.done,
                    p.total
                );
            }
        },
        &cancel,
    );
    eprintln!();
    println!(
        "{} indexed, {} unchanged, {} failed; {} chunks in {:.1} s",
        report.indexed.len(),
        report.unchanged.len(),
        report.failed.len(),
        report.chunks,
        report.seconds
    );
    for f in &report.failed {
        println!("  failed: {} — {} ({})", f.path, f.message, f.code);
    }
    crate::context::print_runs(&report.contexts);
    Ok(())
}

fn search_cmd(
    lib: &Library,
    query: &str,
    args: &SearchArgs,
    json: bool,
    out: &mut impl Write,
) -> Result<(), String> {
    let opts = args.options()?;
    let hits = lib.search(query, &opts).map_err(|e| e.to_string())?;
    if json {
        serde_json::to_writer(&mut *out, &hits).map_err(|e| e.to_string())?;
        let _ = writeln!(out);
        return Ok(());
    }
    for (i, h) in hits.iter().enumerate() {
        let ch =
            |c: Option<folio_core::fusion::ChannelRank>| c.map_or("-".to_string(), |r| r.rank.to_string());
        let pages = h.pages.map(|p| format!(", p. {}", p.start)).unwrap_or_default();
        let _ = writeln!(
            out,
            "{}. {}  [{} · {}{}]  dense {} · keyword {} · exact {}\n   {}\n",
            i + 1,
            h.parent_chain.join(" › "),
            h.section_id,
            h.chunk_type.as_str(),
            pages,
            ch(h.dense),
            ch(h.keyword),
            ch(h.exact),
            h.snippet
        );
    }
    if let Some(h) = hits.first() {
        let t = h.timings_ms;
        let _ = writeln!(
            out,
            "({:.1} ms: embed {:.1}, dense {:.1}, keyword {:.1}, exact {:.2})",
            t.total, t.embed, t.dense, t.keyword, t.exact
        );
    }
    Ok(())
}

/// `opened`: when opening began, and how long it took (model load included). Reported on stderr
/// with the time to the first answer, as `open_ms` and `first_answer_ms`.
fn eval(
    lib: &Library,
    queries: &PathBuf,
    dest: Option<&PathBuf>,
    args: &SearchArgs,
    opened: (Instant, f64),
) -> Result<(), String> {
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
        writeln!(sink, "{row}").map_err(|e| e.to_string())?;
    }
    Ok(())
}
