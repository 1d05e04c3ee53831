//! The one way long work says how far it has got: a [`Step`] (what [`Stage`] a document is in, and
//! `done` of `total` units of it) given to a sink, `&mut dyn FnMut(Step)`, that every layer takes
//! the same way. The converter reports pages read, the context writer chunks answered, the engine
//! chunks embedded; the engine adds which file and how long is left, and hands the UI its
//! `Progress` events. With [`crate::cancel::Cancel`] this is milli's `Progress` and
//! `must_stop_processing` pair.
//!
//! ```
//! use folio_core::progress::{Stage, Step};
//!
//! fn read_pages(pages: u32, steps: &mut dyn FnMut(Step)) {
//!     for page in 1..=pages {
//!         steps(Step::new(Stage::Converting, page as usize, pages as usize));
//!     }
//! }
//! let mut seen = Vec::new();
//! read_pages(3, &mut |s| seen.push((s.done, s.total)));
//! assert_eq!(seen, [(1, 3), (2, 3), (3, 3)]);
//! ```

use schemars::JsonSchema;
use serde::Serialize;

/// What is being done to a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Waiting for its turn.
    Queued,
    /// Being read (`done` of `total` pages for paged formats).
    Converting,
    /// Its structure being recovered and cut into chunks (`done` of `total` steps: a PDF's page
    /// furniture, contents, tables, blocks and headings, then the outline and chunks).
    Analysing,
    /// Its chunks' contexts being written (`done` of `total` chunks).
    Contextualizing,
    /// Its chunks being embedded (`done` of `total` chunks).
    Embedding,
    /// Being written to the catalog, the vectors and the keyword index.
    Indexing,
    /// Added (or updated): searchable now.
    Indexed,
    /// Already in the library with the same content: left as it was.
    Unchanged,
    /// Not added; `error` says why.
    Failed,
    /// Not added: the ingest was stopped first.
    Cancelled,
}

/// How far a piece of work has got: `done` of `total` units of `stage` (`total` 0 while unknown).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// What is being done.
    pub stage: Stage,
    /// Units done (pages read, chunks answered or embedded).
    pub done: usize,
    /// The stage's units in all.
    pub total: usize,
}

impl Step {
    /// `done` of `total` units of `stage`.
    pub fn new(stage: Stage, done: usize, total: usize) -> Step {
        Step { stage, done, total }
    }
}

/// A sink that drops every step, for callers that do not show progress.
pub fn ignore(_: Step) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_serialize_as_the_ui_names_them() {
        let names: Vec<String> = [Stage::Queued, Stage::Contextualizing, Stage::Cancelled]
            .iter()
            .map(|s| serde_json::to_string(s).unwrap())
            .collect();
        assert_eq!(names, ["\"queued\"", "\"contextualizing\"", "\"cancelled\""]);
    }
}
