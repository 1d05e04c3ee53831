//! DOCX (Office Open XML word processing): `word/document.xml` read with quick-xml's streaming
//! reader.
//!
//! Headings come from paragraph styles (`styles.xml`): a style's `w:outlineLvl`, else a built-in
//! name ("heading 1".."heading 9", "Title") or a heading-like custom name ("Heading1", "H1",
//! "Überschrift 2"), following `w:basedOn`; a paragraph's own `w:outlineLvl` wins. List numbering
//! (`numbering.xml`) is computed as Word prints it, for list items and auto-numbered headings alike.
//! Tables become one block each, rows one per line and cells separated by tabs. Every archive member
//! is read under the inflation limit (see [`crate::archive::Archive`]).

use crate::archive::Archive;
use crate::blocks::{clean_label, push_blocks, RawBlock};
use crate::error::guard;
use crate::html::first_top_heading;
use crate::list_number::format_number;
use crate::text::{decode_text, file_stem};
use crate::{ConvertOptions, Converter, ErrorKind};
use folio_core::model::{collapse_whitespace, BlockKind, Document, DocumentBuilder, Format};
use quick_xml::events::{BytesStart, Event};
use quick_xml::name::ResolveResult;
use quick_xml::reader::NsReader;
use quick_xml::Reader;
use regex::Regex;
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

/// Converts Word documents (`.docx`).
#[derive(Debug, Default, Clone, Copy)]
pub struct DocxConverter;

impl Converter for DocxConverter {
    fn format(&self) -> Format {
        Format::Docx
    }

    fn convert(&self, name: &str, bytes: &[u8], options: &ConvertOptions) -> Result<Document, ErrorKind> {
        guard(|| convert_docx(name, bytes, options))
    }
}

/// The magic of an OLE compound file, the container of encrypted OOXML and of legacy `.doc`.
pub(crate) const OLE_MAGIC: &[u8] = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1";

/// Whether an OLE compound file holds an encrypted OOXML package (its `EncryptionInfo` stream).
pub(crate) fn is_encrypted_ooxml(bytes: &[u8]) -> bool {
    const NAME: &[u8] = b"E\0n\0c\0r\0y\0p\0t\0i\0o\0n\0I\0n\0f\0o\0";
    bytes.starts_with(OLE_MAGIC) && bytes.windows(NAME.len()).any(|w| w == NAME)
}

fn convert_docx(name: &str, bytes: &[u8], options: &ConvertOptions) -> Result<Document, ErrorKind> {
    if bytes.starts_with(OLE_MAGIC) {
        return Err(if is_encrypted_ooxml(bytes) {
            ErrorKind::Encrypted
        } else {
            ErrorKind::Unsupported("a legacy Word (.doc) or other OLE file, not a .docx".into())
        });
    }
    let mut zip = Archive::open(bytes, options.max_uncompressed_bytes)?;
    let main_path = main_document_path(&mut zip)?;
    let main = zip
        .read(&main_path)?
        .ok_or_else(|| ErrorKind::Corrupt(format!("the DOCX has no {main_path} (its main document)")))?;
    let (dir, file) = main_path.rsplit_once('/').unwrap_or(("", main_path.as_str()));
    let rels_path =
        if dir.is_empty() { format!("_rels/{file}.rels") } else { format!("{dir}/_rels/{file}.rels") };
    let rels = match zip.read(&rels_path)? {
        Some(r) => relationships(&decode_text(&r), dir),
        None => Vec::new(),
    };
    let part =
        |kind: &str, default: &str| {
            rels.iter().find(|(t, _)| t.ends_with(kind)).map(|(_, target)| target.clone()).unwrap_or_else(
                || if dir.is_empty() { default.to_string() } else { format!("{dir}/{default}") },
            )
        };
    let styles_path = part("/styles", "styles.xml");
    let numbering_path = part("/numbering", "numbering.xml");
    let styles = match zip.read(&styles_path)? {
        Some(s) => Styles::parse(&decode_text(&s)),
        None => Styles::default(),
    };
    let numbering = match zip.read(&numbering_path)? {
        Some(n) => Numbering::parse(&decode_text(&n)),
        None => Numbering::default(),
    };
    let core_title = match zip.read("docProps/core.xml")? {
        Some(c) => core_title(&decode_text(&c)),
        None => None,
    };

    let body = parse_body(&decode_text(&main), &styles, &numbering)?;
    let title = core_title
        .or(body.title.clone())
        .or_else(|| first_top_heading(&body.blocks))
        .unwrap_or_else(|| file_stem(name));
    let mut builder = DocumentBuilder::new(Format::Docx, title, bytes);
    push_blocks(&mut builder, body.blocks);
    if builder.blocks().is_empty() {
        return Err(ErrorKind::Empty);
    }
    Ok(builder.finish())
}

