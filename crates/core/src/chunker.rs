//! The structure-aware chunker.
//!
//! Rules:
//! - a chunk never crosses a section boundary: all its text lies in one section (its `section_id`);
//! - a section's own text (its heading and the text before its first subsection) is one unit; a unit
//!   larger than the limit splits at sentence, then clause, then word boundaries;
//! - small consecutive units merge, up to the limit, only while they stay inside one section: siblings
//!   under one parent, or a section's own text with the subsections that follow it;
//! - the limit counts the embedding model's own tokens, and leaves room for a context prefix inside the
//!   model's window ([`ChunkerConfig::for_window`]).

use crate::definitions::Definition;
use crate::model::{content_hash, BlockKind, Document, PageRange, Span};
use crate::outline::Outline;
use crate::tokens::TokenCounter;
use regex::Regex;
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// How far small sibling sections merge by default, in tokens. Measured on ObliQA (40 rulebooks,
/// 2,788 questions, BM25 alone, even half): merging up to the chunk limit (154) 0.684 Recall@10,
/// 128 → 0.716, 64 → 0.733, 32 → 0.734, no merging → 0.735; 64 keeps the recall of unmerged
/// sections with 12 % fewer chunks (13,130 against 14,901), and one-line rules keep a neighbour.
pub const DEFAULT_MERGE_LIMIT: usize = 64;

/// Chunker settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChunkerConfig {
    /// The most tokens of chunk text (without the context prefix).
    pub max_tokens: usize,
    /// Whether small sibling sections may merge.
    pub merge_small: bool,
    /// Merged sections stop growing at this many tokens (at most `max_tokens`): a section larger
    /// than this is never merged with others, and merging never goes past it.
    pub merge_limit: usize,
}

impl ChunkerConfig {
    /// A limit that leaves `context_reserve` tokens of an embedder's `window` for the context prefix
    /// and 2 for the special tokens.
    pub fn for_window(window: usize, context_reserve: usize) -> ChunkerConfig {
        ChunkerConfig {
            max_tokens: window.saturating_sub(context_reserve + 2).max(16),
            merge_small: true,
            merge_limit: DEFAULT_MERGE_LIMIT,
        }
    }
}

impl Default for ChunkerConfig {
    /// all-MiniLM-L6-v2's 256-piece window with 100 tokens kept for a context: 154 tokens.
    fn default() -> Self {
        ChunkerConfig::for_window(256, 100)
    }
}

/// What a chunk mostly is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChunkType {
    /// Text that defines a term (a definition starts inside the chunk).
    Definition,
    /// A rule: text that says "shall", "must", "may not", "is required to" or "is prohibited".
    Requirement,
    /// Text under a heading that names guidance (the chunk's section or one of its two nearest parents).
    Guidance,
    /// A note: text that opens with "Note" or lies under a heading that names notes.
    Note,
    /// Tables only: every block but the headings is a table.
    Table,
    /// Any other text.
    Content,
}

impl ChunkType {
    /// Every chunk type.
    pub const ALL: [ChunkType; 6] = [
        ChunkType::Definition,
        ChunkType::Requirement,
        ChunkType::Guidance,
        ChunkType::Note,
        ChunkType::Table,
        ChunkType::Content,
    ];

    /// The type a stored name stands for (`"requirement"`), if any.
    pub fn parse(name: &str) -> Option<ChunkType> {
        ChunkType::ALL.into_iter().find(|t| t.as_str() == name)
    }

    /// The type's name as stored and serialised.
    pub fn as_str(self) -> &'static str {
        match self {
            ChunkType::Definition => "definition",
            ChunkType::Requirement => "requirement",
            ChunkType::Guidance => "guidance",
            ChunkType::Note => "note",
            ChunkType::Table => "table",
            ChunkType::Content => "content",
        }
    }
}

