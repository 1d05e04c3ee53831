//! Whose definitions apply where. A definition applies where its text says it does: in its own
//! document (within the part it scopes, when it scopes one), and in the documents that adopt a
//! glossary — a document that is mostly definitions — by naming it (its label, "GLO", or the word
//! "Glossary" where that is its title), and, where the documents around a glossary share it,
//! every document of that family (ADGM's Glossary serves every ADGM rulebook, also those that do
//! not name it). Citing a rule of another rulebook adopts none of its definitions, and a company's
//! 10-K names no other company's report: its "we, us, our" stays its own.
//!
//! A family is a set of documents joined by their citations and glossary names. A glossary serves
//! its family when at least half of the family's other documents name it.

use super::{DefinitionHit, DefinitionRow, DocumentRow, Library};
use crate::EngineError;
use folio_core::context::TermFinder;
use folio_core::model::Span;
use folio_index::catalog::ChunkFacts;
use std::collections::{BTreeSet, HashMap, HashSet};

/// A glossary is mostly definitions: they cover at least this share of its text.
const GLOSSARY_SHARE: f64 = 0.5;
/// A glossary serves its whole family when at least this share of the family's other documents
/// name it.
const SHARED_BY: f64 = 0.5;

/// For each document, the documents whose definitions apply in it: itself first, then those it
/// adopts, by id.
#[derive(Debug, Default, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Adoptions {
    by_doc: HashMap<i64, Vec<i64>>,
}

/// What the adoption rules look at in one document.
#[derive(Debug, Clone, Default)]
pub struct DocumentFacts {
    /// The document's id.
    pub id: i64,
    /// The length of its text (bytes).
    pub text_len: usize,
    /// How much of it its definitions cover (bytes).
    pub definition_len: usize,
    /// The library's documents its references point into (resolved citations of other documents).
    pub cites: BTreeSet<i64>,
    /// The glossaries of the library it names.
    pub names: BTreeSet<i64>,
}

impl Adoptions {
    /// The adoptions among these documents.
    pub fn build(docs: &[DocumentFacts]) -> Adoptions {
        let index: HashMap<i64, usize> = docs.iter().enumerate().map(|(i, d)| (d.id, i)).collect();
        let family = families(docs, &index);
        let mut by_doc: HashMap<i64, Vec<i64>> = docs.iter().map(|d| (d.id, vec![d.id])).collect();
        for g in docs.iter().filter(|g| is_glossary(g)) {
            let members: Vec<&DocumentFacts> = docs
                .iter()
                .filter(|d| d.id != g.id && family[index[&d.id]] == family[index[&g.id]])
                .collect();
            let naming = members.iter().filter(|d| d.names.contains(&g.id)).count();
            let shared = !members.is_empty() && naming as f64 >= SHARED_BY * members.len() as f64;
            for m in members.iter().filter(|m| shared || m.names.contains(&g.id)) {
                let adopted = by_doc.entry(m.id).or_default();
                if !adopted.contains(&g.id) {
                    adopted.push(g.id);
                }
            }
        }
        Adoptions { by_doc }
    }

    /// The documents whose definitions apply in `doc`: itself first, then those it adopts.
    pub fn applying_in(&self, doc: i64) -> Vec<i64> {
        self.by_doc.get(&doc).cloned().unwrap_or_else(|| vec![doc])
    }
}

/// Whether `text` holds `word` as a whole word (letters and digits on neither side): the reference
/// [`GlossaryNames`] is checked against.
#[cfg(test)]
fn names_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// The words that could name a glossary (each document's label, and "Glossary" where its title
/// says it is one), found in one pass over each text whatever their number (a library of a
/// thousand filings has a thousand labels). Saved as its words and whom each names, its finder
/// built again when read back.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
#[serde(into = "NamedWords", try_from = "NamedWords")]
struct GlossaryNames {
    finder: aho_corasick::AhoCorasick,
    /// The words, and for each the documents it names.
    words: NamedWords,
}

/// The words that could name a glossary, and for each the documents it names.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
struct NamedWords {
    words: Vec<String>,
    docs: Vec<Vec<i64>>,
}

impl From<GlossaryNames> for NamedWords {
    fn from(names: GlossaryNames) -> NamedWords {
        names.words
    }
}

impl TryFrom<NamedWords> for GlossaryNames {
    type Error = EngineError;

