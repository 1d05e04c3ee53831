//! The Reader's views: a section with its defined terms, cross-references and tables marked (at
//! UTF-16 offsets, as the web view counts them), and a PDF page drawn with a chunk's words lit.

use super::{LinkMark, PageImage, Rect, SectionView, TableMark, TermMark, Workspace, PAGE_WIDTH};
use crate::EngineError;

impl Workspace {
    /// A section with its defined terms and cross-references marked.
    pub fn show(&self, doc: &str, section_id: &str) -> Result<SectionView, EngineError> {
        let lib = self.lib();
        let d = lib.find_document(doc)?;
        let st = lib.show(Some(doc), section_id)?;
        let base = st.section.span.start;
        let text = st.text;
        // The definitions that apply here: this document's own, then those of the documents it
        // adopts (a glossary it cites or its family shares); a term is marked with the first.
        let utf16 = Utf16Offsets::new(&text);
        let terms = lib
            .used_terms(d.id, section_id, &text)?
            .into_iter()
            .map(|u| TermMark {
                start: utf16.at(u.span.start),
                end: utf16.at(u.span.end),
                term: u.term,
                key: u.key,
                definition_doc_id: u.definition.doc_id,
                definition_section_id: u.definition.definition.section_id,
            })
            .collect();
        let refs = lib.section_references(d.id, &st.section)?;
        let links = refs
            .into_iter()
            .filter(|r| r.span.start >= base && r.span.end <= base + text.len())
            .map(|r| {
                let (target_doc_id, target_section) = match (&r.document, r.target_doc_id) {
                    (Some(_), Some(t)) => (Some(t), r.target_doc_section.clone()),
                    (Some(_), None) => (None, None),
                    (None, _) => (r.target_section.as_ref().map(|_| d.id), r.target_section.clone()),
                };
                LinkMark {
                    start: utf16.at(r.span.start - base),
                    end: utf16.at(r.span.end - base),
                    label: r.label,
                    target_doc_id,
                    target_section,
                    document: r.document,
                }
            })
            .collect();
        let tables = lib
            .section_tables(d.id, &st.section)?
            .into_iter()
            .map(|t| TableMark {
                start: utf16.at(t.span.start - base),
                end: utf16.at(t.span.end - base),
                header_rows: t.header_rows,
            })
            .collect();
        Ok(SectionView {
            doc_id: d.id,
            document: d.title.clone(),
            label: d.label.clone(),
            crumbs: lib.crumbs(d.id, &st.section.section_id),
            pages: st.section.pages,
            section: st.section,
            text,
            terms,
            links,
            tables,
            path: d.path,
            format: d.format,
        })
    }

    /// Page `page` (from 1) of a PDF document as a PNG, with the chunk's opening words highlighted.
    pub fn page_image(
        &self,
        doc: &str,
        page: u32,
        chunk_id: Option<i64>,
        width: Option<u32>,
    ) -> Result<PageImage, EngineError> {
        let (path, format, find, convert) = {
            let lib = self.lib();
            let d = lib.find_document(doc)?;
            let find = match chunk_id {
                Some(id) => lib.chunk(id)?.map(|c| c.content),
                None => None,
            };
            (d.path, d.format, find, lib.convert_options().clone())
        };
        if format != "pdf" {
            return Err(EngineError::Invalid(format!("{path} is not a PDF; it has no pages to show")));
        }
        let bytes = std::fs::read(&path).map_err(|e| {
            EngineError::NotFound(format!("{path}: {e} (the original file has moved or gone)"))
        })?;
        let r = folio_convert::pdf::render_page(
            &bytes,
            page,
            width.unwrap_or(PAGE_WIDTH),
            find.as_deref(),
            &convert,
        )
        .map_err(|e| EngineError::Invalid(format!("{path}, page {page}: {e}")))?;
        Ok(PageImage {
            png_base64: base64(&r.png),
            width: r.width,
            height: r.height,
            highlights: r.highlights.iter().map(|h| Rect { x: h[0], y: h[1], w: h[2], h: h[3] }).collect(),
        })
    }
}

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Byte offsets to UTF-16 offsets in one text.
struct Utf16Offsets {
    /// (byte offset, utf-16 offset) at each char boundary.
    table: Vec<(usize, usize)>,
}

impl Utf16Offsets {
    fn new(text: &str) -> Utf16Offsets {
        let mut table = Vec::with_capacity(text.len() + 1);
        let mut u = 0;
        for (b, c) in text.char_indices() {
            table.push((b, u));
            u += c.len_utf16();
        }
        table.push((text.len(), u));
        Utf16Offsets { table }
    }

    fn at(&self, byte: usize) -> usize {
        match self.table.binary_search_by_key(&byte, |(b, _)| *b) {
            Ok(i) => self.table[i].1,
            Err(i) => self.table[i.saturating_sub(1)].1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_encodes() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }

    #[test]
    fn utf16_offsets() {
        let t = "a€b𝄞c";
        let u = Utf16Offsets::new(t);
        assert_eq!(u.at(0), 0);
        assert_eq!(u.at(1), 1); // €
        assert_eq!(u.at(4), 2); // b
        assert_eq!(u.at(5), 3); // 𝄞 (two code units)
        assert_eq!(u.at(9), 5); // c
        assert_eq!(u.at(t.len()), 6);
    }
}
