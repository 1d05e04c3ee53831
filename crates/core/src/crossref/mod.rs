//! Cross-references: "Section 203(a)", "§ 4.2", "§§ 4.2–4.5", "Rule 2.1.3", "Rules 2.2.6, 2.2.7 and
//! 2.2.9", "Chapter 5", "paragraph (b)(2) of this section", "(2) and (3)" relative to the current rule,
//! "see Appendix B", and references to other documents ("GEN 3.3.31", "section 196 of the FSMR",
//! "33 U.S.C. 2201", "117 Stat. 2518", "Public Law 113-121").
//!
//! [`scan`] finds references in a text; [`find_references`] scans a document's blocks and resolves
//! same-document targets to section ids. References to other documents keep their document label for
//! resolution at library level.

mod across;
mod names;
mod resolve;
mod scan;

pub use across::CrossIndex;
pub use names::{declared_names, name_key, DocumentNames};
pub use resolve::{SectionIndex, Target};
pub(crate) use scan::fast_captures;
pub use scan::scan;

use crate::model::{Document, Span};
use crate::outline::Outline;
use regex::Regex;
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// A reference found in text, before resolution.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawRef {
    /// Byte range in the scanned text of this one target (for lists, the number alone, the keyword
    /// included for the first).
    pub start: usize,
    /// The end of that byte range (exclusive).
    pub end: usize,
    /// A normalised label: "Rule 2.2.7", "Section 203(a)", "Appendix B", "33 U.S.C. 2201",
    /// "Schedule 1, Part 4" (the containers it lies in first, as [`Target::from_label`] reads it).
    pub label: String,
    /// The container the reference names.
    pub container: Option<RefContainer>,
    /// Value tokens of the target's number (`["203", "a"]`).
    pub tokens: Vec<String>,
    /// Containers the target lies in, outermost first ("Part 4 of Schedule 1" → Schedule 1).
    #[serde(default)]
    pub within: Vec<(RefContainer, String)>,
    /// The other document it points into ("GEN", "FSMR", "title 49, United States Code").
    pub document: Option<String>,
    /// Relative to the current section ("(2)", "paragraph (b) of this section").
    pub relative: bool,
}

/// Kinds of referenced containers, as in [`Container`] plus paragraph-level ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RefContainer {
    /// A section, rule, regulation or subsection ("Section 203(a)", "§ 4.2", "Rule 2.1.3").
    Section,
    /// A part, subpart or division ("Part 4").
    Part,
    /// A chapter ("Chapter 5").
    Chapter,
    /// An article ("Article 12").
    Article,
    /// A title of a code ("Title 49").
    Title,
    /// A schedule ("Schedule 1").
    Schedule,
    /// An appendix ("Appendix B").
    Appendix,
    /// An annex ("Annex II").
    Annex,
    /// A paragraph, subparagraph or clause ("paragraph (b)(2)", or "(2)" relative to the current rule).
    Paragraph,
    /// A citation to another corpus: U.S.C., Stat., CFR, Fed. Reg., a public law, a bill.
    Citation,
}

impl RefContainer {
    /// The kind of reference that names a structural container; `None` for sections and guidance
    /// notes, which references name by number alone.
    pub(crate) fn of_container(c: crate::numbering::Container) -> Option<RefContainer> {
        use crate::numbering::Container;
        Some(match c {
            Container::Part | Container::Subpart | Container::Division => RefContainer::Part,
            Container::Chapter => RefContainer::Chapter,
            Container::Article => RefContainer::Article,
            Container::Title => RefContainer::Title,
            Container::Schedule => RefContainer::Schedule,
            Container::Appendix => RefContainer::Appendix,
            Container::Annex => RefContainer::Annex,
            Container::Section | Container::Guidance => return None,
        })
    }
}

/// A resolved cross-reference in a document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CrossReference {
    /// The text as written.
    pub text: String,
    /// A normalised label ("Rule 2.2.7", "Section 203(a)", "33 U.S.C. 2201"), as [`RawRef::label`].
    pub label: String,
    /// Where it lies in the document text.
    pub span: Span,
    /// The section it is written in.
    pub from_section: String,
    /// The target section in the same document, when found.
    pub target_section: Option<String>,
    /// The other document it points into, for library-level resolution.
    pub document: Option<String>,
    /// The kind of container the reference names.
    pub container: Option<RefContainer>,
}

