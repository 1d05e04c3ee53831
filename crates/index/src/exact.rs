//! The exact index: section numbers, defined terms and document labels mapped to chunks, so a query
//! naming "GEN 2.1.3", "Rule 3.3.31" or "What does 'Client' mean?" hits its target directly. Rebuilt
//! in memory from the catalog on open; no re-parsing.

use crate::catalog::{ChunkFacts, DocumentRow, RefRow, SectionRow};
use folio_core::model::Span;
use folio_core::numbering::{Container, Label};
use folio_core::query::Query;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// How a section lookup ranks the chunks it finds, best first: the section's own text (its
/// body and its numbered paragraphs), its guidance, a chunk that holds only its heading, and the
/// chunks that cite it. Each tier's score in the exact channel.
pub mod tier {
    /// The section's own text.
    pub const OWN: f32 = 1.0;
    /// Its guidance.
    pub const GUIDANCE: f32 = 0.6;
    /// A chunk that holds only the section's heading line (a merged run of short headings).
    pub const HEADING: f32 = 0.4;
    /// A chunk citing the section.
    pub const CITING: f32 = 0.3;
}

/// A chunk's place in its document, for finding the chunks a section's span holds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
struct ChunkPlace {
    span: Span,
    id: i64,
    guidance: bool,
}

/// One document's part of the index, shared between an index and the index extended from it
/// (extending a library of a million chunks by one document copies no other document's part).
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
struct DocExact {
    /// Section id → chunk ids, the chunk holding the section's own text first.
    section_chunks: HashMap<String, Vec<i64>>,
    /// Section id → the section's span and where its text begins after its heading.
    section_spans: HashMap<String, (Span, usize)>,
    /// The document's chunks, by where they begin.
    chunks: Vec<ChunkPlace>,
}

/// Number tokens, joined ([`token_key`]) → (doc, section id, preference) (see [`ExactIndex`]).
type NumberIndex = HashMap<String, Vec<(i64, String, u32)>>;

/// Number tokens as one key: joined by a character no token holds (one string where a list of
/// them took one each; a million-chunk library has over a million keys).
fn token_key<S: AsRef<str>>(tokens: &[S]) -> String {
    let mut key = String::with_capacity(tokens.iter().map(|t| t.as_ref().len() + 1).sum());
    for (i, t) in tokens.iter().enumerate() {
        if i > 0 {
            key.push('\u{1f}');
        }
        key.push_str(t.as_ref());
    }
    key
}

/// Section numbers, terms and labels → chunks; saved and read back whole by the engine (serde).
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExactIndex {
    /// Number tokens ([`token_key`]) → (doc, section id, preference), by full and by local
    /// numbering; a lower preference answers first (see [`rank`]).
    /// (Shared, as the parts below: a copy of the index, to extend or to save, copies no map of
    /// the whole library.)
    #[serde(with = "crate::shared::one")]
    numbers: Arc<NumberIndex>,
    /// Defined-term key → chunk ids defining it.
    #[serde(with = "crate::shared::one")]
    terms: Arc<HashMap<String, Vec<i64>>>,
    /// Upper-case document label → document id.
    labels: HashMap<String, i64>,
    /// Each document's sections and chunks.
    #[serde(with = "crate::shared")]
    docs: HashMap<i64, Arc<DocExact>>,
    /// Cited document → its section id → the chunks citing it, in the library's order (the order
    /// the references are stored in).
    #[serde(with = "crate::shared")]
    citing: HashMap<i64, Arc<HashMap<String, Vec<i64>>>>,
}

/// The label a document is cited by: the leading capitals of its file name ("GEN_VER08.txt" → "GEN",
/// "FSMR (Consolidated).txt" → "FSMR"), else its file stem.
pub fn document_label(path: &str) -> String {
    let name =
        std::path::Path::new(path).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let head: String = name.chars().take_while(|c| c.is_ascii_uppercase()).collect();
    let next = name.chars().nth(head.len());
    if (2..=8).contains(&head.len()) && next.is_none_or(|c| !c.is_ascii_lowercase()) {
        head
    } else {
        name
    }
}

/// The number tokens of a label, full and local (without Part/Chapter/Schedule prefixes).
pub fn number_keys(number: &str) -> Vec<Vec<String>> {
    Label::parse(number).map(|label| label_keys(&label)).unwrap_or_default()
}

