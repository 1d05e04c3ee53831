//! The server: the tools and resources over one library, and the stdio transport.

use crate::args::{
    document_filter, list_page, section_of_uri, text_page, AddDocumentsArgs, ArgError, CheckedSearch,
    DefineArgs, OutlineArgs, SearchArgs, SectionArgs, LIST_PAGE, SECTION_PAGE_BYTES, SECTION_URI,
};
use folio_engine::{Library, SearchOptions};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    Implementation, ListResourceTemplatesResult, PaginatedRequestParams, ProgressNotificationParam,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ResourceContents, ResourceTemplate,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::{MaybeSendFuture, RequestContext, RoleServer};
use rmcp::{tool, tool_handler, tool_router, ErrorData, Json, ServerHandler, ServiceExt};
use schemars::JsonSchema;
use serde::Serialize;
use std::sync::{Arc, RwLock};

/// An argument the caller has to change, as an MCP error.
fn invalid(e: ArgError) -> ErrorData {
    ErrorData::invalid_params(e.0, Some(serde_json::json!({ "code": "invalid" })))
}

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
    /// How long the library's search took (milliseconds).
    pub engine_ms: f64,
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

/// The answer of `define`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Definitions {
    /// Each definition of the term: the document, the text, where it is written and for what
    /// scope it applies.
    pub definitions: Vec<folio_engine::DefinitionHit>,
}

/// One cross-reference.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ReferenceEntry {
    /// As written ("GEN Rule 5.5.1", "Section 203(a)").
    pub text: String,
    /// The document it is written in (its label) and the section.
    pub from_document: String,
    /// The section it is written in.
    pub from_section: String,
    /// The document it points to: its label where the library holds it, else its name as
    /// written; none for a reference within its own document.
    pub to_document: Option<String>,
    /// The section it points to, where found (what `read_section` takes with `to_document`).
    pub to_section: Option<String>,
    /// `in this document`, `in your library`, `not in your library` (a document the library does
    /// not hold) or `not found` (a section the document does not have).
    pub status: String,
}

impl ReferenceEntry {
    fn of(r: &folio_engine::RefRow, labels: &std::collections::HashMap<i64, String>) -> ReferenceEntry {
        let from_document = labels.get(&r.doc_id).cloned().unwrap_or_default();
        let (to_document, to_section, status) = match (&r.document, r.target_doc_id) {
            (None, _) => (
                None,
                r.target_section.clone(),
                if r.target_section.is_some() { "in this document" } else { "not found" },
            ),
            (Some(_), Some(id)) => (
                labels.get(&id).cloned(),
                r.target_doc_section.clone(),
                if r.target_doc_section.is_some() { "in your library" } else { "not found" },
            ),
            (Some(name), None) => (Some(name.clone()), None, "not in your library"),
        };
        ReferenceEntry {
            text: r.text.clone(),
            from_document,
            from_section: r.from_section.clone(),
            to_document,
            to_section,
            status: status.to_string(),
        }
    }
}

/// Whether the server offers `add_documents`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writes {
    /// Read-only: no tool changes the library (the default).
    Refused,
    /// `add_documents` is offered (`folio mcp --allow-writes`).
    Allowed,
}

/// The answer of `add_documents`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct AddAnswer {
    /// Files indexed (new or changed).
    pub indexed: usize,
    /// Files already in the library as they are.
    pub unchanged: usize,
    /// Files that could not be added, each with why.
    pub failed: Vec<String>,
    /// Chunks written.
    pub chunks: usize,
    /// Whether the call was cancelled before the end (what was indexed stays).
    pub cancelled: bool,
}

/// The answer of `references`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ReferencesAnswer {
    /// References written in the section: at most [`LIST_PAGE`] from the offset asked. A
    /// reference to a document the library does not hold says so.
    pub outgoing: Vec<ReferenceEntry>,
    /// References to the section from any document of the library, paged the same way.
    pub incoming: Vec<ReferenceEntry>,
    /// All references out of the section.
    pub total_outgoing: usize,
    /// All references into it.
    pub total_incoming: usize,
    /// Where the rest of either list starts, when there is more: call `references` again with
    /// this `offset`.
    pub next_offset: Option<usize>,
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
    /// Its headings in reading order, down to the depth asked: at most [`LIST_PAGE`] of them
    /// from `offset`.
    pub headings: Vec<OutlineEntry>,
    /// Headings down to the depth asked, in all.
    pub total: usize,
    /// Where this page of headings starts.
    pub offset: usize,
    /// Where the rest starts, when there is more: call `outline` again with this `offset`.
    pub next_offset: Option<usize>,
    /// Headings left out below that depth.
    pub deeper: usize,
}

/// The server over one library.
#[derive(Clone)]
pub struct FolioServer {
    library: Arc<RwLock<Library>>,
    tool_router: ToolRouter<Self>,
}

#[tool_router(router = tool_router)]
impl FolioServer {
    /// A server over `library`.
    pub fn new(library: Library, writes: Writes) -> FolioServer {
        let mut tool_router = Self::tool_router();
        if writes == Writes::Refused {
            tool_router.remove_route("add_documents");
        }
        FolioServer { library: Arc::new(RwLock::new(library)), tool_router }
    }

