//! The streaming parser: a stack of open elements, each with its role, turned into blocks.

use super::*;

/// What an element is to the converter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
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
pub(super) enum Sink {
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
pub(super) const MAX_DEPTH: usize = 1000;

#[derive(Debug)]
pub(super) struct Frame {
    pub(super) role: Role,
    pub(super) sink: Sink,
    /// Inside `<quotedContent>`.
    pub(super) quoted: bool,
    /// For levels: heading level (by nesting) and the heading's parts.
    pub(super) level: u8,
    pub(super) num: String,
    pub(super) heading: String,
    pub(super) emitted: bool,
    /// For `docTitle` / `officialTitle`: captured as title fallbacks.
    pub(super) captures: Option<TitleCapture>,
    /// Open levels and items (outside quoted content), this frame included.
    pub(super) levels: usize,
    pub(super) items: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TitleCapture {
    Doc,
    Official,
}

/// The block being filled.
#[derive(Debug)]
pub(super) struct Open {
    pub(super) kind: BlockKind,
    pub(super) text: String,
    pub(super) marker: String,
    /// Whether text beyond the item's number and heading has been added.
    pub(super) has_body: bool,
}

#[derive(Debug, Default)]
pub(super) struct Parser {
    pub(super) stack: Vec<Frame>,
    /// Elements opened beyond [`MAX_DEPTH`]: read as part of the deepest frame.
    pub(super) overflow: usize,
    /// Levels below this stack index have all had their headings emitted.
    pub(super) pending_from: usize,
    /// Open `docTitle` / `officialTitle` elements being captured.
    pub(super) capturing_doc: usize,
    pub(super) capturing_official: usize,
    pub(super) blocks: Vec<RawBlock>,
    pub(super) cur: Option<Open>,
    /// A word break is due before the next text (a dropped marker, a part boundary, `<br>`).
    pub(super) pending_space: bool,
    /// The last block ended a `<quotedContent>`: trailing punctuation ("." or "; and") joins it.
    pub(super) after_quote: bool,
    /// Notes met inside a sentence, emitted after that sentence's block.
    pub(super) deferred: Vec<RawBlock>,
    pub(super) aside: String,
    /// Inside an item's `<num>` / `<heading>`.
    pub(super) in_num: usize,
    pub(super) in_item_heading: usize,
    pub(super) dc_title_done: bool,
    pub(super) table: Vec<Vec<String>>,
    pub(super) dc_title: String,
    pub(super) doc_title: String,
    pub(super) official_title: String,
}

impl Parser {
    pub(super) fn finish(mut self) -> UslmContent {
        self.flush();
        let title = [&self.dc_title, &self.official_title, &self.doc_title]
            .into_iter()
            .map(|t| clean(t))
            .find(|t| !t.is_empty());
        UslmContent { title, blocks: self.blocks }
    }

    pub(super) fn quoted(&self) -> bool {
        self.stack.last().is_some_and(|f| f.quoted)
    }

    pub(super) fn start(&mut self, e: &BytesStart<'_>) {
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
    pub(super) fn body_role(&self, local: &str, parent_role: Role) -> (Role, Sink) {
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

    pub(super) fn end(&mut self) {
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

    pub(super) fn text(&mut self, s: &str) {
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

    pub(super) fn body_text(&mut self, s: &str) {
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
    pub(super) fn word_break(&mut self) {
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
    pub(super) fn emit_pending_headings(&mut self) {
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
    pub(super) fn flush(&mut self) {
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
