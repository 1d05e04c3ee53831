//! potion-base-2M (model2vec static embeddings) against vectors made by the reference `model2vec`
//! Python package (tests/reference/make_potion_reference.py). Needs `.assets/potion-base-2M`
//! (`scripts/setup-assets.sh`): ignored by a plain `cargo test`.

use folio_ai::{cosine, Embedder, StaticEmbedder};
use serde::Deserialize;

#[derive(Deserialize)]
struct Reference {
    sentences: Vec<RefSentence>,
}

#[derive(Deserialize)]
struct RefSentence {
    text: String,
    embedding: Vec<f32>,
}

fn model() -> StaticEmbedder {
    folio_testkit::paths::require_asset("potion-base-2M/model.safetensors");
    StaticEmbedder::load(&folio_testkit::paths::assets_dir().join("potion-base-2M"))
        .expect("load potion-base-2M")
}

#[test]
#[ignore = "needs .assets (scripts/setup-assets.sh); scripts/test.sh runs it"]
fn embeddings_match_model2vec() {
    let model = model();
    assert_eq!(model.id(), "potion-base-2M");
    assert_eq!(model.dim(), 64);
    let reference: Reference =
        serde_json::from_str(include_str!("../reference/potion_reference.json")).unwrap();
    let texts: Vec<&str> = reference.sentences.iter().map(|s| s.text.as_str()).collect();
    let got = model.embed_documents(&texts).unwrap();
    let mut worst = 0f32;
    for (s, v) in reference.sentences.iter().zip(&got) {
        let d = s.embedding.iter().zip(v).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
        assert!(d < 1e-5, "{:?}: max deviation {d}", s.text);
        worst = worst.max(d);
        assert_eq!(model.embed_query(&s.text).unwrap(), *v);
    }
    eprintln!("potion-base-2M: {} sentences, max deviation from model2vec {worst:.2e}", got.len());
}

#[test]
#[ignore = "needs .assets (scripts/setup-assets.sh); scripts/test.sh runs it"]
fn retrieval_sense() {
    let model = model();
    let docs = model
        .embed_documents(&[
            "The licensee must keep records for six years.",
            "Fees are payable within thirty days of the invoice.",
        ])
        .unwrap();
    let q = model.embed_query("how long must records be kept?").unwrap();
    assert!(cosine(&q, &docs[0]) > cosine(&q, &docs[1]));
}
