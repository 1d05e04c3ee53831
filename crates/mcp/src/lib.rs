//! Folio's library as a Model Context Protocol server (work in progress on branch `mcp-wip`):
//! `folio mcp` serves the library the CLI would open over stdio, read-only.
//!
//! Tools so far: `search` (hits with their parent chain, section, type, pages and a citation) and
//! `list_documents`. Still to come (issue 33): `read_section`, `outline`, `define`, `references`,
//! resources, pagination, typed errors, the desktop snippet, tests with the Python SDK.

use folio_engine::{Library, SearchOptions};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    Implementation, ListResourceTemplatesResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, ResourceContents, ResourceTemplate, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::{MaybeSendFuture, RequestContext, RoleServer};
use rmcp::{tool, tool_handler, tool_router, ErrorData, Json, ServerHandler, ServiceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};

/// The longest query `search` takes (a pasted page is refused with a message, not searched).
pub const MAX_QUERY_BYTES: usize = 8 * 1024;

/// The library's lock was poisoned by a panic in an earlier call.
fn unavailable() -> ErrorData {
    ErrorData::internal_error("the library is unavailable after an earlier failure", None)
}

/// An engine error as an MCP error: not found and invalid requests as the caller's to fix, the
/// rest as the server's; the engine's typed code in `data.code`, its message as it is.
fn engine_error(e: &folio_engine::EngineError) -> ErrorData {
    use folio_engine::ErrorCode;
    let code = e.code();
    let data = Some(serde_json::json!({ "code": code }));
    match code {
        ErrorCode::NotFound => ErrorData::resource_not_found(e.to_string(), data),
        ErrorCode::Invalid => ErrorData::invalid_params(e.to_string(), data),
        _ => ErrorData::internal_error(e.to_string(), data),
    }
}

/// The arguments of `search`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// What to look for: a question, words, a section number ("GEN 5.5.1") or a defined term.
    pub query: String,
    /// How many hits (1–50, default 10).
    #[serde(default)]
    pub limit: Option<usize>,
    /// Only these documents (their labels, as `list_documents` gives them); all when empty.
    #[serde(default)]
    pub documents: Vec<String>,
    /// Only passages of these types (`definition`, `requirement`, `guidance`, `note`, `table`, `content`); all
    /// when empty.
    #[serde(default)]
    pub chunk_types: Vec<String>,
}

/// One hit.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SearchHit {
    /// A ready citation: "GEN 2.1.3, General Rulebook, p. 12".
    pub citation: String,
    /// The document's short label.
    pub document: String,
    /// The document's file name.
    pub file: String,
    /// The section's number as printed, when it has one.
    pub section: Option<String>,
    /// The headings above the passage, outermost first.
    pub parent_chain: Vec<String>,
    /// What the passage is (requirement, definition, table …).
    pub chunk_type: String,
    /// The pages the passage lies on, when the document has pages.
    pub pages: Option<folio_core::model::PageRange>,
    /// The channels that found it: `dense` (meaning), `keyword` (words), `exact` (a section
    /// number or defined term).
    pub found_by: Vec<String>,
    /// The passage's text.
    pub text: String,
}

/// The answer of `search`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SearchAnswer {
    /// Best first.
    pub hits: Vec<SearchHit>,
}

/// One document of the library.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DocumentEntry {
    /// The short label a search filter and a citation use.
    pub label: String,
    /// The title.
    pub title: String,
}

/// The answer of `list_documents`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DocumentList {
    /// Every document in the library.
    pub documents: Vec<DocumentEntry>,
}

/// The arguments of `define`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct DefineArgs {
    /// The defined term ("Authorised Person").
    pub term: String,
}

/// The answer of `define`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Definitions {
    /// Each definition of the term: the document, the text, where it is written and for what
    /// scope it applies.
    pub definitions: Vec<folio_engine::DefinitionHit>,
}

/// The arguments of `read_section` and `references`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SectionArgs {
    /// The document's label ("GEN"), or empty when the section number is unique in the library.
    #[serde(default)]
    pub document: Option<String>,
    /// The section's number as printed ("5.5.1", "Item 7", "203(a)").
    pub section: String,
}

/// The arguments of `read_section`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadSectionArgs {
    /// The document's label ("GEN"), or empty when the section number is unique in the library.
    #[serde(default)]
    pub document: Option<String>,
    /// The section's number as printed ("5.5.1", "Item 7", "203(a)").
    pub section: String,
    /// Where to go on from (a `next_offset` an earlier answer gave); the start when absent.
    #[serde(default)]
    pub offset: Option<usize>,
}

