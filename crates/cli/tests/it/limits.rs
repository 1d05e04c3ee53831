//! Bad input under limits, through the real `folio` binary (each file converts in a worker process):
//! a conversion that outlasts its time limit, one that needs more than its memory limit, a 2 GB
//! sparse file and a PDF whose outline loops are each reported with a typed reason, within their
//! limits, and the good files of the same folder are indexed.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use folio_testkit::pdf as pdf_file;
use pdf_file::pdf_from_objects;

fn require_models() {
    for a in ["potion-base-2M/model.safetensors", "minilm/vocab.txt"] {
        folio_testkit::paths::require_asset(a);
    }
}

/// `folio ingest DIR` with extra flags; returns (stdout + stderr, seconds).
fn ingest(lib: &Path, dir: &Path, flags: &[&str]) -> (String, f64) {
    let t = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_folio"))
        .env("FOLIO_ASSETS_DIR", folio_testkit::paths::assets_dir())
        .args(["--model", "fast", "--library"])
        .arg(lib)
        .args(["ingest", "--context", "structural"])
        .args(flags)
        .arg(dir)
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (text, t.elapsed().as_secs_f64())
}

/// The reported failure line of a file, if any.
fn failure<'a>(report: &'a str, file: &str) -> Option<&'a str> {
    report.lines().find(|l| l.trim_start().starts_with("failed:") && l.contains(file))
}

/// A one-page PDF whose two bookmarks link to each other in a loop (A → B → A, A its own child).
fn looping_outline_pdf() -> Vec<u8> {
    let content = "BT /F1 16 Tf 72 720 Td (1 Introduction) Tj ET BT /F1 10 Tf 72 690 Td (The rules apply to every member.) Tj ET";
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R /Outlines 6 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>".to_string(),
        format!("<< /Length {} >>\nstream\n{content}\nendstream", content.len() + 1),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_string(),
        "<< /Type /Outlines /First 7 0 R /Last 8 0 R /Count 2 >>".to_string(),
        "<< /Title (1 Introduction) /Parent 6 0 R /Next 8 0 R /First 7 0 R /Dest [3 0 R /XYZ 0 792 0] >>".to_string(),
        "<< /Title (2 Rules) /Parent 6 0 R /Prev 7 0 R /Next 7 0 R /Dest [3 0 R /XYZ 0 700 0] >>".to_string(),
    ];
    pdf_from_objects(&objects, "")
}

const GOOD: &str = "# 1 Scope\n\n1.1 These rules apply to every Authorised Person.\n\n# 2 Conduct\n\n2.1 An Authorised Person must act with integrity.\n";

/// A folder `docs` in a scratch folder with a good rulebook and about 94 MB of Markdown (seconds
/// to convert, and more memory than a small limit allows).
fn folder_with_a_huge_file() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    std::fs::create_dir(&docs).unwrap();
    std::fs::write(docs.join("good.md"), GOOD).unwrap();
    std::fs::write(
        docs.join("huge.md"),
        "# 1 Scope\n\nThese rules apply to every person.\n\n".repeat(2_000_000),
    )
    .unwrap();
    (dir, docs)
}

#[test]
#[ignore = "needs .assets (scripts/setup-assets.sh); scripts/test.sh runs it"]
fn time_limit_sparse_file_and_looping_outline() {
    require_models();
    let (dir, docs) = folder_with_a_huge_file();
    std::fs::File::create(docs.join("sparse.pdf")).unwrap().set_len(2 << 30).unwrap();
    std::fs::write(docs.join("loop.pdf"), looping_outline_pdf()).unwrap();
    let (report, seconds) = ingest(&dir.path().join("lib"), &docs, &["--file-time-limit", "1"]);
    println!("{report}\n{seconds:.1} s");
    let timed_out = failure(&report, "huge.md").expect("huge.md is reported");
    assert!(timed_out.contains("(timed_out)"), "{timed_out}");
    let sparse = failure(&report, "sparse.pdf").expect("sparse.pdf is reported");
    assert!(sparse.contains("(too_large)"), "{sparse}");
    assert!(failure(&report, "good.md").is_none() && failure(&report, "loop.pdf").is_none(), "{report}");
    assert!(report.contains("2 indexed"), "{report}");
    // The hung conversion was cut at its limit: the whole ingest is a few seconds, not the
    // conversion's own time.
    assert!(seconds < 20.0, "{seconds} s");
}

#[test]
#[ignore = "needs .assets (scripts/setup-assets.sh); scripts/test.sh runs it"]
fn memory_limit_ends_the_worker_not_the_ingest() {
    require_models();
    let (dir, docs) = folder_with_a_huge_file();
    let started = Instant::now();
    let (report, _) =
        ingest(&dir.path().join("lib"), &docs, &["--file-memory-limit", "400", "--file-time-limit", "120"]);
    println!("{report}");
    let oom = failure(&report, "huge.md").expect("huge.md is reported");
    assert!(oom.contains("(out_of_memory)"), "{oom}");
    assert!(report.contains("1 indexed"), "{report}");
    assert!(started.elapsed() < Duration::from_secs(60));
}