/// Finds and resolves the references of a document.
///
/// A reference that names another document keeps that name for the library to resolve; one that
/// names nothing here while its sentence names another instrument ("in FSMR … in particular with
/// Part 4") points into that instrument; a short title the document declares ("the Regulations")
/// is replaced by the full name it stands for.
pub fn find_references(doc: &Document, outline: &Outline) -> Vec<CrossReference> {
    let index = SectionIndex::from_outline(outline);
    let declared = names::declared_names(&doc.text);
    let mut out = Vec::new();
    // The instrument a paragraph that introduces a list named last ("protections in FSMR,
    // including:"), for the list's items, with the chapter or part of it named with it ("set out
    // in MIR, Chapter 5:"): the items' references numbered inside that are the instrument's, even
    // where this document has sections of the same numbers.
    let mut introduced: Option<(String, Option<String>)> = None;
    // The instrument the last heading names ("Summary of Powers under FSMR"): a reference below it
    // that names nothing here and whose sentence names no instrument points into it.
    let mut headed: Option<String> = None;
    for (bi, block) in doc.blocks.iter().enumerate() {
        let heading = block.kind.is_heading();
        let text = doc.block_text(block);
        let section = outline.block_section.get(bi).copied().unwrap_or(0);
        let mut mentions = instrument_mentions(text);
        if heading {
            introduced = None;
            headed = mentions.last().map(|(_, n)| n.clone());
        }
        let is_item = matches!(block.kind, crate::model::BlockKind::ListItem { .. });
        let mut listed_in: Option<(String, String)> = None;
        if let (true, Some((name, within))) = (is_item, &introduced) {
            mentions.insert(0, (0, name.clone()));
            listed_in = within.as_ref().map(|w| (name.clone(), w.clone()));
        } else if !is_item {
            introduced = None;
        }
        if !is_item && introduces_a_list(text) {
            introduced = mentions.last().map(|(end, n)| (n.clone(), division_after(&text[*end..])));
        }
        for r in scan(text) {
            // A filing's notes and items ("See Note 3 to the consolidated financial statements",
            // "Item 7A") are the sections its outline numbers so; one naming none is no reference.
            let filing = r.label.starts_with("Note ") || r.label.starts_with("Item ");
            let target = match (&r.document, filing) {
                (Some(_), _) => None,
                (None, true) => filing_section(outline, &r.label),
                (None, false) => index.resolve(&Target::of(&r), Some(section)),
            };
            if filing && target.is_none() {
                continue;
            }
            // A heading cites other sections too ("2.2.7 Obligation to inform Regulator of any
            // breach of Rule 2.2", "6.1 Section 92(3) of the FSMR"), but its own label ("Part 4",
            // "§ 2201.") and its own section's name are no references.
            if heading && (text[..r.start].trim().is_empty() || target == Some(section)) {
                continue;
            }
            if r.relative
                && r.container == Some(RefContainer::Paragraph)
                && target.is_none()
                && !r.label.contains(' ')
            {
                // A bare "(2)" that names nothing here is more likely an enumeration than a reference.
                continue;
            }
            let mut document = r.document.clone();
            let mut target = target;
            if let Some((name, within)) = &listed_in {
                if document.is_none() && !r.relative && r.tokens.first() == Some(within) {
                    document = Some(name.clone());
                    target = None;
                }
            }
            if document.is_none()
                && target.is_none()
                && !r.relative
                && r.container != Some(RefContainer::Citation)
            {
                document = mention_before(text, &mentions, r.start).or_else(|| headed.clone());
            }
            if let Some(d) = &document {
                let is_code = d.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit());
                if !is_code {
                    if let Some((_, full)) = declared.iter().find(|(short, _)| short.eq_ignore_ascii_case(d))
                    {
                        document = Some(full.clone());
                    }
                }
            }
            out.push(CrossReference {
                text: text[r.start..r.end].trim().to_string(),
                label: r.label,
                span: Span::new(block.span.start + r.start, block.span.start + r.end),
                from_section: outline.sections[section].id.clone(),
                target_section: target.map(|t| outline.sections[t].id.clone()),
                document,
                container: r.container,
            });
        }
    }
    out
}

