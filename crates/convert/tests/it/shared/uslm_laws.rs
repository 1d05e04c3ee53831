//! The two public laws in `../shared/data/uslm`, converted and checked against counts taken from the
//! XML independently of the converter.

use folio_convert::{convert_file, detect_format, ConvertOptions};
use folio_core::model::{collapse_whitespace, BlockKind, Format};
use quick_xml::events::Event;
use quick_xml::Reader;
use std::path::{Path, PathBuf};

fn shared() -> PathBuf {
    folio_testkit::paths::require_shared("data/uslm")
}

const LAWS: [&str; 2] = ["113publ121-uslm.xml", "114publ190-uslm.xml"];

/// Facts read from the XML with a plain event loop, independently of the converter.
#[derive(Debug, Default)]
struct Truth {
    /// `<section>`s with a `<num>`, outside quoted content.
    sections: usize,
    /// All structural levels (title … section) with a `<num>`, outside quoted content.
    levels: usize,
    first_section: Option<String>,
    /// Texts of `<term>` and `<ref>` elements outside side notes, tables of contents and metadata.
    terms: Vec<String>,
    refs: Vec<String>,
}

fn truth(path: &Path) -> Truth {
    const LEVELS: [&str; 9] = [
        "title",
        "subtitle",
        "division",
        "subdivision",
        "part",
        "subpart",
        "chapter",
        "subchapter",
        "section",
    ];
    let mut reader = Reader::from_file(path).expect("opens");
    let mut buf = Vec::new();
    let mut t = Truth::default();
    let (mut quoted, mut skipped) = (0usize, 0usize);
    let mut open: Vec<String> = Vec::new();
    // Open <term>s and <ref>s with their text so far.
    let mut capture: Vec<(String, String)> = Vec::new();
    // The first section's <num> and <heading> texts, and which one is being read.
    let (mut first_num, mut first_heading) = (String::new(), String::new());
    let mut reading: Option<bool> = None;
    let mut first_done = false;
    loop {
        match reader.read_event_into(&mut buf).expect("well-formed XML") {
            Event::Start(e) => {
                let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
                let parent = open.last().map(String::as_str).unwrap_or("");
                match name.as_str() {
                    "quotedContent" => quoted += 1,
                    "sidenote" | "toc" | "meta" => skipped += 1,
                    "num" if quoted == 0 && LEVELS.contains(&parent) => {
                        t.levels += 1;
                        if parent == "section" {
                            t.sections += 1;
                            if !first_done {
                                reading = Some(true);
                            }
                        }
                    }
                    "heading"
                        if quoted == 0 && parent == "section" && !first_done && !first_num.is_empty() =>
                    {
                        reading = Some(false);
                    }
                    "term" | "ref" if skipped == 0 => capture.push((name.clone(), String::new())),
                    _ => {}
                }
                open.push(name);
            }
            Event::End(_) => {
                let name = open.pop().unwrap_or_default();
                match name.as_str() {
                    "quotedContent" => quoted -= 1,
                    "sidenote" | "toc" | "meta" => skipped -= 1,
                    "num" | "heading" if reading.is_some() && !open.iter().any(|n| n == "sidenote") => {
                        if reading == Some(false) {
                            first_done = true;
                        }
                        reading = None;
                    }
                    "term" | "ref" if skipped == 0 => {
                        if let Some((kind, text)) = capture.pop() {
                            let text = collapse_whitespace(&text.replace('\u{ad}', ""));
                            if kind == "term" {
                                t.terms.push(text);
                            } else {
                                t.refs.push(text);
                            }
                        }
                    }
                    _ => {}
                }
            }
            Event::Text(x) if skipped == 0 => {
                let s = x.unescape().expect("text").into_owned();
                for c in capture.iter_mut() {
                    c.1.push_str(&s);
                }
                match reading {
                    Some(true) => first_num.push_str(&s),
                    Some(false) => first_heading.push_str(&s),
                    None => {}
                }
            }
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    let (num, heading) = (collapse_whitespace(&first_num), collapse_whitespace(&first_heading));
    t.first_section = Some(format!("{num} {heading}"));
    t
}

#[test]
#[ignore = "needs ../shared; scripts/test.sh runs it"]
fn public_laws() {
    let dir = shared();
    for law in LAWS {
        let path = dir.join(law);
        let bytes = std::fs::read(&path).expect("reads");
        assert_eq!(detect_format(law, &bytes), Ok(Format::Xml));
        assert_eq!(detect_format("no-extension", &bytes), Ok(Format::Xml));
        let doc = convert_file(&path, &ConvertOptions::default()).expect("converts");
        let truth = truth(&path);
        assert!(doc.meta.title.starts_with("Public Law 11"), "title {:?}", doc.meta.title);

        let headings: Vec<(&str, Option<&str>)> = doc
            .blocks_with_text()
            .filter_map(|(b, t)| match &b.kind {
                BlockKind::Heading { number, .. } => Some((t, number.as_deref())),
                _ => None,
            })
            .collect();
        let sections = headings.iter().filter(|(_, n)| n.is_some_and(|n| n.starts_with("SEC"))).count();
        eprintln!(
            "{law}: {} blocks, {} headings ({sections} sections; the XML has {} levels, {} sections outside quoted content)",
            doc.blocks.len(),
            headings.len(),
            truth.levels,
            truth.sections
        );
        assert_eq!(headings.len(), truth.levels);
        assert_eq!(sections, truth.sections);
        assert_eq!(Some(headings[0].0.to_string()), truth.first_section);
        assert!(doc.blocks.iter().all(|b| b.kind.heading_level().is_none_or(|l| l >= 1)));
        assert_eq!(doc.blocks.iter().filter_map(|b| b.kind.heading_level()).min(), Some(1));

        // Markers of the page, side notes and tables of contents are gone.
        assert!(!doc.text.contains(" STAT. "), "a page marker survived");
        assert!(!doc.text.contains("<"), "a tag survived");

        let text = collapse_whitespace(&doc.text);
        let missing_terms: Vec<&String> = truth.terms.iter().filter(|t| !text.contains(t.as_str())).collect();
        let missing_refs: Vec<&String> = truth.refs.iter().filter(|r| !text.contains(r.as_str())).collect();
        eprintln!(
            "{law}: {} <term>s, {} missing {:?}; {} <ref>s, {} missing {:?}",
            truth.terms.len(),
            missing_terms.len(),
            missing_terms,
            truth.refs.len(),
            missing_refs.len(),
            missing_refs
        );
        assert!(!truth.terms.is_empty() && !truth.refs.is_empty());
        assert!(missing_terms.is_empty());
        assert!(missing_refs.is_empty());
    }
}
