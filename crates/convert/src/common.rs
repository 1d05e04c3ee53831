//! Helpers shared by the structured converters (DOCX, HTML, EPUB, Markdown): bounded zip reading,
//! list-number formatting, heading-number labels, and the block list they all hand to the builder.

use crate::ErrorKind;
use folio_core::model::{BlockKind, DocumentBuilder};
use folio_core::numbering::split_heading_number;
use std::io::{Cursor, Read};

/// A zip archive whose members are read under an inflation budget: each member's declared size is
/// checked before reading and the actual bytes are read through `Read::take`, so a member whose
/// header lies about its size is still stopped at the limit.
pub(crate) struct Archive<'a> {
    zip: zip::ZipArchive<Cursor<&'a [u8]>>,
    limit: u64,
    used: u64,
}

impl<'a> Archive<'a> {
    /// Opens an archive; `limit` bounds the inflated bytes of all members read together.
    pub(crate) fn open(bytes: &'a [u8], limit: u64) -> Result<Self, ErrorKind> {
        let zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(zip_error)?;
        Ok(Archive { zip, limit, used: 0 })
    }

    /// The stored name of a member, matched exactly, else case-insensitively.
    fn find_name(&self, name: &str) -> Option<String> {
        if self.zip.index_for_name(name).is_some() {
            return Some(name.to_string());
        }
        self.zip.file_names().find(|n| n.eq_ignore_ascii_case(name)).map(str::to_string)
    }

    /// Whether a member exists.
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.find_name(name).is_some()
    }

    /// Reads one member, `None` when it is absent.
    pub(crate) fn read(&mut self, name: &str) -> Result<Option<Vec<u8>>, ErrorKind> {
        let Some(stored) = self.find_name(name) else {
            return Ok(None);
        };
        let remaining = self.limit.saturating_sub(self.used);
        let file = match self.zip.by_name(&stored) {
            Ok(f) => f,
            Err(zip::result::ZipError::FileNotFound) => return Ok(None),
            Err(e) => return Err(zip_error(e)),
        };
        if file.size() > remaining {
            return Err(ErrorKind::ZipBomb { limit: self.limit });
        }
        let mut out = Vec::with_capacity(file.size().min(16 * 1024 * 1024) as usize);
        let mut limited = file.take(remaining.saturating_add(1));
        limited
            .read_to_end(&mut out)
            .map_err(|e| ErrorKind::Corrupt(format!("cannot inflate archive member {stored}: {e}")))?;
        if out.len() as u64 > remaining {
            return Err(ErrorKind::ZipBomb { limit: self.limit });
        }
        self.used += out.len() as u64;
        Ok(Some(out))
    }
}

fn zip_error(e: zip::result::ZipError) -> ErrorKind {
    use zip::result::ZipError;
    match e {
        ZipError::InvalidPassword => ErrorKind::Encrypted,
        ZipError::UnsupportedArchive(msg) if msg == ZipError::PASSWORD_REQUIRED => ErrorKind::Encrypted,
        ZipError::UnsupportedArchive(msg) => ErrorKind::Unsupported(format!("zip archive: {msg}")),
        other => ErrorKind::Corrupt(format!("not a readable zip archive: {other}")),
    }
}

/// Runs a converter body, turning a panic in a parsing library into a typed error: no input may
/// take the process down.
pub(crate) fn guard<T>(f: impl FnOnce() -> Result<T, ErrorKind>) -> Result<T, ErrorKind> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .unwrap_or_else(|_| Err(ErrorKind::Corrupt("the file's structure could not be parsed".into())))
}

/// Formats a list counter the way Word's `numFmt` (and HTML's `ol type`) prints it.
pub(crate) fn format_number(n: i64, fmt: &str) -> String {
    match fmt {
        "lowerLetter" | "a" => letters(n, false),
        "upperLetter" | "A" => letters(n, true),
        "lowerRoman" | "i" => roman(n).to_ascii_lowercase(),
        "upperRoman" | "I" => roman(n),
        "decimalZero" => format!("{n:02}"),
        "none" => String::new(),
        _ => n.to_string(),
    }
}

