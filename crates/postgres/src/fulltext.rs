//! The keyword channel from PostgreSQL's own full-text search, the alternative to each client's
//! BM25 cache: the chunks' words (`chunks.words`, a stored `tsvector` of the heading chain, the
//! context and the text under the `english` configuration, GIN-indexed) ranked by `ts_rank_cd`
//! (cover density: how many query words a chunk has, and how close together). The question's
//! words are OR-ed, as BM25 takes them: a chunk need not hold them all.
//!
//! A client that ranks on the server keeps no keyword index of its own, so it opens a large
//! library at once; what it gives up is measured in the closing note of the team-library work
//! (ObliQA dev, `folio eval --team-keywords server`).

use crate::server::Server;
use folio_index::keyword::{KeywordFilter, KeywordRanker};
use folio_index::IndexError;
use std::sync::Arc;

/// `ts_rank_cd`'s normalisation: 1 divides the rank by 1 + the logarithm of the chunk's length,
/// so that a long chunk does not win by its length alone (BM25's length normalisation does the
/// same).
const NORMALIZATION: i32 = 1;

/// The most words of a query that are searched for (a pasted page is cut, not refused).
const MAX_WORDS: usize = 64;

/// Ranks chunks with the server's full-text search (see the module note).
pub struct PgFullText {
    server: Arc<Server>,
}

impl PgFullText {
    /// Full-text ranking over the team library on `server` (its schema already migrated: the
    /// `words` column and its index come with schema version 2).
    pub fn new(server: Arc<Server>) -> PgFullText {
        PgFullText { server }
    }
}

/// The query's words as a `to_tsquery` expression, OR-ed: runs of letters and digits only, so
/// nothing in the query is read as the expression's own syntax. `None` when there are none.
pub(crate) fn or_query(query: &str) -> Option<String> {
    let words: Vec<&str> =
        query.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).take(MAX_WORDS).collect();
    (!words.is_empty()).then(|| words.join(" | "))
}

impl KeywordRanker for PgFullText {
    fn rank(&self, query: &str, limit: usize, filter: &KeywordFilter) -> Result<Vec<(u64, f32)>, IndexError> {
        let Some(tsquery) = or_query(query) else { return Ok(Vec::new()) };
        let docs: Vec<i64> = filter.docs.iter().map(|d| *d as i64).collect();
        let limit = limit as i64;
        let sql = "SELECT c.id, ts_rank_cd(c.words, q, $5)::real AS rank
                   FROM chunks c, to_tsquery('english', $1) q
                   WHERE c.words @@ q
                     AND (cardinality($2::bigint[]) = 0 OR c.doc_id = ANY($2))
                     AND (cardinality($3::text[]) = 0 OR c.chunk_type = ANY($3))
                   ORDER BY rank DESC, c.id
                   LIMIT $4";
        self.server.read(|c| {
            let rows = c.query(sql, &[&tsquery, &docs, &filter.chunk_types, &limit, &NORMALIZATION])?;
            Ok(rows.iter().map(|r| (r.get::<_, i64>(0) as u64, r.get::<_, f32>(1))).collect())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_becomes_its_words_or_ed() {
        assert_eq!(
            or_query("What must an Authorised Person notify?").as_deref(),
            Some("What | must | an | Authorised | Person | notify")
        );
        assert_eq!(or_query("GEN 5.5.1(a)").as_deref(), Some("GEN | 5 | 5 | 1 | a"));
    }

    #[test]
    fn the_expression_syntax_never_comes_from_the_query() {
        let q = or_query("a & !b | (c:* <-> 'd')").unwrap();
        assert!(q.split(" | ").all(|w| w.chars().all(char::is_alphanumeric)), "{q}");
        assert_eq!(or_query(" ?! () "), None);
        assert_eq!(or_query(&"word ".repeat(1000)).unwrap().matches('|').count(), MAX_WORDS - 1);
    }
}
