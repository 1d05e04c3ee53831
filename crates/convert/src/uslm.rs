//! USLM (United States Legislative Markup) XML: public laws, bills, resolutions, the US Code.
//!
//! Read in one streaming pass with quick-xml. The mapping:
//! - the document title is `<dc:title>`, else `<officialTitle>`, else `<docTitle>`;
//! - structural levels (`title`, `subtitle`, `division`, `part`, `subpart`, `chapter`, `subchapter`,
//!   `section`) become headings "`<num>` `<heading>`" ("SEC. 1001. SHORT TITLE.", "TITLE I—PROGRAM
//!   REFORMS"), numbered by their `<num>` ("SEC. 1001.", "TITLE I"), levels by nesting (the top is 1);
//! - sub-section levels (`subsection` … `subitem`) become list items: `<num>`, `<heading>`, then their
//!   `<chapeau>` / `<content>` / `<text>`, depth by nesting; `<continuation>` text is a paragraph;
//! - `<quotedContent>` (a quoted amendment: whole sections or subsections) becomes quote blocks, one
//!   per quoted heading, item or paragraph; `<quotedText>` is a phrase inside a sentence and stays
//!   inline, as do `<ref>`, `<term>`, `<inline>` and the other inline elements;
//! - `<meta>`, `<toc>`, `<sidenote>`, `<page>` markers and `<endMarker>` are dropped (a dropped marker
//!   between two words still separates them); notes are kept as paragraphs, and a note inside a
//!   sentence is moved after that sentence's block;
//! - XHTML tables become table blocks.
//!
//! Malformed XML is reported as [`ErrorKind::Corrupt`]; XML that is not USLM as
//! [`ErrorKind::Unsupported`].

use crate::blocks::{push_blocks, RawBlock};
use crate::error::guard;
use crate::text::{decode_text, file_stem};
use crate::{ConvertOptions, Converter, ErrorKind};
use folio_core::model::{collapse_whitespace, BlockKind, Document, DocumentBuilder, Format};
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

/// Converts USLM XML files.
#[derive(Debug, Default, Clone, Copy)]
pub struct UslmConverter;

impl Converter for UslmConverter {
    fn format(&self) -> Format {
        Format::Xml
    }

    fn convert(&self, name: &str, bytes: &[u8], _options: &ConvertOptions) -> Result<Document, ErrorKind> {
        guard(|| {
            let text = decode_text(bytes);
            if text.trim().is_empty() {
                return Err(ErrorKind::Empty);
            }
            let parsed = parse(&text)?;
            if parsed.blocks.is_empty() {
                return Err(ErrorKind::Empty);
            }
            let title = parsed.title.unwrap_or_else(|| file_stem(name));
            let mut builder = DocumentBuilder::new(Format::Xml, title, bytes);
            push_blocks(&mut builder, parsed.blocks);
            if builder.blocks().is_empty() {
                return Err(ErrorKind::Empty);
            }
            Ok(builder.finish())
        })
    }
}

/// Root elements of USLM documents.
const USLM_ROOTS: [&str; 9] = [
    "lawDoc",
    "uscDoc",
    "bill",
    "resolution",
    "statute",
    "pLaw",
    "statutesAtLarge",
    "amendment",
    "engrossedAmendment",
];

/// Whether a root element is USLM: by its name, or by a USLM namespace in its start tag (`tag` is the
/// start tag's text: name and attributes).
pub(crate) fn is_uslm_root(local_name: &str, tag: &str) -> bool {
    USLM_ROOTS.contains(&local_name)
        || tag.contains("schemas.gpo.gov/xml/uslm")
        || tag.contains("xml.house.gov/schemas/uslm")
}

/// What a USLM file holds: its title (when it names one) and its blocks, heading levels by nesting.
#[derive(Debug, Clone, Default)]
pub(crate) struct UslmContent {
    pub title: Option<String>,
    pub blocks: Vec<RawBlock>,
}

