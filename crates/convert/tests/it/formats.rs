//! The DOCX, HTML, EPUB and Markdown converters: exact blocks on small fixtures built here (the
//! outline agreement of format twins from the shared data is in `shared::format_twins`).

use folio_convert::{convert_bytes, ConvertOptions, ErrorKind};
use folio_core::model::{BlockKind, Document, Format};
use std::io::{Cursor, Write};
use zip::write::SimpleFileOptions;

fn opts() -> ConvertOptions {
    ConvertOptions::default()
}

// ------------------------------------------------------------------------------------------------
// Small fixtures with exact expectations

fn zip_of(members: &[(&str, &str)]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let o = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (name, body) in members {
        w.start_file(*name, o).unwrap();
        w.write_all(body.as_bytes()).unwrap();
    }
    w.finish().unwrap().into_inner()
}

const W: &str = r#"xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006""#;

fn para(style: Option<&str>, extra_ppr: &str, runs: &str) -> String {
    let style = style.map(|s| format!(r#"<w:pStyle w:val="{s}"/>"#)).unwrap_or_default();
    format!("<w:p><w:pPr>{style}{extra_ppr}</w:pPr>{runs}</w:p>")
}

fn run(text: &str) -> String {
    format!(r#"<w:r><w:t xml:space="preserve">{text}</w:t></w:r>"#)
}

fn numpr(num: u32, ilvl: u8) -> String {
    format!(r#"<w:numPr><w:ilvl w:val="{ilvl}"/><w:numId w:val="{num}"/></w:numPr>"#)
}

/// A small DOCX: styles with inheritance and a name-only custom heading, multi-level numbering
/// on headings and lists, a table, field codes, a deletion and a markup-compatibility fallback.
fn fixture_docx(core_title: &str) -> Vec<u8> {
    let styles = format!(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:styles {W}>
  <w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>
  <w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/><w:basedOn w:val="Normal"/></w:style>
  <w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/>
    <w:pPr><w:numPr><w:numId w:val="1"/></w:numPr><w:outlineLvl w:val="0"/></w:pPr></w:style>
  <w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/><w:basedOn w:val="Heading1"/>
    <w:pPr><w:numPr><w:ilvl w:val="1"/></w:numPr><w:outlineLvl w:val="1"/></w:pPr></w:style>
  <w:style w:type="paragraph" w:styleId="Annex"><w:name w:val="Annex Head"/><w:basedOn w:val="Heading2"/></w:style>
  <w:style w:type="paragraph" w:customStyle="1" w:styleId="MyH3"><w:name w:val="H3"/><w:basedOn w:val="Normal"/></w:style>
  <w:style w:type="paragraph" w:styleId="TOCHeading"><w:name w:val="TOC Heading"/><w:basedOn w:val="Heading1"/>
    <w:pPr><w:outlineLvl w:val="9"/></w:pPr></w:style>
  <w:style w:type="character" w:styleId="Heading1Char"><w:name w:val="Heading 1 Char"/></w:style>
</w:styles>"#
    );
    let numbering = format!(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:numbering {W}>
  <w:abstractNum w:abstractNumId="10">
    <w:lvl w:ilvl="0"><w:start w:val="5"/><w:numFmt w:val="decimal"/><w:pStyle w:val="Heading1"/><w:lvlText w:val="%1"/></w:lvl>
    <w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:pStyle w:val="Heading2"/><w:lvlText w:val="%1.%2"/></w:lvl>
  </w:abstractNum>
  <w:abstractNum w:abstractNumId="11">
    <w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="lowerLetter"/><w:lvlText w:val="(%1)"/></w:lvl>
    <w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="lowerRoman"/><w:lvlText w:val="%2."/></w:lvl>
    <w:lvl w:ilvl="2"><w:start w:val="1"/><w:numFmt w:val="upperRoman"/><w:lvlText w:val="%1.%2.%3"/></w:lvl>
  </w:abstractNum>
  <w:abstractNum w:abstractNumId="12">
    <w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="bullet"/><w:lvlText w:val="&#xF0B7;"/></w:lvl>
  </w:abstractNum>
  <w:abstractNum w:abstractNumId="13">
    <w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="upperLetter"/><w:lvlText w:val="%1."/></w:lvl>
  </w:abstractNum>
  <w:num w:numId="1"><w:abstractNumId w:val="10"/></w:num>
  <w:num w:numId="2"><w:abstractNumId w:val="11"/></w:num>
  <w:num w:numId="3"><w:abstractNumId w:val="12"/></w:num>
  <w:num w:numId="4"><w:abstractNumId w:val="13"/></w:num>
  <w:num w:numId="5"><w:abstractNumId w:val="13"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="1"/></w:lvlOverride></w:num>
</w:numbering>"#
    );
    let cell = |t: &str| format!("<w:tc>{}</w:tc>", para(None, "", &run(t)));
    let body = [
        para(Some("Title"), "", &run("Fixture")),
        para(Some("Title"), "", ""),
        para(Some("Title"), "", &run("Document")),
        para(Some("TOCHeading"), &numpr(0, 0), &run("Contents")),
        para(Some("Heading1"), "", &run("Introduction")),
        para(None, "", &format!("{}<w:r><w:tab/></w:r>{}", run("Plain"), run("text &amp; more"))),
        para(Some("Heading2"), "", &run("Scope")),
        para(None, &numpr(2, 0), &run("first")),
        para(None, &numpr(2, 1), &run("nested")),
        para(None, &numpr(2, 2), &run("deep")),
        para(None, &numpr(2, 0), &run("second")),
        para(None, &numpr(3, 0), &run("bullet")),
        para(Some("Heading2"), "", &run("Changed Models ")),
        para(Some("Annex"), "", &run("Inherited")),
        para(Some("MyH3"), "", &run("Custom three")),
        para(None, r#"<w:outlineLvl w:val="3"/>"#, &run("Direct outline")),
        // Field code, deleted text and a compatibility fallback must not show.
        para(
            None,
            "",
            &format!(
                r#"{}<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText>PAGEREF _Toc1 \h</w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>{}<w:r><w:fldChar w:fldCharType="end"/></w:r><w:del w:id="1"><w:r><w:delText>gone</w:delText></w:r></w:del><mc:AlternateContent><mc:Choice Requires="wps">{}</mc:Choice><mc:Fallback>{}</mc:Fallback></mc:AlternateContent>"#,
                run("See page "),
                run("7"),
                run(" shown"),
                run(" hidden")
            ),
        ),
        format!(
            "<w:tbl><w:tblPr/><w:tr>{}{}</w:tr><w:tr>{}<w:tc>{}{}</w:tc></w:tr></w:tbl>",
            cell("Name"),
            cell("Value"),
            cell("alpha"),
            para(None, "", &run("one")),
            para(None, "", &run("two"))
        ),
        para(Some("Heading1"), "", &run("Second chapter")),
        para(Some("Heading2"), "", &run("Again")),
        para(Some("Heading2"), &numpr(0, 0), &run("Unnumbered")),
        para(None, &numpr(4, 0), &run("A item")),
        para(None, &numpr(4, 0), &run("B item")),
        para(None, &numpr(5, 0), &run("restarted")),
        "<w:sectPr/>".to_string(),
    ]
    .concat();
    let document = format!(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document {W}><w:body>{body}</w:body></w:document>"#
    );
    let core = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>{core_title}</dc:title></cp:coreProperties>"#
    );
    zip_of(&[
        (
            "[Content_Types].xml",
            r#"<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>"#,
        ),
        (
            "_rels/.rels",
            r#"<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>"#,
        ),
        ("word/document.xml", &document),
        ("word/styles.xml", &styles),
        ("word/numbering.xml", &numbering),
        ("docProps/core.xml", &core),
    ])
}

fn dump(doc: &Document) -> Vec<(BlockKind, String)> {
    doc.blocks_with_text().map(|(b, t)| (b.kind.clone(), t.to_string())).collect()
}

fn h(level: u8, number: Option<&str>, text: &str) -> (BlockKind, String) {
    (BlockKind::Heading { level, number: number.map(str::to_string) }, text.to_string())
}

fn li(marker: &str, depth: u8, text: &str) -> (BlockKind, String) {
    (BlockKind::ListItem { marker: Some(marker.to_string()), depth }, text.to_string())
}

fn p(text: &str) -> (BlockKind, String) {
    (BlockKind::Paragraph, text.to_string())
}

#[test]
fn docx_fixture_blocks() {
    let bytes = fixture_docx("");
    let doc = convert_bytes("fixture.docx", &bytes, &opts()).unwrap();
    assert_eq!(doc.meta.format, Format::Docx);
    assert_eq!(doc.meta.title, "Fixture Document");
    let expected = vec![
        h(1, None, "Fixture Document"),
        p("Contents"),
        h(1, Some("5"), "5 Introduction"),
        p("Plain text & more"),
        h(2, Some("5.1"), "5.1 Scope"),
        li("(a)", 0, "first"),
        li("i.", 1, "nested"),
        li("a.i.I", 2, "deep"),
        li("(b)", 0, "second"),
        li("•", 0, "bullet"),
        h(2, Some("5.2"), "5.2 Changed Models"),
        h(2, Some("5.3"), "5.3 Inherited"),
        h(3, None, "Custom three"),
        h(4, None, "Direct outline"),
        p("See page 7 shown"),
        (BlockKind::Table { header_rows: 0 }, "Name\tValue\nalpha\tone two".to_string()),
        h(1, Some("6"), "6 Second chapter"),
        h(2, Some("6.1"), "6.1 Again"),
        h(2, None, "Unnumbered"),
        li("A.", 0, "A item"),
        li("B.", 0, "B item"),
        li("A.", 0, "restarted"),
    ];
    assert_eq!(dump(&doc), expected);
}

#[test]
fn docx_title_prefers_core_properties() {
    let doc = convert_bytes("fixture.docx", &fixture_docx("Core &amp; Title"), &opts()).unwrap();
    assert_eq!(doc.meta.title, "Core & Title");
}

#[test]
fn docx_zip_limits_apply_to_every_member() {
    let bytes = fixture_docx("");
    let tight = ConvertOptions { max_uncompressed_bytes: 2_000, ..ConvertOptions::default() };
    assert_eq!(
        convert_bytes("fixture.docx", &bytes, &tight).unwrap_err(),
        ErrorKind::ZipBomb { limit: 2_000 }
    );
}

#[test]
fn html_fixture_blocks() {
    let html = r##"<!DOCTYPE html><html><head><title>Guide</title><style>p{}</style></head><body>
        <header><nav><ul><li>Home</li></ul></nav></header>
        <div role="search"><h3>Quick search</h3></div>
        <h2>1. Start<a class="headerlink" href="#s">¶</a></h2>
        <p>Hello <em>world</em>.</p>
        <h3>1.1 Detail</h3>
        <ul><li><p>one</p><ol start="3"><li>three</li><li value="7">seven</li></ol></li><li>two</li></ul>
        <table><thead><tr><th>K</th><th>V</th></tr></thead><tbody><tr><td>a</td><td>b <b>c</b></td></tr></tbody></table>
        <pre>  code
   more</pre>
        <blockquote>quote <p>para</p></blockquote>
        <script>alert(1)</script><noscript>no</noscript><template><p>t</p></template>
        <footer>foot</footer>
    </body></html>"##;
    let doc = convert_bytes("page.html", html.as_bytes(), &opts()).unwrap();
    assert_eq!(doc.meta.title, "Guide");
    let expected = vec![
        h(1, Some("1"), "1. Start"),
        p("Hello world."),
        h(2, Some("1.1"), "1.1 Detail"),
        li("•", 0, "one"),
        li("3.", 1, "three"),
        li("7.", 1, "seven"),
        li("•", 0, "two"),
        (BlockKind::Table { header_rows: 1 }, "K\tV\na\tb c".to_string()),
        (BlockKind::Code, "  code\n   more".to_string()),
        (BlockKind::Quote, "quote".to_string()),
        (BlockKind::Quote, "para".to_string()),
    ];
    assert_eq!(dump(&doc), expected);
}

#[test]
fn html_title_falls_back_to_first_h1_and_decodes_cp1252() {
    let html = b"<html><body><h1>Caf\xe9 rules</h1><p>\x93quoted\x94</p></body></html>";
    let doc = convert_bytes("page.htm", html, &opts()).unwrap();
    assert_eq!(doc.meta.title, "Café rules");
    assert_eq!(dump(&doc)[1], p("“quoted”"));
}

#[test]
fn markdown_fixture_blocks() {
    let md = "---\ntitle: Front matter is ignored\n---\n\n# Policy\n\nIntro text\nwraps.\n\n\
              Part 2 - Rules\n--------------\n\n1. first\n2. second\n   - nested\n\n> a quote\n\n\
              ```rust\nfn main() {}\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n### 2.1 Deep\n";
    let doc = convert_bytes("notes.md", md.as_bytes(), &opts()).unwrap();
    assert_eq!(doc.meta.title, "Policy");
    let expected = vec![
        h(1, None, "Policy"),
        p("Intro text wraps."),
        h(2, Some("Part 2"), "Part 2 - Rules"),
        li("1.", 0, "first"),
        li("2.", 0, "second"),
        li("•", 1, "nested"),
        (BlockKind::Quote, "a quote".to_string()),
        (BlockKind::Code, "fn main() {}".to_string()),
        (BlockKind::Table { header_rows: 1 }, "a\tb\n1\t2".to_string()),
        h(3, Some("2.1"), "2.1 Deep"),
    ];
    assert_eq!(dump(&doc), expected);
    assert!(!doc.text.contains("Front matter"));
}

/// A small EPUB: the nav document is skipped, spine order kept, each chapter's h1 is level 1.
fn fixture_epub(with_container: bool) -> Vec<u8> {
    let chapter = |title: &str, sub: &str| {
        format!(
            r#"<?xml version="1.0" encoding="utf-8"?><!DOCTYPE html><html xmlns="http://www.w3.org/1999/xhtml"><head><title>{title}</title><script src="x.js"/></head><body><section><h1>{title}</h1><p>Text of {title}.</p><section><h2>{sub}</h2><p>More.</p></section></section></body></html>"#
        )
    };
    let nav = r#"<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><body><nav epub:type="toc"><h1>Table of Contents</h1><ol><li><a href="b.xhtml">B</a></li></ol></nav></body></html>"#;
    let opf = r#"<?xml version="1.0" encoding="UTF-8"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Fixture Book</dc:title></metadata><manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/><item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/><item id="a" href="text/a.xhtml" media-type="application/xhtml+xml"/><item id="b" href="text/b%20two.xhtml" media-type="application/xhtml+xml"/><item id="css" href="s.css" media-type="text/css"/></manifest><spine toc="ncx"><itemref idref="nav"/><itemref idref="b"/><itemref idref="a"/></spine></package>"#;
    let container = r#"<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>"#;
    let (a, b) = (chapter("Alpha", "1.1 Alpha detail"), chapter("Beta", "Beta detail"));
    let mut members = vec![
        ("mimetype", "application/epub+zip"),
        ("OEBPS/content.opf", opf),
        ("OEBPS/nav.xhtml", nav),
        ("OEBPS/toc.ncx", "<ncx/>"),
        ("OEBPS/text/a.xhtml", a.as_str()),
        ("OEBPS/text/b two.xhtml", b.as_str()),
    ];
    if with_container {
        members.insert(1, ("META-INF/container.xml", container));
    }
    zip_of(&members)
}

#[test]
fn epub_fixture_blocks() {
    let doc = convert_bytes("book.epub", &fixture_epub(true), &opts()).unwrap();
    assert_eq!(doc.meta.format, Format::Epub);
    assert_eq!(doc.meta.title, "Fixture Book");
    let expected = vec![
        h(1, None, "Beta"),
        p("Text of Beta."),
        h(2, None, "Beta detail"),
        p("More."),
        h(1, None, "Alpha"),
        p("Text of Alpha."),
        h(2, Some("1.1"), "1.1 Alpha detail"),
        p("More."),
    ];
    assert_eq!(dump(&doc), expected);
}

#[test]
fn epub_without_container_is_corrupt() {
    let err = convert_bytes("book.epub", &fixture_epub(false), &opts()).unwrap_err();
    assert!(matches!(err, ErrorKind::Corrupt(_)), "{err:?}");
}
