//! Folio's library as a [Model Context Protocol](https://modelcontextprotocol.io) server:
//! `folio mcp` serves the library the CLI would open over stdio, read-only, to any MCP client
//! (a desktop assistant, an IDE agent, an agent framework).
//!
//! # A tour
//!
//! - [`args`]: what each tool takes, checked before the library sees it (query length, passage
//!   types, limits), the paging of long answers, and a section's address
//!   (`folio://doc/{document}/{section}`). It needs no library: the fuzz target `mcp_args` runs
//!   it on arbitrary input (feature `server` off).
//! - `server` (feature `server`, on by default): [`FolioServer`], the tools `search`,
//!   `read_section`, `outline`, `define`, `references` and `list_documents`, each with its input and
//!   output schema; sections as resources; failures as MCP errors carrying the engine's typed
//!   code in `data.code` (not found → -32002, invalid → -32602); and [`serve_stdio`].
//!
//! ```no_run
//! # fn main() -> Result<(), String> {
//! # #[cfg(feature = "server")] {
//! let env = folio_engine::Environment::from_process().map_err(|e| e.to_string())?;
//! let (embedder, options) = folio_engine::assets::library_setup(folio_engine::EmbeddingModel::Fast, &env)
//!     .map_err(|e| e.to_string())?;
//! let library = folio_engine::Library::open(std::path::Path::new("library"), embedder, options)
//!     .map_err(|e| e.to_string())?;
//! folio_mcp::serve_stdio(library, folio_mcp::Writes::Refused)?;
//! # }
//! # Ok(())
//! # }
//! ```

pub mod args;
#[cfg(feature = "server")]
mod server;

#[cfg(feature = "server")]
pub use server::*;