/// The most text one `read_section` answer carries (bytes); the rest comes with `next_offset`.
pub const SECTION_PAGE_BYTES: usize = 20_000;

/// The part of `text` from `offset` (moved back to a character boundary) of at most `limit`
/// bytes, ending at a paragraph break where one lies in its last tenth: where it starts, the part,
/// and where the next part starts, if any.
fn text_page(text: &str, offset: usize, limit: usize) -> (usize, &str, Option<usize>) {
    let mut start = offset.min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let rest = &text[start..];
    if rest.len() <= limit {
        return (start, rest, None);
    }
    let mut end = limit;
    while !rest.is_char_boundary(end) {
        end -= 1;
    }
    if let Some(p) = rest[..end].rfind("\n\n").filter(|p| *p >= end - end / 10) {
        end = p + 2;
    }
    (start, &rest[..end], Some(start + end))
}

/// The answer of `read_section`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SectionAnswer {
    /// The document's label.
    pub document: String,
    /// The section's heading.
    pub heading: String,
    /// The headings above it, outermost first.
    pub parent_chain: Vec<String>,
    /// The pages it lies on, when the document has pages.
    pub pages: Option<folio_core::model::PageRange>,
    /// The section's own text, from `offset`; at most [`SECTION_PAGE_BYTES`] of it.
    pub text: String,
    /// Where this part of the text starts (bytes).
    pub offset: usize,
    /// The whole text's length (bytes).
    pub total_bytes: usize,
    /// Where the rest starts, when there is more: call `read_section` again with this `offset`.
    pub next_offset: Option<usize>,
}

/// The arguments of `outline`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct OutlineArgs {
    /// The document's label ("GEN").
    pub document: String,
    /// The deepest heading level listed (1 = the top headings; default 3).
    #[serde(default)]
    pub depth: Option<i64>,
}

/// One heading of an outline.
#[derive(Debug, Serialize, JsonSchema)]
pub struct OutlineEntry {
    /// The section's number as printed, when it has one (what `read_section` takes).
    pub section: Option<String>,
    /// The heading as printed.
    pub heading: String,
    /// Its level (1 = top).
    pub level: i64,
    /// The pages it lies on, when the document has pages.
    pub pages: Option<folio_core::model::PageRange>,
}

/// The answer of `outline`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct OutlineAnswer {
    /// The document's title.
    pub title: String,
    /// Its headings in reading order, down to the depth asked.
    pub headings: Vec<OutlineEntry>,
    /// Headings left out below that depth.
    pub deeper: usize,
}

/// The server over one library.
#[derive(Clone)]
pub struct FolioServer {
    library: Arc<Mutex<Library>>,
    tool_router: ToolRouter<Self>,
}

#[tool_router(router = tool_router)]
impl FolioServer {
    /// A server over `library`.
    pub fn new(library: Library) -> FolioServer {
        FolioServer { library: Arc::new(Mutex::new(library)), tool_router: Self::tool_router() }
    }

