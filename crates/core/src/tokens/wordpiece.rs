//! BERT uncased WordPiece tokenization with ids, as the `tokenizers` library runs it for
//! all-MiniLM-L6-v2 (`BertNormalizer` with lower-casing and accent stripping, `BertPreTokenizer`,
//! `WordPiece` with `##` continuations, `[CLS] … [SEP]` template).
//!
//! Normalisation, in the library's order: drop NUL, U+FFFD and control characters (Unicode `C*`
//! other than tab, CR and LF) and turn whitespace into spaces; put spaces around CJK ideographs;
//! NFD-decompose and drop non-spacing marks (accent stripping); lower-case. Pre-tokenisation splits
//! on whitespace and isolates each punctuation character (ASCII punctuation and Unicode `P*`).
//! Each word is then split greedily into the longest vocabulary pieces, continuations prefixed
//! with `##`; a word with an unmatchable remainder, or longer than 100 characters, becomes a
//! single `[UNK]`.
//!
//! Two shortcuts give the same ids faster: a whitespace-separated run of ASCII characters needs no
//! decomposition (NFD never reorders across a space, whose combining class is 0), and the pieces of
//! each word are remembered, since most words of a document repeat.

use std::collections::HashMap;
use std::sync::Mutex;

use unicode_categories::UnicodeCategories;
use unicode_normalization::UnicodeNormalization;

/// A fast, non-cryptographic hasher for short keys (rustc's Fx hash): the vocabulary and the word
/// cache are hashed per word, so SipHash would dominate.
type Fx = rustc_hash::FxBuildHasher;

/// Words whose pieces are remembered, at most (a cache of a few tens of MB at worst).
const CACHE_WORDS: usize = 500_000;

/// A tokenized text, ready for the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encoding {
    /// Piece ids, `[CLS]` first and `[SEP]` last.
    pub ids: Vec<u32>,
    /// Whether the text was cut to fit the length limit.
    pub truncated: bool,
}

/// A vocabulary that cannot be used: malformed, or lacking a special token.
#[derive(Debug, thiserror::Error)]
pub enum VocabularyError {
    /// What is wrong with it.
    #[error("{0}")]
    Invalid(String),
}

/// BERT uncased WordPiece tokenizer over a vocabulary.
pub struct WordPieceTokenizer {
    vocab: HashMap<String, u32, Fx>,
    pieces: Vec<String>,
    unk: u32,
    cls: u32,
    sep: u32,
    pad: u32,
    max_chars_per_word: usize,
    /// The pieces of words seen before (normalised words).
    cache: Mutex<HashMap<String, Box<[u32]>, Fx>>,
}

impl std::fmt::Debug for WordPieceTokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WordPieceTokenizer").field("vocab", &self.pieces.len()).finish()
    }
}

impl WordPieceTokenizer {
    /// From the text of a `vocab.txt`: one piece a line, the line number being its id. It must hold
    /// `[UNK]`, `[CLS]`, `[SEP]` and `[PAD]`.
    pub fn from_vocab_txt(vocab: &str) -> Result<WordPieceTokenizer, VocabularyError> {
        // A trailing newline does not make an empty piece; inner empty lines keep their ids.
        WordPieceTokenizer::from_pieces(vocab.lines().map(|l| l.trim_end_matches('\r').to_string()).collect())
    }

    /// From the pieces in id order (an empty piece holds its id but matches nothing).
    fn from_pieces(pieces: Vec<String>) -> Result<WordPieceTokenizer, VocabularyError> {
        let mut map = HashMap::with_capacity_and_hasher(pieces.len(), Fx::default());
        for (i, p) in pieces.iter().enumerate() {
            if p.is_empty() {
                continue;
            }
            let id = u32::try_from(i).map_err(|_| VocabularyError::Invalid("vocabulary too large".into()))?;
            map.entry(p.clone()).or_insert(id);
        }
        let special = |name: &str| {
            map.get(name)
                .copied()
                .ok_or_else(|| VocabularyError::Invalid(format!("vocabulary lacks the special token {name}")))
        };
        Ok(WordPieceTokenizer {
            unk: special("[UNK]")?,
            cls: special("[CLS]")?,
            sep: special("[SEP]")?,
            pad: special("[PAD]")?,
            vocab: map,
            pieces,
            max_chars_per_word: 100,
            cache: Mutex::new(HashMap::default()),
        })
    }