/// The section a filing's label names ("Note 3", "Item 7A"): the one its outline numbers so.
fn filing_section(outline: &Outline, label: &str) -> Option<usize> {
    outline.sections.iter().position(|s| {
        s.number.as_deref().is_some_and(|n| n.trim_end_matches(['.', ':']).trim().eq_ignore_ascii_case(label))
    })
}

/// The number of the chapter or part named right after an instrument: ", Chapter 5" → 5.
fn division_after(rest: &str) -> Option<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE
        .get_or_init(|| Regex::new(r"^,?\s+(?:Chapter|Part)\s+([0-9]+[A-Z]?)(?-u:\b)").expect("valid regex"));
    re.captures(rest).map(|c| c[1].to_string())
}

/// Whether a paragraph ends by opening a list: "… including:", "… set out in MIR, Chapter 5 -".
fn introduces_a_list(text: &str) -> bool {
    let t = text.trim_end();
    t.ends_with(':') || t.ends_with(" -") || t.ends_with(" –") || t.ends_with(" —")
}

/// Names of instruments a text mentions after a preposition ("in FSMR", "under the Insolvency
/// Regulations"), with where each ends.
fn instrument_mentions(text: &str) -> Vec<(usize, String)> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(&format!(
            r"(?-u:\b)(?:in|under|of|by|with|to)\s+(?:the\s+)?(?P<doc>[A-Z][A-Z0-9]{{1,7}}(?-u:\b)|{})",
            scan::INSTRUMENT
        ))
        .expect("valid regex")
    });
    const NOT_INSTRUMENTS: &[&str] =
        &["ADGM", "FSRA", "UAE", "DFSA", "EU", "UK", "US", "USA", "OECD", "FATF", "IOSCO"];
    scan::fast_captures(re, text)
        .filter_map(|c| {
            let d = c.name("doc")?;
            (!NOT_INSTRUMENTS.contains(&d.as_str())).then(|| (d.end(), d.as_str().to_string()))
        })
        .collect()
}

