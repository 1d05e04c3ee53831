//! The keyword index's tests: identifiers and stemming, feedback weights, nearness, and scores on
//! candidates against one query over the whole index.

use super::*;

#[test]
fn identifiers_stay_whole_and_words_stem() {
    let k = KeywordIndex::in_memory().unwrap();
    let chunks = [
        KeywordDoc {
            chunk_id: 1,
            doc_id: 1,
            chunk_type: "requirement",
            text: "2.1.3 A firm must observe the Principles.",
            headings: "GEN › 2 Core",
        },
        KeywordDoc {
            chunk_id: 2,
            doc_id: 1,
            chunk_type: "content",
            text: "2.1 applies to 3 firms observing rules",
            headings: "GEN › 2 Core",
        },
        KeywordDoc {
            chunk_id: 3,
            doc_id: 2,
            chunk_type: "definition",
            text: "Section 203(a) defines a Client.",
            headings: "COBS",
        },
    ];
    k.put_document(1, &chunks[..2]).unwrap();
    k.put_document(2, &chunks[2..]).unwrap();
    k.commit().unwrap();
    assert_eq!(k.len(), 3);
    let hits = k.search("Rule 2.1.3", 10, &KeywordFilter::default()).unwrap();
    assert_eq!(hits[0].0, 1);
    let hits = k.search("observes", 10, &KeywordFilter::default()).unwrap();
    assert_eq!(hits.len(), 2, "stemming matches observe/observing");
    let hits = k.search("203(a)", 10, &KeywordFilter::default()).unwrap();
    assert_eq!(hits[0].0, 3);
    let only = KeywordFilter { docs: vec![2], chunk_types: vec![] };
    assert!(k.search("firm", 10, &only).unwrap().is_empty());
    let types = KeywordFilter { docs: vec![], chunk_types: vec!["requirement".into()] };
    assert_eq!(k.search("firm", 10, &types).unwrap().iter().map(|h| h.0).collect::<Vec<_>>(), vec![1]);
    k.remove_document(1).unwrap();
    k.commit().unwrap();
    assert_eq!(k.len(), 1);
}

/// A feedback weight below zero lowers the chunks holding the feedback words (ranked by
/// tantivy: MaxScore needs every word to raise a score).
#[test]
fn a_negative_feedback_weight_lowers_its_words_chunks() {
    let k = KeywordIndex::in_memory().unwrap();
    let doc = |chunk_id, text| KeywordDoc { chunk_id, doc_id: 1, chunk_type: "content", text, headings: "" };
    k.put_document(
        1,
        &[doc(1, "client money rules for the firm"), doc(2, "client money audit for the firm")],
    )
    .unwrap();
    k.commit().unwrap();
    let feedback = Feedback(vec![(Term::from_field_text(k.f_body, "audit"), 1.0)]);
    let ranked =
        |weight| k.search_expanded("client money", &feedback, weight, 10, &KeywordFilter::default()).unwrap();
    assert_eq!(ranked(1.0)[0].0, 2);
    let lowered = ranked(-1.0);
    assert_eq!(lowered.iter().map(|h| h.0).collect::<Vec<_>>(), vec![1, 2], "{lowered:?}");
}

#[test]
fn neighbouring_query_words_rank_chunks_that_keep_them_together() {
    let k = KeywordIndex::in_memory().unwrap();
    let doc = |chunk_id, text| KeywordDoc { chunk_id, doc_id: 1, chunk_type: "content", text, headings: "" };
    // Both chunks hold each query word once and are equally long; only chunk 2 has them as the
    // query has them ("conduct of business": "of" is a stop word but keeps its position).
    let chunks = [
        doc(1, "Business records show the conduct expected of every firm in this market."),
        doc(2, "Records show the conduct of business expected from every firm in this market."),
    ];
    k.put_document(1, &chunks).unwrap();
    k.commit().unwrap();
    let hits = k.search("What conduct of business rules apply?", 10, &KeywordFilter::default()).unwrap();
    assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), vec![2, 1]);
    assert!(hits[0].1 > hits[1].1 * 1.05, "{hits:?}");
    // A pair is only tried within PAIR_GAP positions, and a repeated word never pairs with
    // itself.
    let pairs_of = |q: &str| rescore::pairs(&k.positioned_terms(k.f_body, q).unwrap());
    let found = pairs_of("conduct of business business");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(pairs_of("conduct of the such as business").is_empty());
}