    fn try_from(words: NamedWords) -> Result<GlossaryNames, EngineError> {
        let finder = aho_corasick::AhoCorasick::new(&words.words)
            .map_err(|e| EngineError::Internal(format!("the glossaries' names: {e}")))?;
        Ok(GlossaryNames { finder, words })
    }
}

impl GlossaryNames {
    fn new(named: &[(i64, Vec<String>)]) -> Result<GlossaryNames, EngineError> {
        let mut index: HashMap<&str, usize> = HashMap::new();
        let mut words = NamedWords { words: Vec::new(), docs: Vec::new() };
        for (d, ws) in named {
            for w in ws.iter().filter(|w| !w.is_empty()) {
                let i = *index.entry(w.as_str()).or_insert_with(|| {
                    words.words.push(w.clone());
                    words.docs.push(Vec::new());
                    words.words.len() - 1
                });
                words.docs[i].push(*d);
            }
        }
        GlossaryNames::try_from(words)
    }

    /// Adds the words `text` holds as whole words (as [`names_word`] finds them) to `found`.
    fn find(&self, text: &str, found: &mut HashSet<usize>) {
        if self.words.docs.is_empty() {
            return;
        }
        for m in self.finder.find_overlapping_iter(text) {
            let before = text[..m.start()].chars().next_back();
            let after = text[m.end()..].chars().next();
            if !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric) {
                found.insert(m.pattern().as_usize());
            }
        }
    }
}

/// What the adoption rules need from a library's chunks, gathered in one pass over them (see
/// [`Library::adoptions_of`]): each document's text length and the words naming documents that
/// its chunks hold.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub(super) struct NameScan {
    names: GlossaryNames,
    text_len: HashMap<i64, usize>,
    found: HashMap<i64, HashSet<usize>>,
}

impl NameScan {
    /// A scan for the names of these documents.
    pub(super) fn new(docs: &[DocumentRow]) -> Result<NameScan, EngineError> {
        let named: Vec<(i64, Vec<String>)> = docs
            .iter()
            .map(|d| {
                let mut words = vec![d.label.clone()];
                if d.title.to_lowercase().contains("glossary") {
                    words.push("Glossary".to_string());
                }
                (d.id, words)
            })
            .collect();
        Ok(NameScan { names: GlossaryNames::new(&named)?, text_len: HashMap::new(), found: HashMap::new() })
    }

    /// Takes in one chunk.
    pub(super) fn add(&mut self, c: &ChunkFacts<'_>) {
        *self.text_len.entry(c.doc_id).or_default() += c.content.len();
        self.names.find(c.content, self.found.entry(c.doc_id).or_default());
    }

    /// Whether a document whose chunks the scan took in is a glossary, as the adoption rules judge
    /// it (see [`is_glossary`]).
    pub(super) fn is_glossary(&self, doc: i64, definitions: &[DefinitionRow]) -> bool {
        let definition_len = definitions.iter().filter(|d| d.doc_id == doc).map(definition_size).sum();
        let text_len = self.text_len.get(&doc).copied().unwrap_or(0);
        is_glossary(&DocumentFacts { id: doc, text_len, definition_len, ..Default::default() })
    }

    /// The documents (of `among`) each document's chunks name, itself left out.
    fn named(&self, among: &HashSet<i64>) -> HashMap<i64, BTreeSet<i64>> {
        let mut out: HashMap<i64, BTreeSet<i64>> = HashMap::new();
        for (doc, words) in &self.found {
            for w in words {
                let named = self.names.words.docs[*w].iter().filter(|g| **g != *doc && among.contains(g));
                out.entry(*doc).or_default().extend(named);
            }
        }
        out
    }
}

/// The bytes of a document's text a definition accounts for (its term and its text).
fn definition_size(d: &DefinitionRow) -> usize {
    d.text.len() + d.term.len()
}

/// Whether a document is mostly definitions.
fn is_glossary(d: &DocumentFacts) -> bool {
    d.text_len > 0 && d.definition_len as f64 >= GLOSSARY_SHARE * d.text_len as f64
}