/// One chunk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chunk {
    /// The chunk's position in its document, from 0.
    pub chunk_index: usize,
    /// The chunk's text: a slice of the document text.
    pub text: String,
    /// The innermost section holding the whole chunk.
    pub section_id: String,
    /// The sections whose own text the chunk holds, in order (more than one when small ones merged).
    pub section_ids: Vec<String>,
    /// Heading texts from the document title down to `section_id`.
    pub parent_chain: Vec<String>,
    /// The level of `section_id` (0 for text before the first heading).
    pub heading_level: u8,
    /// What the chunk mostly is.
    pub chunk_type: ChunkType,
    /// The pages the chunk lies on; `None` for formats without pages.
    pub pages: Option<PageRange>,
    /// Where `text` lies in [`Document::text`].
    pub span: Span,
    /// SHA-256 of `text`.
    pub content_hash: String,
    /// Tokens of `text` by the counter the chunker used.
    pub token_count: usize,
    /// Normalised keys of the terms defined inside this chunk.
    pub defined_terms: Vec<String>,
}

/// A piece of a unit: a span with its token count.
#[derive(Debug, Clone, Copy)]
struct Piece {
    span: Span,
    tokens: usize,
    pages: Option<PageRange>,
    /// The block index of the table with header rows this piece is part of: such a table is
    /// chunked on its own, never packed with other text.
    table: Option<usize>,
}

/// One section's own text.
#[derive(Debug)]
struct Unit {
    section: usize,
    pieces: Vec<Piece>,
    tokens: usize,
}

/// Splits a document into chunks.
///
/// ```
/// use folio_core::{chunker::{chunk_document, ChunkerConfig}, outline::Outline, plaintext, tokens::WordCounter};
/// use folio_core::model::{DocumentBuilder, Format};
/// let text = "1\tScope\n1.1\tThese Rules apply to every Person.\n1.2\tA Person must comply.\n";
/// let mut b = DocumentBuilder::new(Format::Text, "GEN", text.as_bytes());
/// plaintext::parse_into(text, &mut b);
/// let doc = b.finish();
/// let outline = Outline::build(&doc);
/// let chunks = chunk_document(&doc, &outline, &[], &WordCounter, &ChunkerConfig::default());
/// assert_eq!(chunks.len(), 1);
/// assert_eq!(chunks[0].section_id, "sec_1");
/// assert_eq!(chunks[0].section_ids, vec!["sec_1", "sec_1_1", "sec_1_2"]);
/// ```
pub fn chunk_document(
    doc: &Document,
    outline: &Outline,
    definitions: &[Definition],
    counter: &dyn TokenCounter,
    config: &ChunkerConfig,
) -> Vec<Chunk> {
    let units = build_units(doc, outline, counter, config.max_tokens);
    let mut groups: Vec<(usize, Vec<Piece>, Vec<usize>)> = Vec::new(); // (scope section, pieces, unit sections)
    let mut i = 0;
    while i < units.len() {
        let unit = &units[i];
        let merge_limit = config.merge_limit.min(config.max_tokens);
        let has_table = unit.pieces.iter().any(|p| p.table.is_some());
        if unit.tokens > merge_limit || !config.merge_small || has_table {
            // Pack the unit's pieces into chunks of at most max_tokens.
            for pack in pack_pieces(&unit.pieces, config.max_tokens) {
                groups.push((unit.section, pack, vec![unit.section]));
            }
            i += 1;
            continue;
        }
        let first = unit.section;
        let mut scope = first;
        let mut total = unit.tokens;
        let mut pieces = unit.pieces.clone();
        let mut sections = vec![first];
        let mut j = i + 1;
        while j < units.len() {
            let next = &units[j];
            if total + next.tokens > merge_limit || next.pieces.iter().any(|p| p.table.is_some()) {
                break;
            }
            // Stay inside the first unit's section, or inside its parent while all are siblings' subtrees.
            let candidate = if outline.is_within(next.section, scope) {
                scope
            } else {
                match outline.sections[first].parent {
                    Some(p) if scope == first && outline.is_within(next.section, p) => p,
                    _ => break,
                }
            };
            scope = candidate;
            total += next.tokens;
            pieces.extend(next.pieces.iter().copied());
            sections.push(next.section);
            j += 1;
        }
        groups.push((scope, pieces, sections));
        i = j;
    }

    groups
        .into_iter()
        .enumerate()
        .map(|(idx, (scope, pieces, sections))| {
            make_chunk(doc, outline, definitions, idx, scope, &pieces, &sections)
        })
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn make_chunk(
    doc: &Document,
    outline: &Outline,
    definitions: &[Definition],
    idx: usize,
    scope: usize,
    pieces: &[Piece],
    sections: &[usize],
) -> Chunk {
    let span = pieces.iter().skip(1).fold(pieces[0].span, |acc, p| acc.cover(p.span));
    let text = doc.slice(span).to_string();
    let pages = pieces.iter().fold(None, |acc, p| PageRange::cover_opt(acc, p.pages));
    let mut section_ids: Vec<String> = Vec::new();
    for &s in sections {
        let id = &outline.sections[s].id;
        if section_ids.last() != Some(id) {
            section_ids.push(id.clone());
        }
    }
    // Definitions are in document order: find those starting inside the chunk by binary search.
    let first = definitions.partition_point(|d| d.span.start < span.start);
    let defined_terms: Vec<String> =
        definitions[first..].iter().take_while(|d| d.span.start < span.end).map(|d| d.key.clone()).collect();
    let chunk_type = classify(doc, outline, scope, span, !defined_terms.is_empty());
    let s = &outline.sections[scope];
    Chunk {
        chunk_index: idx,
        token_count: pieces.iter().map(|p| p.tokens).sum(),
        content_hash: content_hash(text.as_bytes()),
        text,
        section_id: s.id.clone(),
        section_ids,
        parent_chain: outline.parent_chain(scope, &doc.meta.title),
        heading_level: s.level,
        chunk_type,
        pages,
        span,
        defined_terms,
    }
}

fn requirement_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?i)(?-u:\b)(shall|must|may not|is required to|are required to|is prohibited|are prohibited)(?-u:\b)",
        )
        .expect("valid regex")
    })
}