    /// Hybrid search over the library.
    #[tool(
        name = "search",
        description = "Search the library (meaning, words, section numbers, defined terms); each hit with its citation, section, headings and type"
    )]
    pub async fn search(&self, args: Parameters<SearchArgs>) -> Result<Json<SearchAnswer>, ErrorData> {
        let SearchArgs { query, limit, documents, chunk_types } = args.0;
        let chunk_types = chunk_types
            .iter()
            .map(|t| {
                folio_core::chunker::ChunkType::parse(t).ok_or_else(|| {
                    ErrorData::invalid_params(
                        format!(
                            "no passage type \"{t}\": definition, requirement, guidance, note, table or content"
                        ),
                        Some(serde_json::json!({ "code": "invalid" })),
                    )
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        if query.len() > MAX_QUERY_BYTES {
            return Err(ErrorData::invalid_params(
                format!(
                    "the query is {} bytes long; at most {MAX_QUERY_BYTES}: ask with the words, section numbers or terms that matter",
                    query.len()
                ),
                Some(serde_json::json!({ "code": "invalid" })),
            ));
        }
        self.with_library(move |lib| {
            let opts = SearchOptions {
                limit: limit.unwrap_or(10).clamp(1, 50),
                documents,
                chunk_types,
                ..SearchOptions::default()
            };
            let hits = lib.search(&query, &opts)?;
            Ok(Json(SearchAnswer {
                hits: hits
                    .into_iter()
                    .map(|h| SearchHit {
                        citation: h.citation,
                        document: h.label,
                        file: std::path::Path::new(&h.path)
                            .file_name()
                            .map(|n| n.to_string_lossy().into_owned())
                            .unwrap_or_default(),
                        section: h.section_number,
                        parent_chain: h.parent_chain,
                        chunk_type: h.chunk_type.as_str().to_string(),
                        pages: h.pages,
                        found_by: [
                            ("dense", h.dense.is_some()),
                            ("keyword", h.keyword.is_some()),
                            ("exact", h.exact.is_some()),
                        ]
                        .into_iter()
                        .filter(|(_, found)| *found)
                        .map(|(name, _)| name.to_string())
                        .collect(),
                        text: h.content,
                    })
                    .collect(),
            }))
        })
        .await
    }

    /// Definitions of a term.
    #[tool(
        name = "define",
        description = "Where and for what scope a term is defined, with the definition's text"
    )]
    pub async fn define(&self, args: Parameters<DefineArgs>) -> Result<Json<Definitions>, ErrorData> {
        let term = args.0.term;
        self.with_library(move |lib| Ok(Json(Definitions { definitions: lib.define(&term)? }))).await
    }

    /// A section's text with its breadcrumb.
    #[tool(
        name = "read_section",
        description = "A section's own text, with the headings above it and its pages"
    )]
    pub async fn read_section(
        &self,
        args: Parameters<ReadSectionArgs>,
    ) -> Result<Json<SectionAnswer>, ErrorData> {
        let ReadSectionArgs { document, section, offset } = args.0;
        self.with_library(move |lib| {
            let s = lib.show(document.as_deref().filter(|d| !d.is_empty()), &section)?;
            let offset = offset.unwrap_or(0);
            let (start, text, next_offset) = text_page(&s.text, offset, SECTION_PAGE_BYTES);
            Ok(Json(SectionAnswer {
                document: s.document,
                heading: s.section.heading.clone(),
                parent_chain: s.parent_chain,
                pages: s.section.pages,
                offset: start,
                total_bytes: s.text.len(),
                next_offset,
                text: text.to_string(),
            }))
        })
        .await
    }

    /// References out of a section and back-links into it.
    #[tool(
        name = "references",
        description = "The references written in a section and those pointing to it, across the library's documents"
    )]
    pub async fn references(
        &self,
        args: Parameters<SectionArgs>,
    ) -> Result<Json<folio_engine::Backlinks>, ErrorData> {
        let SectionArgs { document, section } = args.0;
        self.with_library(move |lib| {
            Ok(Json(lib.references(document.as_deref().filter(|d| !d.is_empty()), &section)?))
        })
        .await
    }

    /// A document's headings.
    #[tool(
        name = "outline",
        description = "A document's headings in reading order, down to a depth, with the section numbers read_section takes"
    )]
    pub async fn outline(&self, args: Parameters<OutlineArgs>) -> Result<Json<OutlineAnswer>, ErrorData> {
        let OutlineArgs { document, depth } = args.0;
        let depth = depth.unwrap_or(3).max(1);
        self.with_library(move |lib| {
            let (doc, sections) = lib.outline(&document)?;
            let (shown, deeper): (Vec<_>, Vec<_>) =
                sections.into_iter().filter(|s| s.level > 0).partition(|s| s.level <= depth);
            Ok(Json(OutlineAnswer {
                title: doc.title,
                headings: shown
                    .into_iter()
                    .map(|s| OutlineEntry {
                        section: s.number,
                        heading: s.heading,
                        level: s.level,
                        pages: s.pages,
                    })
                    .collect(),
                deeper: deeper.len(),
            }))
        })
        .await
    }

    /// The library's documents.
    #[tool(
        name = "list_documents",
        description = "The documents in the library, with their labels and titles"
    )]
    pub async fn list_documents(&self) -> Result<Json<DocumentList>, ErrorData> {
        self.with_library(|lib| {
            let docs = lib.documents()?;
            Ok(Json(DocumentList {
                documents: docs
                    .into_iter()
                    .map(|d| DocumentEntry { label: d.label, title: d.title })
                    .collect(),
            }))
        })
        .await
    }
}

