//! Chunk contexts: the mode each document was contextualized in, the cache of LLM-written
//! contexts by content hash, and the record of each LLM run (requests, tokens, cost).

use super::SqliteCatalog;
use crate::IndexError;
use rusqlite::{params, OptionalExtension};
use serde::Serialize;

/// A context an LLM wrote, as cached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CachedContext {
    /// The provider that wrote it (`anthropic`, `openai`).
    pub provider: String,
    /// The model that wrote it.
    pub model: String,
    /// The version of the prompt it answers (`contextual-retrieval-v1`).
    pub prompt_version: String,
    /// The context.
    pub text: String,
    /// The LLM saw an excerpt of the document, not all of it.
    pub excerpt: bool,
    /// Tokens: input, output, cache write, cache read.
    pub tokens: [u64; 4],
}

/// One document's contextualizing, as recorded.
#[derive(Debug, Clone, Default, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ContextRun {
    /// The document's path.
    pub path: String,
    /// The provider asked (`anthropic`, `openai`).
    pub provider: String,
    /// The model asked.
    pub model: String,
    /// Requests answered.
    pub requests: u64,
    /// Input tokens billed at the normal rate.
    pub input_tokens: u64,
    /// Output tokens: the contexts written.
    pub output_tokens: u64,
    /// Input tokens written to the prompt cache.
    pub cache_write_tokens: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read_tokens: u64,
    /// Chunks answered from the cache, and asked of the LLM.
    pub hits: u64,
    /// Chunks asked of the LLM (their contexts were not cached).
    pub misses: u64,
    /// Chunks whose request failed (they carry the structural context).
    pub fallbacks: u64,
    /// Chunks sent with an excerpt of a long document.
    pub excerpted: u64,
    /// US dollars, at the prices of the run.
    pub cost: f64,
}

impl SqliteCatalog {
    /// The context mode a document was indexed with (`none`, `structural`, `anthropic:MODEL`, …).
    pub fn context_mode(&self, doc_id: i64) -> Result<String, IndexError> {
        Ok(self
            .conn()
            .query_row("SELECT context_mode FROM documents WHERE id = ?1", [doc_id], |r| r.get(0))?)
    }

    /// Chunks of a document whose LLM request failed (to be retried).
    pub fn fallback_chunks(&self, doc_id: i64) -> Result<usize, IndexError> {
        let n: i64 = self.conn().query_row(
            "SELECT COUNT(*) FROM chunks WHERE doc_id = ?1 AND context_source = 'fallback'",
            [doc_id],
            |r| r.get(0),
        )?;
        Ok(n as usize)
    }

    /// A cached context.
    pub fn cached_context(&self, key: &str) -> Result<Option<CachedContext>, IndexError> {
        Ok(self
            .conn()
            .query_row(
                "SELECT provider, model, prompt_version, text, excerpt, input_tokens, output_tokens, cache_write_tokens, cache_read_tokens
                 FROM context_cache WHERE key = ?1",
                [key],
                |r| {
                    Ok(CachedContext {
                        provider: r.get(0)?,
                        model: r.get(1)?,
                        prompt_version: r.get(2)?,
                        text: r.get(3)?,
                        excerpt: r.get::<_, i64>(4)? != 0,
                        tokens: [
                            r.get::<_, i64>(5)? as u64,
                            r.get::<_, i64>(6)? as u64,
                            r.get::<_, i64>(7)? as u64,
                            r.get::<_, i64>(8)? as u64,
                        ],
                    })
                },
            )
            .optional()?)
    }

