//! Structure inference for plain text: headings from numbering and layout.
//!
//! Recognised heading signals, strongest first:
//! - a numbering label that opens the line and ends at a tab, as in the ADGM rulebooks
//!   (`2.1.3.(1)<TAB>text`, `Part 6.Chapter 3.61.(4)<TAB>text`, `1.2.1.Guidance.1.<TAB>text`);
//! - a line underlined (or over- and underlined) with `=`, `-`, `*`, `~`, `^`, `#` (setext / reST);
//! - a numbered line (`1.1. Scope`, `SEC. 101. SHORT TITLE.`, `PART 2`) standing alone, whose number
//!   continues the document's numbering (so "see Section 4.9" opening a wrapped line never counts);
//! - a short all-caps line standing alone.
//!
//! Levels come from nesting: a numbered heading sits under the nearest open heading whose label is a
//! prefix of its own (`2.1.3.(1)` under `2.1.3` under `2.1` under `2`) or whose container ranks above
//! it (Part over Chapter over Section); unnumbered styled headings nest by style order.

use crate::model::{BlockKind, DocumentBuilder};
use crate::numbering::{split_heading_number, Container, Label};

mod lines;
mod nesting;
mod parser;
use lines::*;
use nesting::*;
use parser::*;

/// Parses plain text into blocks appended to `builder`.
///
/// ```
/// use folio_core::model::{DocumentBuilder, Format, BlockKind};
/// let text = "1.\tINTRODUCTION\n1.1\tScope\n1.1.1\tThese Rules apply to every Person.\n";
/// let mut b = DocumentBuilder::new(Format::Text, "GEN", text.as_bytes());
/// folio_core::plaintext::parse_into(text, &mut b);
/// let doc = b.finish();
/// let levels: Vec<_> = doc.blocks.iter().filter_map(|b| b.kind.heading_level()).collect();
/// assert_eq!(levels, vec![1, 2, 3]);
/// ```
pub fn parse_into(text: &str, builder: &mut DocumentBuilder) {
    let lines: Vec<&str> = text.lines().collect();
    let layout = Layout::measure(&lines);
    let mut parser = Parser { lines: &lines, layout, out: Vec::new(), nest: Nesting::default() };
    parser.run();
    let mut items = parser.out;
    if let Some(title) = take_title(&mut items) {
        if builder.title().is_empty() {
            builder.set_title(title);
        }
    }
    for item in items {
        builder.push(item.kind, &item.text, None);
    }
}

/// The document title, when the first heading is one: unnumbered, at the top level, before any
/// numbered heading, with numbered headings after it. It becomes a paragraph (its text stays in the document) and, where
/// every later heading sat under it, the others move up a level.
fn take_title(items: &mut [Item]) -> Option<String> {
    let first = items.iter().position(|i| i.kind.is_heading())?;
    let BlockKind::Heading { level: 1, number: None } = items[first].kind else { return None };
    let numbered_later =
        items[first + 1..].iter().any(|i| matches!(&i.kind, BlockKind::Heading { number: Some(_), .. }));
    if !numbered_later {
        return None;
    }
    let title = items[first].text.clone();
    items[first].kind = BlockKind::Paragraph;
    let all_under = items[first + 1..].iter().all(|i| i.kind.heading_level().is_none_or(|l| l >= 2));
    if all_under {
        for item in items[first + 1..].iter_mut() {
            if let BlockKind::Heading { level, .. } = &mut item.kind {
                *level -= 1;
            }
        }
    }
    Some(title)
}

#[derive(Debug)]
struct Item {
    kind: BlockKind,
    text: String,
}

/// Document-wide layout facts.
#[derive(Debug, Clone, Copy)]
struct Layout {
    /// Typical wrap width of hard-wrapped text; `None` when each line is a paragraph.
    wrap: Option<usize>,
    /// Whether lines are `LABEL<TAB>text` records (ADGM style).
    tab_labels: bool,
    /// Whether the document marks its headings by underlining; then numbered lines that are not
    /// underlined are list items, not headings.
    underlined: bool,
}

