//! EPUB: `META-INF/container.xml` names the package (OPF); its spine gives the reading order; each
//! XHTML document goes through the HTML extractor. The navigation document (`properties="nav"`) and
//! the NCX are skipped. Heading levels are renormalised over the whole book, so every chapter's `h1`
//! is level 1.

use crate::archive::Archive;
use crate::blocks::{push_blocks, RawBlock};
use crate::error::guard;
use crate::html::{extract, first_top_heading};
use crate::text::{decode_text, file_stem};
use crate::{ConvertOptions, Converter, ErrorKind};
use folio_core::model::{Document, DocumentBuilder, Format};
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;
use std::collections::HashMap;

/// Converts EPUB books.
#[derive(Debug, Default, Clone, Copy)]
pub struct EpubConverter;

impl Converter for EpubConverter {
    fn format(&self) -> Format {
        Format::Epub
    }

    fn convert(&self, name: &str, bytes: &[u8], options: &ConvertOptions) -> Result<Document, ErrorKind> {
        guard(|| convert_epub(name, bytes, options))
    }
}

fn convert_epub(name: &str, bytes: &[u8], options: &ConvertOptions) -> Result<Document, ErrorKind> {
    let mut zip = Archive::open(bytes, options.max_uncompressed_bytes)?;
    if zip.contains("META-INF/encryption.xml") {
        // Font obfuscation also lives there; only refuse when a content document is encrypted.
        let enc = zip.read("META-INF/encryption.xml")?.unwrap_or_default();
        if encrypts_content(&decode_text(&enc)) {
            return Err(ErrorKind::Encrypted);
        }
    }
    let container = zip
        .read("META-INF/container.xml")?
        .ok_or_else(|| ErrorKind::Corrupt("the EPUB has no META-INF/container.xml".into()))?;
    let opf_path = rootfile_path(&decode_text(&container))
        .ok_or_else(|| ErrorKind::Corrupt("META-INF/container.xml names no package document".into()))?;
    let opf = zip
        .read(&opf_path)?
        .ok_or_else(|| ErrorKind::Corrupt(format!("the package document {opf_path} is missing")))?;
    let package = parse_opf(&decode_text(&opf))?;
    let base = opf_path.rsplit_once('/').map(|(d, _)| format!("{d}/")).unwrap_or_default();

    let mut blocks: Vec<RawBlock> = Vec::new();
    let mut read_any = false;
    for idref in &package.spine {
        let Some(item) = package.manifest.get(idref) else {
            continue;
        };
        if item.properties.split_whitespace().any(|p| p == "nav")
            || package.toc_id.as_deref() == Some(idref.as_str())
            || item.media_type == "application/x-dtbncx+xml"
            || !is_html_media(&item.media_type, &item.href)
        {
            continue;
        }
        let path = resolve_href(&base, &item.href);
        let Some(data) = zip.read(&path)? else {
            continue;
        };
        read_any = true;
        let content = extract(&decode_text(&data), true);
        blocks.extend(content.blocks);
    }
    if !read_any {
        return Err(ErrorKind::Corrupt("the EPUB's spine names no readable document".into()));
    }
    if blocks.is_empty() {
        return Err(ErrorKind::Empty);
    }
    let title =
        package.title.clone().or_else(|| first_top_heading(&blocks)).unwrap_or_else(|| file_stem(name));
    let mut builder = DocumentBuilder::new(Format::Epub, title, bytes);
    push_blocks(&mut builder, blocks);
    if builder.blocks().is_empty() {
        return Err(ErrorKind::Empty);
    }
    Ok(builder.finish())
}

fn is_html_media(media_type: &str, href: &str) -> bool {
    let mt = media_type.to_ascii_lowercase();
    if mt.contains("html") {
        return true;
    }
    mt.is_empty() && {
        let h = href.to_ascii_lowercase();
        h.ends_with(".xhtml") || h.ends_with(".html") || h.ends_with(".htm")
    }
}

#[derive(Debug, Clone, Default)]
struct Item {
    href: String,
    media_type: String,
    properties: String,
}

#[derive(Debug, Default)]
struct Package {
    title: Option<String>,
    manifest: HashMap<String, Item>,
    spine: Vec<String>,
    toc_id: Option<String>,
}

fn attr(e: &BytesStart<'_>, local: &[u8]) -> Option<String> {
    e.attributes().flatten().find(|a| a.key.local_name().as_ref() == local).map(|a| {
        a.unescape_value()
            .map(|v| v.into_owned())
            .unwrap_or_else(|_| String::from_utf8_lossy(&a.value).into_owned())
    })
}