    /// Caches contexts (one transaction).
    pub fn put_cached_contexts(&self, items: &[(String, CachedContext)]) -> Result<(), IndexError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        {
            let mut st = tx.prepare(
                "INSERT OR REPLACE INTO context_cache (key, provider, model, prompt_version, text, excerpt,
                   input_tokens, output_tokens, cache_write_tokens, cache_read_tokens, created)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, strftime('%s','now'))",
            )?;
            for (key, c) in items {
                st.execute(params![
                    key,
                    c.provider,
                    c.model,
                    c.prompt_version,
                    c.text,
                    c.excerpt as i64,
                    c.tokens[0] as i64,
                    c.tokens[1] as i64,
                    c.tokens[2] as i64,
                    c.tokens[3] as i64
                ])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Records one document's contextualizing.
    pub fn record_context_run(&self, run: &ContextRun) -> Result<(), IndexError> {
        self.conn().execute(
            "INSERT INTO context_runs (at, path, provider, model, requests, input_tokens, output_tokens,
               cache_write_tokens, cache_read_tokens, hits, misses, fallbacks, excerpted, cost)
             VALUES (strftime('%s','now'), ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            params![
                run.path,
                run.provider,
                run.model,
                run.requests as i64,
                run.input_tokens as i64,
                run.output_tokens as i64,
                run.cache_write_tokens as i64,
                run.cache_read_tokens as i64,
                run.hits as i64,
                run.misses as i64,
                run.fallbacks as i64,
                run.excerpted as i64,
                run.cost
            ],
        )?;
        Ok(())
    }

    /// Every recorded run, oldest first.
    pub fn context_runs(&self) -> Result<Vec<ContextRun>, IndexError> {
        let conn = self.conn();
        let mut st = conn.prepare(
            "SELECT path, provider, model, requests, input_tokens, output_tokens, cache_write_tokens, cache_read_tokens,
                    hits, misses, fallbacks, excerpted, cost FROM context_runs ORDER BY id",
        )?;
        let rows = st
            .query_map([], |r| {
                Ok(ContextRun {
                    path: r.get(0)?,
                    provider: r.get(1)?,
                    model: r.get(2)?,
                    requests: r.get::<_, i64>(3)? as u64,
                    input_tokens: r.get::<_, i64>(4)? as u64,
                    output_tokens: r.get::<_, i64>(5)? as u64,
                    cache_write_tokens: r.get::<_, i64>(6)? as u64,
                    cache_read_tokens: r.get::<_, i64>(7)? as u64,
                    hits: r.get::<_, i64>(8)? as u64,
                    misses: r.get::<_, i64>(9)? as u64,
                    fallbacks: r.get::<_, i64>(10)? as u64,
                    excerpted: r.get::<_, i64>(11)? as u64,
                    cost: r.get(12)?,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::super::rows::{ChunkContext, NewDocument};
    use super::super::testing::{new_document, rulebook};
    use super::*;

    fn cached(text: &str) -> CachedContext {
        CachedContext {
            provider: "anthropic".into(),
            model: "claude-haiku-4-5".into(),
            prompt_version: "v1".into(),
            text: text.into(),
            excerpt: true,
            tokens: [10, 20, 30, 40],
        }
    }

    #[test]
    fn cached_contexts_round_trip_and_the_latest_wins() {
        let cat = SqliteCatalog::in_memory().unwrap();
        assert!(cat.cached_context("k1").unwrap().is_none());
        cat.put_cached_contexts(&[("k1".into(), cached("first")), ("k2".into(), cached("other"))]).unwrap();
        cat.put_cached_contexts(&[("k1".into(), cached("second"))]).unwrap();
        let got = cat.cached_context("k1").unwrap().unwrap();
        assert_eq!(got.text, "second");
        assert_eq!(got.tokens, [10, 20, 30, 40]);
        assert!(got.excerpt);
        assert_eq!(cat.cached_context("k2").unwrap().unwrap().text, "other");
    }

    #[test]
    fn runs_are_listed_in_the_order_recorded() {
        let cat = SqliteCatalog::in_memory().unwrap();
        let run = |path: &str, requests| ContextRun {
            path: path.into(),
            provider: "openai".into(),
            model: "llama3.1".into(),
            requests,
            input_tokens: 1,
            output_tokens: 2,
            cache_write_tokens: 3,
            cache_read_tokens: 4,
            hits: 5,
            misses: 6,
            fallbacks: 7,
            excerpted: 8,
            cost: 0.25,
        };
        cat.record_context_run(&run("/b.pdf", 2)).unwrap();
        cat.record_context_run(&run("/a.pdf", 1)).unwrap();
        let runs = cat.context_runs().unwrap();
        assert_eq!(
            runs.iter().map(|r| (r.path.as_str(), r.requests)).collect::<Vec<_>>(),
            [("/b.pdf", 2), ("/a.pdf", 1)]
        );
        assert_eq!((runs[0].fallbacks, runs[0].excerpted, runs[0].cost), (7, 8, 0.25));
    }

    #[test]
    fn a_document_keeps_its_context_mode_and_counts_its_fallback_chunks() {
        let a = rulebook("ctx");
        let contexts: Vec<ChunkContext> = (0..a.chunks.len())
            .map(|i| ChunkContext {
                text: format!("context {i}"),
                source: if i == 0 { "fallback".into() } else { "llm".into() },
            })
            .collect();
        let cat = SqliteCatalog::in_memory().unwrap();
        let doc =
            NewDocument { contexts: &contexts, ..new_document("/rb.md", &a, "anthropic:claude-haiku-4-5") };
        let (id, _) = cat.put_document(&doc).unwrap();
        assert_eq!(cat.context_mode(id).unwrap(), "anthropic:claude-haiku-4-5");
        assert_eq!(cat.fallback_chunks(id).unwrap(), 1);
    }
}
