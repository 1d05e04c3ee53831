//! The block list the structured converters (DOCX, HTML, EPUB, Markdown, USLM) hand to the
//! document builder, with heading levels renormalised and heading numbers read from the text.

use folio_core::model::{BlockKind, DocumentBuilder};
use folio_core::numbering::split_heading_number;

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

#[cfg(test)]
mod tests {
    use super::*;

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
