//! The library commands: ingest, search, define, outline, show, refs, docs, remove, eval; their
//! arguments, and the library each opens. What they print is [`crate::print`]'s.

use crate::failure::{exit_code, Failure};
use crate::print;
use crate::search_args::SearchArgs;
use clap::Subcommand;
use folio_core::cancel::Cancel;
use folio_engine::assets::{self, EmbeddingModel};
use folio_engine::{Environment, Library, Stage, TeamAddress, TeamKeywords, TeamLocation};
use std::io::Write;
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
    /// Hybrid search: the dense, keyword and exact channels fused by their scores (or, with
    /// `--fusion rrf`, by weighted Reciprocal Rank Fusion).
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
    /// Serve the library to an AI assistant over the Model Context Protocol (stdio; read-only unless --allow-writes).
    Mcp {
        /// Offer the `add_documents` tool, which adds files to the library (read-only without it).
        #[arg(long)]
        allow_writes: bool,
    },
    /// Run queries from a JSONL file ({"id", "query"} a line); write one JSONL line of ranked hits per query.
    Eval {
        queries: PathBuf,
        #[arg(long)]
        out: Option<PathBuf>,
        #[command(flatten)]
        search: SearchArgs,
    },
}

/// The default library folder.
fn default_library() -> PathBuf {
    folio_engine::default_library_dir()
}

/// Which library a command opens, as the flags name it (read once in `main`).
#[derive(Debug, Clone, Default)]
pub struct LibraryChoice {
    /// `--library`: a folder or a team library's address (the default folder when absent).
    pub path: Option<PathBuf>,
    /// `--team-keywords`: where a team library's keyword channel ranks.
    pub team_keywords: KeywordRanking,
}

/// Where a team library's keyword channel ranks.
#[derive(clap::ValueEnum, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum KeywordRanking {
    /// BM25 in a cache on this computer, kept in step with the server (the default).
    #[default]
    Cache,
    /// PostgreSQL's full-text search on the server (`ts_rank_cd`): no cache to build.
    Server,
}

impl From<KeywordRanking> for TeamKeywords {
    fn from(k: KeywordRanking) -> TeamKeywords {
        match k {
            KeywordRanking::Cache => TeamKeywords::Cache,
            KeywordRanking::Server => TeamKeywords::Server,
        }
    }
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
    choice: &LibraryChoice,
    model: Model,
    env: &Environment,
    (max_tokens, no_merge, merge_limit): (Option<usize>, bool, Option<usize>),
    limits: &FileLimits,
) -> Result<Library, String> {
    let (embedder, mut options) = assets::library_setup(model.into(), env).map_err(|e| e.to_string())?;
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
    let library = choice.path.as_deref();
    if let Some(address) = library.and_then(Path::to_str).filter(|s| TeamAddress::is_address(s)) {
        let mut team = TeamLocation::for_address(address, &folio_ai::keys::ApiKeys::default())
            .map_err(|e| e.to_string())?;
        team.keywords = choice.team_keywords.into();
        let shown = team.address.shown().to_string();
        return Library::open_team(&team, embedder, options).map_err(|e| format!("{shown}: {e}"));
    }
    let dir = library.map(Path::to_path_buf).unwrap_or_else(default_library);
    Library::open(&dir, embedder, options).map_err(|e| format!("{}: {e}", dir.display()))
}

