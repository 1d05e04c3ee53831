//! Outline agreement between twins of the same document in several formats, from the shared data
//! folder: the USLM review guide as DOCX and Markdown, the Debian policy as EPUB and chapter HTML.

use crate::common::{outline, report_differences, Agreement};
use folio_convert::{convert_file, ConvertOptions};
use folio_core::model::{BlockKind, Format};
use std::path::PathBuf;

fn shared_data() -> PathBuf {
    folio_testkit::paths::require_shared("data")
}

fn opts() -> ConvertOptions {
    ConvertOptions::default()
}

#[test]
#[ignore = "needs ../shared; scripts/test.sh runs it"]
fn uslm_review_guide_docx_and_markdown_give_the_same_outline() {
    let data = shared_data();
    let docx = convert_file(&data.join("uslm/USLM-2_0-Review-Guide-v2_0_12-clean.docx"), &opts()).unwrap();
    let md = convert_file(&data.join("uslm/USLM-2_0-Review-Guide-v2_0_12.md"), &opts()).unwrap();
    assert_eq!(docx.meta.format, Format::Docx);
    assert_eq!(md.meta.format, Format::Markdown);
    let (a, b) = (outline(&docx), outline(&md));
    let (agg, pairs) = Agreement::of(&a, &b);
    eprintln!(
        "USLM review guide: docx {} headings, md {} headings, matched {}; heading agreement {:.3}, \
         level agreement {:.3}",
        a.len(),
        b.len(),
        agg.matched,
        agg.headings(),
        agg.levels()
    );
    report_differences("docx", &a, "md", &b, &pairs);
    eprintln!("  docx title: {:?}", docx.meta.title);
    assert!(agg.headings() >= 0.95, "heading agreement {:.3}", agg.headings());
    assert!(agg.levels() >= 0.95, "level agreement {:.3}", agg.levels());

    // The auto-numbered headings carry the number Word prints.
    let changed = docx
        .blocks_with_text()
        .find(|(_, t)| t.ends_with("Changed Models"))
        .expect("a 'Changed Models' heading");
    assert_eq!(changed.1, "6.1 Changed Models");
    assert_eq!(changed.0.kind, BlockKind::Heading { level: 2, number: Some("6.1".into()) });
}

#[test]
#[ignore = "needs ../shared; scripts/test.sh runs it"]
fn debian_policy_epub_and_chapter_html_give_the_same_outline() {
    let data = shared_data();
    let dir = data.join("debian-policy");
    let epub = convert_file(&dir.join("policy.epub"), &opts()).unwrap();
    assert_eq!(epub.meta.format, Format::Epub);
    assert_eq!(epub.meta.title, "Debian Policy Manual");
    let book = outline(&epub);
    let mut total = Agreement { matched: 0, max_len: 0, same_level: 0 };
    for chapter in ["ch-scope.html", "ch-binary.html", "ch-relationships.html"] {
        let html = convert_file(&dir.join(chapter), &opts()).unwrap();
        assert_eq!(html.meta.format, Format::Html);
        let h = outline(&html);
        assert!(!h.is_empty(), "{chapter} has headings");
        assert!(h.iter().all(|x| !x.2.contains('¶')), "permalink marks stripped in {chapter}");
        // The chapter inside the book: from its level-1 heading to the next one.
        let start = book
            .iter()
            .position(|x| x.1 == 1 && x.0 == h[0].0)
            .unwrap_or_else(|| panic!("{chapter}'s first heading {:?} is in the EPUB", h[0].2));
        let end = book[start + 1..].iter().position(|x| x.1 == 1).map_or(book.len(), |e| start + 1 + e);
        let part = &book[start..end];
        let (agg, pairs) = Agreement::of(part, &h);
        eprintln!(
            "Debian policy {chapter}: epub {} headings, html {} headings, matched {}; heading agreement \
             {:.3}, level agreement {:.3}",
            part.len(),
            h.len(),
            agg.matched,
            agg.headings(),
            agg.levels()
        );
        report_differences("epub", part, "html", &h, &pairs);
        total.add(&agg);
    }
    eprintln!(
        "Debian policy, three chapters: heading agreement {:.3}, level agreement {:.3}",
        total.headings(),
        total.levels()
    );
    assert!(total.headings() >= 0.95, "heading agreement {:.3}", total.headings());
    assert!(total.levels() >= 0.95, "level agreement {:.3}", total.levels());

    // Sphinx numbers become heading numbers.
    let scope = convert_file(&dir.join("ch-scope.html"), &opts()).unwrap();
    let (b, t) = scope.blocks_with_text().find(|(_, t)| t.ends_with("Scope")).unwrap();
    assert_eq!(t, "1.1. Scope");
    assert_eq!(b.kind, BlockKind::Heading { level: 2, number: Some("1.1".into()) });
    // The sidebar and navigation are gone.
    assert!(!scope.text.contains("Quick search"));
    assert!(!scope.text.contains("Previous topic"));
}
