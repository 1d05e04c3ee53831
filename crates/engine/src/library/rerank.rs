//! Reordering the fused candidates with the document's structure: a hit whose section headings or
//! defined terms carry the query's words moves up ([`SearchOptions::heading_boost`]); the sections a
//! top hit refers to join the list just below it ([`SearchOptions::follow_refs`]). Both are off
//! unless set; `scripts/eval/obliqa.py` measures them (figures in the closing note).

use super::*;
use folio_core::fusion::Fused;
use std::collections::HashSet;

/// Candidates looked at when reordering.
const RERANK_DEPTH: usize = 30;
/// Top hits whose references are followed.
const FOLLOWED_HITS: usize = 3;

/// Words of a text as the heading match compares them: lower case, three letters or more, a plural
/// "s" dropped.
fn words(text: &str) -> HashSet<String> {
    const STOP: [&str; 16] = [
        "the", "and", "for", "what", "does", "are", "with", "that", "this", "from", "how", "which", "any",
        "its", "under", "must",
    ];
    text.split(|c: char| !c.is_alphanumeric())
        .map(|w| w.to_lowercase())
        .filter(|w| w.len() >= 3 && !STOP.contains(&w.as_str()))
        .map(|w| {
            if w.len() > 4 && w.ends_with('s') && !w.ends_with("ss") {
                w[..w.len() - 1].to_string()
            } else {
                w
            }
        })
        .collect()
}

impl Library {
    /// The chunk that opens a section: its own text's, else its first subsection's.
    fn first_chunk_of(&self, doc: i64, section_id: &str) -> Option<i64> {
        if let Some(&c) = self.exact.section_chunks(doc, section_id).first() {
            return Some(c);
        }
        let sections = self.outlines.get(&doc)?;
        let at = sections.iter().position(|s| s.section_id == section_id)?;
        let span = sections[at].span;
        sections[at + 1..]
            .iter()
            .take_while(|s| s.span.start < span.end)
            .find_map(|s| self.exact.section_chunks(doc, &s.section_id).first().copied())
    }

    /// Applies the structural reordering the options ask for to fused candidates.
    pub(super) fn rerank(
        &self,
        query: &str,
        fused: &mut Vec<Fused<i64>>,
        opts: &SearchOptions,
        unit: f32,
    ) -> Result<(), EngineError> {
        if opts.heading_boost > 0.0 {
            let q = words(query);
            if !q.is_empty() {
                let n = fused.len().min(RERANK_DEPTH);
                let ids: Vec<i64> = fused[..n].iter().map(|f| f.id).collect();
                let rows = self.catalog.chunks_by_id(&ids)?;
                for f in fused[..n].iter_mut() {
                    let Some(row) = rows.iter().find(|r| r.id == f.id) else { continue };
                    let mut h = words(&row.parent_chain.join(" "));
                    for t in &row.defined_terms {
                        h.extend(words(t));
                    }
                    let overlap = q.iter().filter(|w| h.contains(*w)).count() as f32 / q.len() as f32;
                    f.score += opts.heading_boost * overlap * unit;
                }
                fused[..n].sort_by(|a, b| b.score.total_cmp(&a.score));
            }
        }
        if opts.follow_refs > 0.0 {
            let top: Vec<(i64, f32)> = fused.iter().take(FOLLOWED_HITS).map(|f| (f.id, f.score)).collect();
            let rows = self.catalog.chunks_by_id(&top.iter().map(|t| t.0).collect::<Vec<_>>())?;
            for (id, score) in top {
                let Some(row) = rows.iter().find(|r| r.id == id) else { continue };
                for r in self.catalog.references_within(row.doc_id, row.span)? {
                    let target =
                        match (&r.document, r.target_doc_id, &r.target_doc_section, &r.target_section) {
                            (None, _, _, Some(s)) => Some((row.doc_id, s.clone())),
                            (Some(_), Some(d), Some(s), _) => Some((d, s.clone())),
                            _ => None,
                        };
                    let Some((doc, section)) = target else { continue };
                    let Some(chunk) = self.first_chunk_of(doc, &section) else { continue };
                    if chunk == id {
                        continue;
                    }
                    let add = score * opts.follow_refs;
                    match fused.iter_mut().find(|f| f.id == chunk) {
                        Some(f) => f.score = f.score.max(add),
                        None => fused.push(Fused { id: chunk, score: add, channels: [None; 3] }),
                    }
                }
            }
            fused.sort_by(|a, b| b.score.total_cmp(&a.score));
        }
        Ok(())
    }
}