fn classify(doc: &Document, outline: &Outline, scope: usize, span: Span, has_definition: bool) -> ChunkType {
    let first = doc.blocks.partition_point(|b| b.span.end <= span.start);
    let blocks: Vec<_> = doc.blocks[first..].iter().take_while(|b| b.span.start < span.end).collect();
    let body: Vec<_> = blocks.iter().filter(|b| !b.kind.is_heading()).collect();
    if !body.is_empty() && body.iter().all(|b| matches!(b.kind, BlockKind::Table { .. })) {
        return ChunkType::Table;
    }
    if has_definition {
        return ChunkType::Definition;
    }
    let chain_says = |words: &[&str]| {
        std::iter::once(scope).chain(outline.ancestors(scope)).take(3).any(|s| {
            let sec = &outline.sections[s];
            let t = format!("{} {}", sec.heading, sec.number.as_deref().unwrap_or("")).to_lowercase();
            words.iter().any(|w| t.split(|c: char| !c.is_alphanumeric()).any(|x| x == *w))
        })
    };
    if chain_says(&["guidance"]) {
        return ChunkType::Guidance;
    }
    let text = doc.slice(span);
    let starts_note = body.first().is_some_and(|b| {
        let t = doc.block_text(b).trim_start().to_ascii_lowercase();
        t.starts_with("note:") || t.starts_with("note ") || t.starts_with("notes:")
    });
    if starts_note || chain_says(&["note", "notes"]) {
        return ChunkType::Note;
    }
    if requirement_re().is_match(text) {
        return ChunkType::Requirement;
    }
    ChunkType::Content
}

/// Units in document order: each section's own blocks, split into sentence-level pieces when large.
fn build_units(doc: &Document, outline: &Outline, counter: &dyn TokenCounter, max: usize) -> Vec<Unit> {
    let mut units = Vec::new();
    for (si, s) in outline.sections.iter().enumerate() {
        if s.own_blocks.is_empty() {
            continue;
        }
        let mut pieces = Vec::new();
        for (bi, block) in doc.blocks[s.own_blocks.clone()].iter().enumerate() {
            let first = pieces.len();
            let text = doc.block_text(block);
            let tokens = counter.count(text);
            if tokens <= max {
                pieces.push(Piece { span: block.span, tokens, pages: block.pages, table: None });
            } else if matches!(block.kind, BlockKind::Table { .. } | BlockKind::Code) {
                split_lines(doc, block.span, block.pages, counter, max, &mut pieces);
            } else {
                split_span(doc, block.span, block.pages, counter, max, 0, &mut pieces);
            }
            if matches!(block.kind, BlockKind::Table { header_rows } if header_rows > 0) {
                let table = Some(s.own_blocks.start + bi);
                pieces[first..].iter_mut().for_each(|p| p.table = table);
            }
        }
        let tokens = pieces.iter().map(|p| p.tokens).sum();
        if !pieces.is_empty() {
            units.push(Unit { section: si, pieces, tokens });
        }
    }
    units
}