/// The main document part named by `_rels/.rels`, else `word/document.xml`.
fn main_document_path(zip: &mut Archive<'_>) -> Result<String, ErrorKind> {
    if let Some(r) = zip.read("_rels/.rels")? {
        let rels = relationships(&decode_text(&r), "");
        if let Some((_, target)) = rels.iter().find(|(t, _)| t.ends_with("/officeDocument")) {
            if zip.contains(target) {
                return Ok(target.clone());
            }
        }
    }
    Ok("word/document.xml".to_string())
}

fn attr(e: &BytesStart<'_>, local: &[u8]) -> Option<String> {
    e.attributes().flatten().find(|a| a.key.local_name().as_ref() == local).map(|a| {
        a.unescape_value()
            .map(|v| v.into_owned())
            .unwrap_or_else(|_| String::from_utf8_lossy(&a.value).into_owned())
    })
}

fn val(e: &BytesStart<'_>) -> Option<String> {
    attr(e, b"val")
}

/// A boolean property: present without `w:val`, or with a true value.
fn on(e: &BytesStart<'_>) -> bool {
    val(e).is_none_or(|v| !matches!(v.as_str(), "0" | "false" | "off"))
}

/// (type, target) pairs of a relationships part, targets resolved against `dir`.
fn relationships(xml: &str, dir: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut reader = Reader::from_str(xml);
    loop {
        match reader.read_event() {
            Ok(Event::Start(e) | Event::Empty(e)) if e.local_name().as_ref() == b"Relationship" => {
                if attr(&e, b"TargetMode").is_some_and(|m| m.eq_ignore_ascii_case("External")) {
                    continue;
                }
                if let (Some(t), Some(target)) = (attr(&e, b"Type"), attr(&e, b"Target")) {
                    out.push((t, resolve_target(dir, &target)));
                }
            }
            Ok(Event::Eof) | Err(_) => return out,
            _ => {}
        }
    }
}

fn resolve_target(dir: &str, target: &str) -> String {
    let joined = if let Some(abs) = target.strip_prefix('/') {
        abs.to_string()
    } else if dir.is_empty() {
        target.to_string()
    } else {
        format!("{dir}/{target}")
    };
    crate::archive::normalize_archive_path(&joined)
}

fn core_title(xml: &str) -> Option<String> {
    let mut reader = Reader::from_str(xml);
    let mut in_title = false;
    let mut title = String::new();
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) if e.local_name().as_ref() == b"title" => in_title = true,
            Ok(Event::Text(t)) if in_title => {
                title.push_str(&t.unescape().map(|c| c.into_owned()).unwrap_or_default());
            }
            Ok(Event::End(e)) if e.local_name().as_ref() == b"title" => break,
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
    }
    let t = collapse_whitespace(&title);
    (!t.is_empty()).then_some(t)
}

// ----------------------------------------------------------------------------------------------
// Styles

/// What a paragraph style makes of its paragraphs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Heading(u8),
    Title,
    Body,
}

#[derive(Debug, Clone, Default)]
struct StyleDef {
    name: String,
    based_on: Option<String>,
    outline: Option<u8>,
    num_id: Option<u32>,
    ilvl: Option<u8>,
}

#[derive(Debug, Default)]
struct Styles {
    defs: HashMap<String, StyleDef>,
    default_paragraph: Option<String>,
}

