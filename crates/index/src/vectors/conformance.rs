//! What every [`VectorStore`] does, as one function each implementation's tests call (the RAM
//! store and LanceDB here, pgvector in `folio-postgres`): put, search (with and without a document
//! filter, best first), replace a document's records, remove, and give a document's vectors back.

use super::{VectorRecord, VectorStore};

/// A record of chunk `chunk_id` in document `doc_id` with vector `v` (3 dimensions in the checks).
pub fn record(chunk_id: i64, doc_id: i64, v: Vec<f32>) -> VectorRecord {
    VectorRecord {
        chunk_id,
        doc_id,
        source_path: format!("/docs/{doc_id}.txt"),
        chunk_index: chunk_id,
        content: format!("chunk {chunk_id}"),
        contextualized_content: format!("chunk {chunk_id}"),
        embedding: v,
        mtime: 0,
        file_type: "text".into(),
        file_size_bytes: 10,
        parent_chain: "[]".into(),
        section_id: "sec_1".into(),
        heading_level: 1,
        chunk_type: "content".into(),
        cross_references: "[]".into(),
        doc_summary: String::new(),
        defined_term: None,
        defined_term_normalized: None,
        page_start: Some(1),
        page_end: None,
        char_start: 0,
        char_end: 7,
        content_hash: "h".into(),
    }
}

/// Runs the checks on an empty store of 3 dimensions; panics at the first that fails.
pub fn exercise(store: &dyn VectorStore) {
    assert!(store.is_empty().unwrap(), "the store starts empty");
    store.put_document(1, &[record(1, 1, vec![1.0, 0.0, 0.0]), record(2, 1, vec![0.0, 1.0, 0.0])]).unwrap();
    store.put_document(2, &[record(3, 2, vec![0.7, 0.7, 0.0])]).unwrap();
    assert_eq!(store.len().unwrap(), 3);
    let hits = store.search(&[1.0, 0.1, 0.0], 2, &[]).unwrap();
    assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), vec![1, 3]);
    assert!((hits[0].1 - 0.995).abs() < 0.01, "cosine similarity: {hits:?}");
    let hits = store.search(&[1.0, 0.1, 0.0], 5, &[2]).unwrap();
    assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), vec![3], "only the documents asked for");
    let vectors = store.document_vectors(1).unwrap();
    assert_eq!(vectors.len(), 2);
    assert!((vectors[&2][1] - 1.0).abs() < 1e-6);
    store.put_document(1, &[record(4, 1, vec![0.0, 0.0, 1.0])]).unwrap();
    assert_eq!(store.len().unwrap(), 2, "re-putting a document replaces its records");
    assert!(store.document_vectors(1).unwrap().contains_key(&4));
    store.remove_document(2).unwrap();
    assert_eq!(
        store.search(&[0.0, 0.0, 1.0], 5, &[]).unwrap().iter().map(|h| h.0).collect::<Vec<_>>(),
        vec![4]
    );
    assert!(store.document_vectors(2).unwrap().is_empty());
    store.put_document(3, &[]).unwrap();
    assert_eq!(store.len().unwrap(), 1, "a document without chunks adds no record");
}

/// For stores that keep every record's metadata (what a damaged catalog is rebuilt from): the
/// records read back whole. Runs on an empty store of 3 dimensions.
pub fn exercise_records(store: &dyn VectorStore) {
    let mut three = record(3, 2, vec![0.7, 0.7, 0.0]);
    three.defined_term = Some("Client".into());
    three.page_end = Some(2);
    store.put_document(1, &[record(4, 1, vec![0.0, 0.0, 1.0])]).unwrap();
    store.put_document(2, std::slice::from_ref(&three)).unwrap();
    let mut back = store.records().unwrap();
    back.sort_by_key(|r| r.chunk_id);
    assert_eq!(back, vec![three, record(4, 1, vec![0.0, 0.0, 1.0])], "records read back whole");
    store.remove_document(2).unwrap();
    assert_eq!(store.records().unwrap().len(), 1);
}
