//! Acceptance: the same document in several formats gives the same outline.
//!
//! - USLM Review Guide: PDF, DOCX and Markdown.
//! - Debian Policy Manual: PDF, plain text and EPUB.
//!
//! Headings are compared by normalised title (numbering dropped, letters only, lower-case), matched
//! in order (longest common subsequence). Agreement = matched / the longer outline; level agreement =
//! matched pairs at the same level / matched, after shifting each outline so its top level is 1.
//! A first heading that repeats the document title is the title, not a section, and is left out.
//! Needs `../shared/data` and, for PDFs, `.assets/pdfium`; skips with a message otherwise.

use folio_convert::{convert_file, ConvertOptions};
use folio_core::model::Document;
use std::path::PathBuf;

use crate::common::{norm_title, outline, report_differences, Agreement};

type Outline = Vec<(String, u8, String)>;

fn data() -> PathBuf {
    folio_testkit::paths::require_shared("data")
}

fn load(path: PathBuf) -> Document {
    let options = ConvertOptions {
        pdfium_library: Some(folio_testkit::paths::require_pdfium()),
        ..ConvertOptions::default()
    };
    convert_file(&path, &options).unwrap_or_else(|e| panic!("{e}"))
}

fn normalised(doc: &Document) -> Outline {
    let mut o = outline(doc);
    if o.first().is_some_and(|h| h.0 == norm_title(&doc.meta.title)) && o.len() > 1 {
        o.remove(0);
    }
    let top = o.iter().map(|h| h.1).min().unwrap_or(1);
    for h in &mut o {
        h.1 = h.1 - top + 1;
    }
    o
}

fn compare(label: &str, docs: &[(&str, Outline)]) -> (f64, f64) {
    let mut worst = (1.0f64, 1.0f64);
    for i in 0..docs.len() {
        for j in i + 1..docs.len() {
            let ((na, a), (nb, b)) = (&docs[i], &docs[j]);
            let (agg, pairs) = Agreement::of(a, b);
            eprintln!(
                "{label}: {na} {} vs {nb} {} headings, matched {}; agreement {:.3}, level agreement {:.3}",
                a.len(),
                b.len(),
                agg.matched,
                agg.headings(),
                agg.levels()
            );
            report_differences(na, a, nb, b, &pairs);
            worst = (worst.0.min(agg.headings()), worst.1.min(agg.levels()));
        }
    }
    worst
}

#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn uslm_review_guide_pdf_docx_markdown() {
    let d = data();
    let pdf = load(d.join("uslm/USLM-2_0-Review-Guide-v2_0_12.pdf"));
    let docx = load(d.join("uslm/USLM-2_0-Review-Guide-v2_0_12-clean.docx"));
    let md = load(d.join("uslm/USLM-2_0-Review-Guide-v2_0_12.md"));
    let (h, l) = compare(
        "USLM Review Guide",
        &[("pdf", normalised(&pdf)), ("docx", normalised(&docx)), ("md", normalised(&md))],
    );
    assert!(h >= 0.90 && l >= 0.90, "worst pairwise agreement {h:.3}, levels {l:.3}");
}

#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn debian_policy_pdf_text_epub() {
    let d = data();
    let pdf = load(d.join("debian-policy/policy.pdf"));
    let txt = load(d.join("debian-policy/policy.txt"));
    let epub = load(d.join("debian-policy/policy.epub"));
    let (h, l) = compare(
        "Debian Policy",
        &[("pdf", normalised(&pdf)), ("text", normalised(&txt)), ("epub", normalised(&epub))],
    );
    assert!(h >= 0.90 && l >= 0.90, "worst pairwise agreement {h:.3}, levels {l:.3}");
}