fn repair(library: Option<&Path>, model: Model, env: &Environment) -> Result<(), String> {
    let (embedder, options) = assets::library_setup(model.into(), env).map_err(|e| e.to_string())?;
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

pub fn run(library: &LibraryChoice, model: Model, env: &Environment, command: &LibraryCommand) -> ExitCode {
    exit_code(run_command(library, model, env, command))
}

fn run_command(
    library: &LibraryChoice,
    model: Model,
    env: &Environment,
    command: &LibraryCommand,
) -> Result<(), Failure> {
    let no_limits = FileLimits::default();
    let (chunking, limits) = match command {
        LibraryCommand::Ingest { max_tokens, no_merge, merge_limit, limits, .. } => {
            ((*max_tokens, *no_merge, *merge_limit), limits)
        }
        _ => ((None, false, None), &no_limits),
    };
    if let LibraryCommand::Repair = command {
        return Ok(repair(library.path.as_deref(), model, env)?);
    }
    let opening = Instant::now();
    let mut lib = open(library, model, env, chunking, limits)?;
    let open_ms = opening.elapsed().as_secs_f64() * 1e3;
    if !lib.repaired().is_empty() {
        eprintln!(
            "note: an earlier ingest was interrupted; rolled back these half-written documents (ingest them again): {}",
            lib.repaired().join(", ")
        );
    }
    if let LibraryCommand::Mcp { allow_writes } = command {
        let writes = if *allow_writes { folio_mcp::Writes::Allowed } else { folio_mcp::Writes::Refused };
        return Ok(folio_mcp::serve_stdio(lib, writes)?);
    }
    if let LibraryCommand::Watch { action: WatchAction::Run } = command {
        return Ok(watch_run(lib)?);
    }
    let out = std::io::stdout();
    let mut out = out.lock();
    match command {
        LibraryCommand::Ingest { paths, context, .. } => ingest(&mut lib, paths, context, env)?,
        LibraryCommand::Repair
        | LibraryCommand::Mcp { .. }
        | LibraryCommand::Watch { action: WatchAction::Run } => {
            unreachable!("handled before the library's output")
        }
        LibraryCommand::Usage => {
            let runs = lib.context_runs()?;
            if runs.is_empty() {
                writeln!(out, "no LLM contextualizing recorded in this library")?;
            }
            crate::context::print_runs(&runs);
        }
        LibraryCommand::Search { query, search, json } => {
            let hits = lib.search(query, &search.options()?)?;
            print::hits(&mut out, &hits, *json)?;
        }
        LibraryCommand::Define { term } => print::definitions(&mut out, term, &lib.define(term)?)?,
        LibraryCommand::Outline { doc } => {
            let (d, sections) = lib.outline(doc)?;
            print::outline(&mut out, &d, &sections)?;
        }
        LibraryCommand::Show { section, doc } => {
            print::section(&mut out, &lib.show(doc.as_deref(), section)?)?
        }
        LibraryCommand::Refs { section, doc } => {
            print::references(&mut out, section, &lib.references(doc.as_deref(), section)?)?
        }
        LibraryCommand::Docs => print::documents(&mut out, &lib.documents()?)?,
        LibraryCommand::Remove { doc } => print::removed(&mut out, &lib.remove(doc)?)?,
        LibraryCommand::Eval { queries, out: dest, search } => {
            crate::eval::run(&lib, queries, dest.as_ref(), search, (opening, open_ms))?
        }
        LibraryCommand::Failures => print::failures(&mut out, &lib.failures()?)?,
        LibraryCommand::Watch { action } => watch(lib, action, &mut out)?,
    }
    Ok(())
}

fn watch(mut lib: Library, action: &WatchAction, out: &mut impl Write) -> Result<(), Failure> {
    match action {
        WatchAction::Add { folders } => {
            for f in folders {
                let (abs, added) = lib.add_watched_folder(f)?;
                print::watch_change(out, &abs, "watching", "already watching", added)?;
            }
        }
        WatchAction::Remove { folders } => {
            for f in folders {
                let was = lib.remove_watched_folder(f)?;
                print::watch_change(out, f, "stopped watching", "was not watching", was)?;
            }
        }
        WatchAction::List => print::watched(out, &lib.watched_folders()?)?,
        WatchAction::Run => unreachable!("`watch run` is handled before stdout is locked"),
    }
    Ok(())
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

fn ingest(
    lib: &mut Library,
    paths: &[PathBuf],
    context: &crate::context::ContextArgs,
    env: &Environment,
) -> Result<(), String> {
    lib.set_context(context.mode(env)?);
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