/// The search as one query with the pairs as phrase clauses (what [`rescore`] replaces), every
/// match scored.
fn reference(k: &KeywordIndex, query: &str) -> std::collections::BTreeMap<u64, f32> {
    use tantivy::collector::TopDocs;
    use tantivy::query::PhraseQuery;
    use tantivy::schema::Value;
    use tantivy::TantivyDocument;
    let words = k.positioned_terms(k.f_body, query).unwrap();
    let mut should: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    for t in distinct(&words) {
        should.push((Occur::Should, Box::new(TermQuery::new(t, IndexRecordOption::WithFreqs))));
    }
    for t in distinct(&k.positioned_terms(k.f_ids, query).unwrap()) {
        let q: Box<dyn Query> = Box::new(TermQuery::new(t, IndexRecordOption::WithFreqs));
        should.push((Occur::Should, Box::new(BoostQuery::new(q, ID_BOOST))));
    }
    for p in rescore::pairs(&words) {
        let q: PhraseQuery = p.phrase();
        should.push((Occur::Should, Box::new(BoostQuery::new(Box::new(q), PAIR_BOOST))));
    }
    let searcher = k.reader.searcher();
    let top =
        searcher.search(&BooleanQuery::new(should), &TopDocs::with_limit(10_000).order_by_score()).unwrap();
    top.into_iter()
        .map(|(score, addr)| {
            let d: TantivyDocument = searcher.doc(addr).unwrap();
            (d.get_first(k.f_chunk).and_then(|v| v.as_u64()).unwrap(), score)
        })
        .collect()
}

const VOCABULARY: [&str; 12] =
    ["conduct", "of", "business", "the", "firm", "client", "money", "rules", "2.1", "market", "and", "risk"];

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
    /// The rarer words ranked alone, then the common words and the pairs scored on the
    /// candidates, score every chunk they return as the one query with phrase clauses did;
    /// with no word counted common and room for every match, they return every chunk it does.
    #[test]
    fn later_scores_on_candidates_equal_one_query(
        texts in proptest::collection::vec(proptest::collection::vec(0usize..12, 1..30), 1..60),
        query in proptest::collection::vec(0usize..12, 1..7),
        share in proptest::sample::select(vec![1.0, 0.6, 0.3]),
    ) {
        let k = KeywordIndex::in_memory().unwrap();
        let words: Vec<String> =
            texts.iter().map(|t| t.iter().map(|&w| VOCABULARY[w]).collect::<Vec<_>>().join(" ")).collect();
        let chunks: Vec<KeywordDoc<'_>> = words
            .iter()
            .enumerate()
            .map(|(i, text)| KeywordDoc { chunk_id: i as u64, doc_id: 1, chunk_type: "content", text, headings: "" })
            .collect();
        k.put_document(1, &chunks).unwrap();
        k.commit().unwrap();
        let query: String = query.iter().map(|&w| VOCABULARY[w]).collect::<Vec<_>>().join(" ");
        let want = reference(&k, &query);
        // Every match, every word ranked: the one query's result.
        let all = k.ranked(&query, &Feedback::default(), 0.0, 1_000, &KeywordFilter::default(), 1.0).unwrap();
        proptest::prop_assert_eq!(all.len(), want.len());
        for (id, score) in &all {
            let r = want[id];
            proptest::prop_assert!((score - r).abs() <= 1e-4 * r.abs().max(1.0), "{id}: {score} vs {r}");
        }
        // The best two, the common words scored later where the rarer fill the 6 candidates:
        // each chunk's score is still the one query's.
        let got = k.ranked(&query, &Feedback::default(), 0.0, 2, &KeywordFilter::default(), share).unwrap();
        proptest::prop_assert_eq!(got.len(), want.len().min(2));
        for w in got.windows(2) {
            proptest::prop_assert!(w[0].1 >= w[1].1, "best first: {:?}", got);
        }
        for (id, score) in got {
            let r = want[&id];
            proptest::prop_assert!((score - r).abs() <= 1e-4 * r.abs().max(1.0), "{id}: {score} vs {r}");
        }
    }
}