/// A heading number in a style name: "heading 1", "Heading1", "H2", "Überschrift 3", "Titre 1".
fn name_role(name: &str) -> Option<Role> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(
            r"(?i)^(?:.*[\s_\-])?(?:heading|headline|überschrift|uberschrift|titre|título|titulo|titolo|kop|rubrik|otsikko|nagłówek|naglowek|nadpis|overskrift|заголовок|标题|見出し|h)\s*[_\-]?\s*([1-9])(?:$|[^0-9].*$)",
        )
        .expect("valid regex")
    });
    let trimmed = name.trim();
    if trimmed.eq_ignore_ascii_case("title") {
        return Some(Role::Title);
    }
    let level = re.captures(trimmed)?.get(1)?.as_str().parse::<u8>().ok()?;
    Some(Role::Heading(level))
}

impl Styles {
    fn parse(xml: &str) -> Styles {
        let mut styles = Styles::default();
        let mut reader = Reader::from_str(xml);
        reader.config_mut().check_end_names = false;
        let mut current: Option<(String, StyleDef)> = None;
        while let Ok(event) = reader.read_event() {
            match event {
                Event::Start(e) | Event::Empty(e) => {
                    let local = e.local_name();
                    match local.as_ref() {
                        b"style" => {
                            let ty = attr(&e, b"type").unwrap_or_else(|| "paragraph".into());
                            let id = attr(&e, b"styleId").unwrap_or_default();
                            if ty == "paragraph" || ty == "numbering" {
                                if ty == "paragraph"
                                    && attr(&e, b"default").is_some_and(|d| d == "1" || d == "true")
                                {
                                    styles.default_paragraph = Some(id.clone());
                                }
                                current = Some((id, StyleDef::default()));
                            } else {
                                current = None;
                            }
                        }
                        b"name" => {
                            if let Some((_, s)) = current.as_mut() {
                                s.name = val(&e).unwrap_or_default();
                            }
                        }
                        b"basedOn" => {
                            if let Some((_, s)) = current.as_mut() {
                                s.based_on = val(&e);
                            }
                        }
                        b"outlineLvl" => {
                            if let Some((_, s)) = current.as_mut() {
                                s.outline = val(&e).and_then(|v| v.parse().ok());
                            }
                        }
                        b"numId" => {
                            if let Some((_, s)) = current.as_mut() {
                                s.num_id = val(&e).and_then(|v| v.parse().ok());
                            }
                        }
                        b"ilvl" => {
                            if let Some((_, s)) = current.as_mut() {
                                s.ilvl = val(&e).and_then(|v| v.parse().ok());
                            }
                        }
                        b"pPrChange" | b"rPrChange" => {
                            let end = e.name().as_ref().to_vec();
                            let _ = reader.read_to_end(quick_xml::name::QName(&end));
                        }
                        _ => {}
                    }
                }
                Event::End(e) if e.local_name().as_ref() == b"style" => {
                    if let Some((id, s)) = current.take() {
                        styles.defs.insert(id, s);
                    }
                }
                Event::Eof => break,
                _ => {}
            }
        }
        styles
    }

    /// The role of a paragraph style: its own outline level, else its name, else its parent's.
    fn role(&self, id: &str) -> Role {
        let mut id = id.to_string();
        for _ in 0..32 {
            let Some(def) = self.defs.get(&id) else {
                // A style the document uses but does not define: judge by its id.
                return name_role(&id).unwrap_or(Role::Body);
            };
            if let Some(o) = def.outline {
                return if o < 9 { Role::Heading(o + 1) } else { Role::Body };
            }
            if let Some(r) = name_role(&def.name).or_else(|| name_role(&id)) {
                return r;
            }
            match &def.based_on {
                Some(b) if b != &id => id = b.clone(),
                _ => return Role::Body,
            }
        }
        Role::Body
    }

    /// The numbering a style (or the style it is based on) gives its paragraphs: `(numId, ilvl)`.
    fn numbering(&self, id: &str) -> (Option<u32>, Option<u8>) {
        let (mut num, mut lvl) = (None, None);
        let mut id = id.to_string();
        for _ in 0..32 {
            let Some(def) = self.defs.get(&id) else { break };
            if num.is_none() {
                num = def.num_id;
            }
            if lvl.is_none() {
                lvl = def.ilvl;
            }
            if num.is_some() && lvl.is_some() {
                break;
            }
            match &def.based_on {
                Some(b) if b != &id => id = b.clone(),
                _ => break,
            }
        }
        (num, lvl)
    }
}

