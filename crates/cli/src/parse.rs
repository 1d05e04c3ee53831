//! `folio parse FILE… [--json]`.

use clap::Args;
use folio_convert::{convert_file, ConvertOptions};
use folio_core::analysis::{analyze, Analysis};
use folio_core::chunker::ChunkerConfig;
use folio_core::definitions::DefinitionScope;
use folio_core::model::PageRange;
use folio_core::tokens::{TokenCounter, WordCounter};
use folio_engine::{assets, LibraryOptions};
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// The version of the `--json` schema; bumped on any incompatible change.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Args, Debug)]
pub struct ParseArgs {
    /// Files to parse.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Print one JSON object per file (schema in README.md).
    #[arg(long)]
    pub json: bool,
    /// Most tokens of chunk text (all-MiniLM-L6-v2 word pieces); default: the library's.
    #[arg(long)]
    pub max_tokens: Option<usize>,
    /// Never merge small sibling sections into one chunk.
    #[arg(long)]
    pub no_merge: bool,
    /// Merge small sibling sections up to this many tokens; default: the library's.
    #[arg(long)]
    pub merge_limit: Option<usize>,
    /// Ignore PDF bookmarks when levelling headings.
    #[arg(long)]
    pub no_bookmarks: bool,
    /// Do not read scanned PDF pages (pages without a text layer) with OCR.
    #[arg(long)]
    pub no_ocr: bool,
    /// Print only the outline (text output).
    #[arg(long)]
    pub outline_only: bool,
    /// With --json, add the extracted text (`document.text`, which every `span` indexes).
    #[arg(long, requires = "json")]
    pub text: bool,
}

/// The token counter of the default embedding model, or a word estimate (said on stderr) when its
/// vocabulary is not installed. A vocabulary that is there but cannot be read is an error.
pub fn token_counter(env: &folio_engine::Environment) -> Result<Box<dyn TokenCounter>, folio_ai::AiError> {
    match assets::find("minilm/vocab.txt", env) {
        Some(path) => Ok(Box::new(folio_ai::load_vocabulary(&path)?)),
        None => {
            eprintln!("note: .assets/minilm/vocab.txt not found (run scripts/setup-assets.sh); counting tokens by a word estimate");
            Ok(Box::new(WordCounter))
        }
    }
}

pub fn run(args: &ParseArgs, env: &folio_engine::Environment) -> ExitCode {
    let counter = match token_counter(env) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: the vocabulary that counts chunk tokens could not be read: {e}");
            return ExitCode::FAILURE;
        }
    };
    // The library's own settings, so that `parse` shows the chunks a library indexes (and the
    // same flags as `folio ingest` change them).
    let mut config = LibraryOptions::default().chunker;
    if let Some(m) = args.max_tokens {
        config.max_tokens = m.max(8);
    }
    config.merge_small = !args.no_merge;
    if let Some(m) = args.merge_limit {
        config.merge_limit = m;
    }
    let options = ConvertOptions {
        use_bookmarks: !args.no_bookmarks,
        ocr: !args.no_ocr,
        pdfium_library: env.pdfium.clone().or_else(|| assets::find("pdfium/libpdfium.so", env)),
        tesseract_library: env.tesseract.clone(),
        tessdata: env.tessdata.clone(),
        ..ConvertOptions::default()
    };
    let mut failed = 0;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for file in &args.files {
        match convert_file(file, &options) {
            Ok(doc) => {
                let analysis = analyze(doc, counter.as_ref(), &config);
                let result = if args.json {
                    serde_json::to_writer(
                        &mut out,
                        &JsonDocument::new(&analysis, counter.describe(), &config, args.text),
                    )
                    .map_err(std::io::Error::other)
                    .and_then(|_| writeln!(out))
                } else {
                    print_text(&mut out, &analysis, &config, args.outline_only)
                };
                if let Err(e) = result {
                    if e.kind() == std::io::ErrorKind::BrokenPipe {
                        return ExitCode::SUCCESS;
                    }
                    eprintln!("error: writing output: {e}");
                    return ExitCode::FAILURE;
                }
            }
            Err(e) => {
                failed += 1;
                if args.json {
                    let err = serde_json::json!({"schema_version": SCHEMA_VERSION, "path": e.path.display().to_string(),
                        "error": {"code": e.kind.code(), "message": e.kind.to_string()}});
                    if let Err(e) = writeln!(out, "{err}") {
                        eprintln!("error: writing output: {e}");
                        return ExitCode::FAILURE;
                    }
                }
                eprintln!("error: {e}");
            }
        }
    }
    if failed > 0 {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    }
}

fn pages(p: Option<PageRange>) -> String {
    match p {
        Some(p) if p.start == p.end => format!(" p. {}", p.start),
        Some(p) => format!(" pp. {}–{}", p.start, p.end),
        None => String::new(),
    }
}

