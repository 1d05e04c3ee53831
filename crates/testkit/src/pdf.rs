//! PDF files written for tests: [`pdf_from_objects`] from numbered objects, [`text_pdf`] from pages
//! of text in the two standard Helvetica fonts. Shared by the converter tests, the CLI's limit tests
//! and the UI's sample documents.

/// A PDF file from its numbered objects (1, 2, …; object 1 the catalog): the header, the objects,
/// the cross-reference table and the trailer with `trailer_extra` (e.g. `/Encrypt 9 0 R`).
pub fn pdf_from_objects(objects: &[String], trailer_extra: &str) -> Vec<u8> {
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend(format!("{} 0 obj\n{o}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    out.extend(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes());
    for o in offsets {
        out.extend(format!("{o:010} 00000 n \n").as_bytes());
    }
    out.extend(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R {trailer_extra} >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

/// A PDF literal string of `s` for the standard fonts' WinAnsi encoding: `\`, `(` and `)` escaped,
/// typographic quotes and dashes (and other characters outside ASCII that WinAnsi has) as octal
/// escapes; any other character becomes `?`.
pub fn literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let code = match c {
            '\\' | '(' | ')' => {
                out.push('\\');
                out.push(c);
                continue;
            }
            ' '..='~' => {
                out.push(c);
                continue;
            }
            '‘' => 0o221,
            '’' => 0o222,
            '“' => 0o223,
            '”' => 0o224,
            '–' => 0o226,
            '—' => 0o227,
            '\u{a0}'..='\u{ff}' => c as u32,
            _ => {
                out.push('?');
                continue;
            }
        };
        out.push_str(&format!("\\{code:03o}"));
    }
    out
}

/// A text-showing operation at (`x`, `y`) in points from the page's bottom left: font 1 is
/// Helvetica, 2 Helvetica-Bold (as [`text_pdf`] declares them).
pub fn text_op(x: f32, y: f32, size: f32, bold: bool, s: &str) -> String {
    format!("BT /F{} {size} Tf {x} {y} Td ({}) Tj ET\n", if bold { 2 } else { 1 }, literal(s))
}

/// A PDF of US Letter pages, one content stream each (made of [`text_op`]s), with `catalog_extra`
/// added to the catalog (e.g. `/Outlines 20 0 R`) and `trailer_extra` to the trailer. Objects 1–4
/// are the catalog, the page tree and the two fonts; each page takes two objects from 5 on;
/// `extra_objects` follow them.
pub fn text_pdf(
    pages: &[String],
    extra_objects: &[String],
    trailer_extra: &str,
    catalog_extra: &str,
) -> Vec<u8> {
    let mut objects: Vec<String> = Vec::new();
    let n = pages.len();
    let kids: Vec<String> = (0..n).map(|i| format!("{} 0 R", 5 + 2 * i)).collect();
    objects.push(format!("<< /Type /Catalog /Pages 2 0 R {catalog_extra} >>"));
    objects.push(format!("<< /Type /Pages /Kids [{}] /Count {n} >>", kids.join(" ")));
    objects.push("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".into());
    objects.push(
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>".into(),
    );
    for (i, content) in pages.iter().enumerate() {
        objects.push(format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents {} 0 R >>",
            6 + 2 * i
        ));
        objects.push(format!("<< /Length {} >>\nstream\n{content}endstream", content.len()));
    }
    objects.extend(extra_objects.iter().cloned());
    pdf_from_objects(&objects, trailer_extra)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_escape_delimiters_and_encode_win_ansi() {
        assert_eq!(literal(r"a(b)\c"), r"a\(b\)\\c");
        assert_eq!(literal("Principle 1 – Integrity"), r"Principle 1 \226 Integrity");
        assert_eq!(literal("“§ 4” é ✓"), r"\223\247 4\224 \351 ?");
    }

    #[test]
    fn a_text_pdf_has_its_pages_and_a_cross_reference_for_every_object() {
        let pdf = text_pdf(
            &[text_op(72.0, 700.0, 12.0, true, "One"), text_op(72.0, 700.0, 10.0, false, "Two")],
            &[],
            "",
            "",
        );
        let s = String::from_utf8(pdf).unwrap();
        assert!(s.starts_with("%PDF-1.4\n") && s.ends_with("%%EOF\n"));
        assert!(s.contains("/Count 2") && s.contains("(One) Tj") && s.contains("/F1 10 Tf"));
        assert!(s.contains("xref\n0 9\n"), "the free entry, 4 objects and 2 per page: {s}");
    }
}