/// Each document's family: the connected parts of the citation graph (citations either way).
fn families(docs: &[DocumentFacts], index: &HashMap<i64, usize>) -> Vec<usize> {
    let mut parent: Vec<usize> = (0..docs.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for (i, d) in docs.iter().enumerate() {
        for g in d.cites.iter().chain(&d.names) {
            if let Some(&j) = index.get(g) {
                let (a, b) = (root(&mut parent, i), root(&mut parent, j));
                parent[a] = b;
            }
        }
    }
    (0..docs.len()).map(|i| root(&mut parent, i)).collect()
}

/// A defined term used in a text, with the definition that applies there.
#[derive(Debug, Clone)]
pub struct UsedTerm {
    /// Where the term is used (bytes of the text).
    pub span: Span,
    /// The term as defined.
    pub term: String,
    /// The term's key.
    pub key: String,
    /// The definition that applies where it is used.
    pub definition: DefinitionHit,
}

/// Whose definitions apply in each document, from what a scan of its chunks found, its
/// definitions and its references to other documents, as resolved (see the module note).
pub(super) fn adoptions_of(
    docs: &[DocumentRow],
    scan: &NameScan,
    definitions: &[DefinitionRow],
    refs: &[(i64, folio_index::catalog::RefRow)],
) -> Adoptions {
    let mut facts: HashMap<i64, DocumentFacts> =
        docs.iter().map(|d| (d.id, DocumentFacts { id: d.id, ..Default::default() })).collect();
    for (doc, len) in &scan.text_len {
        if let Some(f) = facts.get_mut(doc) {
            f.text_len = *len;
        }
    }
    for d in definitions {
        if let Some(f) = facts.get_mut(&d.doc_id) {
            f.definition_len += definition_size(d);
        }
    }
    for (_, r) in refs {
        if let (Some(f), Some(target)) = (facts.get_mut(&r.doc_id), r.target_doc_id) {
            f.cites.insert(target);
        }
    }
    let glossaries: HashSet<i64> = facts.values().filter(|f| is_glossary(f)).map(|f| f.id).collect();
    for (doc, named) in scan.named(&glossaries) {
        if let Some(f) = facts.get_mut(&doc) {
            f.names = named;
        }
    }
    let mut facts: Vec<DocumentFacts> = facts.into_values().collect();
    facts.sort_by_key(|f| f.id);
    Adoptions::build(&facts)
}

impl Library {
    /// The definitions that apply in a section: its document's own (those scoped to a part only
    /// within that part), then those of the documents it adopts (see the module note), each
    /// document's in document order.
    pub fn applicable_definitions(
        &self,
        doc_id: i64,
        section_id: &str,
    ) -> Result<Vec<DefinitionHit>, EngineError> {
        let within: HashSet<String> =
            self.crumbs(doc_id, section_id).into_iter().map(|c| c.section_id).collect();
        let all = self.definition_hits(None)?;
        let mut out = Vec::new();
        for source in self.adoptions.applying_in(doc_id) {
            out.extend(
                all.iter()
                    .filter(|h| {
                        h.doc_id == source
                            && match &h.definition.scope_section {
                                None => true,
                                // A scoped definition applies in its own document's part only.
                                Some(scope) => {
                                    source == doc_id && (within.contains(scope) || scope == section_id)
                                }
                            }
                    })
                    .cloned(),
            );
        }
        Ok(out)
    }

    /// The defined terms used in `text` (a section's text), each with the definition that applies
    /// there: the first of [`Library::applicable_definitions`] for its key.
    pub fn used_terms(
        &self,
        doc_id: i64,
        section_id: &str,
        text: &str,
    ) -> Result<Vec<UsedTerm>, EngineError> {
        let defs = self.applicable_definitions(doc_id, section_id)?;
        let finder =
            TermFinder::new(defs.iter().map(|h| (h.definition.term.as_str(), h.definition.key.as_str())));
        Ok(finder
            .find(text)
            .into_iter()
            .filter_map(|u| {
                let definition = defs.iter().find(|h| h.definition.key == u.key)?.clone();
                Some(UsedTerm { span: u.span, term: u.term, key: u.key, definition })
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use folio_index::catalog::ChunkRow;

    /// A document of `text` bytes, `definitions` of them definitions, citing and naming others.
    fn doc(id: i64, text: usize, definitions: usize, cites: &[i64], names: &[i64]) -> DocumentFacts {
        DocumentFacts {
            id,
            text_len: text,
            definition_len: definitions,
            cites: cites.iter().copied().collect(),
            names: names.iter().copied().collect(),
        }
    }

    #[test]
    fn a_filing_keeps_its_definitions_and_a_shared_glossary_serves_its_family() {
        // 1, 2: two companies' reports, naming nothing of each other. 10: a glossary (mostly
        // definitions); 11 and 12 name it; 13 names none but cites 11, in the same family; 14
        // cites 11 and is itself no glossary for anyone.
        let docs = [
            doc(1, 300, 12, &[], &[]),
            doc(2, 250, 9, &[], &[]),
            doc(10, 800, 700, &[], &[]),
            doc(11, 400, 20, &[], &[10]),
            doc(12, 300, 10, &[11], &[10]),
            doc(13, 100, 3, &[11], &[]),
        ];
        let a = Adoptions::build(&docs);
        assert_eq!(a.applying_in(1), [1]);
        assert_eq!(a.applying_in(2), [2]);
        assert_eq!(a.applying_in(11), [11, 10]);
        assert_eq!(a.applying_in(12), [12, 10], "citing a rulebook adopts none of its definitions");
        assert_eq!(a.applying_in(13), [13, 10], "the family's shared glossary");
        assert_eq!(a.applying_in(10), [10]);
        assert_eq!(a.applying_in(99), [99], "a document the adoptions do not know has its own only");
    }

    #[test]
    fn a_glossary_few_of_its_family_name_serves_only_those() {
        // 20 is a glossary named by one of four other documents of its family.
        let docs = [
            doc(20, 100, 90, &[], &[]),
            doc(21, 100, 5, &[], &[20]),
            doc(22, 100, 5, &[21], &[]),
            doc(23, 100, 5, &[22], &[]),
            doc(24, 100, 5, &[23], &[]),
        ];
        let a = Adoptions::build(&docs);
        assert_eq!(a.applying_in(21), [21, 20]);
        assert_eq!(a.applying_in(23), [23]);
        // A document that is not mostly definitions is adopted by nobody, however named.
        let docs = [doc(30, 100, 10, &[], &[]), doc(31, 10, 1, &[30], &[30]), doc(32, 10, 1, &[30], &[30])];
        assert_eq!(Adoptions::build(&docs).applying_in(32), [32]);
    }

    fn chunk(doc_id: i64, content: &str) -> ChunkRow {
        ChunkRow {
            id: 0,
            doc_id,
            chunk_index: 0,
            section_id: "doc".into(),
            section_ids: Vec::new(),
            parent_chain: Vec::new(),
            heading_level: 0,
            chunk_type: "text".into(),
            pages: None,
            span: Span { start: 0, end: content.len() },
            content_hash: String::new(),
            content: content.into(),
            context: String::new(),
            context_source: String::new(),
            defined_terms: Vec::new(),
        }
    }

    proptest::proptest! {
        /// One pass for all the glossaries' words finds what a search for each word finds.
        #[test]
        fn glossary_names_are_found_as_each_word_alone(
            texts in proptest::collection::vec(
                proptest::collection::vec(proptest::sample::select(vec!["GLO", "Glossary", "GEN", " ", ".", "x", "-", "é"]), 0..12),
                1..6,
            )
        ) {
            let glossaries = vec![(1, vec!["GLO".to_string(), "Glossary".to_string()]), (2, vec!["GEN".to_string()]), (3, vec!["GLO".to_string()])];
            let chunks: Vec<ChunkRow> =
                texts.iter().enumerate().map(|(i, t)| chunk(10 + i as i64 % 3, &t.concat())).collect();
            let names = GlossaryNames::new(&glossaries).unwrap();
            let mut found: HashMap<i64, BTreeSet<i64>> = HashMap::new();
            for c in &chunks {
                let mut words = HashSet::new();
                names.find(&c.content, &mut words);
                for w in words {
                    found.entry(c.doc_id).or_default().extend(&names.words.docs[w]);
                }
            }
            let mut expected: HashMap<i64, BTreeSet<i64>> = HashMap::new();
            for c in &chunks {
                for (g, words) in &glossaries {
                    if words.iter().any(|w| names_word(&c.content, w)) {
                        expected.entry(c.doc_id).or_default().insert(*g);
                    }
                }
            }
            proptest::prop_assert_eq!(found, expected);
        }
    }

    #[test]
    fn a_label_is_named_as_a_whole_word() {
        assert!(names_word("see the Glossary (GLO) for", "GLO"));
        assert!(names_word("GLO.", "GLO"));
        assert!(!names_word("GLOBAL markets", "GLO"));
        assert!(!names_word("AGLO", "GLO"));
    }
}
