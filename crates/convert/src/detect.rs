//! Which format a file really is: from its bytes first, its extension second.

use crate::ErrorKind;
use folio_core::model::Format;

/// The format an extension names, if Folio reads it.
pub fn format_from_extension(name: &str) -> Option<Format> {
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase())?;
    Some(match ext.as_str() {
        "pdf" => Format::Pdf,
        "docx" => Format::Docx,
        "html" | "htm" | "xhtml" => Format::Html,
        "epub" => Format::Epub,
        "md" | "markdown" => Format::Markdown,
        "txt" | "text" => Format::Text,
        "xml" => Format::Xml,
        _ => return None,
    })
}

/// What the bytes look like, where they decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sniffed {
    Pdf,
    Zip,
    Html,
    Text,
    /// An OLE compound file: legacy Office, or encrypted OOXML.
    Ole,
    Binary,
}

fn sniff(bytes: &[u8]) -> Sniffed {
    let head = &bytes[..bytes.len().min(1024)];
    if find(head, b"%PDF-").is_some() {
        return Sniffed::Pdf;
    }
    if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        return Sniffed::Zip;
    }
    if head.starts_with(crate::docx::OLE_MAGIC) {
        return Sniffed::Ole;
    }
    let lower: Vec<u8> = head.iter().map(u8::to_ascii_lowercase).collect();
    let trimmed = trim_start(&lower);
    if trimmed.starts_with(b"<!doctype html")
        || trimmed.starts_with(b"<html")
        || find(&lower, b"<html").is_some()
    {
        return Sniffed::Html;
    }
    if looks_textual(head) {
        Sniffed::Text
    } else {
        Sniffed::Binary
    }
}

fn trim_start(b: &[u8]) -> &[u8] {
    let b = b.strip_prefix(b"\xef\xbb\xbf").unwrap_or(b);
    let start = b.iter().position(|c| !c.is_ascii_whitespace()).unwrap_or(b.len());
    &b[start..]
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Text if it has no NULs and few control bytes; UTF-16 with a BOM if, decoded, few of its
/// characters are controls, private-use, noncharacters or broken surrogate pairs (binary bytes
/// that happen to start with `FF FE` decode to those about one time in eight).
fn looks_textual(head: &[u8]) -> bool {
    if head.starts_with(b"\xff\xfe") || head.starts_with(b"\xfe\xff") {
        let text = crate::text::decode_text(&head[..head.len() & !1]);
        let odd = |c: char| {
            (c < ' ' && !matches!(c, '\n' | '\r' | '\t' | '\x0c'))
                || matches!(c, '\u{e000}'..='\u{f8ff}' | '\u{fdd0}'..='\u{fdef}' | '\u{fffd}'..='\u{ffff}')
        };
        let (chars, odd) = text.chars().fold((0usize, 0usize), |(n, o), c| (n + 1, o + odd(c) as usize));
        return odd * 20 <= chars;
    }
    if head.contains(&0) {
        return false;
    }
    let controls = head.iter().filter(|&&c| c < 0x20 && !matches!(c, b'\n' | b'\r' | b'\t' | 0x0c)).count();
    controls * 20 <= head.len()
}

/// The root element of a text that is XML.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct XmlRoot {
    /// The root is a USLM document (by name or namespace).
    uslm: bool,
    /// The text starts with an XML declaration (`<?xml`).
    declared: bool,
    /// The root is `<html>` (XHTML).
    html: bool,
}

/// Finds the root element of bytes that look like XML: after an optional BOM, declaration,
/// processing instructions, comments and doctype, a start tag. `None` when they do not start so.
fn xml_root(bytes: &[u8]) -> Option<XmlRoot> {
    const HEAD: usize = 8 * 1024;
    let decoded;
    let head = if bytes.starts_with(b"\xff\xfe") || bytes.starts_with(b"\xfe\xff") {
        let n = bytes.len().min(2 * HEAD) & !1;
        decoded = crate::text::decode_text(&bytes[..n]).into_bytes();
        &decoded[..]
    } else {
        &bytes[..bytes.len().min(HEAD)]
    };
    let start = trim_start(head);
    let declared = start.starts_with(b"<?xml");
    let mut rest = start;
    loop {
        rest = trim_start(rest);
        let skip_to: &[u8] = if rest.starts_with(b"<?") {
            b"?>"
        } else if rest.starts_with(b"<!--") {
            b"-->"
        } else if rest.starts_with(b"<!") {
            // A doctype, perhaps with an internal subset in brackets.
            if let (Some(open), close) =
                (rest.iter().position(|&c| c == b'['), rest.iter().position(|&c| c == b'>'))
            {
                if close.is_none_or(|c| open < c) {
                    rest = &rest[find(rest, b"]").map_or(rest.len(), |i| i + 1)..];
                }
            }
            b">"
        } else {
            break;
        };
        let end = find(rest, skip_to)?;
        rest = &rest[end + skip_to.len()..];
    }
    let tag = rest.strip_prefix(b"<")?;
    if !tag.first().is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_' || c >= 0x80) {
        return None;
    }
    let tag = &tag[..tag.iter().position(|&c| c == b'>').unwrap_or(tag.len())];
    let name_end = tag.iter().position(|&c| c.is_ascii_whitespace() || c == b'/').unwrap_or(tag.len());
    let qname = String::from_utf8_lossy(&tag[..name_end]);
    let local = qname.rsplit(':').next().unwrap_or_default();
    let tag_text = String::from_utf8_lossy(tag);
    Some(XmlRoot {
        uslm: crate::uslm::is_uslm_root(local, &tag_text),
        declared,
        html: local.eq_ignore_ascii_case("html"),
    })
}