// ----------------------------------------------------------------------------------------------
// Numbering

#[derive(Debug, Clone)]
struct Level {
    start: i64,
    fmt: String,
    text: Option<String>,
    pstyle: Option<String>,
    legal: bool,
    restart: Option<u8>,
}

impl Default for Level {
    fn default() -> Self {
        Level { start: 1, fmt: "decimal".into(), text: None, pstyle: None, legal: false, restart: None }
    }
}

#[derive(Debug, Clone, Default)]
struct AbstractNum {
    levels: Vec<Option<Level>>,
    num_style_link: Option<String>,
}

#[derive(Debug, Clone, Default)]
struct Num {
    abstract_id: String,
    overrides: Vec<(usize, i64)>,
}

#[derive(Debug, Default)]
struct Numbering {
    abstracts: HashMap<String, AbstractNum>,
    nums: HashMap<u32, Num>,
}

impl Numbering {
    fn parse(xml: &str) -> Numbering {
        let mut n = Numbering::default();
        let mut reader = Reader::from_str(xml);
        reader.config_mut().check_end_names = false;
        let mut abs: Option<(String, AbstractNum)> = None;
        let mut lvl: Option<(usize, Level)> = None;
        let mut num: Option<(u32, Num)> = None;
        let mut override_lvl: Option<usize> = None;
        while let Ok(event) = reader.read_event() {
            let is_empty = matches!(event, Event::Empty(_));
            match event {
                Event::Start(e) | Event::Empty(e) => match e.local_name().as_ref() {
                    b"abstractNum" if !is_empty => {
                        let id = attr(&e, b"abstractNumId").unwrap_or_default();
                        abs = Some((id, AbstractNum { levels: vec![None; 9], num_style_link: None }));
                    }
                    b"num" if !is_empty => {
                        let id = attr(&e, b"numId").and_then(|v| v.parse().ok()).unwrap_or(0);
                        num = Some((id, Num::default()));
                    }
                    b"lvlOverride" if !is_empty => {
                        override_lvl = attr(&e, b"ilvl").and_then(|v| v.parse().ok());
                    }
                    b"lvl" if !is_empty && abs.is_some() && override_lvl.is_none() => {
                        let i = attr(&e, b"ilvl").and_then(|v| v.parse().ok()).unwrap_or(0usize);
                        lvl = Some((i, Level::default()));
                    }
                    b"start" => {
                        if let Some((_, l)) = lvl.as_mut() {
                            l.start = val(&e).and_then(|v| v.parse().ok()).unwrap_or(1);
                        }
                    }
                    b"numFmt" => {
                        if let Some((_, l)) = lvl.as_mut() {
                            l.fmt = val(&e).unwrap_or_else(|| "decimal".into());
                        }
                    }
                    b"lvlText" => {
                        if let Some((_, l)) = lvl.as_mut() {
                            l.text = val(&e);
                        }
                    }
                    b"pStyle" => {
                        if let Some((_, l)) = lvl.as_mut() {
                            l.pstyle = val(&e);
                        }
                    }
                    b"isLgl" => {
                        if let Some((_, l)) = lvl.as_mut() {
                            l.legal = on(&e);
                        }
                    }
                    b"lvlRestart" => {
                        if let Some((_, l)) = lvl.as_mut() {
                            l.restart = val(&e).and_then(|v| v.parse().ok());
                        }
                    }
                    b"numStyleLink" => {
                        if let Some((_, a)) = abs.as_mut() {
                            a.num_style_link = val(&e);
                        }
                    }
                    b"abstractNumId" => {
                        if let Some((_, nm)) = num.as_mut() {
                            nm.abstract_id = val(&e).unwrap_or_default();
                        }
                    }
                    b"startOverride" => {
                        if let (Some((_, nm)), Some(i)) = (num.as_mut(), override_lvl) {
                            if let Some(v) = val(&e).and_then(|v| v.parse().ok()) {
                                nm.overrides.push((i, v));
                            }
                        }
                    }
                    _ => {}
                },
                Event::End(e) => match e.local_name().as_ref() {
                    b"lvl" => {
                        if let (Some((i, l)), Some((_, a))) = (lvl.take(), abs.as_mut()) {
                            if i < 9 {
                                a.levels[i] = Some(l);
                            }
                        }
                    }
                    b"abstractNum" => {
                        if let Some((id, a)) = abs.take() {
                            n.abstracts.insert(id, a);
                        }
                    }
                    b"lvlOverride" => override_lvl = None,
                    b"num" => {
                        if let Some((id, nm)) = num.take() {
                            n.nums.insert(id, nm);
                        }
                    }
                    _ => {}
                },
                Event::Eof => break,
                _ => {}
            }
        }
        n
    }

