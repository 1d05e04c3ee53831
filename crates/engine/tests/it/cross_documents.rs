//! References between documents as the library resolves them: a reference to a document not yet
//! added says so and is counted among the documents the library cites but lacks; adding that
//! document resolves it (to the most specific section that exists) and gives the target a
//! backlink; removing it again leaves the reference unresolved. Real MiniLM and LanceDB on disk;
//! skips with a message when `.assets/minilm` is absent (run scripts/setup-assets.sh).

use folio_core::cancel::Cancel;
use folio_core::fusion::Channel;
use folio_engine::{LibraryOptions, SearchOptions};
use folio_testkit::library::{Provider, TestLibrary};
use std::path::PathBuf;
use std::sync::Arc;

fn assets() -> PathBuf {
    folio_testkit::paths::require_asset("minilm/model.safetensors").parent().unwrap().to_path_buf()
}

const AML: &str = "1.\tINTRODUCTION\n1.1\tApplication\n\
    1.1.1\tAuthorised Persons are reminded that under GEN Rule 5.5.1(2) the MLRO function is a mandatory \
    appointment, and that Part 4 of the FSMR governs authorisation.\n\
    1.1.2\tA Relevant Person must keep records.\n";

const GEN: &str = "5.\tAUTHORISATION\n5.5\tMandatory appointments\n\
    5.5.1\tAn Authorised Person must make the following appointments: a Senior Executive Officer and a \
    Money Laundering Reporting Officer.\n5.5.2\tThe appointments must be held by Approved Persons.\n";

const COBS: &str = "2.\tCONDUCT\n2.1\tClient classification\n\
    2.1.1\tA firm classifying a client relies on the officers that GEN Rule 5.5.2 requires to be Approved \
    Persons.\n";

fn references_across_documents_follow_the_library(provider: Provider) {
    let model = assets();
    let test = TestLibrary::new(provider);
    let docs = tempfile::tempdir().unwrap();
    let (aml, gen) = (docs.path().join("AML_rules.txt"), docs.path().join("GEN_rules.txt"));
    std::fs::write(&aml, AML).unwrap();
    std::fs::write(&gen, GEN).unwrap();
    let embedder = Arc::new(folio_ai::MiniLm::load(&model).expect("MiniLM loads"));
    let options = LibraryOptions { vocab: Some(model.join("vocab.txt")), ..LibraryOptions::default() };
    let mut lib = test.open(embedder, options).expect("library opens");
    let stop = Cancel::new();

    lib.ingest(std::slice::from_ref(&aml), &mut |_| {}, &stop);
    let out = lib.references(Some("AML"), "sec_1_1_1").unwrap().outgoing;
    let to_gen = out.iter().find(|r| r.document.as_deref() == Some("GEN")).expect("the GEN reference");
    assert_eq!((to_gen.label.as_str(), to_gen.target_doc_id), ("Rule 5.5.1(2)", None));
    let missing: Vec<(String, usize)> =
        lib.missing_documents(10).unwrap().into_iter().map(|m| (m.name, m.citations)).collect();
    assert!(missing.contains(&("GEN".into(), 1)) && missing.contains(&("FSMR".into(), 1)), "{missing:?}");

    // GEN arrives: its 5.5.1 (there is no 5.5.1(2)) answers, with a backlink to AML.
    lib.ingest(std::slice::from_ref(&gen), &mut |_| {}, &stop);
    let gen_id = lib.find_document("GEN").unwrap().id;
    let out = lib.references(Some("AML"), "sec_1_1_1").unwrap().outgoing;
    let to_gen = out.iter().find(|r| r.document.as_deref() == Some("GEN")).unwrap();
    assert_eq!(
        (to_gen.target_doc_id, to_gen.target_doc_section.as_deref()),
        (Some(gen_id), Some("sec_5_5_1"))
    );
    let back = lib.references(Some("GEN"), "sec_5_5_1").unwrap().incoming;
    assert!(back.iter().any(|r| r.from_section == "sec_1_1_1"), "backlink from AML: {back:?}");
    let missing: Vec<String> = lib.missing_documents(10).unwrap().into_iter().map(|m| m.name).collect();
    assert_eq!(missing, vec!["FSMR".to_string()]);

    // COBS arrives citing GEN; no earlier reference changes, so its citations extend the
    // tables': a lookup of the rule answers with the rule, then the chunk citing it.
    let cobs = docs.path().join("COBS_rules.txt");
    std::fs::write(&cobs, COBS).unwrap();
    lib.ingest(std::slice::from_ref(&cobs), &mut |_| {}, &stop);
    let exact = SearchOptions { channels: vec![Channel::Exact], ..SearchOptions::default() };
    let hits = lib.search("GEN Rule 5.5.2", &exact).unwrap();
    let found: Vec<&str> = hits.iter().map(|h| h.label.as_str()).collect();
    assert_eq!(found, ["GEN", "COBS"], "the rule's chunk, then the chunk citing it");

    // GEN leaves: the reference is unresolved again.
    lib.remove("GEN").unwrap();
    let out = lib.references(Some("AML"), "sec_1_1_1").unwrap().outgoing;
    assert!(out.iter().all(|r| r.target_doc_id.is_none()), "{out:?}");
    assert_eq!(lib.missing_documents(10).unwrap().len(), 2);
}

folio_testkit::on_each_provider!(
    references_across_documents_follow_the_library,
    ignore = "needs .assets (scripts/setup-assets.sh), and for the team library PostgreSQL (scripts/postgres.sh); scripts/test.sh runs it"
);