/// Parses USLM text.
pub(crate) fn parse(source: &str) -> Result<UslmContent, ErrorKind> {
    let mut reader = Reader::from_str(source);
    {
        let config = reader.config_mut();
        config.trim_text(false);
        config.check_end_names = true;
        config.expand_empty_elements = false;
    }
    let mut p = Parser::default();
    let mut seen_root = false;
    loop {
        let event = reader.read_event().map_err(|e| {
            ErrorKind::Corrupt(format!("not well-formed XML near byte {}: {e}", reader.error_position()))
        })?;
        if let Event::Start(e) | Event::Empty(e) = &event {
            if let Some(Err(err)) = e.attributes().find(Result::is_err) {
                return Err(ErrorKind::Corrupt(format!(
                    "not well-formed XML near byte {}: {err}",
                    reader.buffer_position()
                )));
            }
            if !seen_root {
                seen_root = true;
                let (local, tag) = tag_names(e);
                if !is_uslm_root(&local, &tag) {
                    return Err(ErrorKind::Unsupported("XML that is not USLM".into()));
                }
            }
        }
        match event {
            Event::Start(e) => p.start(&e),
            Event::Empty(e) => {
                p.start(&e);
                p.end();
            }
            Event::End(_) => p.end(),
            Event::Text(t) => {
                let raw = String::from_utf8_lossy(t.as_ref());
                p.text(&unescape_lenient(&raw));
            }
            Event::CData(t) => p.text(&String::from_utf8_lossy(t.as_ref())),
            Event::Eof => break,
            _ => {}
        }
    }
    if !seen_root {
        return Err(ErrorKind::Corrupt("no XML element found".into()));
    }
    if !p.stack.is_empty() {
        return Err(ErrorKind::Corrupt("the XML ends before its elements are closed".into()));
    }
    Ok(p.finish())
}

/// The local name of a start tag and its whole text (name and attributes), lossily decoded.
fn tag_names(e: &BytesStart<'_>) -> (String, String) {
    let local = String::from_utf8_lossy(e.local_name().as_ref()).into_owned();
    let tag = String::from_utf8_lossy(e.as_ref()).into_owned();
    (local, tag)
}