fn rootfile_path(xml: &str) -> Option<String> {
    let mut reader = Reader::from_str(xml);
    let mut first = None;
    loop {
        match reader.read_event() {
            Ok(Event::Start(e) | Event::Empty(e)) if e.local_name().as_ref() == b"rootfile" => {
                let path = attr(&e, b"full-path").filter(|p| !p.is_empty());
                let media = attr(&e, b"media-type").unwrap_or_default();
                if media == "application/oebps-package+xml" && path.is_some() {
                    return path;
                }
                if first.is_none() {
                    first = path;
                }
            }
            Ok(Event::Eof) | Err(_) => return first,
            _ => {}
        }
    }
}

fn parse_opf(xml: &str) -> Result<Package, ErrorKind> {
    let mut reader = Reader::from_str(xml);
    reader.config_mut().check_end_names = false;
    let mut pkg = Package::default();
    let mut in_title = false;
    let mut title = String::new();
    loop {
        let event = reader
            .read_event()
            .map_err(|e| ErrorKind::Corrupt(format!("the EPUB package document is not valid XML: {e}")))?;
        let is_start = matches!(event, Event::Start(_));
        match event {
            Event::Start(e) | Event::Empty(e) => match e.local_name().as_ref() {
                b"title" if pkg.title.is_none() => in_title = is_start,
                b"item" => {
                    if let (Some(id), Some(href)) = (attr(&e, b"id"), attr(&e, b"href")) {
                        let item = Item {
                            href,
                            media_type: attr(&e, b"media-type").unwrap_or_default(),
                            properties: attr(&e, b"properties").unwrap_or_default(),
                        };
                        pkg.manifest.insert(id, item);
                    }
                }
                b"spine" => pkg.toc_id = attr(&e, b"toc"),
                b"itemref" => {
                    if let Some(id) = attr(&e, b"idref") {
                        pkg.spine.push(id);
                    }
                }
                _ => {}
            },
            Event::Text(t) if in_title => {
                let s = t
                    .unescape()
                    .map(|c| c.into_owned())
                    .unwrap_or_else(|_| String::from_utf8_lossy(&t).into());
                title.push_str(&s);
            }
            Event::CData(t) if in_title => title.push_str(&String::from_utf8_lossy(&t)),
            Event::End(e) if in_title && e.local_name().as_ref() == b"title" => {
                in_title = false;
                let t = folio_core::model::collapse_whitespace(&title);
                if !t.is_empty() {
                    pkg.title = Some(t);
                }
                title.clear();
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if pkg.spine.is_empty() {
        return Err(ErrorKind::Corrupt("the EPUB package document has no spine".into()));
    }
    Ok(pkg)
}

/// Whether `META-INF/encryption.xml` encrypts anything other than fonts.
fn encrypts_content(xml: &str) -> bool {
    let mut reader = Reader::from_str(xml);
    loop {
        match reader.read_event() {
            Ok(Event::Start(e) | Event::Empty(e)) if e.local_name().as_ref() == b"CipherReference" => {
                let uri = attr(&e, b"URI").unwrap_or_default().to_ascii_lowercase();
                let is_font = [".ttf", ".otf", ".woff", ".woff2"].iter().any(|x| uri.ends_with(x));
                if !is_font {
                    return true;
                }
            }
            Ok(Event::Eof) | Err(_) => return false,
            _ => {}
        }
    }
}

/// A manifest href resolved against the package's folder: percent-decoded, fragment dropped,
/// `.` and `..` segments applied.
fn resolve_href(base: &str, href: &str) -> String {
    let href = href.split('#').next().unwrap_or("");
    let href = percent_decode(href);
    let joined = if href.starts_with('/') {
        href.trim_start_matches('/').to_string()
    } else {
        format!("{base}{href}")
    };
    crate::archive::normalize_archive_path(&joined)
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex =
                std::str::from_utf8(&bytes[i + 1..i + 3]).ok().and_then(|h| u8::from_str_radix(h, 16).ok());
            if let Some(b) = hex {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hrefs_resolve() {
        assert_eq!(resolve_href("OEBPS/", "text/ch%201.xhtml#x"), "OEBPS/text/ch 1.xhtml");
        assert_eq!(resolve_href("OEBPS/text/", "../ch.xhtml"), "OEBPS/ch.xhtml");
        assert_eq!(resolve_href("", "ch.xhtml"), "ch.xhtml");
        assert_eq!(percent_decode("a%2"), "a%2");
    }

    #[test]
    fn opf_title_and_spine() {
        let opf = r#"<package xmlns="http://www.idpf.org/2007/opf"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
            <dc:title>My &amp; Book</dc:title></metadata>
            <manifest><item id="a" href="a.xhtml" media-type="application/xhtml+xml"/></manifest>
            <spine toc="ncx"><itemref idref="a"/></spine></package>"#;
        let p = parse_opf(opf).unwrap();
        assert_eq!(p.title.as_deref(), Some("My & Book"));
        assert_eq!(p.spine, vec!["a".to_string()]);
        assert_eq!(p.toc_id.as_deref(), Some("ncx"));
    }
}