/// [`number_keys`] of a parsed label.
fn label_keys(label: &Label) -> Vec<Vec<String>> {
    let full: Vec<String> = label.tokens().iter().map(|t| t.to_string()).collect();
    let mut local = Vec::new();
    for seg in &label.segments {
        let skip =
            usize::from(seg.explicit && !matches!(seg.container, Container::Section | Container::Guidance));
        local.extend(seg.tokens.iter().skip(skip).cloned());
    }
    let mut keys = vec![full.clone()];
    if !local.is_empty() && local != full {
        keys.push(local);
    }
    keys
}

/// A section number's keys ([`number_keys`]), each with how well the section answers it
/// ([`rank`]): the number parsed once (a million-chunk library has a million sections).
fn ranked_keys(number: &str) -> Vec<(Vec<String>, u32)> {
    let Some(label) = Label::parse(number) else { return Vec::new() };
    let keys = label_keys(&label);
    let container = is_container(&label);
    keys.into_iter().enumerate().map(|(k, key)| (key, rank(number, container, k == 0))).collect()
}

/// [`rank`] of a number not yet parsed.
#[cfg(test)]
fn preference(number: &str, full: bool) -> u32 {
    rank(number, Label::parse(number).is_some_and(|l| is_container(&l)), full)
}

/// Whether a label names a Part or Chapter itself ("Part 16."), which is rarely what a bare "16"
/// names.
fn is_container(label: &Label) -> bool {
    label.segments.last().is_some_and(|seg| {
        seg.explicit
            && seg.tokens.len() == 1
            && !matches!(seg.container, Container::Section | Container::Guidance)
    })
}

/// How well a section answers a bare number: a full-number match before a local one (after its
/// Part/Chapter prefixes are dropped), a section of the body before one in a schedule, annex or
/// appendix ("section 56 of the FSMR" is the regulations' section 56, not paragraph 56 of a
/// schedule), shallower numbers before deeper ones; `container`: whether the number names a Part
/// or Chapter itself ([`is_container`]).
fn rank(number: &str, container: bool, full: bool) -> u32 {
    let appendix = ["schedule", "annex", "appendix"].iter().any(|w| contains_ignoring_case(number, w));
    let depth = number.matches('.').count().min(99) as u32;
    u32::from(container) * 2000 + u32::from(!full) * 1000 + u32::from(appendix) * 100 + depth
}

/// Whether `text` holds `word` (ASCII, lower case) in any case, without a lower-cased copy (the
/// index is built from a million section numbers).
fn contains_ignoring_case(text: &str, word: &str) -> bool {
    text.as_bytes().windows(word.len()).any(|w| w.eq_ignore_ascii_case(word.as_bytes()))
}

impl ExactIndex {
    /// An index of these documents and sections to which the chunks are then added one by one
    /// (a large library's chunks stream from the catalog, never all in memory at once).
    pub fn builder(docs: &[DocumentRow], sections: &[SectionRow]) -> ExactBuilder {
        ExactIndex::default().extend(docs, sections)
    }

    /// This index with more documents: their sections in, their chunks then added one by one, as
    /// [`ExactIndex::builder`] takes a library's. The documents must be new to the index and come
    /// after its own in the library's order (so that, as in an index built at once, a label two
    /// documents share names the later); the citations are then set again
    /// ([`ExactIndex::with_citations`]), or the new documents' added
    /// ([`ExactIndex::add_citations`]).
    pub fn extend(self, docs: &[DocumentRow], sections: &[SectionRow]) -> ExactBuilder {
        ExactBuilder::new(self.with_sections(docs, sections), sections)
    }

    /// A library's whole index, as [`ExactIndex::builder`] and its chunks then `add_chunks` would
    /// make it: the chunks are added on this thread while the sections go in on another (at a
    /// million chunks each part takes seconds of a library's open).
    pub fn build<E>(
        docs: &[DocumentRow],
        sections: &[SectionRow],
        add_chunks: impl FnOnce(&mut ExactBuilder) -> Result<(), E>,
    ) -> Result<ExactIndex, E> {
        let numbered = || ExactIndex::default().with_sections(docs, sections);
        std::thread::scope(|scope| {
            let thread = std::thread::Builder::new().name("folio-exact-sections".into());
            let numbering = thread.spawn_scoped(scope, numbered);
            let mut chunks = ExactBuilder::new(ExactIndex::default(), sections);
            let added = add_chunks(&mut chunks);
            let numbered = match numbering {
                Ok(t) => t.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                // No thread to be had: the sections go in here, after the chunks.
                Err(_) => numbered(),
            };
            added?;
            Ok(chunks.finish().joined(numbered))
        })
    }