    /// From the text of a Hugging Face `tokenizer.json` whose model is `WordPiece` (its `vocab`
    /// map of piece to id; the normaliser must be BERT's lower-casing one, which this tokenizer
    /// implements).
    pub fn from_tokenizer_json(json: &str) -> Result<WordPieceTokenizer, VocabularyError> {
        let bad = |m: String| VocabularyError::Invalid(format!("tokenizer.json: {m}"));
        let v: serde_json::Value = serde_json::from_str(json).map_err(|e| bad(e.to_string()))?;
        let model = &v["model"];
        if model["type"].as_str() != Some("WordPiece") {
            return Err(bad(format!("model type {} is not WordPiece", model["type"])));
        }
        let norm = &v["normalizer"];
        if norm["type"].as_str() != Some("BertNormalizer") || norm["lowercase"].as_bool() != Some(true) {
            return Err(bad("only the lower-casing BertNormalizer is supported".into()));
        }
        let map = model["vocab"].as_object().ok_or_else(|| bad("model.vocab is not a map".into()))?;
        let mut pieces = vec![String::new(); map.len()];
        for (piece, id) in map {
            let id = id
                .as_u64()
                .and_then(|i| usize::try_from(i).ok())
                .filter(|&i| i < pieces.len())
                .ok_or_else(|| bad(format!("bad id for {piece:?}")))?;
            pieces[id] = piece.clone();
        }
        let mut tok = WordPieceTokenizer::from_pieces(pieces)?;
        if let Some(n) = model["max_input_chars_per_word"].as_u64() {
            tok.max_chars_per_word = n as usize;
        }
        Ok(tok)
    }

    /// Pieces in the vocabulary.
    pub fn vocab_size(&self) -> usize {
        self.pieces.len()
    }

    /// The id of `[PAD]`.
    pub fn pad_id(&self) -> u32 {
        self.pad
    }

    /// The id of `[CLS]`.
    pub fn cls_id(&self) -> u32 {
        self.cls
    }

    /// The id of `[SEP]`.
    pub fn sep_id(&self) -> u32 {
        self.sep
    }

    /// The id of `[UNK]`.
    pub fn unk_id(&self) -> u32 {
        self.unk
    }

    /// The piece of an id, if in range.
    pub fn piece(&self, id: u32) -> Option<&str> {
        self.pieces.get(id as usize).map(String::as_str)
    }

    /// The id of a piece, if in the vocabulary.
    pub fn id(&self, piece: &str) -> Option<u32> {
        self.vocab.get(piece).copied()
    }

    /// Piece ids of `text`, without special tokens.
    pub fn tokenize_ids(&self, text: &str) -> Vec<u32> {
        let mut ids = Vec::new();
        self.for_each_word(text, |word| self.with_pieces(word, |p| ids.extend_from_slice(p)));
        ids
    }

    /// Pieces of `text` as strings, without special tokens.
    pub fn tokenize(&self, text: &str) -> Vec<&str> {
        self.tokenize_ids(text).into_iter().map(|id| self.piece(id).unwrap_or("[UNK]")).collect()
    }

    /// Number of pieces of `text`, without special tokens.
    pub fn count(&self, text: &str) -> usize {
        let mut n = 0;
        self.for_each_word(text, |word| self.with_pieces(word, |p| n += p.len()));
        n
    }

    /// `[CLS] pieces [SEP]`, the pieces cut so that the whole is at most `max_len` ids
    /// (`max_len` ≥ 2).
    pub fn encode(&self, text: &str, max_len: usize) -> Encoding {
        let max_len = max_len.max(2);
        let mut pieces = self.tokenize_ids(text);
        let truncated = pieces.len() > max_len - 2;
        pieces.truncate(max_len - 2);
        let mut ids = Vec::with_capacity(pieces.len() + 2);
        ids.push(self.cls);
        ids.extend(pieces);
        ids.push(self.sep);
        Encoding { ids, truncated }
    }