/// a..z, then aa, bb, ... (Word repeats the letter rather than counting in base 26).
fn letters(n: i64, upper: bool) -> String {
    if n <= 0 {
        return n.to_string();
    }
    let idx = ((n - 1) % 26) as u8;
    let count = ((n - 1) / 26 + 1).min(50) as usize;
    let base = if upper { b'A' } else { b'a' };
    std::iter::repeat_n((base + idx) as char, count).collect()
}

fn roman(n: i64) -> String {
    if !(1..4000).contains(&n) {
        return n.to_string();
    }
    const TABLE: [(i64, &str); 13] = [
        (1000, "M"),
        (900, "CM"),
        (500, "D"),
        (400, "CD"),
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ];
    let mut n = n;
    let mut s = String::new();
    for (v, r) in TABLE {
        while n >= v {
            s.push_str(r);
            n -= v;
        }
    }
    s
}

/// A printed label as a heading number: trimmed, without a trailing dot or colon ("1.1." → "1.1").
pub(crate) fn clean_label(label: &str) -> Option<String> {
    let l = label.trim().trim_end_matches(['.', ':']).trim();
    (!l.is_empty()).then(|| l.to_string())
}

/// The numbering label a heading's text starts with, if any.
pub(crate) fn heading_number(text: &str) -> Option<String> {
    let collapsed = folio_core::model::collapse_whitespace(text);
    split_heading_number(&collapsed).and_then(|h| clean_label(h.label))
}

/// A block before heading levels are renormalised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RawBlock {
    pub kind: BlockKind,
    pub text: String,
}

/// Pushes blocks to the builder, shifting heading levels so that the top level used is 1 and
/// filling in heading numbers from the heading text where the source gave none.
pub(crate) fn push_blocks(builder: &mut DocumentBuilder, blocks: Vec<RawBlock>) {
    let min = blocks.iter().filter_map(|b| b.kind.heading_level()).min().unwrap_or(1).max(1);
    for b in blocks {
        let kind = match b.kind {
            BlockKind::Heading { level, number } => BlockKind::Heading {
                level: level.saturating_sub(min - 1).max(1),
                number: number.or_else(|| heading_number(&b.text)),
            },
            other => other,
        };
        builder.push(kind, &b.text, None);
    }
}

/// A path inside an archive with `.` and `..` segments applied and empty segments dropped.
pub(crate) fn normalize_archive_path(joined: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for seg in joined.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_formats() {
        assert_eq!(format_number(3, "decimal"), "3");
        assert_eq!(format_number(2, "lowerLetter"), "b");
        assert_eq!(format_number(28, "upperLetter"), "BB");
        assert_eq!(format_number(4, "lowerRoman"), "iv");
        assert_eq!(format_number(14, "upperRoman"), "XIV");
        assert_eq!(format_number(5, "decimalZero"), "05");
    }

    #[test]
    fn labels() {
        assert_eq!(clean_label(" 1.1. "), Some("1.1".into()));
        assert_eq!(heading_number("1.1. Scope"), Some("1.1".into()));
        assert_eq!(heading_number("Scope"), None);
    }

    #[test]
    fn levels_renormalised() {
        let mut b = DocumentBuilder::new(folio_core::model::Format::Html, "", b"x");
        push_blocks(
            &mut b,
            vec![
                RawBlock { kind: BlockKind::Heading { level: 2, number: None }, text: "2 A".into() },
                RawBlock { kind: BlockKind::Heading { level: 3, number: None }, text: "B".into() },
            ],
        );
        let d = b.finish();
        assert_eq!(d.blocks[0].kind, BlockKind::Heading { level: 1, number: Some("2".into()) });
        assert_eq!(d.blocks[1].kind, BlockKind::Heading { level: 2, number: None });
    }
}
