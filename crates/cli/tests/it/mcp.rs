//! `folio mcp` driven by a real MCP client (the protocol's Rust SDK, `rmcp`, spawning the binary):
//! initialize, list the tools, call each, read a section as a resource; bad arguments get typed
//! errors and the server keeps answering.

use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::ServiceExt;
use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;

/// The fixture rulebook, named as the Harbour Authority's rules (label HAR), in a new library.
fn ingest_fixture(lib: &Path, docs: &Path) {
    let rulebook = docs.join("HAR_rules.txt");
    std::fs::copy(folio_testkit::paths::repo_root().join("tests/fixtures/rulebook.txt"), &rulebook).unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_folio"))
        .env("FOLIO_ASSETS_DIR", folio_testkit::paths::assets_dir())
        .args(["--model", "fast", "--library"])
        .arg(lib)
        .arg("ingest")
        .arg(rulebook)
        .status()
        .unwrap();
    assert!(status.success());
}

/// `folio ARGS…` on the library, its standard output.
fn cli(lib: &Path, a: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_folio"))
        .env("FOLIO_ASSETS_DIR", folio_testkit::paths::assets_dir())
        .args(["--model", "fast", "--library"])
        .arg(lib)
        .args(a)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// `folio … mcp ARGS` on the library as a child process, and an MCP client session with it.
async fn start_server(lib: &Path, mcp_args: &[&str]) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    let command = tokio::process::Command::new(env!("CARGO_BIN_EXE_folio")).configure(|c| {
        c.env("FOLIO_ASSETS_DIR", folio_testkit::paths::assets_dir())
            .args(["--model", "fast", "--library"])
            .arg(lib)
            .args(mcp_args);
    });
    ().serve(TokioChildProcess::new(command).unwrap()).await.unwrap()
}

fn args(v: Value) -> serde_json::Map<String, Value> {
    v.as_object().unwrap().clone()
}

#[test]
#[ignore = "needs .assets (scripts/setup-assets.sh); scripts/test.sh runs it"]
fn an_mcp_client_calls_every_tool() {
    folio_testkit::paths::require_asset("potion-base-2M/model.safetensors");
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("library");
    ingest_fixture(&lib, dir.path());
    // What the CLI answers on the same library, to hold the tools' answers against.
    let cli_hits: Value =
        serde_json::from_str(&cli(&lib, &["search", "--json", "--limit", "3", "HAR 3.1.2"])).unwrap();
    let cli_citations: Vec<String> =
        cli_hits.as_array().unwrap().iter().map(|h| h["citation"].as_str().unwrap().to_string()).collect();
    let cli_section = cli(&lib, &["show", "3.1.3"]);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let client = start_server(&lib, &["mcp"]).await;
        let listed = client.list_all_tools().await.unwrap();
        let tools: Vec<String> = listed.iter().map(|t| t.name.to_string()).collect();
        for t in ["search", "read_section", "outline", "define", "references", "list_documents"] {
            assert!(tools.iter().any(|n| n == t), "{t} in {tools:?}");
        }
        assert!(!tools.iter().any(|n| n == "add_documents"), "read-only without --allow-writes: {tools:?}");
        // Each tool says what it takes and what it returns: object schemas, the arguments' fields
        // described, the answer's fields named.
        for tool in &listed {
            let input = serde_json::to_value(&*tool.input_schema).unwrap();
            assert_eq!(input["type"], "object", "{}: {input}", tool.name);
            for (field, schema) in input["properties"].as_object().into_iter().flatten() {
                assert!(schema["description"].is_string(), "{}.{field} is not described: {input}", tool.name);
            }
            let output =
                serde_json::to_value(tool.output_schema.as_deref().expect("an output schema")).unwrap();
            assert!(!output["properties"].as_object().unwrap().is_empty(), "{}: {output}", tool.name);
        }
        let search = listed.iter().find(|t| t.name == "search").unwrap();
        let required = serde_json::to_value(&*search.input_schema).unwrap()["required"].clone();
        assert_eq!(required, json!(["query"]), "search needs a query and nothing else");
        let call = |name: &'static str, a: Value| CallToolRequestParams::new(name).with_arguments(args(a));

        let found =
            client.call_tool(call("search", json!({"query": "HAR 3.1.2", "limit": 3}))).await.unwrap();
        let hits = found.structured_content.as_ref().unwrap()["hits"].as_array().unwrap().clone();
        assert!(!hits.is_empty());
        // The first hit holds the rule (a chunk of short rules begins at their chapter, which its
        // citation names).
        assert!(hits[0]["text"].as_str().unwrap().contains("\n3.1.2\n"), "{:?}", hits[0]);
        assert!(hits[0]["citation"].as_str().unwrap().starts_with("HAR 3"), "{:?}", hits[0]);
        assert!(hits[0]["found_by"].as_array().unwrap().iter().any(|c| c == "exact"));
        let citations: Vec<String> =
            hits.iter().map(|h| h["citation"].as_str().unwrap().to_string()).collect();
        assert_eq!(citations, cli_citations, "the tool ranks as `folio search` does");

        let docs = client.call_tool(call("list_documents", json!({}))).await.unwrap();
        let label =
            docs.structured_content.as_ref().unwrap()["documents"][0]["label"].as_str().unwrap().to_string();
        let section = client
            .call_tool(call("read_section", json!({"document": label, "section": "3.1.3"})))
            .await
            .unwrap();
        let text = section.structured_content.as_ref().unwrap()["text"].as_str().unwrap().to_string();
        assert!(text.contains("keep a log"));
        assert!(cli_section.contains(text.trim()), "the tool's section is `folio show`'s: {text}");
        let outline = client.call_tool(call("outline", json!({"document": label}))).await.unwrap();
        let outline = outline.structured_content.unwrap();
        assert!(!outline["headings"].as_array().unwrap().is_empty());
        assert_eq!(
            outline["total"].as_u64().unwrap() as usize,
            outline["headings"].as_array().unwrap().len()
        );
        let past =
            client.call_tool(call("outline", json!({"document": label, "offset": 10_000}))).await.unwrap();
        assert!(past.structured_content.unwrap()["headings"].as_array().unwrap().is_empty());
        let defined = client.call_tool(call("define", json!({"term": "Mooring Fee"}))).await.unwrap();
        assert!(!defined.structured_content.as_ref().unwrap()["definitions"].as_array().unwrap().is_empty());
        let refs = client
            .call_tool(call("references", json!({"document": label, "section": "3.1.1"})))
            .await
            .unwrap();
        let refs = refs.structured_content.unwrap();
        assert!(refs["incoming"].as_array().is_some());
        assert!(refs["total_outgoing"].as_u64().is_some() && refs["next_offset"].is_null(), "{refs}");
        for r in refs["outgoing"].as_array().unwrap() {
            assert!(
                ["in this document", "in your library", "not in your library", "not found"]
                    .contains(&r["status"].as_str().unwrap()),
                "{r}"
            );
        }
        let resource = client
            .read_resource(ReadResourceRequestParams::new(format!("folio://doc/{label}/3.1.3")))
            .await
            .unwrap();
        assert!(format!("{resource:?}").contains("keep a log"));

        // Bad input: typed errors, and the server goes on.
        let missing =
            client.call_tool(call("read_section", json!({"document": label, "section": "9.9.9"}))).await;
        let e = format!("{:?}", missing.unwrap_err());
        assert!(e.contains("not_found"), "{e}");
        let long = client.call_tool(call("search", json!({"query": "x".repeat(100_000)}))).await;
        assert!(format!("{:?}", long.unwrap_err()).contains("invalid"));
        let again = client.call_tool(call("search", json!({"query": "lockers"}))).await.unwrap();
        assert_ne!(again.is_error, Some(true));
        client.cancel().await.unwrap();
    });
}