    /// This index with these documents' labels, and their sections' spans and numbers (what
    /// [`ExactIndex::extend`] takes in before the chunks).
    fn with_sections(mut self, docs: &[DocumentRow], sections: &[SectionRow]) -> ExactIndex {
        for d in docs {
            self.labels.insert(d.label.to_uppercase(), d.id);
        }
        let numbers = Arc::make_mut(&mut self.numbers);
        for s in sections {
            let body = (s.span.start + s.heading.len()).min(s.span.end);
            let doc = Arc::make_mut(self.docs.entry(s.doc_id).or_default());
            doc.section_spans.insert(s.section_id.clone(), (s.span, body));
            if let Some(n) = &s.number {
                for (key, rank) in ranked_keys(n) {
                    numbers.entry(token_key(&key)).or_default().push((s.doc_id, s.section_id.clone(), rank));
                }
            }
        }
        self
    }

    /// An index of chunks alone (built from no sections) joined with `numbered`, the same
    /// library's labels and sections alone ([`ExactIndex::with_sections`]).
    fn joined(mut self, numbered: ExactIndex) -> ExactIndex {
        self.labels = numbered.labels;
        self.numbers = numbered.numbers;
        for (id, part) in numbered.docs {
            let spans =
                Arc::try_unwrap(part).map(|p| p.section_spans).unwrap_or_else(|p| p.section_spans.clone());
            Arc::make_mut(self.docs.entry(id).or_default()).section_spans = spans;
        }
        self
    }

    /// [`ExactIndex::extend`] on a copy of this index: the documents' parts and citations are
    /// shared, not copied.
    pub fn extended(&self, docs: &[DocumentRow], sections: &[SectionRow]) -> ExactBuilder {
        self.clone().extend(docs, sections)
    }

    /// Sets the chunks that cite each section from the library's references (resolved in their
    /// own document or to another of the library), in the order they are stored in.
    pub fn with_citations(mut self, refs: &[RefRow]) -> ExactIndex {
        self.citing.clear();
        self.add_citations(refs)
    }

    /// Adds the citations of references stored after all of those already in
    /// ([`ExactIndex::with_citations`]): the references of documents added since, none of the
    /// earlier ones resolved anew.
    pub fn add_citations(mut self, refs: &[RefRow]) -> ExactIndex {
        for r in refs {
            let target = match (r.target_doc_id, &r.target_doc_section, &r.target_section) {
                (Some(d), Some(s), _) => (d, s.clone()),
                (None, _, Some(s)) if r.document.is_none() => (r.doc_id, s.clone()),
                _ => continue,
            };
            if let Some(chunk) = self.chunk_at(r.doc_id, r.span.start) {
                let cited = Arc::make_mut(self.citing.entry(target.0).or_default());
                let list = cited.entry(target.1).or_default();
                if !list.contains(&chunk) {
                    list.push(chunk);
                }
            }
        }
        self
    }

    /// The chunk of a document that holds a byte offset.
    fn chunk_at(&self, doc: i64, at: usize) -> Option<i64> {
        let list = &self.docs.get(&doc)?.chunks;
        let i = list.partition_point(|p| p.span.start <= at);
        list[..i].iter().rev().find(|p| p.span.end > at).map(|p| p.id)
    }

