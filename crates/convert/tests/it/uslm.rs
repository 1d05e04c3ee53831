//! USLM XML: a small inline document with exact blocks and malformed input (the two public laws of
//! the shared data are in `shared::uslm_laws`).

use folio_convert::{convert_bytes, ConvertOptions, ErrorKind};
use folio_core::model::{BlockKind, Document, Format};

fn convert(xml: &str) -> Result<Document, ErrorKind> {
    convert_bytes("law.xml", xml.as_bytes(), &ConvertOptions::default())
}

fn blocks(doc: &Document) -> Vec<(BlockKind, String)> {
    doc.blocks_with_text().map(|(b, t)| (b.kind.clone(), t.to_string())).collect()
}

fn heading(level: u8, number: &str, text: &str) -> (BlockKind, String) {
    let number = (!number.is_empty()).then(|| number.to_string());
    (BlockKind::Heading { level, number }, text.to_string())
}

fn item(marker: &str, depth: u8, text: &str) -> (BlockKind, String) {
    (BlockKind::ListItem { marker: Some(marker.to_string()), depth }, text.to_string())
}

fn para(text: &str) -> (BlockKind, String) {
    (BlockKind::Paragraph, text.to_string())
}

fn quote(text: &str) -> (BlockKind, String) {
    (BlockKind::Quote, text.to_string())
}

const SNIPPET: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<pLaw xmlns="http://schemas.gpo.gov/xml/uslm" xmlns:dc="http://purl.org/dc/elements/1.1/">
<meta><dc:title>Public Law 999–1: The Example Act</dc:title><dc:type>Public Law</dc:type></meta>
<preface><page>200 STAT. 1</page><dc:type>Public Law</dc:type><docNumber>999–1</docNumber></preface>
<main>
<longTitle><docTitle>An Act</docTitle><officialTitle>To give an example.</officialTitle><sidenote><p>Jan. 1, 2030</p></sidenote></longTitle>
<enactingFormula>Be it enacted by the Senate and House of Represen&#xAD;tatives,</enactingFormula>
<section><num value="1">SECTION 1. </num><heading>SHORT TITLE.</heading><content>This Act may be cited as the <shortTitle>“Example Act”</shortTitle>.</content></section>
<title><num value="I">TITLE I—</num><heading>PROJECT DELIVERY</heading>
<section><num value="1001">SEC. 1001. </num><sidenote><p><ref href="/us/usc/t33/s1">33 USC 1 note</ref>.</p></sidenote><heading>DEFINITIONS.</heading>
<subsection><num value="a">  (a)</num><heading><inline class="small-caps">Definitions</inline>.—</heading><chapeau>In this section, the term <term>“Secretary”</term> means the Secretary of the Army, and—</chapeau>
<paragraph><num value="1">  (1) </num><content>the term <term>“project”</term> has the meaning given in <ref href="/us/usc/t33/s2">section 2 of title 33</ref>; and</content></paragraph>
<paragraph><num value="2">  (2) </num><chapeau>the term <term>“State”</term> means—</chapeau>
<subparagraph><num value="A">(A)</num><content>a State of the <page>200 STAT. 2</page>United<page>200 STAT. 3</page>States; or</content></subparagraph>
</paragraph>
<continuation>as the case may be.</continuation>
</subsection>
<subsection><num value="b">(b) </num><heading>Amendment.—</heading><content>Section 5 of the Old Act is amended by <amendingAction type="delete">striking</amendingAction> <quotedText>“may”</quotedText> and inserting the following:<quotedContent><subsection><num value="c">“(c) </num><heading>New Rule.—</heading><content>The Secretary shall act.”</content></subsection></quotedContent>.</content></subsection>
</section>
</title>
</main>
</pLaw>
"#;