impl Layout {
    fn measure(lines: &[&str]) -> Layout {
        let mut lens: Vec<usize> =
            lines.iter().map(|l| l.trim_end().chars().count()).filter(|&n| n > 0).collect();
        lens.sort_unstable();
        let p90 = lens.get(lens.len() * 9 / 10).copied().unwrap_or(0);
        let wrap = (p90 > 0 && p90 <= 160).then_some(p90);
        let labelled = lines.iter().take(5000).filter(|l| tab_label(l).is_some()).count();
        let nonblank = lines.iter().take(5000).filter(|l| !l.trim().is_empty()).count();
        let underlined = lines
            .windows(2)
            .filter(|w| {
                !w[0].trim().is_empty()
                    && underline_char(w[0].trim()).is_none()
                    && underline_char(w[1].trim()).is_some()
            })
            .count()
            >= 3;
        Layout { wrap, tab_labels: labelled >= 3 && labelled * 20 >= nonblank, underlined }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Document, Format};

    fn parse(text: &str) -> Document {
        let mut b = DocumentBuilder::new(Format::Text, "t", text.as_bytes());
        parse_into(text, &mut b);
        b.finish()
    }

    fn headings(d: &Document) -> Vec<(u8, String)> {
        d.blocks
            .iter()
            .filter_map(|b| b.kind.heading_level().map(|l| (l, d.block_text(b).to_string())))
            .collect()
    }

    #[test]
    fn adgm_records_nest_by_label() {
        let text = "1.\tINTRODUCTION\n1.1\tJurisdiction\n1.1.1\t\n1.1.1.(1)\tThe AML Rulebook is made.\n\
                    (a)\tevery person; and\n1.1.1.(2)\tNothing applies.\n1.1.1.Guidance\t\n\
                    1.1.1.Guidance.1.\tChapters 7 to 9 deal with customers.\n2.\tOVERVIEW\n";
        let d = parse(text);
        let h = headings(&d);
        assert_eq!(
            h,
            vec![
                (1, "1. INTRODUCTION".into()),
                (2, "1.1 Jurisdiction".into()),
                (3, "1.1.1".into()),
                (4, "1.1.1.(1)".into()),
                (4, "1.1.1.(2)".into()),
                (4, "1.1.1.Guidance".into()),
                (5, "1.1.1.Guidance.1.".into()),
                (1, "2. OVERVIEW".into()),
            ]
        );
        assert!(d
            .blocks
            .iter()
            .any(|b| matches!(&b.kind, BlockKind::ListItem { marker: Some(m), .. } if m == "(a)")));
    }

    #[test]
    fn records_that_break_the_numbering_are_list_items() {
        // A lone "1." inside a guidance note, letters inside a rule's list, a list 1–4 whose "3."
        // happens to follow chapter "2.", and an address line: none is a section.
        let text = "1.\tINTRODUCTION\n1.1\tScope\n2.\tRULES\n2.1\tGeneral\n2.1.1\tA firm must:\n\
                    (a)\tact; or\nA.\ta portfolio trade; or\nB.\ta weighted trade.\n\
                    2.1.1.Guidance.1\tScope of governance\n1.\tGovernance is a framework which:\n\
                    2.\tpromotes sound management;\n3.\tprotects Customers; and\n4.\tplaces responsibility.\n\
                    2.1.1.Guidance.2.\tMany requirements apply.\n2.1.2\tThe address is:\nP.O. Box 111999\n\
                    2.1.3\tTimely notification.\n";
        let d = parse(text);
        let h = headings(&d);
        let got: Vec<(u8, &str)> = h.iter().map(|(l, t)| (*l, t.as_str())).collect();
        assert_eq!(
            got,
            vec![
                (1, "1. INTRODUCTION"),
                (2, "1.1 Scope"),
                (1, "2. RULES"),
                (2, "2.1 General"),
                (3, "2.1.1"),
                (4, "2.1.1.Guidance.1 Scope of governance"),
                (4, "2.1.1.Guidance.2."),
                (3, "2.1.2"),
                (3, "2.1.3"),
            ]
        );
    }

