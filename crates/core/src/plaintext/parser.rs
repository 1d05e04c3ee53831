//! The line-by-line parser: items (headings, paragraphs, list items, tables) from lines, with wrapped lines joined.

use super::*;

pub(super) struct Parser<'a> {
    pub(super) lines: &'a [&'a str],
    pub(super) layout: Layout,
    pub(super) out: Vec<Item>,
    pub(super) nest: Nesting,
}

impl Parser<'_> {
    pub(super) fn blank(&self, i: usize) -> bool {
        self.lines.get(i).is_none_or(|l| l.trim().is_empty())
    }

    pub(super) fn heading(
        &mut self,
        label: Option<Label>,
        label_text: Option<&str>,
        title: &str,
        style: Option<u8>,
    ) {
        let number = label_text.map(|s| s.trim().to_string());
        let level = self.nest.place(Open { label, style });
        let text = match (&number, title.trim()) {
            (Some(n), "") => n.clone(),
            (Some(n), t) => format!("{n} {t}"),
            (None, t) => t.to_string(),
        };
        self.out.push(Item { kind: BlockKind::Heading { level, number }, text });
    }

    pub(super) fn para(&mut self, kind: BlockKind, text: String) {
        if !text.trim().is_empty() {
            self.out.push(Item { kind, text });
        }
    }

    pub(super) fn run(&mut self) {
        let n = self.lines.len();
        let mut i = 0;
        while i < n {
            let line = self.lines[i];
            let t = line.trim();
            if t.is_empty() {
                i += 1;
                continue;
            }
            // Tables marked as in the ADGM texts.
            if is_table_marker(t, "table start") {
                let mut j = i + 1;
                let mut rows = Vec::new();
                while j < n && !is_table_marker(self.lines[j].trim(), "table end") {
                    if !self.lines[j].trim().is_empty() {
                        rows.push(self.lines[j].trim_end());
                    }
                    j += 1;
                }
                self.para(BlockKind::Table { header_rows: 0 }, rows.join("\n"));
                i = j + 1;
                continue;
            }
            // Over- and underlined title: "****\nTitle\n****".
            if let Some(c) = underline_char(t) {
                if i + 2 < n && underline_char(self.lines[i + 2].trim()) == Some(c) && !self.blank(i + 1) {
                    let title = self.lines[i + 1].trim();
                    let style = self.nest.style_for_underline(c, true);
                    self.numbered_or_plain(title, Some(style));
                    i += 3;
                    continue;
                }
                if c == '-' || c == '*' || c == '_' {
                    // A horizontal rule.
                    i += 1;
                    continue;
                }
            }
            // Underlined title.
            if i + 1 < n && !self.layout.tab_labels {
                if let Some(c) = underline_char(self.lines[i + 1].trim()) {
                    let ulen = self.lines[i + 1].trim().chars().count();
                    let tlen = t.chars().count();
                    if ulen + 2 >= tlen && ulen <= tlen + 4 && bullet(line).is_none_or(|_| ulen >= tlen) {
                        let style = self.nest.style_for_underline(c, false);
                        self.numbered_or_plain(t, Some(style));
                        i += 2;
                        continue;
                    }
                }
            }
            // ADGM record lines.
            if let Some((label, rest)) =
                tab_label(line).or_else(|| if self.layout.tab_labels { compound_label(line) } else { None })
            {
                if is_list_marker_label(label) {
                    self.para(
                        BlockKind::ListItem { marker: Some(label.to_string()), depth: 0 },
                        format!("{label} {rest}"),
                    );
                } else if let Some(parsed) = Label::parse_full(label) {
                    self.labelled(parsed, label, rest);
                } else {
                    self.para(BlockKind::Paragraph, t.into());
                }
                i += 1;
                continue;
            }
            // Numbered heading standing alone.
            if let Some(h) = split_heading_number(t) {
                let alone_before = i == 0 || self.blank(i - 1) || self.is_heading_line(i - 1);
                let alone_after = self.blank(i + 1) || self.layout.wrap.is_none();
                if alone_before
                    && alone_after
                    && !self.layout.underlined
                    && is_title_like(h.title)
                    && !h.title.is_empty()
                    && self.nest.plausible(&h.parsed)
                {
                    let title = h.title.to_string();
                    let label = h.label.to_string();
                    self.heading(Some(h.parsed), Some(&label), &title, None);
                    i += 1;
                    continue;
                }
            }
            // All-caps title standing alone.
            if is_caps_title(t)
                && (i == 0 || self.blank(i - 1))
                && (self.blank(i + 1) || self.layout.wrap.is_none())
                && bullet(line).is_none()
            {
                self.heading(None, None, t, Some(CAPS_STYLE));
                i += 1;
                continue;
            }
            // List items and paragraphs.
            if let Some((marker, rest)) = bullet(line) {
                let depth = (line.len() - line.trim_start().len()).min(16) / 2;
                let (text, next) = self.gather(i, rest);
                let text = format!("{marker} {text}");
                self.para(BlockKind::ListItem { marker: Some(marker.to_string()), depth: depth as u8 }, text);
                i = next;
                continue;
            }
            let (text, next) = self.gather(i, t);
            self.para(BlockKind::Paragraph, text);
            i = next;
        }
    }

    pub(super) fn is_heading_line(&self, i: usize) -> bool {
        underline_char(self.lines[i].trim()).is_some()
    }

    /// Joins hard-wrapped continuation lines of the paragraph starting at line `i`.
    pub(super) fn gather(&self, i: usize, first: &str) -> (String, usize) {
        let mut text = first.trim().to_string();
        let Some(wrap) = self.layout.wrap else { return (text, i + 1) };
        let mut prev_len = self.lines[i].trim_end().chars().count();
        let mut j = i + 1;
        while j < self.lines.len() {
            let l = self.lines[j];
            let t = l.trim();
            if t.is_empty() || prev_len * 10 < wrap * 6 {
                break;
            }
            if bullet(l).is_some() || tab_label(l).is_some() || underline_char(t).is_some() {
                break;
            }
            if j + 1 < self.lines.len() && underline_char(self.lines[j + 1].trim()).is_some() {
                break;
            }
            join_wrapped(&mut text, t);
            prev_len = l.trim_end().chars().count();
            j += 1;
        }
        (text, j)
    }

    pub(super) fn numbered_or_plain(&mut self, title: &str, style: Option<u8>) {
        match split_heading_number(title) {
            Some(h) if !h.title.is_empty() || h.parsed.segments.iter().any(|s| s.explicit) => {
                let (label, rest) = (h.label.to_string(), h.title.to_string());
                self.heading(Some(h.parsed), Some(&label), &rest, style);
            }
            _ => self.heading(None, None, title, style),
        }
    }

    /// An ADGM record: a heading for the label, and the rest as its title or its first paragraph.
    pub(super) fn labelled(&mut self, parsed: Label, label: &str, rest: &str) {
        if self.nest.is_stray(&parsed) {
            self.nest.stray(&parsed);
            let text = if rest.is_empty() { label.to_string() } else { format!("{label} {rest}") };
            self.para(BlockKind::ListItem { marker: Some(label.to_string()), depth: 0 }, text);
            return;
        }
        if let Some(value) = self.nest.implied_division(&parsed) {
            let implied = Label::parse(&value);
            self.heading(implied, Some(&value), "", None);
        }
        if rest.is_empty() || is_title_like(rest) && !looks_like_rule_text(rest) {
            self.heading(Some(parsed), Some(label), rest, None);
        } else if let Some((title, body)) = run_in_title(rest) {
            self.heading(Some(parsed), Some(label), &format!("{title}."), None);
            self.para(BlockKind::Paragraph, body.to_string());
        } else {
            self.heading(Some(parsed), Some(label), "", None);
            self.para(BlockKind::Paragraph, rest.to_string());
        }
    }
}
