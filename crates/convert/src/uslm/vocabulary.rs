//! USLM's vocabulary: which elements are headings, items, blocks, containers or dropped; tag names, entities and text clean-up.

use super::*;

/// The local name of a start tag and its whole text (name and attributes), lossily decoded.
pub(super) fn tag_names(e: &BytesStart<'_>) -> (String, String) {
    let local = String::from_utf8_lossy(e.local_name().as_ref()).into_owned();
    let tag = String::from_utf8_lossy(e.as_ref()).into_owned();
    (local, tag)
}

/// Unescapes XML text, leaving malformed or unknown entity references as written.
pub(super) fn unescape_lenient(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        let semi = after.char_indices().take(34).find(|&(_, c)| c == ';').map(|(i, _)| i);
        let resolved = semi.and_then(|s| resolve_entity(&after[..s]).map(|c| (c, s)));
        match resolved {
            Some((value, s)) => {
                out.push_str(&value);
                rest = &after[s + 1..];
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

pub(super) fn resolve_entity(name: &str) -> Option<String> {
    if let Some(num) = name.strip_prefix('#') {
        let code = match num.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => num.parse::<u32>().ok()?,
        };
        return char::from_u32(code).map(String::from);
    }
    let s = match name {
        "amp" => "&",
        "lt" => "<",
        "gt" => ">",
        "quot" => "\"",
        "apos" => "'",
        "nbsp" => "\u{a0}",
        "shy" => "\u{ad}",
        "mdash" => "—",
        "ndash" => "–",
        "sect" => "§",
        "para" => "¶",
        "ldquo" => "“",
        "rdquo" => "”",
        "lsquo" => "‘",
        "rsquo" => "’",
        "hellip" => "…",
        _ => return None,
    };
    Some(s.to_string())
}

/// Levels that become headings.
pub(super) fn is_heading_level(name: &str) -> bool {
    matches!(
        name,
        "title"
            | "subtitle"
            | "division"
            | "subdivision"
            | "part"
            | "subpart"
            | "chapter"
            | "subchapter"
            | "section"
    )
}

/// Levels below the section, which become list items.
pub(super) fn is_item_level(name: &str) -> bool {
    matches!(
        name,
        "subsection" | "paragraph" | "subparagraph" | "clause" | "subclause" | "item" | "subitem" | "level"
    )
}

/// Elements whose text forms a block of its own.
pub(super) fn is_block(name: &str) -> bool {
    matches!(
        name,
        "p" | "continuation"
            | "note"
            | "footnote"
            | "heading"
            | "subheading"
            | "docTitle"
            | "officialTitle"
            | "enactingFormula"
            | "resolvingClause"
            | "actionDescription"
            | "actionInstruction"
            | "sourceCredit"
            | "recital"
            | "signature"
            | "docNumber"
            | "docPart"
            | "congress"
            | "session"
            | "currentChamber"
            | "distributionCode"
            | "block"
            | "caption"
    )
}

/// Elements whose child elements are each a block (their children are not inline text).
pub(super) fn is_container(name: &str) -> bool {
    matches!(
        name,
        "main"
            | "preface"
            | "longTitle"
            | "legislativeHistory"
            | "action"
            | "notes"
            | "signatures"
            | "endorsement"
            | "attestation"
            | "preamble"
            | "backMatter"
            | "frontMatter"
            | "coverPage"
            | "appendix"
    )
}

/// Elements dropped with their text, replaced by a word break.
pub(super) fn is_dropped(name: &str) -> bool {
    matches!(name, "meta" | "sidenote" | "toc" | "page" | "endMarker" | "img" | "marginalia")
}

/// Collapses whitespace and removes soft hyphens.
pub(super) fn clean(s: &str) -> String {
    let s = collapse_whitespace(s);
    if s.contains('\u{ad}') {
        s.replace('\u{ad}', "")
    } else {
        s
    }
}

pub(super) fn is_dash(c: char) -> bool {
    matches!(c, '—' | '–' | '-')
}

pub(super) fn is_closing(c: char) -> bool {
    matches!(c, '.' | ',' | ';' | ':' | ')' | ']' | '”' | '’' | '!' | '?')
}