    /// The chunks a section lookup answers with, best first, each with its tier's score (see
    /// [`tier`]): the section's own text in reading order, its guidance, chunks holding only its
    /// heading, then the chunks citing it.
    pub fn section_answer(&self, doc: i64, section_id: &str) -> Vec<(i64, f32)> {
        let mut tiers: [Vec<i64>; 3] = Default::default();
        let part = self.docs.get(&doc);
        if let Some(((span, body), list)) =
            part.and_then(|p| Some((p.section_spans.get(section_id)?, &p.chunks)))
        {
            // Chunks begin in order: those overlapping the span lie between the last one that
            // begins at or before its start and the first that begins at or after its end.
            let from = list.partition_point(|p| p.span.start <= span.start).saturating_sub(1);
            for p in list[from..].iter().take_while(|p| p.span.start < span.end) {
                if p.span.end <= span.start {
                    continue;
                }
                let t = if p.span.end <= *body && p.span.start < *body {
                    2
                } else if p.guidance {
                    1
                } else {
                    0
                };
                tiers[t].push(p.id);
            }
        }
        let scores = [tier::OWN, tier::GUIDANCE, tier::HEADING];
        let mut out: Vec<(i64, f32)> = Vec::new();
        for (t, ids) in tiers.iter().enumerate() {
            out.extend(ids.iter().map(|id| (*id, scores[t])));
        }
        let citing = self.citing.get(&doc).and_then(|c| c.get(section_id));
        for id in citing.into_iter().flatten() {
            if !out.iter().any(|(x, _)| x == id) {
                out.push((*id, tier::CITING));
            }
        }
        out
    }

    /// The document a label names.
    pub fn document(&self, label: &str) -> Option<i64> {
        let l = label.trim().trim_start_matches("the ").to_uppercase();
        self.labels.get(&l).copied()
    }

    /// Sections with these number tokens, in a document or anywhere, the best answers first.
    pub fn sections(&self, tokens: &[String], doc: Option<i64>) -> Vec<(i64, String)> {
        let mut found: Vec<&(i64, String, u32)> = self
            .numbers
            .get(&token_key(tokens))
            .map(|v| v.iter().filter(|(d, _, _)| doc.is_none_or(|x| x == *d)).collect())
            .unwrap_or_default();
        found.sort_by_key(|(_, _, p)| *p);
        found.into_iter().map(|(d, s, _)| (*d, s.clone())).collect()
    }

    /// The chunks holding a section.
    pub fn section_chunks(&self, doc: i64, section_id: &str) -> &[i64] {
        self.docs.get(&doc).and_then(|p| p.section_chunks.get(section_id)).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The exact channel: chunks of the sections and terms a query names, best first.
    pub fn search(&self, query: &Query, limit: usize, docs: &[i64]) -> Vec<(i64, f32)> {
        let mut out: Vec<(i64, f32)> = Vec::new();
        let push = |id: i64, score: f32, out: &mut Vec<(i64, f32)>| {
            if !out.iter().any(|(x, _)| *x == id) {
                out.push((id, score));
            }
        };
        for s in &query.sections {
            let doc = s.document.as_deref().and_then(|l| self.document(l));
            if s.document.is_some() && doc.is_none() {
                continue; // another document that is not in the library
            }
            for (d, sid) in self.sections(&s.tokens, doc) {
                if !docs.is_empty() && !docs.contains(&d) {
                    continue;
                }
                let answer = self.section_answer(d, &sid);
                if answer.is_empty() {
                    // No span known for it: the chunks naming it, the one holding its text first.
                    for (k, c) in self.section_chunks(d, &sid).iter().enumerate() {
                        push(*c, if k == 0 { tier::OWN } else { tier::GUIDANCE }, &mut out);
                    }
                }
                for (c, score) in answer {
                    push(c, score, &mut out);
                }
            }
        }
        if let Some(key) = &query.term {
            if let Some(ids) = self.terms.get(key) {
                for id in ids {
                    push(*id, 1.0, &mut out);
                }
            }
        }
        out.truncate(limit);
        out
    }
}

/// Guidance, as the numbering prints it ("5.5.1.Guidance.1."): a section's guidance notes follow its
/// own text in a lookup. Each document's guidance sections.
fn guidance_of(sections: &[SectionRow]) -> HashMap<i64, HashSet<String>> {
    let mut guidance: HashMap<i64, HashSet<String>> = HashMap::new();
    for s in sections {
        if s.number.as_deref().is_some_and(|n| contains_ignoring_case(n, "guidance")) {
            guidance.entry(s.doc_id).or_default().insert(s.section_id.clone());
        }
    }
    guidance
}

/// An [`ExactIndex`] being built: its documents and sections in, its chunks added one by one.
pub struct ExactBuilder {
    x: ExactIndex,
    /// Each document's guidance sections.
    guidance: HashMap<i64, HashSet<String>>,
    /// The documents whose chunks were added (their chunks are put in order at the end).
    touched: HashSet<i64>,
}

impl ExactBuilder {
    /// A builder of `x`, its chunks to come from the documents these sections are of.
    fn new(x: ExactIndex, sections: &[SectionRow]) -> ExactBuilder {
        ExactBuilder { x, guidance: guidance_of(sections), touched: HashSet::new() }
    }

