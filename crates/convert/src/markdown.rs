//! Markdown (CommonMark with tables) via pulldown-cmark: ATX and setext headings, lists with markers
//! and depth, code blocks, block quotes and tables; YAML/TOML front matter is ignored and raw HTML
//! blocks go through the HTML extractor.

use crate::blocks::{push_blocks, RawBlock};
use crate::error::guard;
use crate::html::{extract, first_top_heading};
use crate::text::{decode_text, file_stem};
use crate::{ConvertOptions, Converter, ErrorKind};
use folio_core::model::{BlockKind, Document, DocumentBuilder, Format};
use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};

/// Converts Markdown files.
#[derive(Debug, Default, Clone, Copy)]
pub struct MarkdownConverter;

impl Converter for MarkdownConverter {
    fn format(&self) -> Format {
        Format::Markdown
    }

    fn convert(&self, name: &str, bytes: &[u8], _options: &ConvertOptions) -> Result<Document, ErrorKind> {
        guard(|| {
            let text = decode_text(bytes);
            if text.trim().is_empty() {
                return Err(ErrorKind::Empty);
            }
            let blocks = markdown_blocks(&text);
            let title = first_top_heading(&blocks).unwrap_or_else(|| file_stem(name));
            let mut builder = DocumentBuilder::new(Format::Markdown, title, bytes);
            push_blocks(&mut builder, blocks);
            if builder.blocks().is_empty() {
                return Err(ErrorKind::Empty);
            }
            Ok(builder.finish())
        })
    }
}

#[derive(Debug)]
enum Ctx {
    Heading(u8),
    Item { marker: Option<String>, depth: u8 },
    Quote,
}

#[derive(Default)]
struct TableState {
    rows: Vec<String>,
    row: Vec<String>,
    cell: String,
}

#[derive(Default)]
struct Walker {
    blocks: Vec<RawBlock>,
    buf: String,
    ctx: Vec<Ctx>,
    /// Open lists: the next number of an ordered list, `None` for bullets.
    lists: Vec<Option<u64>>,
    code: Option<String>,
    html: Option<String>,
    table: Option<TableState>,
    in_metadata: bool,
}

impl Walker {
    fn flush(&mut self) {
        if self.buf.trim().is_empty() {
            self.buf.clear();
            return;
        }
        let text = std::mem::take(&mut self.buf);
        let kind = match self.ctx.last_mut() {
            None => BlockKind::Paragraph,
            Some(Ctx::Heading(level)) => BlockKind::Heading { level: *level, number: None },
            Some(Ctx::Item { marker, depth }) => BlockKind::ListItem { marker: marker.take(), depth: *depth },
            Some(Ctx::Quote) => BlockKind::Quote,
        };
        self.blocks.push(RawBlock { kind, text });
    }

