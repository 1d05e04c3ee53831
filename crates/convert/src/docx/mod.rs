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

mod body;
mod numbering;
mod styles;
use body::*;
use numbering::*;
use styles::*;

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

// ----------------------------------------------------------------------------------------------
// Numbering

// ----------------------------------------------------------------------------------------------
// The document body

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