    /// Adds files to the library (only where the server allows writes): the same ingest as
    /// `folio ingest`, its steps as progress notifications when the client asks for them, stopped
    /// when the client cancels the call.
    #[tool(
        name = "add_documents",
        description = "Add files or folders on this computer to the library; answers what was indexed, unchanged or failed"
    )]
    pub async fn add_documents(
        &self,
        args: Parameters<AddDocumentsArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<Json<AddAnswer>, ErrorData> {
        let paths: Vec<std::path::PathBuf> = args.0.paths.iter().map(std::path::PathBuf::from).collect();
        if paths.is_empty() {
            return Err(invalid(ArgError("no paths: name the files or folders to add".into())));
        }
        let cancel = folio_engine::Cancel::new();
        let stop = cancel.clone();
        let ct = context.ct.clone();
        let watcher = tokio::spawn(async move {
            ct.cancelled().await;
            stop.cancel();
        });
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<folio_engine::Progress>();
        if let Some(token) = context.meta.get_progress_token() {
            let peer = context.peer.clone();
            tokio::spawn(async move {
                let mut step = 0.0;
                while let Some(p) = rx.recv().await {
                    step += 1.0;
                    let message = format!("{} ({}/{}): {:?}", p.file, p.file_index + 1, p.files, p.stage);
                    let note = ProgressNotificationParam::new(token.clone(), step).with_message(message);
                    if peer.notify_progress(note).await.is_err() {
                        break; // the client went away; the ingest goes on to its end
                    }
                }
            });
        }
        let library = self.library.clone();
        let report = tokio::task::spawn_blocking(move || {
            // A step nobody listens for (no progress token, or the client gone) is dropped: the
            // notifications are advisory, the answer says what was done.
            folio_engine::ingest_shared(&library, &paths, &mut |p| drop(tx.send(p)), &cancel)
        })
        .await;
        // The call is over: nothing is left for a cancellation to stop.
        watcher.abort();
        let report =
            report.map_err(|e| ErrorData::internal_error(format!("the ingest stopped: {e}"), None))?;
        Ok(Json(AddAnswer {
            indexed: report.indexed.len(),
            unchanged: report.unchanged.len(),
            failed: report.failed.iter().map(|f| format!("{}: {}", f.path, f.message)).collect(),
            chunks: report.chunks,
            cancelled: report.cancelled,
        }))
    }

    /// Hybrid search over the library.
    #[tool(
        name = "search",
        description = "Search the library (meaning, words, section numbers, defined terms); each hit with its citation, section, headings and type"
    )]
    pub async fn search(&self, args: Parameters<SearchArgs>) -> Result<Json<SearchAnswer>, ErrorData> {
        let CheckedSearch { query, limit, documents, chunk_types } = args.0.checked().map_err(invalid)?;
        self.with_library(move |lib| {
            let opts = SearchOptions { limit, documents, chunk_types, ..SearchOptions::default() };
            let started = std::time::Instant::now();
            let hits = lib.search(&query, &opts)?;
            let engine_ms = started.elapsed().as_secs_f64() * 1e3;
            Ok(Json(SearchAnswer {
                engine_ms,
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
        args: Parameters<SectionArgs>,
    ) -> Result<Json<SectionAnswer>, ErrorData> {
        let SectionArgs { document, section, offset } = args.0;
        self.with_library(move |lib| {
            let s = lib.show(document_filter(&document), &section)?;
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
    ) -> Result<Json<ReferencesAnswer>, ErrorData> {
        let SectionArgs { document, section, offset } = args.0;
        self.with_library(move |lib| {
            let links = lib.references(document_filter(&document), &section)?;
            let labels: std::collections::HashMap<i64, String> =
                lib.documents()?.into_iter().map(|d| (d.id, d.label)).collect();
            let entry = |r: &folio_engine::RefRow| ReferenceEntry::of(r, &labels);
            let offset = offset.unwrap_or(0);
            let (out_range, out_next) = list_page(links.outgoing.len(), offset, LIST_PAGE);
            let (in_range, in_next) = list_page(links.incoming.len(), offset, LIST_PAGE);
            Ok(Json(ReferencesAnswer {
                total_outgoing: links.outgoing.len(),
                total_incoming: links.incoming.len(),
                next_offset: out_next.max(in_next),
                outgoing: links.outgoing[out_range].iter().map(entry).collect(),
                incoming: links.incoming[in_range].iter().map(entry).collect(),
            }))
        })
        .await
    }

    /// A document's headings.
    #[tool(
        name = "outline",
        description = "A document's headings in reading order, down to a depth, with the section numbers read_section takes"
    )]
    pub async fn outline(&self, args: Parameters<OutlineArgs>) -> Result<Json<OutlineAnswer>, ErrorData> {
        let depth = args.0.depth();
        let OutlineArgs { document, offset, .. } = args.0;
        self.with_library(move |lib| {
            let (doc, sections) = lib.outline(&document)?;
            let (shown, deeper): (Vec<_>, Vec<_>) =
                sections.into_iter().filter(|s| s.level > 0).partition(|s| s.level <= depth);
            let (range, next_offset) = list_page(shown.len(), offset.unwrap_or(0), LIST_PAGE);
            Ok(Json(OutlineAnswer {
                title: doc.title,
                total: shown.len(),
                offset: range.start,
                next_offset,
                headings: shown[range]
                    .iter()
                    .cloned()
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
            let lib = library.read().map_err(|_| unavailable())?;
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
        let (document, section) = section_of_uri(&request.uri).map_err(invalid)?;
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

/// Serves the library the desktop app's settings at `settings_path` name, when the user allowed
/// AI assistants in them (the app started as `folio-desktop mcp`).
pub fn serve_settings_library(
    settings_path: &std::path::Path,
    env: &folio_engine::Environment,
) -> Result<(), String> {
    let library = folio_engine::open_for_assistant(settings_path, env).map_err(|e| e.to_string())?;
    serve_stdio(library, Writes::Refused)
}

/// Serves `library` over stdin and stdout until the client closes them.
pub fn serve_stdio(library: Library, writes: Writes) -> Result<(), String> {
    let server = FolioServer::new(library, writes);
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