    fn text(&mut self, t: &str) {
        if self.in_metadata {
            return;
        }
        if let Some(code) = self.code.as_mut() {
            code.push_str(t);
        } else if let Some(table) = self.table.as_mut() {
            table.cell.push_str(t);
        } else {
            self.buf.push_str(t);
        }
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) | Event::Code(t) | Event::InlineMath(t) | Event::DisplayMath(t) => self.text(&t),
            Event::Html(h) => {
                if let Some(html) = self.html.as_mut() {
                    html.push_str(&h);
                }
            }
            Event::InlineHtml(h) => {
                if h.trim().eq_ignore_ascii_case("<br>") || h.trim().eq_ignore_ascii_case("<br/>") {
                    self.text("\n");
                }
            }
            Event::SoftBreak => self.text(" "),
            Event::HardBreak => self.text("\n"),
            Event::Rule => self.flush(),
            Event::TaskListMarker(done) => self.text(if done { "[x] " } else { "[ ] " }),
            Event::FootnoteReference(_) => {}
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph if self.table.is_none() && !matches!(self.ctx.last(), Some(Ctx::Item { .. })) => {
                self.flush();
            }
            Tag::Heading { level, .. } => {
                self.flush();
                self.ctx.push(Ctx::Heading(heading_level(level)));
            }
            Tag::BlockQuote(_) => {
                self.flush();
                self.ctx.push(Ctx::Quote);
            }
            Tag::CodeBlock(_) => {
                self.flush();
                self.code = Some(String::new());
            }
            Tag::HtmlBlock => {
                self.flush();
                self.html = Some(String::new());
            }
            Tag::List(first) => {
                self.flush();
                self.lists.push(first);
            }
            Tag::Item => {
                self.flush();
                let marker = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        let m = format!("{n}.");
                        *n += 1;
                        m
                    }
                    _ => "•".to_string(),
                };
                let depth = self.lists.len().saturating_sub(1).min(u8::MAX as usize) as u8;
                self.ctx.push(Ctx::Item { marker: Some(marker), depth });
            }
            Tag::Table(_) => {
                self.flush();
                self.table = Some(TableState::default());
            }
            Tag::TableHead | Tag::TableRow => {
                if let Some(t) = self.table.as_mut() {
                    t.row.clear();
                }
            }
            Tag::TableCell => {
                if let Some(t) = self.table.as_mut() {
                    t.cell.clear();
                }
            }
            Tag::MetadataBlock(_) => self.in_metadata = true,
            Tag::FootnoteDefinition(_) | Tag::DefinitionList | Tag::DefinitionListTitle => self.flush(),
            Tag::DefinitionListDefinition => self.flush(),
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph if self.table.is_none() => self.flush(),
            TagEnd::Heading(_) | TagEnd::BlockQuote(_) | TagEnd::Item => {
                self.flush();
                self.ctx.pop();
            }
            TagEnd::CodeBlock => {
                if let Some(code) = self.code.take() {
                    self.blocks.push(RawBlock { kind: BlockKind::Code, text: code });
                }
            }
            TagEnd::HtmlBlock => {
                if let Some(html) = self.html.take() {
                    self.html_block(&html);
                }
            }
            TagEnd::List(_) => {
                self.flush();
                self.lists.pop();
            }
            TagEnd::TableCell => {
                if let Some(t) = self.table.as_mut() {
                    let cell = folio_core::model::collapse_whitespace(&t.cell);
                    t.row.push(cell);
                    t.cell.clear();
                }
            }
            TagEnd::TableHead | TagEnd::TableRow => {
                if let Some(t) = self.table.as_mut() {
                    if t.row.iter().any(|c| !c.is_empty()) {
                        t.rows.push(t.row.join("\t"));
                    }
                    t.row.clear();
                }
            }
            TagEnd::Table => {
                if let Some(t) = self.table.take() {
                    if !t.rows.is_empty() {
                        self.blocks.push(RawBlock {
                            kind: BlockKind::Table { header_rows: 1 },
                            text: t.rows.join("\n"),
                        });
                    }
                }
            }
            TagEnd::MetadataBlock(_) => self.in_metadata = false,
            TagEnd::FootnoteDefinition
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition
            | TagEnd::DefinitionList => self.flush(),
            _ => {}
        }
    }

    /// A raw HTML block: its text through the HTML extractor (comments and bare tags give nothing).
    fn html_block(&mut self, html: &str) {
        let content = extract(html, false);
        let in_item = self.ctx.iter().rev().find_map(|c| match c {
            Ctx::Item { depth, .. } => Some(*depth),
            _ => None,
        });
        let in_quote = matches!(self.ctx.last(), Some(Ctx::Quote));
        for mut b in content.blocks {
            if b.kind == BlockKind::Paragraph {
                if let Some(depth) = in_item {
                    b.kind = BlockKind::ListItem { marker: None, depth };
                } else if in_quote {
                    b.kind = BlockKind::Quote;
                }
            }
            self.blocks.push(b);
        }
    }
}

fn heading_level(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

/// The blocks of a Markdown text, heading levels as written (`#` = 1).
pub(crate) fn markdown_blocks(text: &str) -> Vec<RawBlock> {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_HEADING_ATTRIBUTES
        | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS
        | Options::ENABLE_PLUSES_DELIMITED_METADATA_BLOCKS;
    let mut w = Walker::default();
    for event in Parser::new_ext(text, options) {
        w.event(event);
    }
    w.flush();
    w.blocks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(md: &str) -> Vec<(BlockKind, String)> {
        markdown_blocks(md)
            .into_iter()
            .map(|b| (b.kind, folio_core::model::collapse_whitespace(&b.text)))
            .collect()
    }

    #[test]
    fn blocks_of_a_small_document() {
        let md = "---\ntitle: Hidden\n---\n\n# 1 Intro\n\nSome *text*\nwrapped.\n\nSub\n---\n\n\
                  - a\n  - b\n- c\n\n3. three\n4. four\n\n> quoted\n\n```\ncode  here\n```\n\n\
                  | A | B |\n|---|---|\n| 1 | 2 |\n";
        let k = kinds(md);
        assert_eq!(k[0], (BlockKind::Heading { level: 1, number: None }, "1 Intro".into()));
        assert_eq!(k[1], (BlockKind::Paragraph, "Some text wrapped.".into()));
        assert_eq!(k[2], (BlockKind::Heading { level: 2, number: None }, "Sub".into()));
        assert_eq!(k[3], (BlockKind::ListItem { marker: Some("•".into()), depth: 0 }, "a".into()));
        assert_eq!(k[4], (BlockKind::ListItem { marker: Some("•".into()), depth: 1 }, "b".into()));
        assert_eq!(k[5], (BlockKind::ListItem { marker: Some("•".into()), depth: 0 }, "c".into()));
        assert_eq!(k[6], (BlockKind::ListItem { marker: Some("3.".into()), depth: 0 }, "three".into()));
        assert_eq!(k[7], (BlockKind::ListItem { marker: Some("4.".into()), depth: 0 }, "four".into()));
        assert_eq!(k[8], (BlockKind::Quote, "quoted".into()));
        assert_eq!(k[9].0, BlockKind::Code);
        let blocks = markdown_blocks(md);
        assert_eq!(blocks[9].text, "code  here\n");
        assert_eq!(blocks[10].text, "A\tB\n1\t2");
        assert_eq!(k.len(), 11);
    }
}
