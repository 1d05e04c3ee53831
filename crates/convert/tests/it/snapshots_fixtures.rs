//! Snapshot tests of converter and analysis output on small documents shipped in `tests/fixtures`.
//! Review changes with `cargo insta review` (or `INSTA_UPDATE=always` to accept them all).

use folio_convert::{convert_file, ConvertOptions};
use folio_core::analysis::{analyze, Analysis};
use folio_core::chunker::ChunkerConfig;
use folio_core::definitions::DefinitionScope;
use folio_core::tokens::WordCounter;
use serde_json::{json, Value};
use std::path::Path;

fn fixture(name: &str) -> Analysis {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures").join(name);
    let doc = convert_file(&path, &ConvertOptions::default()).expect("fixture converts");
    analyze(doc, &WordCounter, &ChunkerConfig { max_tokens: 60, ..ChunkerConfig::default() })
}

/// A compact, stable view: blocks, outline, chunks, definitions, references.
fn view(a: &Analysis) -> Value {
    let d = &a.document;
    json!({
        "title": d.meta.title,
        "format": d.meta.format.as_str(),
        "blocks": d.blocks.iter().map(|b| {
            let kind = match &b.kind {
                folio_core::model::BlockKind::Heading { level, number } => format!("h{level} {}", number.as_deref().unwrap_or("-")),
                other => other.name().to_string(),
            };
            format!("{kind}: {}", d.block_text(b))
        }).collect::<Vec<_>>(),
        "outline": a.outline.sections.iter().skip(1).map(|s| format!("{}{} [{}]", "  ".repeat(s.level as usize - 1), s.heading, s.id)).collect::<Vec<_>>(),
        "chunks": a.chunks.iter().map(|c| json!({
            "section_id": c.section_id,
            "section_ids": c.section_ids,
            "type": c.chunk_type.as_str(),
            "chain": c.parent_chain.join(" › "),
            "text": c.text,
        })).collect::<Vec<_>>(),
        "definitions": a.definitions.iter().map(|x| {
            let scope = match &x.scope { DefinitionScope::Document => "document".to_string(), DefinitionScope::Section { section_id } => section_id.clone() };
            format!("{} [{}] in {} scope {}", x.term, x.key, x.section_id, scope)
        }).collect::<Vec<_>>(),
        "references": a.references.iter().map(|r| format!("{:?} in {} -> {}", r.text, r.from_section,
            r.target_section.clone().or_else(|| r.document.clone().map(|d| format!("doc:{d}"))).unwrap_or_else(|| "?".into()))).collect::<Vec<_>>(),
    })
}

/// Keys in sorted order, whether or not serde_json preserves insertion order in this build (another
/// crate of the workspace may turn that feature on).
fn sorted(v: Value) -> Value {
    match v {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

#[test]
fn rulebook_text() {
    insta::assert_json_snapshot!(sorted(view(&fixture("rulebook.txt"))));
}

#[test]
fn sample_markdown() {
    insta::assert_json_snapshot!(sorted(view(&fixture("sample.md"))));
}
