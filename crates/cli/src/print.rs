//! What the library commands print: each answer as text, written to the output it is given. A
//! write that fails is returned (a closed pipe ends the command quietly; a full disk is an error),
//! never dropped.

use folio_engine::{Backlinks, DefinitionHit, DocumentRow, FileFailure, Hit, SectionRow, SectionText};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// `folio define`: each definition with its document, section and scope.
pub fn definitions(out: &mut impl Write, term: &str, defs: &[DefinitionHit]) -> io::Result<()> {
    if defs.is_empty() {
        writeln!(out, "no definition of '{term}' in the library")?;
    }
    for d in defs {
        let scope = d
            .definition
            .scope_section
            .clone()
            .map_or("the whole document".to_string(), |s| format!("section {s}"));
        writeln!(
            out,
            "{} — {} {} (applies to {scope})\n  {}\n",
            d.definition.term, d.document, d.definition.section_id, d.definition.text
        )?;
    }
    Ok(())
}

/// `folio outline`: the document's sections, indented by level, with ids and first pages.
pub fn outline(out: &mut impl Write, doc: &DocumentRow, sections: &[SectionRow]) -> io::Result<()> {
    writeln!(out, "# {} [{}]", doc.title, doc.label)?;
    for s in sections.iter().skip(1) {
        let pages = s.pages.map(|p| format!(" p. {}", p.start)).unwrap_or_default();
        writeln!(
            out,
            "{}{} [{}]{pages}",
            "  ".repeat((s.level.max(1) - 1) as usize),
            s.heading,
            s.section_id
        )?;
    }
    Ok(())
}

/// `folio show`: the section's breadcrumb, then its text.
pub fn section(out: &mut impl Write, s: &SectionText) -> io::Result<()> {
    writeln!(out, "{} › {}\n\n{}", s.document, s.parent_chain.join(" › "), s.text)
}

/// `folio refs`: references out of a section, then those into it.
pub fn references(out: &mut impl Write, section: &str, r: &Backlinks) -> io::Result<()> {
    writeln!(out, "References from {section} ({}):", r.outgoing.len())?;
    for x in &r.outgoing {
        let target = x
            .target_section
            .clone()
            .or_else(|| x.target_doc_section.clone())
            .unwrap_or_else(|| "unresolved".into());
        let document = x.document.as_deref().map(|d| format!("{d} ")).unwrap_or_default();
        writeln!(out, "  {} → {document}{target}", x.text)?;
    }
    writeln!(out, "Referenced by ({}):", r.incoming.len())?;
    for x in &r.incoming {
        writeln!(out, "  {} in doc {} {}", x.text, x.doc_id, x.from_section)?;
    }
    Ok(())
}

/// `folio docs`: a line per document.
pub fn documents(out: &mut impl Write, docs: &[DocumentRow]) -> io::Result<()> {
    for d in docs {
        writeln!(out, "{:>4}  {:<10} {:<8} {}  ({})", d.id, d.label, d.format, d.title, d.path)?;
    }
    Ok(())
}

/// `folio remove`: what was removed.
pub fn removed(out: &mut impl Write, d: &DocumentRow) -> io::Result<()> {
    writeln!(out, "removed {} ({})", d.title, d.path)
}

/// `folio failures`: each file that could not be indexed, with why.
pub fn failures(out: &mut impl Write, failures: &[FileFailure]) -> io::Result<()> {
    if failures.is_empty() {
        writeln!(out, "no failed files")?;
    }
    for f in failures {
        writeln!(out, "{}: {} ({})", f.path, f.message, f.code)?;
    }
    Ok(())
}

/// `folio watch list`: the watched folders, a missing one marked.
pub fn watched(out: &mut impl Write, folders: &[PathBuf]) -> io::Result<()> {
    for f in folders {
        writeln!(out, "{}{}", f.display(), if f.is_dir() { "" } else { "  (missing)" })?;
    }
    Ok(())
}

/// `folio watch add` / `remove`: what became of one folder.
pub fn watch_change(
    out: &mut impl Write,
    folder: &Path,
    done: &str,
    not_done: &str,
    changed: bool,
) -> io::Result<()> {
    writeln!(out, "{} {}", if changed { done } else { not_done }, folder.display())
}

/// `folio search`: the hits as JSON, or each with its breadcrumb, section, type, page, channel
/// ranks and snippet, then where the time went.
pub fn hits(out: &mut impl Write, hits: &[Hit], json: bool) -> io::Result<()> {
    if json {
        serde_json::to_writer(&mut *out, hits)?;
        return writeln!(out);
    }
    for (i, h) in hits.iter().enumerate() {
        let ch =
            |c: Option<folio_core::fusion::ChannelRank>| c.map_or("-".to_string(), |r| r.rank.to_string());
        let pages = h.pages.map(|p| format!(", p. {}", p.start)).unwrap_or_default();
        writeln!(
            out,
            "{}. {}  [{} · {}{}]  dense {} · keyword {} · exact {}\n   {}\n",
            i + 1,
            h.parent_chain.join(" › "),
            h.section_id,
            h.chunk_type.as_str(),
            pages,
            ch(h.dense),
            ch(h.keyword),
            ch(h.exact),
            h.snippet
        )?;
    }
    if let Some(h) = hits.first() {
        let t = h.timings_ms;
        writeln!(
            out,
            "({:.1} ms: embed {:.1}, dense {:.1}, keyword {:.1}, exact {:.2})",
            t.total, t.embed, t.dense, t.keyword, t.exact
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An output that refuses every write, as a closed pipe or a full disk does.
    struct Refusing(io::ErrorKind);

    impl Write for Refusing {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::from(self.0))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_refused_write_is_returned_not_dropped() {
        let e = failures(&mut Refusing(io::ErrorKind::StorageFull), &[]).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::StorageFull);
        let e = watched(&mut Refusing(io::ErrorKind::BrokenPipe), &[PathBuf::from("/x")]).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::BrokenPipe);
    }

    #[test]
    fn failures_print_a_line_each_or_say_there_are_none() {
        let mut out = Vec::new();
        failures(&mut out, &[]).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "no failed files\n");
    }
}
