//! What a bug report needs to know about this installation, as the desktop app's "Copy
//! diagnostics" gives it: Folio's version, the system, how the embedder runs on this CPU, the
//! library's size and the last problems in the log. Nothing from a document, a query or a key.

use crate::workspace::Workspace;
use schemars::JsonSchema;
use serde::Serialize;
use std::path::Path;

/// How many of the log's last warnings and errors a report carries.
const RECENT: usize = 20;

/// A diagnostics report.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Diagnostics {
    /// Folio's version.
    pub version: String,
    /// The operating system and CPU architecture.
    pub os: String,
    /// How the embedding model runs on this CPU ("all-minilm-l6-v2 · int8 (AMX)").
    pub kernel: String,
    /// The library folder.
    pub library: String,
    /// Documents in the library.
    pub documents: usize,
    /// Chunks in the library.
    pub chunks: usize,
    /// Bytes the library takes on disk.
    pub library_bytes: u64,
    /// The folder of the log files.
    pub log_dir: String,
    /// The last warnings and errors in the log, oldest first.
    pub recent_errors: Vec<String>,
    /// All of the above as plain text, for pasting into a bug report.
    pub text: String,
}

/// The diagnostics report, with the log in `log_dir`, of the open workspace or, when the library
/// could not be opened, of why not (its figures then read as unknown). A figure the library cannot
/// give is reported as unknown (and 0), and never fails the report.
pub fn diagnostics(log_dir: &Path, workspace: Result<&Workspace, &str>) -> Diagnostics {
    let (library, kernel, documents, chunks) = match workspace {
        Ok(ws) => ws.library_figures(),
        Err(why) => (format!("not open: {why}"), "not loaded".to_string(), None, None),
    };
    let library_bytes = folder_bytes(Path::new(&library));
    let mut d = Diagnostics {
        version: env!("CARGO_PKG_VERSION").to_string(),
        os: format!("{} {}", std::env::consts::OS, std::env::consts::ARCH),
        kernel,
        library,
        documents: documents.unwrap_or(0),
        chunks: chunks.unwrap_or(0),
        library_bytes,
        log_dir: log_dir.display().to_string(),
        recent_errors: crate::log::recent_problems(log_dir, RECENT),
        text: String::new(),
    };
    let count = |n: Option<usize>| n.map_or("unknown".into(), |n| n.to_string());
    let mut text = format!(
        "Folio {}\nSystem: {}\nEmbedder: {}\nLibrary: {} ({} documents, {} chunks, {:.1} MB)\nLog folder: {}\n",
        d.version,
        d.os,
        d.kernel,
        d.library,
        count(documents),
        count(chunks),
        d.library_bytes as f64 / 1e6,
        d.log_dir
    );
    if d.recent_errors.is_empty() {
        text.push_str("Recent problems: none in the log\n");
    } else {
        text.push_str("Recent problems (oldest first):\n");
        for e in &d.recent_errors {
            text.push_str(&format!("  {e}\n"));
        }
    }
    d.text = text;
    d
}

/// The bytes of every file under a folder (0 for one that cannot be read).
fn folder_bytes(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => folder_bytes(&e.path()),
            Ok(_) => e.metadata().map_or(0, |m| m.len()),
            Err(_) => 0,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_library_that_did_not_open_still_gives_a_report_with_the_log_s_problems() {
        let logs = tempfile::tempdir().unwrap();
        std::fs::write(
            logs.path().join(crate::log::LOG_FILE),
            "2026-12-05T01:00:00Z ERROR folio_desktop: the library could not be opened: permission denied\n",
        )
        .unwrap();
        let d = diagnostics(logs.path(), Err("permission denied"));
        assert_eq!(d.version, env!("CARGO_PKG_VERSION"));
        assert_eq!(d.recent_errors.len(), 1);
        assert!(d.text.contains("Library: not open: permission denied (unknown documents"), "{}", d.text);
        assert!(d.text.contains("ERROR folio_desktop: the library could not be opened"), "{}", d.text);
    }
}