/// The instrument named last before `at` in the same sentence.
fn mention_before(text: &str, mentions: &[(usize, String)], at: usize) -> Option<String> {
    let (end, name) = mentions.iter().rev().find(|(end, _)| *end <= at)?;
    let between = &text[*end..at];
    let sentence_ends = between.contains(". ") || between.contains(";") || between.contains('\n');
    (!sentence_ends).then(|| name.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BlockKind, DocumentBuilder, Format};
    use crate::plaintext;

    fn labels(text: &str) -> Vec<String> {
        scan(text).into_iter().map(|r| r.label).collect()
    }

    #[test]
    fn the_spec_examples() {
        assert_eq!(labels("see Section 203(a) now"), vec!["Section 203(a)"]);
        assert_eq!(labels("under § 4.2 and §§ 4.2–4.5"), vec!["§ 4.2", "§ 4.2", "§ 4.5"]);
        assert_eq!(labels("Rule 2.1.3 applies"), vec!["Rule 2.1.3"]);
        assert_eq!(labels("Rules 2.2.6, 2.2.7 and 2.2.9"), vec!["Rule 2.2.6", "Rule 2.2.7", "Rule 2.2.9"]);
        assert_eq!(labels("in Chapter 5."), vec!["Chapter 5"]);
        assert_eq!(labels("see Appendix B"), vec!["Appendix B"]);
        assert!(labels("the Mooring Rules 2026 and Regulations 2015").is_empty());
        assert_eq!(labels("GEN 3.3.31 says"), vec!["GEN 3.3.31"]);
        assert_eq!(
            labels("as in 33 U.S.C. 2201 and 42 U.S.C. 4321 et seq."),
            vec!["33 U.S.C. 2201", "42 U.S.C. 4321 et seq."]
        );
        let r = scan("section 196 of the FSMR");
        assert_eq!(r[0].document.as_deref(), Some("FSMR"));
        let r = scan("paragraph (b)(2) of this section");
        assert!(r[0].relative);
        assert_eq!(r[0].tokens, vec!["b", "2"]);
        let r = scan("Section 48103(a) of title 49, United States Code");
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].document.as_deref(), Some("title 49, United States Code"));
        assert_eq!(
            labels("117 Stat. 2518 and Public Law 113-121"),
            vec!["117 Stat. 2518", "Public Law 113-121"]
        );
    }

    #[test]
    fn resolves_in_document() {
        let text =
            "1\tScope\n1.1\tGeneral\n1.1.1\t\n1.1.1.(1)\tSubject to (2), see Rule 1.2.1 and Chapter 2.\n\
                    1.1.1.(2)\tOther.\n1.2\tMore\n1.2.1\tThis Rule applies; see GEN 3.3.31.\n2\tTwo\n";
        let mut b = DocumentBuilder::new(Format::Text, "T", text.as_bytes());
        plaintext::parse_into(text, &mut b);
        let d = b.finish();
        let o = Outline::build(&d);
        let refs = find_references(&d, &o);
        let got: Vec<(String, Option<String>)> =
            refs.iter().map(|r| (r.label.clone(), r.target_section.clone())).collect();
        assert_eq!(
            got,
            vec![
                ("(2)".to_string(), Some("sec_1_1_1_2".to_string())),
                ("Rule 1.2.1".to_string(), Some("sec_1_2_1".to_string())),
                // Top-level numbered headings are the chapters of a rulebook.
                ("Chapter 2".to_string(), Some("sec_2".to_string())),
                ("GEN 3.3.31".to_string(), None),
            ]
        );
        assert_eq!(refs[3].document.as_deref(), Some("GEN"));
        assert_eq!(&d.text[refs[1].span.start..refs[1].span.end], "Rule 1.2.1");
    }

    #[test]
    fn a_filing_s_notes_and_items_are_links_when_its_outline_numbers_them() {
        // A 10-K's outline as the PDF converter makes it: Items and Notes numbered by label.
        let mut b = DocumentBuilder::new(Format::Pdf, "T", b"x");
        b.push(
            BlockKind::Heading { level: 1, number: Some("Item 7".into()) },
            "Item 7. Management's Discussion",
            None,
        );
        b.push(
            BlockKind::Paragraph,
            "Revenue grew. See Note 3 to the consolidated financial statements, and Notes 9 and 10.",
            None,
        );
        b.push(
            BlockKind::Heading { level: 1, number: Some("Item 8".into()) },
            "Item 8. Financial Statements",
            None,
        );
        b.push(BlockKind::Heading { level: 2, number: Some("Note 3".into()) }, "Note 3 – Revenue", None);
        b.push(
            BlockKind::Paragraph,
            "As Item 7 explains, and as Guidance Notes (viii) and (ix) do not.",
            None,
        );
        b.push(BlockKind::Heading { level: 2, number: Some("Note 9".into()) }, "Note 9 – Leases", None);
        let d = b.finish();
        let o = Outline::build(&d);
        let got: Vec<(String, Option<String>)> =
            find_references(&d, &o).into_iter().map(|r| (r.label, r.target_section)).collect();
        let id = |n: &str| o.sections.iter().find(|s| s.number.as_deref() == Some(n)).map(|s| s.id.clone());
        assert!(got.contains(&("Note 3".to_string(), id("Note 3"))), "{got:?}");
        assert!(got.contains(&("Note 9".to_string(), id("Note 9"))), "{got:?}");
        assert!(got.contains(&("Item 7".to_string(), id("Item 7"))), "{got:?}");
        // Note 10 names no section here: no reference (and no roman-numbered "Notes (viii)").
        assert!(!got.iter().any(|(l, _)| l == "Note 10" || l.contains("viii")), "{got:?}");
    }

    #[test]
    fn headings_cite_other_sections_but_not_themselves() {
        let text = "1\tScope\n1.1\tRule 1.1 in brief\n1.1.1\tA rule.\n1.2\tBreach of Rule 1.1\n\
                    1.2.1\tAnother rule.\n2\tSection 92(3) of the FSMR\n2.1\tText.\n";
        let mut b = DocumentBuilder::new(Format::Text, "T", text.as_bytes());
        plaintext::parse_into(text, &mut b);
        let d = b.finish();
        let o = Outline::build(&d);
        let got: Vec<(String, String, Option<String>)> = find_references(&d, &o)
            .into_iter()
            .map(|r| (r.label, r.from_section, r.target_section.or(r.document)))
            .collect();
        // "1.1 Rule 1.1 in brief" names itself; "1.2 Breach of Rule 1.1" cites its sibling.
        assert_eq!(
            got,
            vec![
                ("Rule 1.1".into(), "sec_1_2".into(), Some("sec_1_1".into())),
                ("Section 92(3)".into(), "sec_2".into(), Some("FSMR".into())),
            ]
        );
    }

    fn docs(text: &str) -> Vec<(String, Option<String>)> {
        scan(text).into_iter().map(|r| (r.label, r.document)).collect()
    }

    #[test]
    fn document_labels_before_and_after_the_container() {
        let s = |a: &str, b: Option<&str>| (a.to_string(), b.map(String::from));
        assert_eq!(docs("under GEN Rule 5.5.1, an Authorised Person"), vec![s("Rule 5.5.1", Some("GEN"))]);
        assert_eq!(docs("see MIR Rule 3.2 (Capital Requirements)"), vec![s("Rule 3.2", Some("MIR"))]);
        let r = scan("MKT Rule 4.3.1(13) applies");
        assert_eq!(r[0].tokens, vec!["4", "3", "1", "13"]);
        assert_eq!(r[0].document.as_deref(), Some("MKT"));
        assert_eq!(&"MKT Rule 4.3.1(13) applies"[r[0].start..r[0].end], "MKT Rule 4.3.1(13)");
        assert_eq!(docs("Rule 5.5.1 of GEN"), vec![s("Rule 5.5.1", Some("GEN"))]);
        assert_eq!(docs("Part 4 of the FSMR"), vec![s("Part 4", Some("FSMR"))]);
        assert_eq!(docs("in Part 4 of Schedule 1 of FSMR"), vec![s("Schedule 1, Part 4", Some("FSMR"))]);
        assert_eq!(
            docs("section 41(2) of the Commercial Licensing Regulations 2015"),
            vec![s("Section 41(2)", Some("Commercial Licensing Regulations 2015"))]
        );
        assert_eq!(
            docs("section 196 of the Financial Services and Markets Regulations 2015"),
            vec![s("Section 196", Some("Financial Services and Markets Regulations 2015"))]
        );
        assert_eq!(
            docs("Article 5(2) of Regulation (EU) 2016/679"),
            vec![s("Article 5(2)", Some("Regulation (EU) 2016/679"))]
        );
        assert_eq!(docs("section 12 of these Regulations"), vec![s("Section 12", None)]);
        assert_eq!(docs("THE Rule 2.1 and IN Rule 2.2"), vec![s("Rule 2.1", None), s("Rule 2.2", None)]);
        let r = scan("COBS Rules 6.1 and 6.2");
        assert_eq!(r.len(), 2);
        assert!(r.iter().all(|r| r.document.as_deref() == Some("COBS")));
    }

    fn analysed(text: &str) -> Vec<(String, Option<String>, Option<String>)> {
        let mut b = DocumentBuilder::new(Format::Text, "T", text.as_bytes());
        plaintext::parse_into(text, &mut b);
        let d = b.finish();
        let o = Outline::build(&d);
        find_references(&d, &o).into_iter().map(|r| (r.label, r.target_section, r.document)).collect()
    }

    #[test]
    fn the_sentence_names_the_instrument_and_short_titles_stand_for_their_names() {
        let got = analysed(
            "1\tScope\n1.1\tGeneral\n1.1.1\tA Captive Insurer must comply with the restrictions in FSMR on its \
             business and in particular with Part 4 (Authorisation). The Data Protection Regulations 2015 (the \
             \u{201c}Regulations\u{201d}) apply; see section 5 of the Regulations and Rule 1.1.2(3).\n1.1.2\tMore.\n",
        );
        assert_eq!(
            got,
            vec![
                ("Part 4".to_string(), None, Some("FSMR".to_string())),
                ("Section 5".to_string(), None, Some("Data Protection Regulations 2015".to_string())),
                // The most specific section that exists: 1.1.2 has no (3).
                ("Rule 1.1.2(3)".to_string(), Some("sec_1_1_2".to_string()), None),
            ]
        );
    }

    #[test]
    fn a_heading_that_names_an_instrument_scopes_the_references_below_it() {
        let got = analysed(
            "1\tScope\n1.1\tSummary of Powers under FSMR\n(Excluding Part 6)\n1.2\tDefinition of Regulated \
             Activity\nSee Part 7.\n",
        );
        // "Regulated Activity" is no instrument (an "Act" must end its word), so Part 7 names nothing.
        assert_eq!(
            got,
            vec![("Part 6".to_string(), None, Some("FSMR".to_string())), ("Part 7".to_string(), None, None)]
        );
        assert!(instrument_mentions("the definition of Regulated Activity").is_empty());
    }

    #[test]
    fn a_list_of_an_instruments_chapter_cites_it_even_where_this_document_has_the_numbers() {
        let got = analysed(
            "5\tOwn\n5.1\tOwn rule.\n5.4\tOwn\n5.4.1\tOwn rule.\n6\tUse\n6.1\tA Person must comply with the \
             requirements set out in MIR, Chapter 5:\n(a)\tRules 5.1 - 5.3; and\n(b)\tRule 5.4.1, and Rule 6.1 \
             here.\n",
        );
        let mir: Vec<&str> =
            got.iter().filter(|(_, _, d)| d.as_deref() == Some("MIR")).map(|(l, _, _)| l.as_str()).collect();
        assert_eq!(mir, vec!["Rule 5.1", "Rule 5.3", "Rule 5.4.1"], "{got:?}");
        // A rule outside the chapter named stays this document's.
        assert!(
            got.iter().any(|(l, t, d)| l == "Rule 6.1" && t.as_deref() == Some("sec_6_1") && d.is_none()),
            "{got:?}"
        );
    }

    #[test]
    fn a_list_opened_by_a_colon_or_a_dash_cites_the_instrument_its_paragraph_names() {
        for opener in [":", " -", " –"] {
            let got = analysed(&format!(
                "1\tScope\n1.1\tA Person must comply with the requirements set out in MIR{opener}\n\
                 (a)\tRules 5.1 - 5.3; and\n(b)\tRule 5.4.1.\n"
            ));
            assert!(
                got.iter().all(|(_, t, d)| t.is_none() && d.as_deref() == Some("MIR")),
                "{opener:?}: {got:?}"
            );
            assert_eq!(got.len(), 3, "{got:?}");
        }
    }

    #[test]
    fn a_reference_inside_named_containers_resolves_there() {
        let text = "Part 1\tGeneral\nPart 1.1.\tOne\nPart 4\tAuthorisation\nPart 4.5.\tFive\n\
                    Schedule 1\tActivities\nSchedule 1.Part 4\tDealing\nSchedule 1.Part 4.92.\tNinety-two\n";
        let mut b = DocumentBuilder::new(Format::Text, "T", text.as_bytes());
        plaintext::parse_into(text, &mut b);
        let d = b.finish();
        let o = Outline::build(&d);
        let index = SectionIndex::from_outline(&o);
        let id = |t: &str| {
            let r = &scan(t)[0];
            index.resolve(&Target::of(r), None).map(|i| o.sections[i].number.clone().unwrap_or_default())
        };
        assert_eq!(id("Part 4 of the FSMR").as_deref(), Some("Part 4"));
        assert_eq!(id("Part 4 of Schedule 1 of FSMR").as_deref(), Some("Schedule 1.Part 4"));
        assert_eq!(id("paragraph 92 of Schedule 1 of FSMR").as_deref(), Some("Schedule 1.Part 4.92."));
        assert_eq!(id("section 5 of FSMR").as_deref(), Some("Part 4.5."));
        let t = Target::from_label("Schedule 1, Part 4", Some(RefContainer::Part));
        assert_eq!(
            index.resolve(&t, None).map(|i| o.sections[i].number.clone().unwrap()).as_deref(),
            Some("Schedule 1.Part 4")
        );
    }
}
