//! Token counting in the embedding model's own units.
//!
//! [`WordPieceCounter`] reproduces BERT's uncased tokenizer (basic tokenizer: lower-casing, accent
//! stripping, punctuation and CJK splitting; then greedy longest-match WordPiece over the model's
//! vocabulary), as used by all-MiniLM-L6-v2. It only counts, so it needs no ids. [`WordCounter`] is
//! a vocabulary-free estimate for tests and for when the model's assets are absent.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

/// A fast, non-cryptographic hasher for short keys (rustc's Fx hash); the vocabulary and the word
/// cache are hashed per word, so SipHash would dominate the count.
type Fx = rustc_hash::FxBuildHasher;

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

/// BERT uncased WordPiece counting over a vocabulary.
pub struct WordPieceCounter {
    vocab: HashSet<String, Fx>,
    max_chars_per_word: usize,
    /// Counts of words seen before: most words repeat.
    cache: Mutex<HashMap<String, u16, Fx>>,
}

impl WordPieceCounter {
    /// From a `vocab.txt` (one piece a line).
    pub fn from_vocab_txt(vocab: &str) -> WordPieceCounter {
        WordPieceCounter {
            vocab: vocab
                .lines()
                .map(|l| l.trim_end_matches('\r').to_string())
                .filter(|l| !l.is_empty())
                .collect(),
            max_chars_per_word: 100,
            cache: Mutex::new(HashMap::default()),
        }
    }

    /// Pieces in the vocabulary.
    pub fn vocab_size(&self) -> usize {
        self.vocab.len()
    }

    fn word_pieces(&self, word: &str) -> usize {
        if word.chars().count() > self.max_chars_per_word {
            return 1;
        }
        if let Ok(cache) = self.cache.lock() {
            if let Some(&n) = cache.get(word) {
                return n as usize;
            }
        }
        let n = self.greedy(word);
        if let Ok(mut cache) = self.cache.lock() {
            if cache.len() < 500_000 {
                cache.insert(word.to_string(), n.min(u16::MAX as usize) as u16);
            }
        }
        n
    }

    fn greedy(&self, word: &str) -> usize {
        let mut start = 0;
        let mut pieces = 0;
        let mut buf = String::with_capacity(word.len() + 2);
        while start < word.len() {
            let mut end = word.len();
            let mut found = false;
            while end > start {
                buf.clear();
                if start > 0 {
                    buf.push_str("##");
                }
                buf.push_str(&word[start..end]);
                if self.vocab.contains(buf.as_str()) {
                    found = true;
                    break;
                }
                // Step back one char.
                end = word[..end].char_indices().next_back().map(|(i, _)| i).unwrap_or(start);
            }
            if !found {
                return 1; // [UNK] for the whole word
            }
            pieces += 1;
            start = end;
        }
        pieces
    }
}

impl std::fmt::Debug for WordPieceCounter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WordPieceCounter").field("vocab", &self.vocab.len()).finish()
    }
}

impl TokenCounter for WordPieceCounter {
    fn count(&self, text: &str) -> usize {
        let mut total = 0;
        let mut word = String::new();
        for c in text.chars() {
            if c.is_whitespace() || is_control(c) {
                if !word.is_empty() {
                    total += self.word_pieces(&word);
                    word.clear();
                }
                continue;
            }
            if is_punctuation(c) || is_cjk(c) {
                if !word.is_empty() {
                    total += self.word_pieces(&word);
                    word.clear();
                }
                total += 1;
                continue;
            }
            for l in c.to_lowercase() {
                match strip_accent(l) {
                    Some(base) => word.push(base),
                    None if is_combining_mark(l) => {}
                    None => word.push(l),
                }
            }
        }
        if !word.is_empty() {
            total += self.word_pieces(&word);
        }
        total
    }

    fn describe(&self) -> String {
        format!("wordpiece ({} pieces)", self.vocab.len())
    }
}

fn is_control(c: char) -> bool {
    c.is_control() || matches!(c, '\u{200b}'..='\u{200f}' | '\u{feff}' | '\u{fffd}')
}

/// BERT's punctuation: ASCII symbol ranges and Unicode punctuation.
fn is_punctuation(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_punctuation();
    }
    matches!(c,
        '\u{2010}'..='\u{2027}' | '\u{2030}'..='\u{205e}' | '\u{3000}'..='\u{303f}' | '\u{00a1}' | '\u{00a7}'
        | '\u{00ab}' | '\u{00b6}' | '\u{00b7}' | '\u{00bb}' | '\u{00bf}' | '\u{ff01}'..='\u{ff0f}'
        | '\u{ff1a}'..='\u{ff20}' | '\u{ff3b}'..='\u{ff40}' | '\u{ff5b}'..='\u{ff65}')
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2B73F | 0x2B740..=0x2B81F
        | 0x2B820..=0x2CEAF | 0xF900..=0xFAFF | 0x2F800..=0x2FA1F)
}

fn is_combining_mark(c: char) -> bool {
    matches!(c as u32, 0x0300..=0x036F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F)
}

/// The base letter of a lower-case Latin letter with a diacritic (NFD, then marks dropped).
fn strip_accent(c: char) -> Option<char> {
    Some(match c {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ă' | 'ą' => 'a',
        'ç' | 'ć' | 'ĉ' | 'ċ' | 'č' => 'c',
        'ď' => 'd',
        'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ĕ' | 'ė' | 'ę' | 'ě' => 'e',
        'ĝ' | 'ğ' | 'ġ' | 'ģ' => 'g',
        'ĥ' => 'h',
        'ì' | 'í' | 'î' | 'ï' | 'ĩ' | 'ī' | 'ĭ' | 'į' => 'i',
        'ĵ' => 'j',
        'ķ' => 'k',
        'ĺ' | 'ļ' | 'ľ' => 'l',
        'ñ' | 'ń' | 'ņ' | 'ň' => 'n',
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ō' | 'ŏ' | 'ő' => 'o',
        'ŕ' | 'ŗ' | 'ř' => 'r',
        'ś' | 'ŝ' | 'ş' | 'š' => 's',
        'ţ' | 'ť' => 't',
        'ù' | 'ú' | 'û' | 'ü' | 'ũ' | 'ū' | 'ŭ' | 'ů' | 'ű' | 'ų' => 'u',
        'ŵ' => 'w',
        'ý' | 'ÿ' | 'ŷ' => 'y',
        'ź' | 'ż' | 'ž' => 'z',
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> WordPieceCounter {
        WordPieceCounter::from_vocab_txt("[UNK]\nthe\nrule\n##s\nun\n##able\nable\ncafe\n.\n")
    }

    #[test]
    fn wordpiece_counts() {
        let c = tiny();
        assert_eq!(c.count("The rules."), 4); // the, rule, ##s, .
        assert_eq!(c.count("unable"), 2);
        assert_eq!(c.count("Café"), 1);
        assert_eq!(c.count("zzz"), 1); // [UNK]
        assert_eq!(c.count("  "), 0);
    }

    #[test]
    fn word_estimate() {
        assert_eq!(WordCounter.count("one two three."), 5);
    }
}