/// Splits a span into pieces of at most `max` tokens: sentences (level 0), clauses (1), words (2).
fn split_span(
    doc: &Document,
    span: Span,
    pages: Option<PageRange>,
    counter: &dyn TokenCounter,
    max: usize,
    level: u8,
    out: &mut Vec<Piece>,
) {
    let text = doc.slice(span);
    let bounds = match level {
        0 => sentence_bounds(text),
        1 => clause_bounds(text),
        _ => word_bounds(text, counter, max),
    };
    for (a, b) in bounds {
        let piece = Span::new(span.start + a, span.start + b);
        let slice = doc.slice(piece);
        if slice.trim().is_empty() {
            continue;
        }
        let tokens = counter.count(slice);
        if tokens > max && level < 2 {
            split_span(doc, piece, pages, counter, max, level + 1, out);
        } else {
            out.push(Piece { span: piece, tokens, pages, table: None });
        }
    }
}

/// Splits a table or code block at line ends, lines longer than the limit further by sentences.
fn split_lines(
    doc: &Document,
    span: Span,
    pages: Option<PageRange>,
    counter: &dyn TokenCounter,
    max: usize,
    out: &mut Vec<Piece>,
) {
    let text = doc.slice(span);
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let piece = Span::new(span.start + start, span.start + start + line.trim_end().len());
        start += line.len();
        if piece.is_empty() {
            continue;
        }
        let tokens = counter.count(doc.slice(piece));
        if tokens > max {
            split_span(doc, piece, pages, counter, max, 0, out);
        } else {
            out.push(Piece { span: piece, tokens, pages, table: None });
        }
    }
}

const ABBREVIATIONS: [&str; 16] = [
    "e.g", "i.e", "etc", "no", "nos", "art", "sec", "para", "mr", "mrs", "dr", "st", "vs", "cf", "u.s", "fig",
];

/// Byte ranges of sentences: split after `.`, `?`, `!` (and closing quotes) before a space and an
/// upper-case letter, digit, quote or bracket; not after abbreviations, initials or numbers.
pub fn sentence_bounds(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if matches!(c, b'.' | b'?' | b'!' | b';') {
            let mut end = i + 1;
            while end < bytes.len() && matches!(bytes[end], b'"' | b'\'' | b')') {
                end += 1;
            }
            if end < bytes.len() && bytes[end] == b' ' {
                let next = text[end + 1..].chars().next();
                let starts_new =
                    next.is_some_and(|n| n.is_uppercase() || n.is_ascii_digit() || "\"'(“‘[".contains(n));
                if starts_new && (c != b'.' || !is_abbreviation(&text[start..i])) {
                    out.push((start, end));
                    start = end + 1;
                    i = end + 1;
                    continue;
                }
            }
        }
        i += 1;
    }
    if start < text.len() {
        out.push((start, text.len()));
    }
    out
}

fn is_abbreviation(before: &str) -> bool {
    let word = before.rsplit(|c: char| c.is_whitespace() || c == '(').next().unwrap_or("");
    let lower = word.to_ascii_lowercase();
    if word.chars().count() == 1 && word.chars().all(|c| c.is_uppercase()) {
        return true; // an initial
    }
    if !word.is_empty() && word.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return true; // "2.1." numbering
    }
    ABBREVIATIONS.contains(&lower.as_str())
}

/// Byte ranges split after `;`, `:`, `,` and ` and `/` or ` when no sentence boundary was found.
fn clause_bounds(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if matches!(c, ';' | ':' | ',') && text[i + 1..].starts_with(' ') && i + 1 - start >= 40 {
            out.push((start, i + 1));
            start = i + 2;
        }
    }
    if start < text.len() {
        out.push((start, text.len()));
    }
    out
}

