//! HTML: headings from `h1`–`h6` (levels renormalised so the top level used is 1), paragraphs,
//! lists with markers and depth, tables, code and quotes; scripts, styles and navigation dropped.
//!
//! The walk over the parsed tree lives in [`extract`], which the EPUB converter shares.

use crate::blocks::{push_blocks, RawBlock};
use crate::error::guard;
use crate::text::{decode_text, file_stem};
use crate::{ConvertOptions, Converter, ErrorKind};
use folio_core::model::{BlockKind, Document, DocumentBuilder, Format};
use regex::Regex;
use scraper::{ElementRef, Html, Node};
use std::sync::OnceLock;

/// Converts HTML files.
#[derive(Debug, Default, Clone, Copy)]
pub struct HtmlConverter;

impl Converter for HtmlConverter {
    fn format(&self) -> Format {
        Format::Html
    }

    fn convert(&self, name: &str, bytes: &[u8], _options: &ConvertOptions) -> Result<Document, ErrorKind> {
        guard(|| {
            let text = decode_text(bytes);
            if text.trim().is_empty() {
                return Err(ErrorKind::Empty);
            }
            let content = extract(&text, false);
            if content.blocks.is_empty() {
                return Err(ErrorKind::Empty);
            }
            let title = content
                .title
                .clone()
                .or_else(|| first_top_heading(&content.blocks))
                .unwrap_or_else(|| file_stem(name));
            let mut builder = DocumentBuilder::new(Format::Html, title, bytes);
            push_blocks(&mut builder, content.blocks);
            if builder.blocks().is_empty() {
                return Err(ErrorKind::Empty);
            }
            Ok(builder.finish())
        })
    }
}

/// The text of the first `h1` (the first heading of the top level used), as a title fallback.
pub(crate) fn first_top_heading(blocks: &[RawBlock]) -> Option<String> {
    let min = blocks.iter().filter_map(|b| b.kind.heading_level()).min()?;
    blocks
        .iter()
        .find(|b| b.kind.heading_level() == Some(min))
        .map(|b| folio_core::model::collapse_whitespace(&b.text))
        .filter(|t| !t.is_empty())
}

/// What one HTML page holds: its `<title>` and its blocks, heading levels as written (h1 = 1).
#[derive(Debug, Clone, Default)]
pub(crate) struct HtmlContent {
    pub title: Option<String>,
    pub blocks: Vec<RawBlock>,
}

/// Deeper than this, an element's text is taken flat (keeps the walk's stack bounded).
const MAX_DEPTH: usize = 200;

/// Parses an HTML (or, with `xhtml`, an XHTML) page and extracts its blocks.
pub(crate) fn extract(source: &str, xhtml: bool) -> HtmlContent {
    let fixed;
    let source = if xhtml {
        fixed = expand_self_closing(source);
        fixed.as_str()
    } else {
        source
    };
    let doc = Html::parse_document(source);
    let root = doc.root_element();
    let title = find_title(root);
    let body = find_child(root, "body").unwrap_or(root);
    let start = main_content(body).unwrap_or(body);
    let mut w = Walker::default();
    w.children(start, 0);
    w.flush();
    HtmlContent { title, blocks: w.blocks }
}

/// In XHTML, `<script/>` or `<title/>` are complete elements, but an HTML parser would read the rest
/// of the page as their text. Spell them out.
fn expand_self_closing(source: &str) -> String {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"(?i)<(script|style|title|textarea|iframe|noscript|template|a|div|span|p)(\s[^<>]*?)?/>")
            .expect("valid regex")
    });
    re.replace_all(source, "<$1$2></$1>").into_owned()
}

fn find_child<'a>(el: ElementRef<'a>, name: &str) -> Option<ElementRef<'a>> {
    el.children().filter_map(ElementRef::wrap).find(|c| c.value().name() == name)
}

fn find_title(root: ElementRef<'_>) -> Option<String> {
    let head = find_child(root, "head")?;
    let title = find_child(head, "title")?;
    let t = folio_core::model::collapse_whitespace(&title.text().collect::<String>());
    (!t.is_empty()).then_some(t)
}