    #[test]
    fn a_division_the_text_never_printed_is_implied() {
        // Chapter 3's own heading is missing from the text: "3.2" still nests under a "3".
        let text = "1.\tINTRODUCTION\n1.1\tScope\n2.\tCLIENTS\n2.1\tGeneral\n\
                    3.2\tCommunication of Information\n3.2.1\tA firm must be clear.\n3.3\tKey Information\n";
        let h = headings(&parse(text));
        let got: Vec<(u8, &str)> = h.iter().map(|(l, t)| (*l, t.as_str())).collect();
        assert_eq!(
            got[4..],
            [(1, "3"), (2, "3.2 Communication of Information"), (3, "3.2.1"), (2, "3.3 Key Information")]
        );
    }

    #[test]
    fn a_note_printed_after_the_next_heading_stays_with_the_rule_it_follows() {
        let text = "8.\tPERMISSIONS\n8.4\tWithdrawal\n8.4.1\tA firm must apply.\n\
                    8.4.1.Guidance\tWhen considering a withdrawal, the Regulator will look.\n\
                    8.5\tChanges to an Approved Person status\n\
                    8.4.1.Guidance\tThis Rule addresses requests regarding Approved Persons.\n\
                    8.5.1\tAn application must be made.\n";
        let h = headings(&parse(text));
        let got: Vec<(u8, &str)> = h.iter().map(|(l, t)| (*l, t.as_str())).collect();
        assert_eq!(
            got,
            vec![
                (1, "8. PERMISSIONS"),
                (2, "8.4 Withdrawal"),
                (3, "8.4.1"),
                (4, "8.4.1.Guidance"),
                (2, "8.5 Changes to an Approved Person status"),
                (3, "8.4.1.Guidance"),
                (3, "8.5.1"),
            ]
        );
    }

    #[test]
    fn parts_and_chapters() {
        let text = "Part 1\tThe Regulator\nPart 1.Chapter 1\tPowers\nPart 1.Chapter 1.1.\tPowers of the Regulator\n\
                    Part 1.Chapter 1.1.(1)\tThe Regulator has functions.\nPart 2\tGeneral\nPart 2.5.\tTitle\n";
        let h = headings(&parse(text));
        let levels: Vec<u8> = h.iter().map(|x| x.0).collect();
        assert_eq!(levels, vec![1, 2, 3, 4, 1, 2]);
    }

    #[test]
    fn setext_numbered_text() {
        let text = "Debian Policy Manual\n********************\n\nIntro text here.\n\n\
                    1. About this manual\n********************\n\n\n1.1. Scope\n==========\n\nThis manual describes\nthe policy.\n\n\
                    1. Russ Allbery\n\n2. Sean Whitton\n\n1.2. New versions\n==================\n\nText.\n\n\
                    2. The Debian Archive\n*********************\n\nMore.\n";
        let h = headings(&parse(text));
        assert_eq!(
            h,
            vec![
                (1, "1. About this manual".into()),
                (2, "1.1. Scope".into()),
                (2, "1.2. New versions".into()),
                (1, "2. The Debian Archive".into()),
            ]
        );
        assert_eq!(parse(text).meta.title, "t", "a title given by the converter is kept");
        let mut b = DocumentBuilder::new(Format::Text, "", text.as_bytes());
        parse_into(text, &mut b);
        assert_eq!(b.finish().meta.title, "Debian Policy Manual");
    }

    #[test]
    fn cross_reference_opening_a_line_is_no_heading() {
        let text = "1 Scope\n\nThis applies as set out in\nSection 4.9 of the rules and also in\nthe schedules.\n\n2 Terms\n\nText.\n";
        let h = headings(&parse(text));
        assert_eq!(h.len(), 2, "{h:?}");
    }

    #[test]
    fn sec_headings_and_caps() {
        let text =
            "TITLE I—GENERAL PROVISIONS\n\nSEC. 101. SHORT TITLE.\n\nThis Act may be cited as the Act.\n\n\
                    SEC. 102. DEFINITIONS.\n\nIn this Act:\n";
        let h = headings(&parse(text));
        assert_eq!(h.len(), 3, "{h:?}");
        assert_eq!(h[1].0, 2);
    }

    #[test]
    fn hyphenated_wrap_joins() {
        let text = "This is a long line of text that wraps at about sixty or so charac-\nters and goes on for a while longer than that\nend.\n";
        let d = parse(text);
        assert!(d.text.contains("characters"), "{}", d.text);
    }
}
