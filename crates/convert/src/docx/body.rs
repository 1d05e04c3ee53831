//! The document body (`word/document.xml`): paragraphs with their style, numbering and text, and tables, in order.

use super::*;

pub(super) const W_NS: &[&[u8]] = &[
    b"http://schemas.openxmlformats.org/wordprocessingml/2006/main",
    b"http://purl.oclc.org/ooxml/wordprocessingml/main",
];

pub(super) const MC_NS: &[u8] = b"http://schemas.openxmlformats.org/markup-compatibility/2006";

#[derive(Debug, Default)]
pub(super) struct Para {
    pub(super) style: Option<String>,
    pub(super) num_id: Option<u32>,
    pub(super) ilvl: Option<u8>,
    pub(super) outline: Option<u8>,
    pub(super) text: String,
    pub(super) in_ppr: bool,
}

#[derive(Debug, Default)]
pub(super) struct Table {
    pub(super) rows: Vec<Vec<String>>,
    pub(super) row: Vec<String>,
    pub(super) cell: String,
}

pub(super) struct Body {
    pub(super) blocks: Vec<RawBlock>,
    pub(super) title: Option<String>,
}

pub(super) struct BodyParser<'s> {
    pub(super) styles: &'s Styles,
    pub(super) numbering: &'s Numbering,
    pub(super) counters: Counters,
    pub(super) paras: Vec<Para>,
    pub(super) tables: Vec<Table>,
    pub(super) blocks: Vec<RawBlock>,
    /// Index of the title block while consecutive Title paragraphs may still join it.
    pub(super) open_title: Option<usize>,
    pub(super) title: Option<String>,
    pub(super) in_text: bool,
}

pub(super) fn parse_body(xml: &str, styles: &Styles, numbering: &Numbering) -> Result<Body, ErrorKind> {
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
    pub(super) fn push_text(&mut self, s: &str) {
        if let Some(para) = self.paras.last_mut() {
            para.text.push_str(s);
        } else if let Some(t) = self.tables.last_mut() {
            t.cell.push_str(s);
        }
    }

    pub(super) fn start(&mut self, local: &[u8], e: &BytesStart<'_>, empty: bool) {
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

    pub(super) fn end(&mut self, local: &[u8]) {
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

    pub(super) fn finish_table(&mut self, t: Table) {
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

    pub(super) fn emit(&mut self, block: RawBlock) {
        if !block.text.trim().is_empty() {
            self.open_title = None;
        }
        self.blocks.push(block);
    }

    pub(super) fn finish_paragraph(&mut self, p: Para) {
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
    pub(super) fn paragraph_number(&mut self, p: &Para, style: Option<&str>) -> Option<(NumLabel, u8)> {
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
    pub(super) fn level_for_style(&self, num_id: u32, style: Option<&str>) -> Option<usize> {
        let style = style?;
        let (_, abs) = self.numbering.abstract_for(num_id, self.styles)?;
        abs.levels.iter().position(|l| l.as_ref().is_some_and(|l| l.pstyle.as_deref() == Some(style)))
    }
}
