//! Robustness: a corpus of bad files generated at test time in a temporary folder. Each must give a
//! typed error of the expected kind through `convert_file`, never a panic; the large inputs must
//! come back in reasonable time.

use folio_convert::{convert_bytes, convert_file, ConvertOptions, ErrorKind};
use std::io::{Cursor, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use zip::write::SimpleFileOptions;

/// A temporary folder removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let dir = std::env::temp_dir().join(format!("folio-bad-files-{tag}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
    fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn shared_data() -> Option<PathBuf> {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data"));
    dir.is_dir().then_some(dir)
}

fn kind_of(path: &Path, options: &ConvertOptions) -> ErrorKind {
    match convert_file(path, options) {
        Ok(doc) => {
            panic!("{} converted ({} blocks) but should have failed", path.display(), doc.blocks.len())
        }
        Err(e) => {
            assert_eq!(e.path, path, "the error names the file");
            eprintln!("{}: {} [{}]", path.file_name().unwrap().to_string_lossy(), e.kind, e.kind.code());
            e.kind
        }
    }
}

fn zip_of(members: &[(&str, &[u8])]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let o = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (name, body) in members {
        w.start_file(*name, o).unwrap();
        w.write_all(body).unwrap();
    }
    w.finish().unwrap().into_inner()
}

const DOC_XML: &[u8] = br#"<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Hello</w:t></w:r></w:p></w:body></w:document>"#;
const CONTENT_TYPES: &[u8] =
    br#"<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>"#;

fn small_docx() -> Vec<u8> {
    zip_of(&[("[Content_Types].xml", CONTENT_TYPES), ("word/document.xml", DOC_XML)])
}

fn small_epub() -> Vec<u8> {
    let container = br#"<?xml version="1.0"?><container xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>"#;
    let opf = br#"<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf"><metadata/><manifest><item id="c" href="c.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c"/></spine></package>"#;
    let chapter =
        br#"<html xmlns="http://www.w3.org/1999/xhtml"><body><h1>One</h1><p>Text.</p></body></html>"#;
    zip_of(&[
        ("mimetype", b"application/epub+zip"),
        ("META-INF/container.xml", container),
        ("content.opf", opf),
        ("c.xhtml", chapter),
    ])
}

/// Random bytes with a NUL early, so that they never look textual.
fn random_bytes(n: usize) -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
    use proptest::strategy::Strategy;
    proptest::collection::vec(proptest::num::u8::ANY, n).prop_map(|mut b| {
        b[3] = 0;
        b
    })
}

/// Rewrites the declared uncompressed size of every member in a zip's local and central headers.
fn declare_size(zip: &mut [u8], size: u32) {
    let mut i = 0;
    while i + 46 <= zip.len() {
        match &zip[i..i + 4] {
            b"PK\x03\x04" => zip[i + 22..i + 26].copy_from_slice(&size.to_le_bytes()),
            b"PK\x01\x02" => zip[i + 24..i + 28].copy_from_slice(&size.to_le_bytes()),
            _ => {}
        }
        i += 1;
    }
}

#[test]
fn the_small_builders_are_valid() {
    let opts = ConvertOptions::default();
    assert_eq!(convert_bytes("a.docx", &small_docx(), &opts).unwrap().text, "Hello\n\n");
    assert_eq!(convert_bytes("a.epub", &small_epub(), &opts).unwrap().blocks.len(), 2);
}

#[test]
fn empty_files() {
    let dir = TempDir::new("empty");
    let opts = ConvertOptions::default();
    for name in ["empty.txt", "empty.md", "empty.docx", "empty.pdf", "empty.html"] {
        assert_eq!(kind_of(&dir.write(name, b""), &opts), ErrorKind::Empty, "{name}");
    }
    assert_eq!(kind_of(&dir.write("blank.md", b" \n\t\n "), &opts), ErrorKind::Empty);
    let scripts_only = b"<html><head><script>var a = 1;</script></head><body><nav>menu</nav></body></html>";
    assert_eq!(kind_of(&dir.write("scripts.html", scripts_only), &opts), ErrorKind::Empty);
}

