//! Tokens in the embedding model's own units.
//!
//! [`WordPieceTokenizer`] is the one tokenizer: BERT's uncased WordPiece as Hugging Face's
//! `tokenizers` runs it for all-MiniLM-L6-v2 (checked id for id against it in `folio-ai`'s tests).
//! The chunker sizes chunks with it (as a [`TokenCounter`]) and the encoder embeds its ids, so a
//! chunk of "256 pieces" is 256 of the model's pieces. [`WordCounter`] is a vocabulary-free
//! estimate for tests and for when the model's assets are absent.

mod wordpiece;

pub use wordpiece::{Encoding, VocabularyError, WordPieceTokenizer};

/// Counts tokens of a text.
pub trait TokenCounter: Send + Sync {
    /// Tokens of `text`, without the special tokens ([CLS], [SEP]).
    fn count(&self, text: &str) -> usize;
    /// A short description for reports ("wordpiece (30522 pieces)").
    fn describe(&self) -> String;
}

/// An estimate without a vocabulary: 4/3 tokens per word, one per punctuation mark.
#[derive(Debug, Default, Clone, Copy)]
pub struct WordCounter;

impl TokenCounter for WordCounter {
    fn count(&self, text: &str) -> usize {
        let mut words = 0usize;
        let mut puncts = 0usize;
        let mut in_word = false;
        for c in text.chars() {
            if c.is_alphanumeric() {
                if !in_word {
                    words += 1;
                    in_word = true;
                }
            } else {
                in_word = false;
                if !c.is_whitespace() {
                    puncts += 1;
                }
            }
        }
        (words * 4).div_ceil(3) + puncts
    }
    fn describe(&self) -> String {
        "word estimate (4/3 per word)".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_estimate() {
        assert_eq!(WordCounter.count("one two three."), 5);
    }
}
