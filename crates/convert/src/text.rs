//! Plain text: decoded (UTF-8, UTF-16 with a BOM, else Windows-1252), then structured by
//! [`folio_core::plaintext`], which infers headings from numbering and layout.

use crate::{ConvertOptions, Converter, ErrorKind};
use folio_core::model::{Document, DocumentBuilder, Format};

/// Converts plain text files.
#[derive(Debug, Default, Clone, Copy)]
pub struct TextConverter;

impl Converter for TextConverter {
    fn format(&self) -> Format {
        Format::Text
    }

    fn convert(&self, name: &str, bytes: &[u8], _options: &ConvertOptions) -> Result<Document, ErrorKind> {
        let text = decode_text(bytes);
        if text.trim().is_empty() {
            return Err(ErrorKind::Empty);
        }
        let mut builder = DocumentBuilder::new(Format::Text, "", bytes);
        folio_core::plaintext::parse_into(&text, &mut builder);
        if builder.blocks().is_empty() {
            return Err(ErrorKind::Empty);
        }
        let title = match builder.title() {
            "" => text_title(&text, name),
            // A title heading as printed: without a version in brackets, in title case where it
            // is set in capitals.
            printed => {
                let t = folio_core::titles::strip_version(printed);
                if t.chars().any(|c| c.is_lowercase()) {
                    t
                } else {
                    folio_core::titles::title_case(&t, &text)
                }
            }
        };
        builder.set_title(title);
        Ok(builder.finish())
    }
}

/// A plain text's title: the title line at its head, else a title its opening declares ("These
/// Rules may be cited as …"), else its file name without versions and dates.
fn text_title(text: &str, name: &str) -> String {
    use folio_core::titles::{declared_title, head_title, strip_version};
    let opening: String = text.chars().take(4000).collect();
    head_title(&opening)
        .or_else(|| declared_title(&opening))
        .unwrap_or_else(|| strip_version(&file_stem(name)))
}

/// A file name without its extension, the title of last resort.
pub fn file_stem(name: &str) -> String {
    name.rsplit_once('.').map(|(s, _)| s).unwrap_or(name).to_string()
}

/// Decodes text bytes: UTF-8 (BOM stripped), UTF-16 LE/BE with a BOM, else Windows-1252.
pub fn decode_text(bytes: &[u8]) -> String {
    if let Some(rest) = bytes.strip_prefix(b"\xef\xbb\xbf") {
        return String::from_utf8_lossy(rest).into_owned();
    }
    if let Some(rest) = bytes.strip_prefix(b"\xff\xfe") {
        let units: Vec<u16> = rest.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
        return String::from_utf16_lossy(&units);
    }
    if let Some(rest) = bytes.strip_prefix(b"\xfe\xff") {
        let units: Vec<u16> = rest.chunks_exact(2).map(|c| u16::from_be_bytes([c[0], c[1]])).collect();
        return String::from_utf16_lossy(&units);
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => bytes.iter().map(|&b| windows_1252(b)).collect(),
    }
}

fn windows_1252(b: u8) -> char {
    const HIGH: [char; 32] = [
        '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8d}', 'Ž', '\u{8f}',
        '\u{90}', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9d}', 'ž', 'Ÿ',
    ];
    match b {
        0x80..=0x9f => HIGH[(b - 0x80) as usize],
        _ => b as char,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_utf16_and_cp1252() {
        assert_eq!(decode_text(b"\xff\xfeh\0i\0"), "hi");
        assert_eq!(decode_text(b"caf\xe9 \x93q\x94"), "café “q”");
        assert_eq!(decode_text("\u{feff}x".as_bytes()), "x");
    }
}
