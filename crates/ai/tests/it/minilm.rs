//! all-MiniLM-L6-v2 against references made outside this crate (see tests/reference/):
//! token ids from the Hugging Face `tokenizers` library, embeddings from a float64 numpy forward
//! pass. Needs `.assets/minilm` (`scripts/setup-assets.sh`): ignored by a plain `cargo test`.

use std::path::PathBuf;
use std::sync::OnceLock;

use folio_ai::{cosine, int8_kernel, Embedder, MiniLm, Precision};
use serde::Deserialize;

/// The MiniLM assets, or the test fails saying how to get them.
fn assets() -> PathBuf {
    for f in ["model.safetensors", "config.json", "vocab.txt"] {
        folio_testkit::paths::require_asset(&format!("minilm/{f}"));
    }
    folio_testkit::paths::assets_dir().join("minilm")
}

/// The f32 encoder: the reference's own precision.
fn model() -> &'static MiniLm {
    static MODEL: OnceLock<MiniLm> = OnceLock::new();
    MODEL.get_or_init(|| {
        MiniLm::load_with(&assets(), Precision::Reference).expect("load MiniLM").with_batch_size(2)
    })
}

#[derive(Deserialize)]
struct IdCases {
    max_len: usize,
    cases: Vec<IdCase>,
}

#[derive(Deserialize)]
struct IdCase {
    text: String,
    ids: Vec<u32>,
}

#[derive(Deserialize)]
struct Reference {
    max_len: usize,
    sentences: Vec<RefSentence>,
}

#[derive(Deserialize)]
struct RefSentence {
    text: String,
    ids: Vec<u32>,
    embedding: Vec<f32>,
}

fn reference() -> Reference {
    serde_json::from_str(include_str!("../reference/minilm_reference.json")).unwrap()
}

fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