/// Unescapes XML text, leaving malformed or unknown entity references as written.
fn unescape_lenient(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        let semi = after.char_indices().take(34).find(|&(_, c)| c == ';').map(|(i, _)| i);
        let resolved = semi.and_then(|s| resolve_entity(&after[..s]).map(|c| (c, s)));
        match resolved {
            Some((value, s)) => {
                out.push_str(&value);
                rest = &after[s + 1..];
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn resolve_entity(name: &str) -> Option<String> {
    if let Some(num) = name.strip_prefix('#') {
        let code = match num.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => num.parse::<u32>().ok()?,
        };
        return char::from_u32(code).map(String::from);
    }
    let s = match name {
        "amp" => "&",
        "lt" => "<",
        "gt" => ">",
        "quot" => "\"",
        "apos" => "'",
        "nbsp" => "\u{a0}",
        "shy" => "\u{ad}",
        "mdash" => "—",
        "ndash" => "–",
        "sect" => "§",
        "para" => "¶",
        "ldquo" => "“",
        "rdquo" => "”",
        "lsquo" => "‘",
        "rsquo" => "’",
        "hellip" => "…",
        _ => return None,
    };
    Some(s.to_string())
}

/// Levels that become headings.
fn is_heading_level(name: &str) -> bool {
    matches!(
        name,
        "title"
            | "subtitle"
            | "division"
            | "subdivision"
            | "part"
            | "subpart"
            | "chapter"
            | "subchapter"
            | "section"
    )
}

/// Levels below the section, which become list items.
fn is_item_level(name: &str) -> bool {
    matches!(
        name,
        "subsection" | "paragraph" | "subparagraph" | "clause" | "subclause" | "item" | "subitem" | "level"
    )
}

/// Elements whose text forms a block of its own.
fn is_block(name: &str) -> bool {
    matches!(
        name,
        "p" | "continuation"
            | "note"
            | "footnote"
            | "heading"
            | "subheading"
            | "docTitle"
            | "officialTitle"
            | "enactingFormula"
            | "resolvingClause"
            | "actionDescription"
            | "actionInstruction"
            | "sourceCredit"
            | "recital"
            | "signature"
            | "docNumber"
            | "docPart"
            | "congress"
            | "session"
            | "currentChamber"
            | "distributionCode"
            | "block"
            | "caption"
    )
}

/// Elements whose child elements are each a block (their children are not inline text).
fn is_container(name: &str) -> bool {
    matches!(
        name,
        "main"
            | "preface"
            | "longTitle"
            | "legislativeHistory"
            | "action"
            | "notes"
            | "signatures"
            | "endorsement"
            | "attestation"
            | "preamble"
            | "backMatter"
            | "frontMatter"
            | "coverPage"
            | "appendix"
    )
}

/// Elements dropped with their text, replaced by a word break.
fn is_dropped(name: &str) -> bool {
    matches!(name, "meta" | "sidenote" | "toc" | "page" | "endMarker" | "img" | "marginalia")
}

/// What an element is to the converter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Root,
    /// Ignored with its subtree.
    Drop,
    /// `<dc:title>`: the document title.
    DcTitle,
    /// A structural level (a heading).
    Level,
    /// A sub-section level (a list item).
    Item,
    /// `<num>` of an item: its marker.
    ItemNum,
    /// `<heading>` of an item.
    ItemHeading,
    /// `<chapeau>`, `<content>`, `<text>` of an item: a part of its text.
    Part,
    /// A block-level element.
    Block,
    /// A note inside a sentence, set aside until the sentence's block ends.
    Aside,
    Container,
    Quoted,
    Table,
    Row,
    Cell,
    /// `<br>`: a word break.
    Break,
    Inline,
}

/// Where an element's text goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sink {
    Drop,
    Title,
    /// The `<num>` of the level at this stack index.
    LevelNum(usize),
    /// The `<heading>` of the level at this stack index.
    LevelHeading(usize),
    /// Table structure (whitespace between rows and cells).
    TableOuter,
    Cell,
    Aside,
    Body,
}

/// Deeper elements are not tracked one by one: their text joins the deepest tracked element's.
const MAX_DEPTH: usize = 1000;

#[derive(Debug)]
struct Frame {
    role: Role,
    sink: Sink,
    /// Inside `<quotedContent>`.
    quoted: bool,
    /// For levels: heading level (by nesting) and the heading's parts.
    level: u8,
    num: String,
    heading: String,
    emitted: bool,
    /// For `docTitle` / `officialTitle`: captured as title fallbacks.
    captures: Option<TitleCapture>,
    /// Open levels and items (outside quoted content), this frame included.
    levels: usize,
    items: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TitleCapture {
    Doc,
    Official,
}

/// The block being filled.
#[derive(Debug)]
struct Open {
    kind: BlockKind,
    text: String,
    marker: String,
    /// Whether text beyond the item's number and heading has been added.
    has_body: bool,
}

#[derive(Debug, Default)]
struct Parser {
    stack: Vec<Frame>,
    /// Elements opened beyond [`MAX_DEPTH`]: read as part of the deepest frame.
    overflow: usize,
    /// Levels below this stack index have all had their headings emitted.
    pending_from: usize,
    /// Open `docTitle` / `officialTitle` elements being captured.
    capturing_doc: usize,
    capturing_official: usize,
    blocks: Vec<RawBlock>,
    cur: Option<Open>,
    /// A word break is due before the next text (a dropped marker, a part boundary, `<br>`).
    pending_space: bool,
    /// The last block ended a `<quotedContent>`: trailing punctuation ("." or "; and") joins it.
    after_quote: bool,
    /// Notes met inside a sentence, emitted after that sentence's block.
    deferred: Vec<RawBlock>,
    aside: String,
    /// Inside an item's `<num>` / `<heading>`.
    in_num: usize,
    in_item_heading: usize,
    dc_title_done: bool,
    table: Vec<Vec<String>>,
    dc_title: String,
    doc_title: String,
    official_title: String,
}

impl Parser {
    fn finish(mut self) -> UslmContent {
        self.flush();
        let title = [&self.dc_title, &self.official_title, &self.doc_title]
            .into_iter()
            .map(|t| clean(t))
            .find(|t| !t.is_empty());
        UslmContent { title, blocks: self.blocks }
    }

