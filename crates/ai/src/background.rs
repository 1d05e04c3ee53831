//! An embedder whose weights load on a background thread: what a library needs to open (the
//! model's id, dimensions and window) is known at once, and the first text to embed waits for the
//! weights. Opening a library's stores and reading the model then overlap, so the first answer
//! comes sooner after a cold start.

use crate::{AiError, Embedder};
use std::sync::{Mutex, OnceLock};
use std::thread::JoinHandle;

type Loaded = Result<Box<dyn Embedder>, AiError>;

/// An embedder being loaded on its own thread (see the module note).
pub struct BackgroundEmbedder {
    id: String,
    dim: usize,
    max_tokens: usize,
    loading: Mutex<Option<JoinHandle<Loaded>>>,
    /// The loaded model, or why it failed (the message, answered to every call).
    ready: OnceLock<Result<Box<dyn Embedder>, String>>,
}

impl BackgroundEmbedder {
    /// Starts `load` on a new thread. `id`, `dim` and `max_tokens` must be what the loaded model
    /// reports (checked when it arrives: a mismatch is an error of every call).
    pub fn spawn(
        id: impl Into<String>,
        dim: usize,
        max_tokens: usize,
        load: impl FnOnce() -> Loaded + Send + 'static,
    ) -> BackgroundEmbedder {
        let loading = std::thread::Builder::new().name("folio-model-load".into()).spawn(load).ok();
        BackgroundEmbedder {
            id: id.into(),
            dim,
            max_tokens,
            loading: Mutex::new(loading),
            ready: OnceLock::new(),
        }
    }

    /// Waits for the model (at once after the first call).
    pub fn wait(&self) -> Result<&dyn Embedder, AiError> {
        let ready = self.ready.get_or_init(|| {
            let handle = self.loading.lock().unwrap_or_else(|e| e.into_inner()).take();
            let loaded = match handle.map(JoinHandle::join) {
                Some(Ok(loaded)) => loaded.map_err(|e| e.to_string()),
                Some(Err(_)) => Err("the model's loading thread panicked".to_string()),
                None => Err("the model's loading thread could not be started".to_string()),
            };
            loaded.and_then(|m| {
                if (m.id(), m.dim(), m.max_tokens()) == (self.id.as_str(), self.dim, self.max_tokens) {
                    Ok(m)
                } else {
                    Err(format!(
                        "the model loaded is {} ({} dimensions, {} tokens), not {} ({}, {})",
                        m.id(),
                        m.dim(),
                        m.max_tokens(),
                        self.id,
                        self.dim,
                        self.max_tokens
                    ))
                }
            })
        });
        ready.as_deref().map_err(|e| AiError::Assets(e.clone()))
    }
}

impl Embedder for BackgroundEmbedder {
    fn id(&self) -> &str {
        &self.id
    }

    fn dim(&self) -> usize {
        self.dim
    }

    fn max_tokens(&self) -> usize {
        self.max_tokens
    }

    fn embed_documents(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, AiError> {
        self.wait()?.embed_documents(texts)
    }

    fn embed_documents_in_parts(
        &self,
        texts: &[&str],
        part: usize,
        next: &mut dyn FnMut(usize) -> bool,
    ) -> Result<Option<Vec<Vec<f32>>>, AiError> {
        self.wait()?.embed_documents_in_parts(texts, part, next)
    }

    fn embed_query(&self, text: &str) -> Result<Vec<f32>, AiError> {
        self.wait()?.embed_query(text)
    }

    /// The loaded model's own description (waiting for it), or why it did not load.
    fn describe(&self) -> String {
        match self.wait() {
            Ok(m) => m.describe(),
            Err(e) => format!("{} (not loaded: {e})", self.id),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A model that answers each text with its length.
    struct Lengths;

    impl Embedder for Lengths {
        fn id(&self) -> &str {
            "lengths"
        }
        fn dim(&self) -> usize {
            1
        }
        fn max_tokens(&self) -> usize {
            8
        }
        fn embed_documents(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, AiError> {
            Ok(texts.iter().map(|t| vec![t.len() as f32]).collect())
        }
        fn embed_query(&self, text: &str) -> Result<Vec<f32>, AiError> {
            Ok(vec![text.len() as f32])
        }
    }

    #[test]
    fn identity_is_known_at_once_and_calls_wait_for_the_model() {
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let e = BackgroundEmbedder::spawn("lengths", 1, 8, move || {
            rx.recv().unwrap(); // held until the test lets it finish
            Ok(Box::new(Lengths) as Box<dyn Embedder>)
        });
        assert_eq!((e.id(), e.dim(), e.max_tokens()), ("lengths", 1, 8));
        tx.send(()).unwrap();
        assert_eq!(e.embed_query("abc").unwrap(), vec![3.0]);
        assert_eq!(e.embed_documents(&["a", "bb"]).unwrap(), vec![vec![1.0], vec![2.0]]);
    }

    /// The default parts, through the wrapper: every text once, in order; asked before each part
    /// and at the end; nothing more embedded once the answer is no.
    #[test]
    fn parts_are_asked_for_and_stop_when_refused() {
        let e = BackgroundEmbedder::spawn("lengths", 1, 8, || Ok(Box::new(Lengths) as Box<dyn Embedder>));
        let texts = ["a", "bb", "ccc", "dddd", "eeeee"];
        let mut asked = Vec::new();
        let all = e.embed_documents_in_parts(&texts, 2, &mut |done| {
            asked.push(done);
            true
        });
        assert_eq!(all.unwrap(), Some(e.embed_documents(&texts).unwrap()));
        assert_eq!(asked, [0, 2, 4, 5]);
        asked.clear();
        let stopped = e.embed_documents_in_parts(&texts, 2, &mut |done| {
            asked.push(done);
            done < 2
        });
        assert_eq!(stopped.unwrap(), None);
        assert_eq!(asked, [0, 2]);
    }

    #[test]
    fn a_failed_or_different_model_is_an_error_of_every_call() {
        let failed = BackgroundEmbedder::spawn("x", 1, 8, || Err(AiError::Assets("no weights".into())));
        for _ in 0..2 {
            assert!(failed.embed_query("a").unwrap_err().to_string().contains("no weights"));
        }
        let other = BackgroundEmbedder::spawn("x", 1, 8, || Ok(Box::new(Lengths) as Box<dyn Embedder>));
        assert!(other.embed_query("a").unwrap_err().to_string().contains("not x"));
        let panicked = BackgroundEmbedder::spawn("x", 1, 8, || panic!("boom"));
        assert!(panicked.embed_query("a").unwrap_err().to_string().contains("panicked"));
    }
}