#[test]
#[ignore = "needs .assets (scripts/setup-assets.sh); scripts/test.sh runs it"]
fn token_ids_match_hf_tokenizers() {
    let dir = assets();
    let tok = folio_ai::load_vocabulary(&dir.join("vocab.txt")).unwrap();
    let fixture: IdCases = serde_json::from_str(include_str!("../reference/tokenizer_ids.json")).unwrap();
    let mut failures = Vec::new();
    for case in &fixture.cases {
        let got = tok.encode(&case.text, fixture.max_len).ids;
        if got != case.ids {
            failures.push(format!(
                "{:?}\n  want {:?}\n  got  {:?}\n  pieces {:?}",
                case.text,
                case.ids,
                got,
                tok.tokenize(&case.text)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let reference = reference();
    for s in &reference.sentences {
        assert_eq!(tok.encode(&s.text, reference.max_len).ids, s.ids, "{:?}", s.text);
    }
}

#[test]
#[ignore = "needs .assets (scripts/setup-assets.sh); scripts/test.sh runs it"]
fn embeddings_match_reference() {
    assets();
    let m = model();
    assert_eq!(m.dim(), 384);
    assert_eq!(m.max_tokens(), 256);
    let reference = reference();
    let texts: Vec<&str> = reference.sentences.iter().map(|s| s.text.as_str()).collect();
    // Batches of two (sorted by length), the short texts padded. (Small batches keep this test
    // quick in unoptimised builds.) The reference truncates the long text at the window; Folio
    // embeds its remainder as a second window and averages the two by their pieces, so the
    // long text's vector is the reference's first window leaning a little toward the remainder.
    let docs = m.embed_documents(&texts).unwrap();
    assert_eq!(docs.len(), texts.len());
    for (s, v) in reference.sentences.iter().zip(&docs) {
        assert_eq!(v.len(), 384);
        let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "norm {norm}");
        let c = cosine(v, &s.embedding);
        eprintln!("document cosine {c:.7}, max |diff| {:.1e}  {:.40}", max_diff(v, &s.embedding), s.text);
        if s.ids.len() >= reference.max_len {
            let tok = m.tokenizer();
            let pieces = tok.tokenize_ids(&s.text);
            assert!(pieces.len() > reference.max_len - 2, "the long text overflows the window");
            let rest: Vec<&str> = tok.tokenize(&s.text)[reference.max_len - 2..].to_vec();
            let tail = m.embed_query(&rest.join(" ").replace(" ##", "")).unwrap();
            assert!((0.9..0.9999).contains(&c), "cosine {c}: the first window dominates, the tail counts");
            assert!(cosine(v, &tail) > cosine(&s.embedding, &tail), "the remainder pulls the vector");
        } else {
            assert!(c >= 0.999, "cosine {c} for {:?}", s.text);
        }
    }
    // One by one, unpadded: the same vectors (the long text is covered above).
    for (s, d) in reference.sentences.iter().zip(&docs).filter(|(s, _)| s.ids.len() < 64) {
        let q = m.embed_query(&s.text).unwrap();
        let c = cosine(&q, &s.embedding);
        eprintln!("query cosine    {c:.7}, max |diff| {:.1e}  {:.40}", max_diff(&q, &s.embedding), s.text);
        assert!(c >= 0.999, "cosine {c} for {:?}", s.text);
        assert!(cosine(&q, d) >= 0.9999, "padding changed the vector of {:?}", s.text);
    }
}

#[test]
#[ignore = "needs .assets (scripts/setup-assets.sh); scripts/test.sh runs it"]
fn retrieval_sense() {
    assets();
    let m = model();
    let docs = m
        .embed_documents(&[
            "The licensee must keep records of all transactions for at least six years.",
            "Fees are payable within thirty days of the date of the invoice.",
            "",
        ])
        .unwrap();
    assert_eq!(docs.len(), 3);
    let q = m.embed_query("How long must records be retained?").unwrap();
    assert!(cosine(&q, &docs[0]) > cosine(&q, &docs[1]) + 0.1);
    assert!(m.embed_documents(&[]).unwrap().is_empty());
}

/// The first components sentence-transformers prints for this sentence with all-MiniLM-L6-v2 (an
/// anchor outside our own numpy reference).
#[test]
#[ignore = "needs .assets (scripts/setup-assets.sh); scripts/test.sh runs it"]
fn matches_published_example() {
    assets();
    let v = model().embed_query("This is an example sentence").unwrap();
    let published: [f64; 5] =
        [6.76569119e-02, 6.34959638e-02, 4.87131625e-02, 7.93049857e-02, 3.74480747e-02];
    for (got, want) in v.iter().zip(published) {
        assert!((*got as f64 - want).abs() < 1e-5, "{:?} vs {published:?}", &v[..5]);
    }
}

/// The fast f32 encoder (what `MiniLm::load` runs on CPUs without VNNI) gives the reference
/// encoder's vectors; unpadded, a text's vector is the same alone or in a batch, on one thread
/// or two.
#[test]
#[ignore = "needs .assets (scripts/setup-assets.sh); scripts/test.sh runs it"]
fn fast_f32_encoder_matches_the_reference() {
    assets();
    let m = MiniLm::load_with(&assets(), Precision::F32).unwrap();
    assert_eq!(m.precision_name(), "f32");
    let reference = reference();
    let texts: Vec<&str> = reference.sentences.iter().map(|s| s.text.as_str()).collect();
    let docs = m.embed_documents(&texts).unwrap();
    let checked = model().embed_documents(&texts).unwrap();
    for ((s, v), r) in reference.sentences.iter().zip(&docs).zip(&checked) {
        let c = cosine(v, r);
        assert!(c >= 0.99999, "cosine {c} to the reference encoder for {:?}", s.text);
        let alone = m.embed_query(s.text.as_str()).unwrap();
        assert!(cosine(&alone, v) >= 0.99999, "batching changed the vector of {:?}", s.text);
    }
    let one = m.with_threads(1).embed_documents(&texts).unwrap();
    for (a, b) in one.iter().zip(&docs) {
        assert!(cosine(a, b) >= 0.99999, "threads changed the vectors");
    }
}

/// The 8-bit encoder (what `MiniLm::load` runs on CPUs with AMX or AVX-512 VNNI; the AVX2 and
/// scalar kernels elsewhere, on request) against
/// the float64 reference and against the f32 encoder: the same vectors within quantization error,
/// the same vector for a text whether it is embedded alone or in a batch, and on one thread or two.
#[test]
#[ignore = "needs .assets (scripts/setup-assets.sh); scripts/test.sh runs it"]
fn int8_encoder_keeps_the_vectors() {
    assets();
    let m = MiniLm::load_with(&assets(), Precision::Int8).unwrap();
    let kernel = format!("{:?}", int8_kernel()).to_lowercase();
    assert!(m.precision_name().starts_with("int8"), "{}", m.precision_name());
    assert!(
        m.precision_name().to_lowercase().contains(kernel.as_str()),
        "{} on {kernel}",
        m.precision_name()
    );
    let reference = reference();
    let texts: Vec<&str> = reference.sentences.iter().map(|s| s.text.as_str()).collect();
    let docs = m.embed_documents(&texts).unwrap();
    let f32_docs = model().embed_documents(&texts).unwrap();
    let mut worst = 1f32;
    for ((s, v), f) in reference.sentences.iter().zip(&docs).zip(&f32_docs) {
        let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "norm {norm}");
        let c = cosine(v, f);
        eprintln!("int8 vs f32 cosine {c:.5}, vs reference {:.5}  {:.40}", cosine(v, &s.embedding), s.text);
        worst = worst.min(c);
        if s.ids.len() < reference.max_len {
            assert!(cosine(v, &s.embedding) >= 0.99, "{:?}", s.text);
        }
        let alone = m.embed_query(s.text.as_str()).unwrap();
        assert!(cosine(&alone, v) >= 0.99999, "batching changed the vector of {:?}", s.text);
    }
    assert!(worst >= 0.99, "int8 vs f32 cosine {worst}");
    let one = m.with_threads(1).embed_documents(&texts).unwrap();
    assert_eq!(one, docs, "threads changed the vectors");
}

/// A whole list in parts (what an ingest asks of a document's chunks): the same vectors as one
/// call, the texts done told in order up to all of them, and once the answer is no, no vectors.
#[test]
#[ignore = "needs .assets (scripts/setup-assets.sh); scripts/test.sh runs it"]
fn a_list_embedded_in_parts_is_told_and_stops_when_refused() {
    let m = MiniLm::load_with(&assets(), Precision::Int8).unwrap();
    let sentence = "The Regulator may, by written notice, require an Authorised Person to provide";
    let texts: Vec<String> = (1..=60).map(|i| sentence.repeat(1 + i % 4) + &format!(" {i}")).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let mut told = Vec::new();
    let parts = m
        .embed_documents_in_parts(&refs, 8, &mut |done| {
            told.push(done);
            true
        })
        .unwrap()
        .expect("nothing refused");
    assert_eq!(parts, m.embed_documents(&refs).unwrap());
    assert!(told.len() > 2, "asked only {told:?}");
    assert!(told.windows(2).all(|w| w[0] <= w[1]), "{told:?}");
    assert_eq!((told[0], *told.last().unwrap()), (0, refs.len()));
    let mut asked = 0;
    let stopped = m
        .embed_documents_in_parts(&refs, 8, &mut |_| {
            asked += 1;
            asked < 3
        })
        .unwrap();
    assert!(stopped.is_none());
    assert!(asked >= 3);
}