    fn quoted(&self) -> bool {
        self.stack.last().is_some_and(|f| f.quoted)
    }

    fn start(&mut self, e: &BytesStart<'_>) {
        if self.stack.len() >= MAX_DEPTH {
            self.overflow += 1;
            return;
        }
        let qname = String::from_utf8_lossy(e.name().as_ref()).into_owned();
        let (prefix, local) = match qname.split_once(':') {
            Some((p, l)) => (Some(p.to_string()), l.to_string()),
            None => (None, qname.clone()),
        };
        let parent = self.stack.last();
        let parent_sink = parent.map_or(Sink::Body, |f| f.sink);
        let parent_role = parent.map_or(Role::Root, |f| f.role);
        let quoted = parent.is_some_and(|f| f.quoted);
        let (parent_levels, parent_items) = parent.map_or((0, 0), |f| (f.levels, f.items));
        let dublin_core = prefix.as_deref().is_some_and(|p| p.starts_with("dc"));
        let footnote_ref = local == "ref"
            && e.try_get_attribute("class")
                .ok()
                .flatten()
                .is_some_and(|a| String::from_utf8_lossy(&a.value).contains("footnoteRef"));
        let visible_parent = !matches!(parent_sink, Sink::Drop | Sink::Title);
        if visible_parent {
            self.after_quote &= is_dropped(&local);
        }

        let (role, sink) = if self.stack.is_empty() {
            (Role::Root, Sink::Body)
        } else if dublin_core && local == "title" {
            (Role::DcTitle, Sink::Title)
        } else if matches!(parent_sink, Sink::Drop | Sink::Title) {
            (Role::Drop, parent_sink)
        } else if dublin_core || is_dropped(&local) || footnote_ref {
            (Role::Drop, Sink::Drop)
        } else {
            match parent_sink {
                Sink::LevelNum(_) | Sink::LevelHeading(_) | Sink::Cell | Sink::Aside => {
                    let role = if local == "br" { Role::Break } else { Role::Inline };
                    (role, parent_sink)
                }
                Sink::TableOuter => match local.as_str() {
                    "tr" => (Role::Row, Sink::TableOuter),
                    "td" | "th" | "caption" => (Role::Cell, Sink::Cell),
                    _ => (Role::Inline, Sink::TableOuter),
                },
                Sink::Drop | Sink::Title => (Role::Drop, parent_sink),
                Sink::Body => self.body_role(&local, parent_role),
            }
        };

        if role == Role::Drop && sink == Sink::Drop && visible_parent {
            self.word_break();
        }
        let mut frame = Frame {
            role,
            sink,
            quoted,
            level: 0,
            num: String::new(),
            heading: String::new(),
            emitted: false,
            captures: None,
            levels: parent_levels + usize::from(role == Role::Level && !quoted),
            items: parent_items + usize::from(role == Role::Item && !quoted),
        };
        match role {
            Role::Level => {
                self.flush();
                self.emit_pending_headings();
                frame.level = frame.levels.clamp(1, 64) as u8;
                self.pending_from = self.pending_from.min(self.stack.len());
            }
            Role::Item => {
                self.flush();
                self.emit_pending_headings();
                let kind = if quoted {
                    BlockKind::Quote
                } else {
                    BlockKind::ListItem { marker: None, depth: frame.items.saturating_sub(1).min(64) as u8 }
                };
                self.cur = Some(Open { kind, text: String::new(), marker: String::new(), has_body: false });
                self.pending_space = false;
            }
            Role::ItemNum => {
                self.pending_space = true;
                self.in_num += 1;
            }
            Role::ItemHeading => {
                self.pending_space = true;
                self.in_item_heading += 1;
            }
            Role::Part => self.pending_space = true,
            Role::Block => {
                let soft = local == "p" && !self.cur.as_ref().is_some_and(|c| c.has_body);
                if soft {
                    self.pending_space = true;
                } else {
                    self.flush();
                }
                frame.captures = match local.as_str() {
                    "docTitle" if self.doc_title.is_empty() => Some(TitleCapture::Doc),
                    "officialTitle" if self.official_title.is_empty() => Some(TitleCapture::Official),
                    _ => None,
                };
                match frame.captures {
                    Some(TitleCapture::Doc) => self.capturing_doc += 1,
                    Some(TitleCapture::Official) => self.capturing_official += 1,
                    None => {}
                }
            }
            Role::Aside => {
                self.aside.clear();
            }
            Role::Container => self.flush(),
            Role::Quoted => {
                self.flush();
                frame.quoted = true;
            }
            Role::Table => {
                self.flush();
                self.emit_pending_headings();
                self.table.clear();
            }
            Role::Row => self.table.push(Vec::new()),
            Role::Cell => {
                if local == "caption" || self.table.is_empty() {
                    self.table.push(Vec::new());
                }
                if let Some(row) = self.table.last_mut() {
                    row.push(String::new());
                }
            }
            Role::Break => self.word_break(),
            Role::Root | Role::Drop | Role::DcTitle | Role::Inline => {}
        }
        self.stack.push(frame);
    }