    /// The abstract numbering behind a `numId`, following a numbering style link once or twice.
    fn abstract_for(&self, num_id: u32, styles: &Styles) -> Option<(&str, &AbstractNum)> {
        let mut id = self.nums.get(&num_id)?.abstract_id.as_str();
        for _ in 0..4 {
            let a = self.abstracts.get(id)?;
            match &a.num_style_link {
                Some(link) if a.levels.iter().all(Option::is_none) => {
                    let linked = styles.defs.get(link)?.num_id?;
                    id = self.nums.get(&linked)?.abstract_id.as_str();
                }
                _ => return Some((id, a)),
            }
        }
        None
    }
}

/// A computed list label.
struct NumLabel {
    text: String,
    bullet: bool,
}

/// Running counters, per abstract numbering as Word keeps them.
#[derive(Default)]
struct Counters {
    values: HashMap<String, [Option<i64>; 9]>,
    start_override: HashMap<(String, usize), i64>,
    applied: HashSet<u32>,
}

impl Counters {
    fn next(&mut self, numbering: &Numbering, styles: &Styles, num_id: u32, ilvl: usize) -> Option<NumLabel> {
        let (abs_id, abs) = numbering.abstract_for(num_id, styles)?;
        let ilvl = ilvl.min(8);
        let level = abs.levels.get(ilvl)?.as_ref()?;
        let abs_id = abs_id.to_string();
        if self.applied.insert(num_id) {
            if let Some(num) = numbering.nums.get(&num_id) {
                for &(l, s) in &num.overrides {
                    if l < 9 {
                        self.start_override.insert((abs_id.clone(), l), s);
                        if let Some(c) = self.values.get_mut(&abs_id) {
                            c[l] = None;
                        }
                    }
                }
            }
        }
        let start_of = |this: &Self, l: usize| {
            this.start_override
                .get(&(abs_id.clone(), l))
                .copied()
                .unwrap_or_else(|| abs.levels[l].as_ref().map_or(1, |lv| lv.start))
        };
        let start = start_of(self, ilvl);
        let counters = self.values.entry(abs_id.clone()).or_insert([None; 9]);
        counters[ilvl] = Some(counters[ilvl].map_or(start, |c| c.saturating_add(1)));
        for (l, slot) in counters.iter_mut().enumerate().skip(ilvl + 1) {
            let restart = abs.levels[l].as_ref().and_then(|lv| lv.restart);
            if restart.is_none_or(|r| r != 0 && (ilvl as u8) < r) {
                *slot = None;
            }
        }
        let counters = *counters;
        if level.fmt == "bullet" {
            return Some(NumLabel { text: bullet_marker(level.text.as_deref().unwrap_or("")), bullet: true });
        }
        let template = level.text.as_deref().unwrap_or("");
        let mut out = String::new();
        let mut chars = template.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '%' {
                if let Some(d) = chars.peek().and_then(|d| d.to_digit(10)).filter(|d| (1..=9).contains(d)) {
                    chars.next();
                    let k = d as usize - 1;
                    let value = counters[k].unwrap_or_else(|| start_of(self, k));
                    let fmt = if level.legal {
                        "decimal"
                    } else {
                        abs.levels[k].as_ref().map_or("decimal", |lv| lv.fmt.as_str())
                    };
                    out.push_str(&format_number(value, fmt));
                    continue;
                }
            }
            out.push(c);
        }
        let text = out.trim().to_string();
        (!text.is_empty()).then_some(NumLabel { text, bullet: false })
    }
}