    /// Calls `f` with each pre-tokenised word (normalised; punctuation marks and CJK ideographs are
    /// words of their own).
    fn for_each_word(&self, text: &str, mut f: impl FnMut(&str)) {
        // Runs of characters between whitespace, controls dropped first (so "a\u{c}b" is one run,
        // as the normaliser drops the form feed before it splits). A run is read in place unless
        // it holds a dropped character.
        let mut word = String::new();
        let mut clean = String::new();
        let mut start: Option<usize> = None;
        let mut dirty = false;
        let mut run = |slice: &str, dirty: bool, word: &mut String| {
            if dirty {
                clean.clear();
                clean.extend(slice.chars().filter(|&c| !dropped(c)));
                split_run(&clean, word, &mut f);
            } else {
                split_run(slice, word, &mut f);
            }
        };
        for (i, c) in text.char_indices() {
            let drop = dropped(c);
            if !drop && c.is_whitespace() {
                if let Some(s) = start.take() {
                    run(&text[s..i], dirty, &mut word);
                }
                dirty = false;
            } else {
                start.get_or_insert(i);
                dirty |= drop;
            }
        }
        if let Some(s) = start {
            run(&text[s..], dirty, &mut word);
        }
    }

    /// Calls `f` with the pieces of one normalised word, from the cache or split anew.
    fn with_pieces(&self, word: &str, mut f: impl FnMut(&[u32])) {
        if let Ok(cache) = self.cache.lock() {
            if let Some(p) = cache.get(word) {
                f(p);
                return;
            }
        }
        let mut ids = Vec::new();
        self.word_pieces(word, &mut ids);
        f(&ids);
        if let Ok(mut cache) = self.cache.lock() {
            if cache.len() < CACHE_WORDS {
                cache.insert(word.to_string(), ids.into_boxed_slice());
            }
        }
    }

    /// Greedy longest-match WordPiece of one word, appended to `out`.
    fn word_pieces(&self, word: &str, out: &mut Vec<u32>) {
        if word.chars().count() > self.max_chars_per_word {
            out.push(self.unk);
            return;
        }
        let first = out.len();
        let mut start = 0;
        let mut buf = String::with_capacity(word.len() + 2);
        while start < word.len() {
            let mut end = word.len();
            let mut found = None;
            while end > start {
                buf.clear();
                if start > 0 {
                    buf.push_str("##");
                }
                buf.push_str(&word[start..end]);
                if let Some(&id) = self.vocab.get(buf.as_str()) {
                    found = Some(id);
                    break;
                }
                end = word[..end].char_indices().next_back().map(|(i, _)| i).unwrap_or(start);
            }
            match found {
                Some(id) => {
                    out.push(id);
                    start = end;
                }
                None => {
                    out.truncate(first);
                    out.push(self.unk);
                    return;
                }
            }
        }
    }
}

/// Normalises one whitespace-free run (controls already dropped) and calls `f` with its words.
fn split_run(run: &str, word: &mut String, f: &mut impl FnMut(&str)) {
    if run.is_empty() {
        return;
    }
    word.clear();
    if run.is_ascii() {
        // ASCII needs no decomposition: lower-case, and cut at each punctuation mark.
        for b in run.bytes() {
            if b.is_ascii_punctuation() {
                flush(word, f);
                f(std::str::from_utf8(&[b]).unwrap_or_default());
            } else {
                word.push(b.to_ascii_lowercase() as char);
            }
        }
        flush(word, f);
        return;
    }
    let mut single = [0u8; 4];
    // Decompose, drop non-spacing marks, lower-case.
    let chars = run.chars().nfd().filter(|c| !c.is_mark_nonspacing()).flat_map(char::to_lowercase);
    for c in chars {
        if c.is_whitespace() {
            flush(word, f);
        } else if is_chinese_char(c) || is_punctuation(c) {
            flush(word, f);
            f(c.encode_utf8(&mut single));
        } else {
            word.push(c);
        }
    }
    flush(word, f);
}

fn flush(word: &mut String, f: &mut impl FnMut(&str)) {
    if !word.is_empty() {
        f(word);
        word.clear();
    }
}

/// Characters the normaliser drops: NUL, U+FFFD and controls.
fn dropped(c: char) -> bool {
    if c.is_ascii() {
        // The ASCII controls (`Cc`), of which tab, LF and CR stay (as whitespace).
        return c.is_ascii_control() && !matches!(c, '\t' | '\n' | '\r');
    }
    c == '\u{fffd}' || is_control(c)
}