    /// The role of an element whose text goes to the body.
    fn body_role(&self, local: &str, parent_role: Role) -> (Role, Sink) {
        let parent_is_pending_level =
            parent_role == Role::Level && self.stack.last().is_some_and(|f| !f.emitted);
        let idx = self.stack.len() - 1;
        match local {
            "num" if parent_is_pending_level => (Role::Inline, Sink::LevelNum(idx)),
            "heading" if parent_is_pending_level => (Role::Inline, Sink::LevelHeading(idx)),
            "num" if parent_role == Role::Item => (Role::ItemNum, Sink::Body),
            "heading" if parent_role == Role::Item => (Role::ItemHeading, Sink::Body),
            "chapeau" | "content" | "text" if parent_role == Role::Item => (Role::Part, Sink::Body),
            "chapeau" | "content" | "text" => (Role::Block, Sink::Body),
            "br" => (Role::Break, Sink::Body),
            "table" => (Role::Table, Sink::TableOuter),
            "quotedContent" => (Role::Quoted, Sink::Body),
            "note" | "footnote"
                if matches!(parent_role, Role::Part | Role::Inline | Role::Block)
                    && self.cur.as_ref().is_some_and(|c| c.has_body) =>
            {
                (Role::Aside, Sink::Aside)
            }
            l if is_heading_level(l) => (Role::Level, Sink::Body),
            l if is_item_level(l) => (Role::Item, Sink::Body),
            l if is_container(l) => (Role::Container, Sink::Body),
            l if is_block(l) || parent_role == Role::Container => (Role::Block, Sink::Body),
            _ => (Role::Inline, Sink::Body),
        }
    }