/// A printable bullet: symbol-font (private-use) glyphs mapped to their Unicode look-alikes.
fn bullet_marker(text: &str) -> String {
    let t = text.trim();
    match t {
        "" => "•".into(),
        "o" => "◦".into(),
        "\u{f0a7}" => "▪".into(),
        "\u{f0d8}" => "➢".into(),
        "\u{f0fc}" => "✓".into(),
        "\u{f076}" => "❖".into(),
        _ if t.chars().any(|c| ('\u{e000}'..='\u{f8ff}').contains(&c)) => "•".into(),
        _ => t.to_string(),
    }
}

// ----------------------------------------------------------------------------------------------
// The document body

const W_NS: &[&[u8]] = &[
    b"http://schemas.openxmlformats.org/wordprocessingml/2006/main",
    b"http://purl.oclc.org/ooxml/wordprocessingml/main",
];
const MC_NS: &[u8] = b"http://schemas.openxmlformats.org/markup-compatibility/2006";

#[derive(Debug, Default)]
struct Para {
    style: Option<String>,
    num_id: Option<u32>,
    ilvl: Option<u8>,
    outline: Option<u8>,
    text: String,
    in_ppr: bool,
}

#[derive(Debug, Default)]
struct Table {
    rows: Vec<Vec<String>>,
    row: Vec<String>,
    cell: String,
}

struct Body {
    blocks: Vec<RawBlock>,
    title: Option<String>,
}

struct BodyParser<'s> {
    styles: &'s Styles,
    numbering: &'s Numbering,
    counters: Counters,
    paras: Vec<Para>,
    tables: Vec<Table>,
    blocks: Vec<RawBlock>,
    /// Index of the title block while consecutive Title paragraphs may still join it.
    open_title: Option<usize>,
    title: Option<String>,
    in_text: bool,
}

fn parse_body(xml: &str, styles: &Styles, numbering: &Numbering) -> Result<Body, ErrorKind> {
    let mut p = BodyParser {
        styles,
        numbering,
        counters: Counters::default(),
        paras: Vec::new(),
        tables: Vec::new(),
        blocks: Vec::new(),
        open_title: None,
        title: None,
        in_text: false,
    };
    let mut reader = NsReader::from_str(xml);
    reader.config_mut().check_end_names = false;
    loop {
        let (ns, event) = reader
            .read_resolved_event()
            .map_err(|e| ErrorKind::Corrupt(format!("word/document.xml is not valid XML: {e}")))?;
        let in_w = matches!(ns, ResolveResult::Bound(n) if W_NS.contains(&n.as_ref()));
        let in_mc = matches!(ns, ResolveResult::Bound(n) if n.as_ref() == MC_NS);
        match event {
            Event::Start(e) => {
                let local = e.local_name();
                let l = local.as_ref();
                if (in_mc && l == b"Fallback")
                    || (in_w
                        && matches!(l, b"pPrChange" | b"rPrChange" | b"del" | b"moveFrom" | b"instrText"))
                {
                    let end = e.name();
                    reader.read_to_end(end).map_err(|e| {
                        ErrorKind::Corrupt(format!("word/document.xml is not valid XML: {e}"))
                    })?;
                    continue;
                }
                if in_w {
                    p.start(l, &e, false);
                }
            }
            Event::Empty(e) if in_w => p.start(e.local_name().as_ref(), &e, true),
            Event::End(e) if in_w => p.end(e.local_name().as_ref()),
            Event::Text(t) if p.in_text => {
                let s = t
                    .unescape()
                    .map(|c| c.into_owned())
                    .unwrap_or_else(|_| String::from_utf8_lossy(&t).into());
                p.push_text(&s);
            }
            Event::CData(t) if p.in_text => p.push_text(&String::from_utf8_lossy(&t)),
            Event::Eof => break,
            _ => {}
        }
    }
    // Unclosed elements at the end of a damaged file: keep what they hold.
    while !p.paras.is_empty() {
        p.end(b"p");
    }
    while !p.tables.is_empty() {
        p.end(b"tbl");
    }
    Ok(Body { blocks: p.blocks, title: p.title })
}