fn is_control(c: char) -> bool {
    match c {
        '\t' | '\n' | '\r' => false,
        _ => c.is_other(),
    }
}

fn is_punctuation(c: char) -> bool {
    c.is_ascii_punctuation() || c.is_punctuation()
}

fn is_chinese_char(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2B73F | 0x2B740..=0x2B81F
        | 0x2B920..=0x2CEAF | 0xF900..=0xFAFF | 0x2F800..=0x2FA1F)
}

impl super::TokenCounter for WordPieceTokenizer {
    fn count(&self, text: &str) -> usize {
        WordPieceTokenizer::count(self, text)
    }
    fn describe(&self) -> String {
        format!("wordpiece ({} pieces)", self.pieces.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn tiny() -> WordPieceTokenizer {
        WordPieceTokenizer::from_vocab_txt(
            "[PAD]\n[UNK]\n[CLS]\n[SEP]\nthe\nrule\n##s\nun\n##able\nable\ncafe\n.\n,\n中\n",
        )
        .unwrap()
    }

    #[test]
    fn ids_and_specials() {
        let t = tiny();
        assert_eq!(t.tokenize("The rules."), vec!["the", "rule", "##s", "."]);
        assert_eq!(t.tokenize("unable,Café"), vec!["un", "##able", ",", "cafe"]);
        assert_eq!(t.tokenize("zzz the"), vec!["[UNK]", "the"]);
        assert_eq!(t.tokenize("rulez"), vec!["[UNK]"]);
        assert_eq!(t.tokenize("the中the"), vec!["the", "中", "the"]);
        assert_eq!(t.tokenize("the\u{0}\u{200b}rule"), vec!["[UNK]"]); // "therule"
        assert_eq!(t.tokenize("the\u{c}rule"), vec!["[UNK]"]); // a form feed is dropped, not a space
        assert_eq!(t.tokenize("the\u{a0}rule"), vec!["the", "rule"]);
        assert_eq!(t.tokenize("CAFE\u{301}"), vec!["cafe"]); // a combining accent after ASCII
        let e = t.encode("the rules", 4);
        assert_eq!(e.ids, vec![2, 4, 5, 3]);
        assert!(e.truncated);
        assert_eq!(t.encode("", 8).ids, vec![2, 3]);
        assert_eq!(t.count("The rules."), 4);
        assert_eq!(t.count("  "), 0);
    }

    #[test]
    fn long_word_is_unknown() {
        let t = tiny();
        assert_eq!(t.tokenize(&"the".repeat(40)), vec!["[UNK]"]);
    }

    #[test]
    fn missing_specials_rejected() {
        assert!(WordPieceTokenizer::from_vocab_txt("the\n").is_err());
    }

    /// The normaliser as the `tokenizers` library orders it, over the whole text at once: the
    /// tokenizer's per-run shortcut must give the same words.
    fn reference_words(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut word = String::new();
        let chars = text
            .chars()
            .filter(|&c| !(c == '\0' || c == '\u{fffd}' || is_control(c)))
            .nfd()
            .filter(|c| !c.is_mark_nonspacing())
            .flat_map(char::to_lowercase);
        for c in chars {
            if c.is_whitespace() {
                if !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
            } else if is_chinese_char(c) || is_punctuation(c) {
                if !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
                out.push(c.to_string());
            } else {
                word.push(c);
            }
        }
        if !word.is_empty() {
            out.push(word);
        }
        out
    }

    proptest! {
        #[test]
        fn words_match_the_whole_text_normaliser(
            text in "([a-zA-Z0-9 .,;§()\\-\u{a0}\u{c}\u{0}\u{200b}\u{2003}]|[àÉñüÅ\u{301}\u{308}\u{2019}\u{201c}中ﬁ])*"
        ) {
            let t = tiny();
            let mut got = Vec::new();
            t.for_each_word(&text, |w| got.push(w.to_string()));
            prop_assert_eq!(got, reference_words(&text));
        }

        #[test]
        fn cached_pieces_are_the_pieces(text in "[a-zA-Z ,.]{0,40}") {
            let t = tiny();
            let first = t.tokenize_ids(&text);
            prop_assert_eq!(t.tokenize_ids(&text), first.clone());
            prop_assert_eq!(t.count(&text), first.len());
        }
    }
}