    fn end(&mut self) {
        if self.overflow > 0 {
            self.overflow -= 1;
            return;
        }
        let Some(top) = self.stack.last() else {
            return;
        };
        let role = top.role;
        if role == Role::Level {
            // A level with no content of its own still gets its heading.
            self.emit_pending_headings();
        }
        let Some(frame) = self.stack.pop() else {
            return;
        };
        self.pending_from = self.pending_from.min(self.stack.len());
        match frame.captures {
            Some(TitleCapture::Doc) => self.capturing_doc = self.capturing_doc.saturating_sub(1),
            Some(TitleCapture::Official) => {
                self.capturing_official = self.capturing_official.saturating_sub(1)
            }
            None => {}
        }
        match role {
            Role::Level | Role::Item | Role::Container | Role::Root => self.flush(),
            Role::Block => self.flush(),
            Role::Part => {
                self.pending_space = true;
            }
            Role::ItemNum => {
                self.pending_space = true;
                self.in_num = self.in_num.saturating_sub(1);
            }
            Role::ItemHeading => {
                self.pending_space = true;
                self.in_item_heading = self.in_item_heading.saturating_sub(1);
            }
            Role::Quoted => {
                self.flush();
                self.after_quote = true;
            }
            Role::Aside => {
                let text = std::mem::take(&mut self.aside);
                let kind = if frame.quoted { BlockKind::Quote } else { BlockKind::Paragraph };
                self.deferred.push(RawBlock { kind, text: clean(&text) });
            }
            Role::Table => {
                let rows: Vec<String> = std::mem::take(&mut self.table)
                    .into_iter()
                    .map(|row| row.iter().map(|c| clean(c)).collect::<Vec<_>>())
                    .filter(|row| row.iter().any(|c| !c.is_empty()))
                    .map(|row| row.join("\t"))
                    .collect();
                if !rows.is_empty() {
                    self.blocks
                        .push(RawBlock { kind: BlockKind::Table { header_rows: 0 }, text: rows.join("\n") });
                }
            }
            Role::Break => self.word_break(),
            Role::Drop => {
                let visible_parent =
                    self.stack.last().is_some_and(|f| !matches!(f.sink, Sink::Drop | Sink::Title));
                if frame.sink == Sink::Drop && visible_parent {
                    self.word_break();
                }
            }
            Role::DcTitle => self.dc_title_done |= !self.dc_title.trim().is_empty(),
            Role::Cell | Role::Row | Role::Inline => {}
        }
    }

    fn text(&mut self, s: &str) {
        let Some(top) = self.stack.last() else {
            return;
        };
        match top.sink {
            Sink::Drop | Sink::TableOuter => {}
            Sink::Title => {
                if !self.dc_title_done {
                    self.dc_title.push_str(s);
                }
            }
            Sink::LevelNum(i) => {
                if let Some(f) = self.stack.get_mut(i) {
                    f.num.push_str(s);
                }
            }
            Sink::LevelHeading(i) => {
                if let Some(f) = self.stack.get_mut(i) {
                    f.heading.push_str(s);
                }
            }
            Sink::Cell => {
                if let Some(cell) = self.table.last_mut().and_then(|r| r.last_mut()) {
                    cell.push_str(s);
                    self.pending_space = false;
                }
            }
            Sink::Aside => self.aside.push_str(s),
            Sink::Body => self.body_text(s),
        }
    }

    fn body_text(&mut self, s: &str) {
        let blank = s.trim().is_empty();
        if self.cur.is_none() {
            if blank {
                return;
            }
            let collapsed = clean(s);
            if self.after_quote && collapsed.chars().count() <= 16 {
                if let Some(last) = self.blocks.last_mut() {
                    if collapsed.starts_with(char::is_alphanumeric) {
                        last.text.push(' ');
                    }
                    last.text.push_str(&collapsed);
                    self.after_quote = false;
                    return;
                }
            }
            self.emit_pending_headings();
            let kind = if self.quoted() { BlockKind::Quote } else { BlockKind::Paragraph };
            self.cur = Some(Open { kind, text: String::new(), marker: String::new(), has_body: false });
            self.pending_space = false;
        }
        self.after_quote = false;
        let (in_num, in_label) = (self.in_num > 0, self.in_num + self.in_item_heading > 0);
        if self.capturing_doc > 0 {
            self.doc_title.push_str(s);
        }
        if self.capturing_official > 0 {
            self.official_title.push_str(s);
        }
        let Some(cur) = self.cur.as_mut() else {
            return;
        };
        if self.pending_space && !s.is_empty() {
            let first = s.chars().next();
            let last = cur.text.chars().next_back();
            if let (Some(f), Some(l)) = (first, last) {
                if !f.is_whitespace() && !l.is_whitespace() && !is_dash(l) && !is_closing(f) {
                    cur.text.push(' ');
                }
            }
            self.pending_space = false;
        }
        cur.text.push_str(s);
        if in_num {
            cur.marker.push_str(s);
        }
        if !in_label && !blank {
            cur.has_body = true;
        }
    }