/// Decides the format of a file from its name and bytes, refusing mismatches such as random bytes
/// named `.pdf` or a PDF named `.docx`.
pub fn detect_format(name: &str, bytes: &[u8]) -> Result<Format, ErrorKind> {
    let by_ext = format_from_extension(name);
    let sniffed = sniff(bytes);
    let ext_name = || name.rsplit_once('.').map(|(_, e)| e.to_string()).unwrap_or_else(|| "none".into());
    let mismatch = |actual: &str| ErrorKind::WrongExtension { extension: ext_name(), actual: actual.into() };
    if matches!(sniffed, Sniffed::Text | Sniffed::Html) {
        if let Some(root) = xml_root(bytes).filter(|r| !r.html) {
            let not_uslm = || ErrorKind::Unsupported("XML that is not USLM".into());
            match by_ext {
                Some(Format::Xml) | None if root.uslm => return Ok(Format::Xml),
                Some(Format::Xml) => return Err(not_uslm()),
                None if root.declared => return Err(not_uslm()),
                Some(Format::Pdf | Format::Docx | Format::Epub) if bytes.len() >= 8 => {
                    return Err(mismatch("XML"))
                }
                _ => {}
            }
        }
    }
    match (by_ext, sniffed) {
        (Some(Format::Pdf), Sniffed::Pdf) | (None, Sniffed::Pdf) => Ok(Format::Pdf),
        (Some(Format::Docx), Sniffed::Zip) => Ok(Format::Docx),
        (Some(Format::Epub), Sniffed::Zip) => Ok(Format::Epub),
        (None, Sniffed::Zip) => zip_kind(bytes).ok_or_else(|| ErrorKind::Unsupported("a zip archive".into())),
        (Some(Format::Html), Sniffed::Html | Sniffed::Text) => Ok(Format::Html),
        (Some(f @ (Format::Markdown | Format::Text)), Sniffed::Text | Sniffed::Html) => Ok(f),
        (None, Sniffed::Html) => Ok(Format::Html),
        (None, Sniffed::Text) => Ok(Format::Text),
        (None, Sniffed::Binary) => Err(ErrorKind::Unsupported(format!("'.{}' files", ext_name()))),
        (Some(Format::Pdf | Format::Docx | Format::Epub), Sniffed::Text | Sniffed::Html)
            if bytes.len() < 8 =>
        {
            Err(ErrorKind::Corrupt("too short to be a valid file".into()))
        }
        (Some(_), Sniffed::Pdf) => Err(mismatch("a PDF")),
        (Some(_), Sniffed::Zip) => Err(mismatch(match zip_kind(bytes) {
            Some(Format::Docx) => "a Word document",
            Some(Format::Epub) => "an EPUB book",
            _ => "a zip archive",
        })),
        (Some(_), Sniffed::Html) => Err(mismatch("HTML")),
        (Some(_), Sniffed::Text) => Err(mismatch("plain text")),
        (Some(_), Sniffed::Binary) => Err(mismatch("unrecognised binary data")),
        // A password-protected .docx is an OLE file holding the encrypted package.
        (Some(Format::Docx) | None, Sniffed::Ole) if crate::docx::is_encrypted_ooxml(bytes) => {
            Err(ErrorKind::Encrypted)
        }
        (None, Sniffed::Ole) => Err(ErrorKind::Unsupported("legacy Office (OLE) files".into())),
        (Some(_), Sniffed::Ole) => Err(mismatch("a legacy Office (OLE) file")),
    }
}

