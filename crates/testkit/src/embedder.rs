//! A deterministic embedder that needs no model files: each word (lower-cased, alphanumeric runs)
//! is hashed into one of `dim` dimensions with a sign, and the sum is L2-normalised — the "hashing
//! trick". Texts that share words are near, others far; it is lexical, not semantic, which is what
//! tests of plumbing (locks, folder syncs, incremental re-indexing) need, without `.assets`.

use folio_ai::{AiError, Embedder};

/// The hashing embedder (see the module's documentation).
#[derive(Debug, Clone)]
pub struct HashingEmbedder {
    dim: usize,
}

impl HashingEmbedder {
    /// An embedder of `dim` dimensions (at least 1).
    pub fn new(dim: usize) -> HashingEmbedder {
        HashingEmbedder { dim: dim.max(1) }
    }

    fn embed(&self, text: &str) -> Vec<f32> {
        let mut v = vec![0f32; self.dim];
        for word in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
            // FNV-1a over the lower-cased word: stable across runs and platforms.
            let mut h: u64 = 0xcbf2_9ce4_8422_2325;
            for b in word.to_lowercase().bytes() {
                h ^= b as u64;
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
            let sign = if h >> 63 == 0 { 1.0 } else { -1.0 };
            v[(h % self.dim as u64) as usize] += sign;
        }
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            v.iter_mut().for_each(|x| *x /= norm);
        }
        v
    }
}

impl Default for HashingEmbedder {
    fn default() -> Self {
        HashingEmbedder::new(64)
    }
}

impl Embedder for HashingEmbedder {
    fn id(&self) -> &str {
        "hashing-test-embedder"
    }

    fn dim(&self) -> usize {
        self.dim
    }

    fn max_tokens(&self) -> usize {
        usize::MAX
    }

    fn embed_documents(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, AiError> {
        Ok(texts.iter().map(|t| self.embed(t)).collect())
    }

    fn embed_query(&self, text: &str) -> Result<Vec<f32>, AiError> {
        Ok(self.embed(text))
    }
}

/// Another embedder, watched: `before` sees the texts of every document batch before they are
/// embedded (to count them, or to cancel an ingest in the middle of one). Queries pass unwatched.
pub struct Watched<E, F> {
    /// The embedder that does the work.
    pub inner: E,
    /// Called with the texts of each document batch before they are embedded.
    pub before: F,
}

impl<E: Embedder, F: Fn(&[&str]) + Send + Sync> Embedder for Watched<E, F> {
    fn id(&self) -> &str {
        self.inner.id()
    }

    fn dim(&self) -> usize {
        self.inner.dim()
    }

    fn max_tokens(&self) -> usize {
        self.inner.max_tokens()
    }

    fn embed_documents(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, AiError> {
        (self.before)(texts);
        self.inner.embed_documents(texts)
    }

    fn embed_query(&self, text: &str) -> Result<Vec<f32>, AiError> {
        self.inner.embed_query(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_text_gives_the_same_unit_vector_and_shared_words_bring_texts_near() {
        let e = HashingEmbedder::default();
        let a = e.embed_query("The Mooring Fee is payable monthly").unwrap();
        assert_eq!(a, e.embed_documents(&["the mooring fee is PAYABLE monthly"]).unwrap()[0]);
        assert!((a.iter().map(|x| x * x).sum::<f32>() - 1.0).abs() < 1e-5);
        let near = e.embed_query("mooring fee").unwrap();
        let far = e.embed_query("quarterly capital adequacy returns").unwrap();
        let dot = |x: &[f32], y: &[f32]| x.iter().zip(y).map(|(p, q)| p * q).sum::<f32>();
        assert!(dot(&a, &near) > dot(&a, &far), "{} vs {}", dot(&a, &near), dot(&a, &far));
        assert_eq!(e.embed_query("").unwrap(), vec![0.0; 64]);
    }

    #[test]
    fn a_watched_embedder_sees_each_document_batch_and_embeds_as_its_inner_one() {
        let seen = std::sync::Mutex::new(Vec::new());
        let w = Watched {
            inner: HashingEmbedder::default(),
            before: |t: &[&str]| seen.lock().unwrap().push(t.len()),
        };
        let v = w.embed_documents(&["a b", "c"]).unwrap();
        assert_eq!(v, HashingEmbedder::default().embed_documents(&["a b", "c"]).unwrap());
        w.embed_query("a").unwrap();
        assert_eq!(*seen.lock().unwrap(), vec![2]);
        assert_eq!((w.id(), w.dim()), ("hashing-test-embedder", 64));
    }
}