    /// A dropped marker or a break between words: the next text starts a new word.
    fn word_break(&mut self) {
        match self.stack.last().map(|f| f.sink) {
            Some(Sink::LevelNum(i)) => {
                if let Some(f) = self.stack.get_mut(i) {
                    f.num.push(' ');
                }
            }
            Some(Sink::LevelHeading(i)) => {
                if let Some(f) = self.stack.get_mut(i) {
                    f.heading.push(' ');
                }
            }
            Some(Sink::Cell) => {
                if let Some(cell) = self.table.last_mut().and_then(|r| r.last_mut()) {
                    cell.push(' ');
                }
            }
            Some(Sink::Aside) => self.aside.push(' '),
            _ => self.pending_space = true,
        }
    }

    /// Emits the headings of the open levels that have not had theirs yet, outermost first.
    fn emit_pending_headings(&mut self) {
        let from = self.pending_from;
        self.pending_from = self.stack.len();
        for i in from..self.stack.len() {
            let frame = &self.stack[i];
            if frame.role != Role::Level || frame.emitted {
                continue;
            }
            let num = clean(&frame.num);
            let heading = clean(&frame.heading);
            let text = if num.is_empty() {
                heading.clone()
            } else if heading.is_empty() {
                num.clone()
            } else if num.ends_with(is_dash) {
                format!("{num}{heading}")
            } else {
                format!("{num} {heading}")
            };
            let kind = if frame.quoted {
                BlockKind::Quote
            } else {
                let number = num.trim_end_matches(is_dash).trim();
                BlockKind::Heading {
                    level: frame.level,
                    number: (!number.is_empty()).then(|| number.to_string()),
                }
            };
            self.stack[i].emitted = true;
            if !text.is_empty() {
                self.flush();
                self.blocks.push(RawBlock { kind, text });
            }
        }
    }

    /// Ends the open block and emits the notes set aside while it was open.
    fn flush(&mut self) {
        if let Some(cur) = self.cur.take() {
            let text = clean(&cur.text);
            if !text.is_empty() {
                let kind = match cur.kind {
                    BlockKind::ListItem { depth, .. } => {
                        let marker = clean(&cur.marker);
                        BlockKind::ListItem { marker: (!marker.is_empty()).then_some(marker), depth }
                    }
                    other => other,
                };
                self.blocks.push(RawBlock { kind, text });
            }
        }
        self.pending_space = false;
        for note in std::mem::take(&mut self.deferred) {
            if !note.text.is_empty() {
                self.blocks.push(note);
            }
        }
    }
}

/// Collapses whitespace and removes soft hyphens.
fn clean(s: &str) -> String {
    let s = collapse_whitespace(s);
    if s.contains('\u{ad}') {
        s.replace('\u{ad}', "")
    } else {
        s
    }
}

fn is_dash(c: char) -> bool {
    matches!(c, '—' | '–' | '-')
}

fn is_closing(c: char) -> bool {
    matches!(c, '.' | ',' | ';' | ':' | ')' | ']' | '”' | '’' | '!' | '?')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entities_are_lenient() {
        assert_eq!(unescape_lenient("a &amp; b &#x2014; c &bogus; d & e"), "a & b — c &bogus; d & e");
        assert_eq!(unescape_lenient("&#99999999;&"), "&#99999999;&");
    }

    #[test]
    fn roots() {
        assert!(is_uslm_root("pLaw", "pLaw"));
        assert!(is_uslm_root("doc", r#"doc xmlns="http://schemas.gpo.gov/xml/uslm""#));
        assert!(!is_uslm_root("html", "html"));
    }
}