/// The page's main content (`<main>` or `role="main"`) when it holds most of the body's text.
fn main_content(body: ElementRef<'_>) -> Option<ElementRef<'_>> {
    let main = body.descendants().filter_map(ElementRef::wrap).find(|e| {
        e.value().name() == "main" || e.value().attr("role").is_some_and(|r| r.eq_ignore_ascii_case("main"))
    })?;
    let len = |e: ElementRef<'_>| text_len(e);
    let (m, b) = (len(main), len(body));
    (m * 2 >= b && m > 0).then_some(main)
}

/// Visible text length (skipped elements excluded), counted without recursion.
fn text_len(el: ElementRef<'_>) -> usize {
    let mut n = 0;
    let mut stack = vec![*el];
    while let Some(node) = stack.pop() {
        match node.value() {
            Node::Text(t) => n += t.trim().len(),
            Node::Element(_) => {
                if ElementRef::wrap(node).is_some_and(is_skipped) {
                    continue;
                }
                stack.extend(node.children());
            }
            _ => {}
        }
    }
    n
}

/// Elements whose content is no part of the document's text: code, styling, navigation, forms.
fn is_skipped(el: ElementRef<'_>) -> bool {
    let v = el.value();
    if matches!(
        v.name(),
        "script"
            | "style"
            | "noscript"
            | "template"
            | "nav"
            | "head"
            | "svg"
            | "iframe"
            | "object"
            | "embed"
            | "button"
            | "select"
            | "textarea"
            | "input"
            | "canvas"
            | "audio"
            | "video"
            | "map"
            | "footer"
            | "dialog"
    ) {
        return true;
    }
    if v.attr("hidden").is_some() {
        return true;
    }
    if let Some(role) = v.attr("role") {
        let role = role.to_ascii_lowercase();
        if matches!(role.as_str(), "navigation" | "search" | "banner" | "contentinfo" | "complementary") {
            return true;
        }
    }
    if v.classes().any(|c| c == "headerlink") {
        return true;
    }
    if let Some(style) = v.attr("style") {
        let s: String = style.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_lowercase();
        if s.contains("display:none") {
            return true;
        }
    }
    false
}

fn is_block_container(name: &str) -> bool {
    matches!(
        name,
        "p" | "div"
            | "section"
            | "article"
            | "main"
            | "header"
            | "aside"
            | "figure"
            | "figcaption"
            | "dl"
            | "dt"
            | "dd"
            | "address"
            | "center"
            | "form"
            | "fieldset"
            | "legend"
            | "details"
            | "summary"
            | "hr"
            | "body"
            | "html"
            | "hgroup"
            | "caption"
            | "tr"
            | "td"
            | "th"
            | "thead"
            | "tbody"
            | "tfoot"
    )
}

fn heading_rank(name: &str) -> Option<u8> {
    match name {
        "h1" => Some(1),
        "h2" => Some(2),
        "h3" => Some(3),
        "h4" => Some(4),
        "h5" => Some(5),
        "h6" => Some(6),
        _ => None,
    }
}

#[derive(Debug, Clone)]
enum Ctx {
    Heading(u8),
    Item { marker: Option<String>, depth: u8 },
    Quote,
}

#[derive(Debug)]
struct ListState {
    ordered: bool,
    next: i64,
    style: String,
}

#[derive(Default)]
struct Walker {
    blocks: Vec<RawBlock>,
    buf: String,
    ctx: Vec<Ctx>,
    lists: Vec<ListState>,
}

impl Walker {
    /// Ends the text gathered so far as one block of the current context.
    fn flush(&mut self) {
        if self.buf.trim().is_empty() {
            self.buf.clear();
            return;
        }
        let mut text = std::mem::take(&mut self.buf);
        let kind = match self.ctx.last_mut() {
            None => BlockKind::Paragraph,
            Some(Ctx::Heading(level)) => {
                text = clean_heading(&text);
                BlockKind::Heading { level: *level, number: None }
            }
            Some(Ctx::Item { marker, depth }) => BlockKind::ListItem { marker: marker.take(), depth: *depth },
            Some(Ctx::Quote) => BlockKind::Quote,
        };
        self.blocks.push(RawBlock { kind, text });
    }

    fn in_inline_context(&self) -> bool {
        matches!(self.ctx.last(), Some(Ctx::Heading(_) | Ctx::Item { .. }))
    }

    fn children(&mut self, el: ElementRef<'_>, depth: usize) {
        for child in el.children() {
            match child.value() {
                Node::Text(t) => self.buf.push_str(t),
                Node::Element(_) => {
                    if let Some(e) = ElementRef::wrap(child) {
                        self.element(e, depth + 1);
                    }
                }
                _ => {}
            }
        }
    }

    fn element(&mut self, el: ElementRef<'_>, depth: usize) {
        if is_skipped(el) {
            return;
        }
        if depth > MAX_DEPTH {
            self.buf.push(' ');
            self.buf.push_str(&flat_text(el, " "));
            self.buf.push(' ');
            return;
        }
        let name = el.value().name();
        if let Some(rank) = heading_rank(name) {
            self.flush();
            self.ctx.push(Ctx::Heading(rank));
            self.children(el, depth);
            self.flush();
            self.ctx.pop();
            return;
        }
        match name {
            "br" => self.buf.push('\n'),
            "ul" | "ol" | "menu" | "dir" => {
                self.flush();
                let ordered = name == "ol";
                let start = el.value().attr("start").and_then(|s| s.trim().parse::<i64>().ok()).unwrap_or(1);
                let style = el.value().attr("type").unwrap_or("1").to_string();
                self.lists.push(ListState { ordered, next: start, style });
                self.children(el, depth);
                self.flush();
                self.lists.pop();
            }
            "li" => {
                self.flush();
                let marker = self.next_marker(el);
                let depth_level = self.lists.len().saturating_sub(1).min(u8::MAX as usize) as u8;
                self.ctx.push(Ctx::Item { marker: Some(marker), depth: depth_level });
                self.children(el, depth);
                self.flush();
                self.ctx.pop();
            }
            "pre" | "listing" | "xmp" | "plaintext" => {
                self.flush();
                let code = flat_text(el, "");
                self.blocks.push(RawBlock { kind: BlockKind::Code, text: code });
            }
            "blockquote" => {
                self.flush();
                self.ctx.push(Ctx::Quote);
                self.children(el, depth);
                self.flush();
                self.ctx.pop();
            }
            "table" => {
                if is_layout_table(el) {
                    self.flush();
                    self.children(el, depth);
                    self.flush();
                } else {
                    self.flush();
                    self.table(el);
                }
            }
            _ if is_block_container(name) => {
                if self.in_inline_context() {
                    self.buf.push('\n');
                    self.children(el, depth);
                    self.buf.push('\n');
                } else {
                    self.flush();
                    self.children(el, depth);
                    self.flush();
                }
            }
            _ => self.children(el, depth),
        }
    }

    fn next_marker(&mut self, li: ElementRef<'_>) -> String {
        let Some(list) = self.lists.last_mut() else {
            return "•".into();
        };
        if !list.ordered {
            return "•".into();
        }
        if let Some(v) = li.value().attr("value").and_then(|v| v.trim().parse::<i64>().ok()) {
            list.next = v;
        }
        let n = list.next;
        list.next += 1;
        format!("{}.", crate::list_number::format_number(n, &list.style))
    }

    fn table(&mut self, table: ElementRef<'_>) {
        let mut rows: Vec<String> = Vec::new();
        let mut captions: Vec<String> = Vec::new();
        collect_rows(table, &mut rows, &mut captions);
        for c in captions {
            self.blocks.push(RawBlock { kind: BlockKind::Paragraph, text: c });
        }
        if !rows.is_empty() {
            let header_rows = first_row_is_header(table) as u8;
            self.blocks.push(RawBlock { kind: BlockKind::Table { header_rows }, text: rows.join("\n") });
        }
    }
}

/// A table used for page layout (it holds headings or other tables) is walked as ordinary blocks.
fn is_layout_table(table: ElementRef<'_>) -> bool {
    table.descendants().skip(1).filter_map(ElementRef::wrap).any(|e| {
        let n = e.value().name();
        n == "table" || heading_rank(n).is_some()
    })
}

/// Whether the table's first row heads its columns: it sits in `<thead>`, or all its cells are
/// `<th>`.
fn first_row_is_header(table: ElementRef<'_>) -> bool {
    let mut stack: Vec<ElementRef<'_>> = vec![table];
    while let Some(el) = stack.pop() {
        for child in el.children().filter_map(ElementRef::wrap) {
            match child.value().name() {
                "thead" => return true,
                "tbody" | "tfoot" => {
                    stack.push(child);
                    break;
                }
                "tr" => {
                    let cells: Vec<_> = child
                        .children()
                        .filter_map(ElementRef::wrap)
                        .filter(|c| matches!(c.value().name(), "td" | "th"))
                        .collect();
                    return !cells.is_empty() && cells.iter().all(|c| c.value().name() == "th");
                }
                _ => {}
            }
        }
    }
    false
}

fn collect_rows(el: ElementRef<'_>, rows: &mut Vec<String>, captions: &mut Vec<String>) {
    for child in el.children().filter_map(ElementRef::wrap) {
        if is_skipped(child) {
            continue;
        }
        match child.value().name() {
            "tr" => {
                let cells: Vec<String> = child
                    .children()
                    .filter_map(ElementRef::wrap)
                    .filter(|c| matches!(c.value().name(), "td" | "th"))
                    .map(|c| folio_core::model::collapse_whitespace(&flat_text(c, " ")))
                    .collect();
                if cells.iter().any(|c| !c.is_empty()) {
                    rows.push(cells.join("\t"));
                }
            }
            "thead" | "tbody" | "tfoot" => collect_rows(child, rows, captions),
            "caption" => {
                let c = folio_core::model::collapse_whitespace(&flat_text(child, " "));
                if !c.is_empty() {
                    captions.push(c);
                }
            }
            _ => {}
        }
    }
}

/// All visible text under an element, without recursion; `sep` goes between block elements.
fn flat_text(el: ElementRef<'_>, sep: &str) -> String {
    let mut out = String::new();
    let mut stack = vec![*el];
    while let Some(node) = stack.pop() {
        match node.value() {
            Node::Text(t) => out.push_str(t),
            Node::Element(e) => {
                if ElementRef::wrap(node).is_some_and(is_skipped) {
                    continue;
                }
                if e.name() == "br" {
                    out.push('\n');
                } else if is_block_container(e.name()) || e.name() == "li" {
                    out.push_str(sep);
                }
                // Children in document order: push them reversed.
                let kids: Vec<_> = node.children().collect();
                stack.extend(kids.into_iter().rev());
            }
            _ => {}
        }
    }
    out
}

/// Drops permalink marks ("¶") from a heading's text.
fn clean_heading(text: &str) -> String {
    text.replace('¶', " ").trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(html: &str) -> Vec<(String, String)> {
        let c = extract(html, false);
        c.blocks
            .iter()
            .map(|b| (format!("{:?}", b.kind), folio_core::model::collapse_whitespace(&b.text)))
            .collect()
    }

    #[test]
    fn structure() {
        let html = r##"<html><head><title>T</title><script>var x;</script></head><body>
            <nav><a href="/">Home</a></nav>
            <h2>1.1. Scope<a class="headerlink" href="#s">¶</a></h2>
            <p>Some <b>bold</b> text.</p>
            <ol><li>One<ul><li>Inner</li></ul></li><li>Two</li></ol>
            <table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table>
            <pre>let x = 1;
  y</pre>
            <blockquote><p>Quoted</p></blockquote>
            </body></html>"##;
        let c = extract(html, false);
        assert_eq!(c.title.as_deref(), Some("T"));
        let b = blocks(html);
        assert_eq!(b[0], ("Heading { level: 2, number: None }".into(), "1.1. Scope".into()));
        assert_eq!(b[1].1, "Some bold text.");
        assert_eq!(b[2], ("ListItem { marker: Some(\"1.\"), depth: 0 }".into(), "One".into()));
        assert_eq!(b[3], ("ListItem { marker: Some(\"•\"), depth: 1 }".into(), "Inner".into()));
        assert_eq!(b[4], ("ListItem { marker: Some(\"2.\"), depth: 0 }".into(), "Two".into()));
        assert_eq!(c.blocks[5].text, "A\tB\n1\t2");
        assert_eq!(c.blocks[6].text, "let x = 1;\n  y");
        assert_eq!(b[7], ("Quote".into(), "Quoted".into()));
        assert_eq!(b.len(), 8);
    }

    #[test]
    fn xhtml_self_closing_script_does_not_swallow_the_page() {
        let x = r#"<html><head><script src="a.js"/></head><body><h1>Ch</h1><p>x</p></body></html>"#;
        assert_eq!(extract(x, true).blocks.len(), 2);
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let html = format!("{}deep{}", "<div><span>".repeat(5000), "</span></div>".repeat(5000));
        let c = extract(&html, false);
        assert!(c.blocks.iter().any(|b| b.text.contains("deep")));
    }
}