#[test]
fn truncated_archives_are_corrupt() {
    let dir = TempDir::new("truncated");
    let opts = ConvertOptions::default();
    let mut sources: Vec<(&str, Vec<u8>)> = vec![("docx", small_docx()), ("epub", small_epub())];
    if let Some(data) = shared_data() {
        sources.push((
            "docx",
            std::fs::read(data.join("uslm/USLM-2_0-Review-Guide-v2_0_12-clean.docx")).unwrap(),
        ));
        sources.push(("epub", std::fs::read(data.join("debian-policy/policy.epub")).unwrap()));
    } else {
        eprintln!("shared data absent: truncating only the built archives");
    }
    for (i, (ext, bytes)) in sources.iter().enumerate() {
        let p = dir.write(&format!("trunc{i}.{ext}"), &bytes[..100]);
        assert!(matches!(kind_of(&p, &opts), ErrorKind::Corrupt(_)), "{}", p.display());
        // Half a file: the central directory is gone too.
        let p = dir.write(&format!("half{i}.{ext}"), &bytes[..bytes.len() / 2]);
        assert!(matches!(kind_of(&p, &opts), ErrorKind::Corrupt(_)), "{}", p.display());
    }
}

#[test]
fn archives_missing_their_main_part_are_corrupt() {
    let dir = TempDir::new("missing");
    let opts = ConvertOptions::default();
    let no_document = zip_of(&[("[Content_Types].xml", CONTENT_TYPES), ("word/styles.xml", b"<w:styles/>")]);
    assert!(matches!(kind_of(&dir.write("nodoc.docx", &no_document), &opts), ErrorKind::Corrupt(_)));
    let no_container = zip_of(&[("mimetype", b"application/epub+zip"), ("c.xhtml", b"<p>x</p>")]);
    assert!(matches!(kind_of(&dir.write("nocontainer.epub", &no_container), &opts), ErrorKind::Corrupt(_)));
    let container = br#"<container><rootfiles><rootfile full-path="content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>"#;
    let opf = br#"<package><manifest><item id="c" href="gone.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c"/></spine></package>"#;
    let dangling = zip_of(&[("META-INF/container.xml", container), ("content.opf", opf)]);
    assert!(matches!(kind_of(&dir.write("dangling.epub", &dangling), &opts), ErrorKind::Corrupt(_)));
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config::with_cases(24))]
    /// Random bytes named as documents are refused by what they are (their bytes match no
    /// document format), never a panic.
    #[test]
    fn random_bytes_with_document_extensions(bytes in random_bytes(8192)) {
        let dir = TempDir::new("random");
        let opts = ConvertOptions::default();
        for ext in ["pdf", "docx", "epub"] {
            let p = dir.write(&format!("random.{ext}"), &bytes);
            assert!(matches!(kind_of(&p, &opts), ErrorKind::WrongExtension { .. }), "{}", p.display());
        }
        let p = dir.write("random.bin", &bytes);
        assert!(matches!(kind_of(&p, &opts), ErrorKind::Unsupported(_)));
        // Behind a zip signature they get past detection and fail in the archive reader: damage,
        // or an archive that would inflate past the limit (random sizes in its headers).
        let mut fake = b"PK\x03\x04".to_vec();
        fake.extend(&bytes);
        for name in ["fake.docx", "fake.epub"] {
            let kind = kind_of(&dir.write(name, &fake), &opts);
            assert!(matches!(kind, ErrorKind::Corrupt(_) | ErrorKind::ZipBomb { .. }), "{name}: {kind:?}");
        }
    }
}

#[test]
fn docx_zip_bomb_is_refused() {
    let dir = TempDir::new("bomb");
    let opts = ConvertOptions::default();
    // 1.1 GB of zeros in word/document.xml: about 5 MB compressed at level 1.
    let t = Instant::now();
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    w.start_file("[Content_Types].xml", SimpleFileOptions::default()).unwrap();
    w.write_all(CONTENT_TYPES).unwrap();
    let o = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .compression_level(Some(1))
        .large_file(true);
    w.start_file("word/document.xml", o).unwrap();
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..1100 {
        w.write_all(&zeros).unwrap();
    }
    let bomb = w.finish().unwrap().into_inner();
    eprintln!("built a {} byte archive declaring 1100 MiB in {:?}", bomb.len(), t.elapsed());
    let t = Instant::now();
    let p = dir.write("bomb.docx", &bomb);
    assert_eq!(kind_of(&p, &opts), ErrorKind::ZipBomb { limit: opts.max_uncompressed_bytes });
    assert!(t.elapsed() < Duration::from_secs(5), "refused from the declared size, took {:?}", t.elapsed());
}