impl FolioServer {
    /// Runs `f` on the library on a thread that may block (the engine's calls do), and words its
    /// error for the model.
    async fn with_library<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Library) -> Result<T, folio_engine::EngineError> + Send + 'static,
    ) -> Result<T, ErrorData> {
        let library = self.library.clone();
        tokio::task::spawn_blocking(move || {
            let lib = library.lock().map_err(|_| unavailable())?;
            f(&lib).map_err(|e| engine_error(&e))
        })
        .await
        .map_err(|e| ErrorData::internal_error(format!("the call stopped: {e}"), None))?
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for FolioServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_resources().build())
            .with_server_info(Implementation::new("folio", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Folio's document library: search it, and cite each hit by its citation string (document, section, page).",
            )
    }

    fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> impl std::future::Future<Output = Result<ListResourceTemplatesResult, ErrorData>> + MaybeSendFuture + '_
    {
        std::future::ready(Ok(ListResourceTemplatesResult::with_all_items(vec![ResourceTemplate::new(
            SECTION_URI,
            "section",
        )
        .with_description(
            "A section's own text with its headings: folio://doc/GEN/5.5.1 (the document's label, the section's number as printed)",
        )])))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let (document, section) = section_of_uri(&request.uri)?;
        let uri = request.uri.clone();
        let text = self
            .with_library(move |lib| {
                let s = lib.show(Some(&document), &section)?;
                let mut out = s.parent_chain.join(" › ");
                out.push_str("\n\n");
                out.push_str(&s.text);
                Ok(out)
            })
            .await?;
        Ok(ReadResourceResponse::Complete(ReadResourceResult::new(vec![
            ResourceContents::text(text, uri).with_mime_type("text/plain")
        ])))
    }
}

/// The URI template of a section.
pub const SECTION_URI: &str = "folio://doc/{document}/{section}";

/// The document label and section number of `folio://doc/{document}/{section}` (each part
/// percent-decoded; the section may hold slashes, as "Part 6.50.(1)" does not but a filing's
/// might).
fn section_of_uri(uri: &str) -> Result<(String, String), ErrorData> {
    let bad = || {
        ErrorData::invalid_params(
            format!("not a section's address: {uri} (folio://doc/{{document}}/{{section}}, e.g. folio://doc/GEN/5.5.1)"),
            Some(serde_json::json!({ "code": "invalid" })),
        )
    };
    let rest = uri.strip_prefix("folio://doc/").ok_or_else(bad)?;
    let (document, section) = rest.split_once('/').ok_or_else(bad)?;
    let decode = |s: &str| percent_decode(s).ok_or_else(bad);
    let (document, section) = (decode(document)?, decode(section)?);
    if document.is_empty() || section.is_empty() {
        return Err(bad());
    }
    Ok((document, section))
}

/// `%XX` escapes decoded (UTF-8); `None` for a broken escape or bytes that are not UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Serves `library` over stdin and stdout until the client closes them.
pub fn serve_stdio(library: Library) -> Result<(), String> {
    let server = FolioServer::new(library);
    // The library is dropped here, outside the async runtime: its vector store runs a runtime of
    // its own, which may not be dropped inside another's.
    let keep = server.library.clone();
    let runtime = tokio::runtime::Runtime::new().map_err(|e| format!("no async runtime: {e}"))?;
    let served = runtime.block_on(async move {
        let service = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| format!("the MCP session did not start: {e}"))?;
        service.waiting().await.map_err(|e| format!("the MCP session ended: {e}"))?;
        Ok(())
    });
    drop(runtime);
    drop(keep);
    served
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_text_comes_in_parts_that_join_up_whole() {
        let text = format!("{}\n\n{}é{}", "a".repeat(95), "b".repeat(50), "c".repeat(60));
        let mut joined = String::new();
        let mut offset = 0;
        let mut parts = 0;
        loop {
            let (start, part, next) = text_page(&text, offset, 100);
            assert_eq!(start, offset);
            assert!(part.len() <= 100);
            joined.push_str(part);
            parts += 1;
            match next {
                Some(n) => offset = n,
                None => break,
            }
        }
        assert_eq!(joined, text);
        assert_eq!(parts, 3);
        assert!(text_page(&text, 0, 100).1.ends_with("\n\n"), "cut at the paragraph break");
        assert_eq!(text_page(&text, 10_000, 100), (text.len(), "", None), "past the end: nothing");
        let (start, part, _) = text_page(&text, 148, 100);
        assert_eq!((start, part.chars().next()), (147, Some('é')), "back to a character boundary");
    }

    #[test]
    fn a_section_address_names_a_document_and_a_section() {
        assert_eq!(section_of_uri("folio://doc/GEN/5.5.1").unwrap(), ("GEN".into(), "5.5.1".into()));
        assert_eq!(
            section_of_uri("folio://doc/APPLE_10K/Item%207").unwrap(),
            ("APPLE_10K".into(), "Item 7".into())
        );
        for bad in [
            "folio://doc/GEN",
            "folio://doc//1",
            "http://x/GEN/1",
            "folio://doc/GEN/%zz",
            "folio://doc/GEN/%ff",
        ] {
            assert!(section_of_uri(bad).is_err(), "{bad}");
        }
    }
}