    /// Adds one chunk.
    pub fn add_chunk(&mut self, c: &ChunkFacts<'_>) {
        let x = &mut self.x;
        let doc = Arc::make_mut(x.docs.entry(c.doc_id).or_default());
        self.touched.insert(c.doc_id);
        for (k, sid) in c.section_ids.iter().enumerate() {
            let list = doc.section_chunks.entry(sid.clone()).or_default();
            if k == 0 {
                list.insert(0, c.id);
            } else {
                list.push(c.id);
            }
        }
        let scope = doc.section_chunks.entry(c.section_id.to_string()).or_default();
        if !scope.contains(&c.id) {
            scope.push(c.id);
        }
        for t in &c.defined_terms {
            Arc::make_mut(&mut x.terms).entry(t.clone()).or_default().push(c.id);
        }
        let guidance = self.guidance.get(&c.doc_id).is_some_and(|g| g.contains(c.section_id));
        doc.chunks.push(ChunkPlace { span: c.span, id: c.id, guidance });
    }

    /// The index, its chunks in place.
    pub fn finish(mut self) -> ExactIndex {
        for id in &self.touched {
            if let Some(part) = self.x.docs.get_mut(id) {
                Arc::make_mut(part).chunks.sort_by_key(|p| (p.span.start, p.id));
            }
        }
        self.x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_from_file_names() {
        assert_eq!(document_label("/x/GEN_VER08.181223.txt"), "GEN");
        assert_eq!(document_label("FSMR (Consolidated_December 2023).txt"), "FSMR");
        assert_eq!(document_label("Guidance - Private Credit Funds.txt"), "Guidance - Private Credit Funds");
        assert_eq!(document_label("policy.pdf"), "policy");
    }

    #[test]
    fn body_sections_before_schedules() {
        assert!(preference("Part 6.56.", false) < preference("Schedule 1.Part 2.Chapter 10.56.", false));
        assert!(preference("Schedule 1.56.", true) < preference("Part 6.56.", false));
        assert!(preference("2.1", true) < preference("2.1.3", true));
        assert!(preference("Part 2.16.", false) < preference("Part 16.", true));
    }

    #[test]
    fn words_found_in_any_case() {
        assert!(contains_ignoring_case("5.5.1.GUIDANCE.1.", "guidance"));
        assert!(contains_ignoring_case("Annex 2.3", "annex"));
        assert!(!contains_ignoring_case("Anne 2.3", "annex"));
        assert!(!contains_ignoring_case("", "annex"));
        assert!(preference("ANNEX 1.56.", true) > preference("1.56.", true));
    }

    #[test]
    fn an_index_built_on_two_threads_is_the_index_built_on_one() {
        use crate::catalog::testing::{new_document, rulebook};
        use crate::catalog::SqliteCatalog;
        let cat = SqliteCatalog::in_memory().unwrap();
        for (path, seed) in [("/a.md", "first"), ("/b.md", "second")] {
            cat.put_document(&new_document(path, &rulebook(seed), "none")).unwrap();
        }
        let docs = cat.documents().unwrap();
        let sections: Vec<SectionRow> = docs.iter().flat_map(|d| cat.sections(d.id).unwrap()).collect();
        let mut one = ExactIndex::builder(&docs, &sections);
        cat.for_each_chunk_facts(&mut |c| one.add_chunk(&c)).unwrap();
        let two = ExactIndex::build(&docs, &sections, |b| cat.for_each_chunk_facts(&mut |c| b.add_chunk(&c)))
            .unwrap();
        assert!(!two.numbers.is_empty() && two.docs.values().all(|d| !d.chunks.is_empty()));
        assert!(two.docs.values().all(|d| !d.section_spans.is_empty() && !d.section_chunks.is_empty()));
        assert_eq!(two, one.finish());
    }

    #[test]
    fn local_numbers() {
        let keys = number_keys("Part 6.Chapter 3.61.(4)");
        assert_eq!(keys[0], vec!["6", "3", "61", "4"]);
        assert_eq!(keys[1], vec!["61", "4"]);
    }
}
