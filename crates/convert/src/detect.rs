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

/// Text if it has no NULs (or is UTF-16 with a BOM) and few control bytes.
fn looks_textual(head: &[u8]) -> bool {
    if head.starts_with(b"\xff\xfe") || head.starts_with(b"\xfe\xff") {
        return true;
    }
    if head.contains(&0) {
        return false;
    }
    let controls = head.iter().filter(|&&c| c < 0x20 && !matches!(c, b'\n' | b'\r' | b'\t' | 0x0c)).count();
    controls * 20 <= head.len()
}

/// Decides the format of a file from its name and bytes, refusing mismatches such as random bytes
/// named `.pdf` or a PDF named `.docx`.
pub fn detect_format(name: &str, bytes: &[u8]) -> Result<Format, ErrorKind> {
    let by_ext = format_from_extension(name);
    let sniffed = sniff(bytes);
    let ext_name = || name.rsplit_once('.').map(|(_, e)| e.to_string()).unwrap_or_else(|| "none".into());
    let mismatch = |actual: &str| ErrorKind::WrongExtension { extension: ext_name(), actual: actual.into() };
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
}