/// DOCX or EPUB, judged by the member names in the zip's first bytes.
fn zip_kind(bytes: &[u8]) -> Option<Format> {
    let head = &bytes[..bytes.len().min(64 * 1024)];
    if find(head, b"application/epub+zip").is_some() || find(head, b"META-INF/container.xml").is_some() {
        Some(Format::Epub)
    } else if find(head, b"word/").is_some() || find(head, b"[Content_Types].xml").is_some() {
        Some(Format::Docx)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extension_and_bytes_must_agree() {
        assert_eq!(detect_format("a.pdf", b"%PDF-1.7\n..."), Ok(Format::Pdf));
        assert_eq!(detect_format("a.txt", b"hello\nworld"), Ok(Format::Text));
        assert_eq!(detect_format("a.md", b"# Title"), Ok(Format::Markdown));
        assert!(matches!(
            detect_format("a.pdf", &[0x9c, 0x00, 0xff, 0x12, 0x01, 0x02, 0x03, 0x04, 0x05]),
            Err(ErrorKind::WrongExtension { .. })
        ));
        assert!(matches!(detect_format("a.docx", b"%PDF-1.4 xx"), Err(ErrorKind::WrongExtension { .. })));
        assert!(matches!(detect_format("a.xyz", &[0u8, 1, 2, 3]), Err(ErrorKind::Unsupported(_))));
    }

    #[test]
    fn utf16_text_by_its_characters() {
        let utf16 = |s: &str| -> Vec<u8> {
            let mut b = vec![0xff, 0xfe];
            b.extend(s.encode_utf16().flat_map(u16::to_le_bytes));
            b
        };
        assert_eq!(detect_format("notes.txt", &utf16("Règle 5.1\nLe client…\n")), Ok(Format::Text));
        assert_eq!(detect_format("notes", &utf16("規則 5.1\n顧客\n")), Ok(Format::Text));
        // Binary that starts like a BOM: NULs, private-use characters, broken surrogates.
        let mut binary = vec![0xff, 0xfe, 0, 0, 0, 0, 0, 0, 0x12, 0x69, 0xea, 0x98];
        binary.extend((0..4000u32).flat_map(|i| i.wrapping_mul(2_654_435_761).rotate_left(13).to_le_bytes()));
        assert!(matches!(detect_format("random.bin", &binary), Err(ErrorKind::Unsupported(_))));
        assert!(matches!(detect_format("random", &binary[..14]), Err(ErrorKind::Unsupported(_))));
    }

    #[test]
    fn uslm_xml() {
        let law = br#"<?xml version="1.0"?><!-- c --><?xml-stylesheet href="x"?><pLaw xmlns="http://schemas.gpo.gov/xml/uslm"><main/></pLaw>"#;
        assert_eq!(detect_format("law.xml", law), Ok(Format::Xml));
        assert_eq!(detect_format("law", law), Ok(Format::Xml));
        assert_eq!(detect_format("bill.xml", b"<bill><main/></bill>"), Ok(Format::Xml));
        assert_eq!(
            detect_format("doc.xml", b"<doc xmlns='http://xml.house.gov/schemas/uslm/1.0'/>"),
            Ok(Format::Xml)
        );
        let not_uslm = Err(ErrorKind::Unsupported("XML that is not USLM".into()));
        assert_eq!(detect_format("feed.xml", b"<?xml version='1.0'?><rss><channel/></rss>"), not_uslm);
        assert_eq!(detect_format("feed.xml", b"<rss><channel/></rss>"), not_uslm);
        assert_eq!(detect_format("feed", b"<?xml version='1.0'?><rss><channel/></rss>"), not_uslm);
        // Not declared and not USLM: text as before; XHTML stays HTML.
        assert_eq!(detect_format("notes", b"<b>Bold</b> words"), Ok(Format::Text));
        let xhtml = br#"<?xml version="1.0"?><!DOCTYPE html><html xmlns="http://www.w3.org/1999/xhtml"><body/></html>"#;
        assert_eq!(detect_format("page.xhtml", xhtml), Ok(Format::Html));
        assert_eq!(detect_format("page", xhtml), Ok(Format::Html));
        assert!(matches!(detect_format("page.xml", xhtml), Err(ErrorKind::WrongExtension { .. })));
        assert!(matches!(detect_format("law.pdf", law), Err(ErrorKind::WrongExtension { .. })));
        assert_eq!(detect_format("law.txt", law), Ok(Format::Text));
        assert!(matches!(detect_format("a.xml", b"just words"), Err(ErrorKind::WrongExtension { .. })));
        let mut utf16 = vec![0xff, 0xfe];
        utf16.extend("<bill/>".encode_utf16().flat_map(u16::to_le_bytes));
        assert_eq!(detect_format("b.xml", &utf16), Ok(Format::Xml));
    }
}
