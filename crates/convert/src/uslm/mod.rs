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

mod parser;
mod vocabulary;
use parser::*;
use vocabulary::*;

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
