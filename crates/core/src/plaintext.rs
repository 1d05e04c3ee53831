//! Structure inference for plain text.

use crate::model::{BlockKind, DocumentBuilder};

/// Parses plain text into blocks.
pub fn parse_into(text: &str, builder: &mut DocumentBuilder) {
    for para in text.split("\n\n") {
        builder.push(BlockKind::Paragraph, para, None);
    }
}