impl BodyParser<'_> {
    fn push_text(&mut self, s: &str) {
        if let Some(para) = self.paras.last_mut() {
            para.text.push_str(s);
        } else if let Some(t) = self.tables.last_mut() {
            t.cell.push_str(s);
        }
    }

    fn start(&mut self, local: &[u8], e: &BytesStart<'_>, empty: bool) {
        let in_ppr = self.paras.last().is_some_and(|p| p.in_ppr);
        match local {
            b"p" if !empty => self.paras.push(Para::default()),
            b"pPr" if !empty => {
                if let Some(p) = self.paras.last_mut() {
                    p.in_ppr = true;
                }
            }
            b"pStyle" if in_ppr => {
                if let Some(p) = self.paras.last_mut() {
                    p.style = val(e);
                }
            }
            b"numId" if in_ppr => {
                if let Some(p) = self.paras.last_mut() {
                    p.num_id = val(e).and_then(|v| v.parse().ok());
                }
            }
            b"ilvl" if in_ppr => {
                if let Some(p) = self.paras.last_mut() {
                    p.ilvl = val(e).and_then(|v| v.parse().ok());
                }
            }
            b"outlineLvl" if in_ppr => {
                if let Some(p) = self.paras.last_mut() {
                    p.outline = val(e).and_then(|v| v.parse().ok());
                }
            }
            b"t" if !empty => self.in_text = true,
            b"tab" if !in_ppr => self.push_text("\t"),
            b"br" | b"cr" if !in_ppr => self.push_text("\n"),
            b"noBreakHyphen" => self.push_text("-"),
            b"tbl" if !empty => self.tables.push(Table::default()),
            b"tr" if !empty => {
                if let Some(t) = self.tables.last_mut() {
                    t.row.clear();
                }
            }
            b"tc" if !empty => {
                if let Some(t) = self.tables.last_mut() {
                    t.cell.clear();
                }
            }
            _ => {}
        }
    }

    fn end(&mut self, local: &[u8]) {
        match local {
            b"t" => self.in_text = false,
            b"pPr" => {
                if let Some(p) = self.paras.last_mut() {
                    p.in_ppr = false;
                }
            }
            b"p" => {
                if let Some(p) = self.paras.pop() {
                    self.finish_paragraph(p);
                }
            }
            b"tc" => {
                if let Some(t) = self.tables.last_mut() {
                    let cell = collapse_whitespace(&t.cell);
                    t.row.push(cell);
                    t.cell.clear();
                }
            }
            b"tr" => {
                if let Some(t) = self.tables.last_mut() {
                    let row = std::mem::take(&mut t.row);
                    if row.iter().any(|c| !c.is_empty()) {
                        t.rows.push(row);
                    }
                }
            }
            b"tbl" => {
                if let Some(t) = self.tables.pop() {
                    self.finish_table(t);
                }
            }
            _ => {}
        }
    }

    fn finish_table(&mut self, t: Table) {
        if let Some(outer) = self.tables.last_mut() {
            // A nested table is flattened into the outer table's current cell.
            for row in &t.rows {
                outer.cell.push(' ');
                outer.cell.push_str(&row.join(" "));
            }
            return;
        }
        let text = t.rows.iter().map(|r| r.join("\t")).collect::<Vec<_>>().join("\n");
        self.emit(RawBlock { kind: BlockKind::Table { header_rows: 0 }, text });
    }

    fn emit(&mut self, block: RawBlock) {
        if !block.text.trim().is_empty() {
            self.open_title = None;
        }
        self.blocks.push(block);
    }

    fn finish_paragraph(&mut self, p: Para) {
        let style = p.style.clone().or_else(|| self.styles.default_paragraph.clone());
        let role = match p.outline {
            Some(o) if o < 9 => Role::Heading(o + 1),
            Some(_) => Role::Body,
            None => style.as_deref().map_or(Role::Body, |s| self.styles.role(s)),
        };
        let numbered = self.paragraph_number(&p, style.as_deref());
        let depth = numbered.as_ref().map_or(0, |(_, d)| *d);
        let label = numbered.map(|(l, _)| l);
        let text = p.text;

        if let Some(t) = self.tables.last_mut() {
            if !t.cell.is_empty() {
                t.cell.push(' ');
            }
            if let Some(l) = &label {
                t.cell.push_str(&l.text);
                t.cell.push(' ');
            }
            t.cell.push_str(&text);
            return;
        }

        match role {
            Role::Title => {
                let clean = collapse_whitespace(&text);
                if clean.is_empty() {
                    return;
                }
                match self.open_title {
                    Some(i) => {
                        let b = &mut self.blocks[i];
                        b.text.push(' ');
                        b.text.push_str(&clean);
                    }
                    None => {
                        self.emit(RawBlock {
                            kind: BlockKind::Heading { level: 1, number: None },
                            text: clean,
                        });
                        self.open_title = Some(self.blocks.len() - 1);
                    }
                }
                if let Some(i) = self.open_title {
                    if self.title.is_none() || self.blocks.len() - 1 == i {
                        self.title = Some(self.blocks[i].text.clone());
                    }
                }
            }
            Role::Heading(level) => {
                let (number, text) = match label {
                    Some(l) if !l.bullet => (clean_label(&l.text), format!("{} {}", l.text, text)),
                    _ => (None, text),
                };
                self.emit(RawBlock { kind: BlockKind::Heading { level, number }, text });
            }
            Role::Body => {
                let kind = match label {
                    Some(l) => BlockKind::ListItem { marker: Some(l.text), depth },
                    None => BlockKind::Paragraph,
                };
                self.emit(RawBlock { kind, text });
            }
        }
    }

    /// The printed number of a numbered paragraph, advancing the counters.
    fn paragraph_number(&mut self, p: &Para, style: Option<&str>) -> Option<(NumLabel, u8)> {
        let (style_num, style_lvl) = style.map_or((None, None), |s| self.styles.numbering(s));
        let num_id = p.num_id.or(style_num).filter(|&n| n != 0)?;
        let ilvl = match p.ilvl.or(style_lvl) {
            Some(l) => l as usize,
            None => self.level_for_style(num_id, style).unwrap_or(0),
        };
        let label = self.counters.next(self.numbering, self.styles, num_id, ilvl)?;
        Some((label, ilvl.min(8) as u8))
    }

    /// The level of a numbering whose `w:pStyle` names this paragraph style.
    fn level_for_style(&self, num_id: u32, style: Option<&str>) -> Option<usize> {
        let style = style?;
        let (_, abs) = self.numbering.abstract_for(num_id, self.styles)?;
        abs.levels.iter().position(|l| l.as_ref().is_some_and(|l| l.pstyle.as_deref() == Some(style)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn style_names() {
        assert_eq!(name_role("heading 1"), Some(Role::Heading(1)));
        assert_eq!(name_role("Heading2"), Some(Role::Heading(2)));
        assert_eq!(name_role("H3"), Some(Role::Heading(3)));
        assert_eq!(name_role("Überschrift 4"), Some(Role::Heading(4)));
        assert_eq!(name_role("My Heading 2 Numbered"), Some(Role::Heading(2)));
        assert_eq!(name_role("Title"), Some(Role::Title));
        assert_eq!(name_role("toc 1"), None);
        assert_eq!(name_role("TOC Heading"), None);
        assert_eq!(name_role("Body Text 2"), None);
        assert_eq!(name_role("Heading 10"), None);
    }

    #[test]
    fn bullets() {
        assert_eq!(bullet_marker("\u{f0b7}"), "•");
        assert_eq!(bullet_marker("o"), "◦");
        assert_eq!(bullet_marker("-"), "-");
    }

    #[test]
    fn encrypted_ole_detected() {
        let mut b = OLE_MAGIC.to_vec();
        b.extend_from_slice(&[0; 100]);
        assert!(!is_encrypted_ooxml(&b));
        b.extend("EncryptionInfo".encode_utf16().flat_map(|u| u.to_le_bytes()));
        assert!(is_encrypted_ooxml(&b));
    }
}