/// Byte ranges of at most `max` tokens each, cut at spaces.
fn word_bounds(text: &str, counter: &dyn TokenCounter, max: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut tokens = 0;
    let mut last_end = 0;
    let mut word_start = None;
    let cut_at = |out: &mut Vec<(usize, usize)>, s: &mut usize, e: usize| {
        if e > *s {
            out.push((*s, e));
        }
        *s = e;
    };
    for (i, c) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
        if c.is_whitespace() {
            if let Some(ws) = word_start.take() {
                let t = counter.count(&text[ws..i]).max(1);
                if tokens + t > max && tokens > 0 {
                    cut_at(&mut out, &mut start, last_end);
                    start = ws;
                    tokens = 0;
                }
                if t > max {
                    // A single enormous "word": cut it by characters.
                    let mut s = ws;
                    for (k, _) in text[ws..i].char_indices().skip(1).step_by(max.max(1) * 2) {
                        out.push((s, ws + k));
                        s = ws + k;
                    }
                    out.push((s, i));
                    start = i;
                    tokens = 0;
                } else {
                    tokens += t;
                }
                last_end = i;
            }
        } else if word_start.is_none() {
            word_start = Some(i);
        }
    }
    if last_end > start {
        out.push((start, last_end));
    }
    out
}

/// Packs consecutive pieces into groups of at most `max` tokens.
fn pack_pieces(pieces: &[Piece], max: usize) -> Vec<Vec<Piece>> {
    let mut out: Vec<Vec<Piece>> = Vec::new();
    let mut cur: Vec<Piece> = Vec::new();
    let mut tokens = 0;
    for p in pieces {
        // A table with header rows is chunked apart from the text around it.
        let table_edge = cur.last().is_some_and(|l: &Piece| l.table != p.table);
        if (tokens + p.tokens > max || table_edge) && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
            tokens = 0;
        }
        tokens += p.tokens;
        cur.push(*p);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{DocumentBuilder, Format};
    use crate::plaintext;
    use crate::tokens::WordCounter;
    use proptest::prelude::*;

    #[test]
    fn a_table_with_header_rows_is_chunked_on_its_own() {
        let mut b = DocumentBuilder::new(Format::Pdf, "Report", b"");
        b.push(BlockKind::Heading { level: 1, number: None }, "Balance sheet", None);
        b.push(BlockKind::Paragraph, "The figures below are in millions.", None);
        let rows: Vec<String> = (0..40).map(|i| format!("Item number {i}\t{}\t{}", i * 3, i * 7)).collect();
        b.push(BlockKind::Table { header_rows: 1 }, &format!("\t2022\t2021\n{}", rows.join("\n")), None);
        b.push(BlockKind::Paragraph, "Notes follow.", None);
        let d = b.finish();
        let o = Outline::build(&d);
        let cfg = ChunkerConfig { max_tokens: 60, merge_small: true, ..ChunkerConfig::default() };
        let chunks = chunk_document(&d, &o, &[], &WordCounter, &cfg);
        let tables: Vec<&Chunk> = chunks.iter().filter(|c| c.chunk_type == ChunkType::Table).collect();
        assert!(tables.len() >= 3, "the table splits by rows: {chunks:#?}");
        assert!(chunks.iter().all(|c| c.chunk_type == ChunkType::Table || !c.text.contains('\t')));
        assert!(chunks.iter().any(|c| c.text.contains("in millions") && !c.text.contains("Item number")));
        // Every part's rows carry the column headers in what is indexed.
        for c in &tables {
            let rows = crate::context::table_rows(&d, c.span).expect("table rows");
            assert!(rows.lines().skip(1).all(|l| l.contains("2022: ") && l.contains("2021: ")), "{rows}");
        }
    }

    fn parse(text: &str) -> (Document, Outline) {
        let mut b = DocumentBuilder::new(Format::Text, "T", text.as_bytes());
        plaintext::parse_into(text, &mut b);
        let d = b.finish();
        let o = Outline::build(&d);
        (d, o)
    }

    #[test]
    fn sentences() {
        let t = "See Rule 2.1. It applies, e.g. to banks. Mr. X agrees! Next one";
        let s: Vec<&str> = sentence_bounds(t).iter().map(|&(a, b)| &t[a..b]).collect();
        assert_eq!(s, vec!["See Rule 2.1. It applies, e.g. to banks.", "Mr. X agrees!", "Next one"]);
    }

    #[test]
    fn big_sections_split_and_never_cross() {
        let long: String = (0..60).map(|i| format!("Sentence number {i} is here. ")).collect();
        let text = format!("1\tScope\n1.1\t{long}\n1.2\tA Person must comply.\n2\tOther\n2.1\tText here.\n");
        let (d, o) = parse(&text);
        let cfg = ChunkerConfig { max_tokens: 50, ..ChunkerConfig::default() };
        let chunks = chunk_document(&d, &o, &[], &WordCounter, &cfg);
        assert!(chunks.len() > 5);
        for c in &chunks {
            assert!(c.token_count <= 50, "{} tokens", c.token_count);
            let sec = o.by_id(&c.section_id).unwrap();
            assert!(c.span.start >= o.sections[sec].span.start && c.span.end <= o.sections[sec].span.end);
        }
        let last = chunks.last().unwrap();
        assert_eq!(last.section_id, "sec_2");
        assert!(chunks.iter().any(|c| c.chunk_type == ChunkType::Requirement));
    }

    #[test]
    fn merging_stops_at_the_merge_limit() {
        // Six rules of 7 words each ("1.n" + six words), under one heading.
        let rules: String =
            (1..=6).map(|i| format!("1.{i}\tA Person must keep record {i} always.\n")).collect();
        let (d, o) = parse(&format!("1\tScope\n{rules}"));
        let sizes = |limit: usize| -> Vec<usize> {
            let cfg = ChunkerConfig { max_tokens: 200, merge_limit: limit, ..ChunkerConfig::default() };
            chunk_document(&d, &o, &[], &WordCounter, &cfg).iter().map(|c| c.section_ids.len()).collect()
        };
        // Without a merge limit everything fits one chunk; at 16 tokens two rules merge at most; at
        // 0 no section merges.
        assert_eq!(sizes(usize::MAX), vec![7]);
        assert!(sizes(16).iter().all(|n| *n <= 2), "{:?}", sizes(16));
        assert!(sizes(16).len() >= 3);
        assert_eq!(sizes(0), vec![1; 7]);
    }

    #[test]
    fn fifty_megabytes_without_newline_is_linear() {
        let line = "word ".repeat(200_000);
        let (d, o) = parse(&line);
        let chunks = chunk_document(&d, &o, &[], &WordCounter, &ChunkerConfig::default());
        assert!(chunks.iter().all(|c| c.token_count <= ChunkerConfig::default().max_tokens));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Chunks cover every non-whitespace character of the document exactly once, in order.
        #[test]
        fn chunks_cover_the_document(paras in proptest::collection::vec("[a-zA-Z ,.;]{0,300}", 1..12),
                                     numbered in proptest::collection::vec(any::<bool>(), 12),
                                     max in 8usize..80) {
            let mut text = String::new();
            for (i, p) in paras.iter().enumerate() {
                if numbered[i] { text.push_str(&format!("{}.{}\t", i / 3 + 1, i % 3 + 1)); }
                text.push_str(p);
                text.push_str("\n\n");
            }
            let (d, o) = parse(&text);
            let chunks = chunk_document(&d, &o, &[], &WordCounter, &ChunkerConfig { max_tokens: max, ..ChunkerConfig::default() });
            let mut covered = vec![false; d.text.len()];
            let mut last_end = 0;
            for c in &chunks {
                prop_assert!(c.span.start >= last_end, "chunks overlap or go backwards");
                last_end = c.span.end;
                covered[c.span.start..c.span.end].iter_mut().for_each(|x| *x = true);
            }
            for (k, ch) in d.text.char_indices() {
                if !ch.is_whitespace() { prop_assert!(covered[k], "byte {} uncovered", k); }
            }
        }
    }
}