#[test]
#[ignore = "needs .assets (scripts/setup-assets.sh); scripts/test.sh runs it"]
fn an_mcp_client_adds_documents_where_writes_are_allowed() {
    folio_testkit::paths::require_asset("potion-base-2M/model.safetensors");
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("library");
    ingest_fixture(&lib, dir.path());
    let glossary = dir.path().join("GLO_glossary.md");
    std::fs::copy(
        folio_testkit::paths::repo_root().join("tests/fixtures/samples/GLO Glossary.md"),
        &glossary,
    )
    .unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let client = start_server(&lib, &["mcp", "--allow-writes"]).await;
        let tools: Vec<String> =
            client.list_all_tools().await.unwrap().iter().map(|t| t.name.to_string()).collect();
        assert!(tools.iter().any(|n| n == "add_documents"), "{tools:?}");
        let call = |name: &'static str, a: Value| CallToolRequestParams::new(name).with_arguments(args(a));
        let added = client
            .call_tool(call("add_documents", json!({"paths": [glossary.display().to_string()]})))
            .await
            .unwrap();
        let added = added.structured_content.unwrap();
        assert_eq!(added["indexed"], 1, "{added}");
        assert!(added["chunks"].as_u64().unwrap() > 0, "{added}");
        let docs = client.call_tool(call("list_documents", json!({}))).await.unwrap();
        assert_eq!(docs.structured_content.unwrap()["documents"].as_array().unwrap().len(), 2);
        // Again: unchanged, nothing written twice.
        let again = client
            .call_tool(call("add_documents", json!({"paths": [glossary.display().to_string()]})))
            .await
            .unwrap();
        assert_eq!(again.structured_content.unwrap()["unchanged"], 1);
        let none = client.call_tool(call("add_documents", json!({"paths": []}))).await;
        assert!(format!("{:?}", none.unwrap_err()).contains("invalid"));
        client.cancel().await.unwrap();
    });
}