fn print_text(
    out: &mut impl Write,
    a: &Analysis,
    config: &ChunkerConfig,
    outline_only: bool,
) -> std::io::Result<()> {
    let m = &a.document.meta;
    writeln!(
        out,
        "# {} ({}{})",
        m.title,
        m.format.as_str(),
        m.page_count.map(|n| format!(", {n} pages")).unwrap_or_default()
    )?;
    writeln!(out, "\n## Outline ({} sections)", a.outline.sections.len() - 1)?;
    for s in a.outline.sections.iter().skip(1) {
        let indent = "  ".repeat(s.level.saturating_sub(1) as usize);
        writeln!(out, "{indent}{} [{}]{}", s.heading, s.id, pages(s.pages))?;
    }
    if outline_only {
        return Ok(());
    }
    writeln!(
        out,
        "\n## Chunks ({}; at most {} tokens, {})",
        a.chunks.len(),
        config.max_tokens,
        if config.merge_small {
            format!("small sibling sections merged up to {} tokens", config.merge_limit)
        } else {
            "sections never merged".to_string()
        }
    )?;
    for c in &a.chunks {
        writeln!(
            out,
            "\n[{}] {} · {} · {} tokens{}\n  {}",
            c.chunk_index,
            c.section_id,
            c.chunk_type.as_str(),
            c.token_count,
            pages(c.pages),
            c.parent_chain.join(" › ")
        )?;
        let preview: String = c.text.chars().take(240).collect();
        writeln!(
            out,
            "  {}{}",
            preview.replace('\n', " ⏎ "),
            if c.text.chars().count() > 240 { "…" } else { "" }
        )?;
    }
    writeln!(out, "\n## Definitions ({})", a.definitions.len())?;
    for d in &a.definitions {
        let scope = match &d.scope {
            DefinitionScope::Document => "document".to_string(),
            DefinitionScope::Section { section_id } => section_id.clone(),
        };
        let text: String = d.text.chars().take(160).collect();
        writeln!(out, "- {} [{}] in {} (scope: {}): {}", d.term, d.key, d.section_id, scope, text)?;
    }
    writeln!(out, "\n## Cross-references ({})", a.references.len())?;
    for r in &a.references {
        let target = match (&r.target_section, &r.document) {
            (Some(t), _) => format!("→ {t}"),
            (None, Some(d)) => format!("→ other document: {d}"),
            (None, None) => "→ unresolved".to_string(),
        };
        writeln!(out, "- {} in {} {}", r.text, r.from_section, target)?;
    }
    Ok(())
}

/// The `--json` schema (version 1). Field names are stable; new fields may be added.
#[derive(Serialize)]
struct JsonDocument<'a> {
    schema_version: u32,
    document: JsonMeta<'a>,
    chunker: JsonChunker,
    outline: Vec<JsonSection<'a>>,
    chunks: &'a [folio_core::chunker::Chunk],
    definitions: &'a [folio_core::definitions::Definition],
    references: &'a [folio_core::crossref::CrossReference],
    tables: Vec<JsonTable<'a>>,
}

/// A table block: its header rows and body rows as cells.
#[derive(Serialize)]
struct JsonTable<'a> {
    pages: Option<PageRange>,
    span: folio_core::model::Span,
    section_id: &'a str,
    header_rows: Vec<Vec<&'a str>>,
    rows: Vec<Vec<&'a str>>,
}

#[derive(Serialize)]
struct JsonMeta<'a> {
    title: &'a str,
    format: &'a str,
    page_count: Option<u32>,
    content_hash: &'a str,
    source_path: Option<&'a str>,
    blocks: usize,
    characters: usize,
    warnings: &'a [String],
    /// Which evidence decided the headings' levels (PDF).
    #[serde(skip_serializing_if = "Option::is_none")]
    outline_evidence: Option<&'a str>,
    /// The extracted text, with `--text` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
}

#[derive(Serialize)]
struct JsonChunker {
    max_tokens: usize,
    merge_small: bool,
    merge_limit: usize,
    token_counter: String,
}

#[derive(Serialize)]
struct JsonSection<'a> {
    id: &'a str,
    number: Option<&'a str>,
    title: &'a str,
    heading: &'a str,
    level: u8,
    parent_id: Option<&'a str>,
    pages: Option<PageRange>,
    span: folio_core::model::Span,
}

/// The document's table blocks split into cells, in document order.
fn tables(a: &Analysis) -> Vec<JsonTable<'_>> {
    let doc = &a.document;
    doc.blocks
        .iter()
        .filter_map(|b| {
            let folio_core::model::BlockKind::Table { header_rows } = b.kind else { return None };
            let mut lines: Vec<Vec<&str>> =
                doc.block_text(b).split('\n').map(|l| l.split('\t').collect()).collect();
            let body = lines.split_off((header_rows as usize).min(lines.len()));
            let section = a
                .outline
                .sections
                .iter()
                .rev()
                .find(|s| s.span.start <= b.span.start && b.span.end <= s.span.end.max(s.span.start))
                .map(|s| s.id.as_str())
                .unwrap_or("");
            Some(JsonTable {
                pages: b.pages,
                span: b.span,
                section_id: section,
                header_rows: lines,
                rows: body,
            })
        })
        .collect()
}

impl<'a> JsonDocument<'a> {
    fn new(a: &'a Analysis, counter: String, config: &ChunkerConfig, with_text: bool) -> Self {
        let m = &a.document.meta;
        let secs = &a.outline.sections;
        JsonDocument {
            schema_version: SCHEMA_VERSION,
            document: JsonMeta {
                title: &m.title,
                format: m.format.as_str(),
                page_count: m.page_count,
                content_hash: &m.content_hash,
                source_path: m.source_path.as_deref(),
                blocks: a.document.blocks.len(),
                characters: a.document.text.chars().count(),
                warnings: &m.warnings,
                outline_evidence: m.outline_evidence.as_deref(),
                text: with_text.then_some(a.document.text.as_str()),
            },
            chunker: JsonChunker {
                max_tokens: config.max_tokens,
                merge_small: config.merge_small,
                merge_limit: config.merge_limit,
                token_counter: counter,
            },
            outline: secs
                .iter()
                .skip(1)
                .map(|s| JsonSection {
                    id: &s.id,
                    number: s.number.as_deref(),
                    title: &s.title,
                    heading: &s.heading,
                    level: s.level,
                    parent_id: s.parent.map(|p| secs[p].id.as_str()),
                    pages: s.pages,
                    span: s.span,
                })
                .collect(),
            chunks: &a.chunks,
            definitions: &a.definitions,
            references: &a.references,
            tables: tables(a),
        }
    }
}