#[test]
fn snippet_blocks_exactly() {
    let doc = convert(SNIPPET).expect("converts");
    assert_eq!(doc.meta.format, Format::Xml);
    assert_eq!(doc.meta.title, "Public Law 999–1: The Example Act");
    let expected = vec![
        para("999–1"),
        para("An Act"),
        para("To give an example."),
        para("Be it enacted by the Senate and House of Representatives,"),
        heading(1, "SECTION 1.", "SECTION 1. SHORT TITLE."),
        para("This Act may be cited as the “Example Act”."),
        heading(1, "TITLE I", "TITLE I—PROJECT DELIVERY"),
        heading(2, "SEC. 1001.", "SEC. 1001. DEFINITIONS."),
        item(
            "(a)",
            0,
            "(a) Definitions.—In this section, the term “Secretary” means the Secretary of the Army, and—",
        ),
        item("(1)", 1, "(1) the term “project” has the meaning given in section 2 of title 33; and"),
        item("(2)", 1, "(2) the term “State” means—"),
        item("(A)", 2, "(A) a State of the United States; or"),
        para("as the case may be."),
        item(
            "(b)",
            0,
            "(b) Amendment.—Section 5 of the Old Act is amended by striking “may” and inserting the following:",
        ),
        quote("“(c) New Rule.—The Secretary shall act.”."),
    ];
    let got = blocks(&doc);
    for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
        assert_eq!(g, e, "block {i}");
    }
    assert_eq!(got.len(), expected.len(), "{got:#?}");
}

#[test]
fn title_falls_back_to_the_official_title() {
    let xml = r#"<bill xmlns="http://schemas.gpo.gov/xml/uslm"><main><longTitle><docTitle>A BILL</docTitle><officialTitle>To amend a law.</officialTitle></longTitle><section><num>SEC. 1.</num><heading>X.</heading></section></main></bill>"#;
    let doc = convert(xml).expect("converts");
    assert_eq!(doc.meta.title, "To amend a law.");
    let last = doc.blocks.last().unwrap();
    assert_eq!(last.kind, BlockKind::Heading { level: 1, number: Some("SEC. 1.".into()) });
}

#[test]
fn tables_notes_and_entities() {
    let xml = r#"<uscDoc xmlns="http://xml.house.gov/schemas/uslm/1.0"><main><section><num>§ 1.</num><heading>Rates</heading><content>Rates are set&nbsp;below<note type="footnote">See note.</note> each year.<table xmlns="http://www.w3.org/1999/xhtml"><thead><tr><th>State</th><th>Rate</th></tr></thead><tbody><tr><td>Ohio</td><td>1<br/>2</td></tr></tbody></table></content></section></main></uscDoc>"#;
    let doc = convert(xml).expect("converts");
    assert_eq!(
        blocks(&doc),
        vec![
            heading(1, "§ 1.", "§ 1. Rates"),
            para("Rates are set below each year."),
            para("See note."),
            (BlockKind::Table { header_rows: 0 }, "State\tRate\nOhio\t1 2".to_string()),
        ]
    );
}

#[test]
fn malformed_and_foreign_xml() {
    let cases: [(&str, &str); 5] = [
        ("mismatched", "<bill><main><section></main></bill>"),
        ("truncated", "<bill><main><section><num>SEC. 1.</num>"),
        ("bad attribute", "<bill><main><section a=1>x</section></main></bill>"),
        ("only a declaration", "<?xml version=\"1.0\"?><bill"),
        ("unclosed comment", "<bill><!-- x"),
    ];
    for (what, xml) in cases {
        let r = convert(xml);
        assert!(matches!(r, Err(ErrorKind::Corrupt(_))), "{what}: {r:?}");
    }
    let foreign = convert_bytes("feed.xml", b"<?xml version=\"1.0\"?><rss/>", &ConvertOptions::default());
    assert_eq!(foreign, Err(ErrorKind::Unsupported("XML that is not USLM".into())));
    let empty = convert("<bill><meta><dc:title xmlns:dc=\"x\">T</dc:title></meta></bill>");
    assert_eq!(empty, Err(ErrorKind::Empty));
    // Deep nesting is no problem for the streaming reader.
    let deep =
        format!("<bill><main>{}text{}</main></bill>", "<inline>".repeat(50_000), "</inline>".repeat(50_000));
    assert_eq!(convert(&deep).map(|d| d.text.trim().to_string()), Ok("text".to_string()));
    let n = 20_000;
    let sections = format!(
        "<bill><main>{}{}</main></bill>",
        "<section><num>SEC. 1.</num><heading>H</heading><content>t</content>".repeat(n),
        "</section>".repeat(n)
    );
    let started = std::time::Instant::now();
    let doc = convert(&sections).expect("converts");
    let headings = doc.blocks.iter().filter(|b| b.kind.is_heading()).count();
    assert!((990..=1000).contains(&headings), "{headings} headings");
    assert!(started.elapsed().as_secs() < 20, "deep nesting took {:?}", started.elapsed());
}