#[test]
fn zip_bomb_with_lying_headers_is_caught_while_inflating() {
    let dir = TempDir::new("liar");
    // 20 MiB of zeros declared as 1,000 bytes, under a 10 MiB limit.
    let zeros = vec![0u8; 20 << 20];
    let limit = 10 << 20;
    let opts = ConvertOptions { max_uncompressed_bytes: limit, ..ConvertOptions::default() };
    let mut docx = zip_of(&[("word/document.xml", &zeros)]);
    declare_size(&mut docx, 1_000);
    assert_eq!(kind_of(&dir.write("liar.docx", &docx), &opts), ErrorKind::ZipBomb { limit });
    let container = br#"<container><rootfiles><rootfile full-path="c.opf"/></rootfiles></container>"#;
    let mut epub = zip_of(&[("META-INF/container.xml", container), ("c.opf", &zeros)]);
    declare_size(&mut epub, 1_000);
    assert_eq!(kind_of(&dir.write("liar.epub", &epub), &opts), ErrorKind::ZipBomb { limit });
}

#[test]
fn encrypted_and_legacy_office_files() {
    let dir = TempDir::new("ole");
    let opts = ConvertOptions::default();
    // An OLE compound file (the container of password-protected OOXML) with an EncryptionInfo stream.
    let mut ole = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1".to_vec();
    ole.extend_from_slice(&[0u8; 504]);
    let mut encrypted = ole.clone();
    encrypted.extend("EncryptionInfo".encode_utf16().flat_map(u16::to_le_bytes));
    encrypted.extend("EncryptedPackage".encode_utf16().flat_map(u16::to_le_bytes));
    encrypted.extend_from_slice(&[0u8; 1024]);
    assert_eq!(kind_of(&dir.write("locked.docx", &encrypted), &opts), ErrorKind::Encrypted);
    // A legacy .doc renamed .docx.
    let mut legacy = ole.clone();
    legacy.extend("WordDocument".encode_utf16().flat_map(u16::to_le_bytes));
    assert!(matches!(kind_of(&dir.write("old.docx", &legacy), &opts), ErrorKind::WrongExtension { .. }));
}

#[test]
fn a_pdf_named_md_and_a_folder() {
    let dir = TempDir::new("misc");
    let opts = ConvertOptions::default();
    let pdf = b"%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n";
    assert!(matches!(kind_of(&dir.write("notes.md", pdf), &opts), ErrorKind::WrongExtension { .. }));
    let docx_as_md = small_docx();
    assert!(matches!(kind_of(&dir.write("notes2.md", &docx_as_md), &opts), ErrorKind::WrongExtension { .. }));
    let sub = dir.0.join("folder.docx");
    std::fs::create_dir_all(&sub).unwrap();
    assert!(matches!(kind_of(&sub, &opts), ErrorKind::Unsupported(_)));
    assert!(matches!(kind_of(&dir.0.join("absent.md"), &opts), ErrorKind::Io(_)));
}

#[test]
fn pathological_but_valid_inputs_convert() {
    let dir = TempDir::new("deep");
    let opts = ConvertOptions::default();
    let deep =
        format!("<html><body>{}deep text{}</body></html>", "<div>".repeat(20_000), "</div>".repeat(20_000));
    let doc = convert_file(&dir.write("deep.html", deep.as_bytes()), &opts).unwrap();
    assert!(doc.text.contains("deep text"));
    let quotes = format!("{}quoted\n", "> ".repeat(2_000));
    let doc = convert_file(&dir.write("quotes.md", quotes.as_bytes()), &opts).unwrap();
    assert!(doc.text.contains("quoted"));
}

#[test]
fn fifty_megabytes_of_text_without_a_newline() {
    let dir = TempDir::new("long");
    let opts = ConvertOptions::default();
    let words = b"lorem ipsum dolor sit amet consectetur adipiscing elit ";
    let mut text = Vec::with_capacity(50 << 20);
    while text.len() < 50 << 20 {
        text.extend_from_slice(words);
    }
    let p = dir.write("long.txt", &text);
    let t = Instant::now();
    let result = convert_file(&p, &opts);
    let took = t.elapsed();
    match &result {
        Ok(doc) => eprintln!("50 MB line: converted to {} blocks in {took:?}", doc.blocks.len()),
        Err(e) => eprintln!("50 MB line: {} [{}] in {took:?}", e.kind, e.kind.code()),
    }
    assert!(result.is_ok() || result.as_ref().is_err_and(|e| e.kind.is_user_error()));
    assert!(took < Duration::from_secs(120), "took {took:?}");
}
