//! The first phases of [`super::decide_headings`]: which blocks may be headings, with their
//! numbering. A block is a candidate by what it is (a merged chapter label, a bookmark's line, a
//! heading role in the structure tree) or by how it is set (larger, bold and alone, or a distinct
//! font with a number); numbered list items are dropped where section numbers are printed without
//! a dot; numbered body-style lines that continue the numbering of the headings around them join.

use super::super::blocks::{centred, set_in_capitals, Blk, BlkKind, Ctx};
use super::super::furniture::LARGER_THAN_BODY;
use super::super::layout::Line;
use super::super::titles::{alphanumerics, is_contents_word};
use super::numbering::{in_sequence, num_info, NumInfo};
use super::wording::{
    breaks_off, continues_a_title, continues_sentence, defines_a_term, gives_an_address,
    heads_a_contents_column, is_an_aside, large_sentence, numbers_in, plain_sentence, reads_as_sentence,
    states_an_amount, FIGURES_NOT_TITLE,
};

/// A heading candidate: its numbering, and the level a structure tree's heading role gives it.
#[derive(Debug, Clone, Default)]
pub(super) struct Cand {
    pub info: Option<NumInfo>,
    pub tag: Option<u8>,
}

/// Each block's candidacy (`None`: not a heading).
pub(super) type Cands = Vec<Option<Cand>>;

/// The candidates among `blocks`.
pub(super) fn candidates(ctx: &Ctx, blocks: &[Blk], page_count: u32) -> Cands {
    // A sparse first page of a longer document is a cover page.
    let cover_page = page_count > 2 && ctx.lines.iter().filter(|l| l.page == 0 && !l.skip).count() < 20;
    let mut out = Vec::with_capacity(blocks.len());
    for (k, b) in blocks.iter().enumerate() {
        // A label made a heading of its own ("PART I" over "ITEM 1. Business",
        // `merge_chapter_labels`) sets the numbered line under it apart, however close.
        let under_label =
            k > 0 && blocks[k - 1].kind == BlkKind::Heading && blocks[k - 1].pages.end == b.pages.start;
        let set_off = set_off_below(ctx, b, blocks.get(k + 1));
        out.push(candidate(ctx, b, cover_page, under_label, set_off));
    }
    out
}

/// Whether one block is a candidate, and with what numbering; `under_label`: whether it comes
/// right under a container's label made a heading of its own.
/// Whether a one-line block that follows the text above it closely is set off from it otherwise:
/// in capitals or centred, with the space a heading takes below it before the text it heads
/// (Adobe's "PRODUCTS AND SERVICES OVERVIEW", centred in bold capitals right under a paragraph).
fn set_off_below(ctx: &Ctx, b: &Blk, next: Option<&Blk>) -> bool {
    let [line] = b.lines[..] else { return false };
    let l = &ctx.lines[line];
    let apart_below = next.is_some_and(|n| n.pages.start == b.pages.end && ctx.stands_apart(n.gap_before));
    apart_below && (centred(l, l.size) || set_in_capitals(&l.text))
}

fn candidate(ctx: &Ctx, b: &Blk, cover_page: bool, under_label: bool, set_off: bool) -> Option<Cand> {
    let lines = ctx.lines;
    if b.kind == BlkKind::Heading {
        return Some(Cand::default());
    }
    if b.declared.is_some() {
        return Some(Cand { info: num_info(&b.text).map(|x| x.0), tag: None });
    }
    if matches!(b.kind, BlkKind::Code | BlkKind::Table(_)) {
        return None;
    }
    let first = &lines[b.lines[0]];
    let text = b.text.trim();
    let nchars = text.chars().count();
    let letters = text.chars().filter(|c| c.is_alphabetic()).count();
    if letters < 2 || nchars > 250 || b.lines.len() > 4 {
        return None;
    }
    if b.lines.iter().any(|&i| lines[i].wide_gaps >= 2) && !ctx.is_larger(first) {
        // A table row, not a heading.
        return None;
    }
    if let Some(lv) = first.tag {
        // A heading role in the structure tree decides, after the declared outline.
        return Some(Cand { info: num_info(text).map(|x| x.0), tag: Some(lv) });
    }
    if text.ends_with([',', ';'])
        || text.starts_with(|c: char| c.is_lowercase())
        || continues_a_title(text)
        || is_an_aside(text)
        || defines_a_term(text)
        || gives_an_address(text)
        || breaks_off(text)
        || heads_a_contents_column(text)
    {
        return None;
    }
    if numbers_in(&first.text) >= FIGURES_NOT_TITLE || (numbers_in(text) >= 2 && states_an_amount(text)) {
        // "$77.9B $23.7B $25.3B $4.94", "Dec 26, 2020 Dec 28, 2019 Dec 29, 2018":
        // a chart's labels or a table's column heads, not a title. (A title's own first line; the
        // period under a statement's title may name dates.)
        return None;
    }
    let mut info = num_info(text).map(|x| x.0);
    if info.is_none() && (b.lines.iter().any(|&i| lines[i].wide_gaps >= 1) || side_by_side(ctx, b)) {
        // Unnumbered words in cells apart ("Name and Office  Age", "Volume(a)" beside "Revenue"):
        // a table's column heads. (A numbered heading may tab its title from its number.)
        return None;
    }
    let styled = b.lines.iter().all(|&i| ctx.styled(&lines[i]));
    let distinct = b.lines.iter().all(|&i| ctx.distinct_font(&lines[i]) && ctx.near_body_size(&lines[i]));
    let bigger = ctx.is_larger(first);
    // A line in italic or underlined at the body's size, standing alone, where the body is
    // upright and plain: the least of a document's heading styles ("Financial Performance Summary
    // for Fiscal 2016" in italic, "Workforce" underlined).
    let emphasised =
        b.lines.len() == 1 && (ctx.is_italic(first) || first.underlined) && ctx.near_body_size(first);
    if let BlkKind::List { marker, .. } = &b.kind {
        // "(a) Comments Due Date" set bold is a lettered heading; other list items are not.
        let enumerator = marker.chars().any(|c| c.is_alphanumeric());
        if info.is_none() {
            if !(styled && enumerator && nchars <= 80 && !text.ends_with('.')) {
                return None;
            }
            info = Some(NumInfo {
                label: marker.clone(),
                rank: None,
                depth: 1,
                tokens: vec![marker.trim_matches(['(', ')', '.']).to_ascii_lowercase()],
                plain_decimal: false,
                trailing_dot: marker.ends_with('.'),
            });
        }
    }
    let ok = if styled {
        // Bold text at body size must stand alone, be short, and read as a title, not a sentence.
        // Larger text too may be a sentence: a report's lead paragraph or a pull quote set large.
        (bigger
            && (info.is_some()
                || !(large_sentence(text) || larger_on_its_page_alone(ctx, first) && plain_sentence(text))))
            || (nchars <= 150
                && (ctx.stands_apart(b.gap_before)
                    || under_label && info.is_some()
                    || set_off && !under_label)
                && (info.is_some() || !reads_as_sentence(text))
                && (!text.ends_with('.') || info.is_some() || text == text.to_uppercase()))
    } else if emphasised && info.is_none() {
        nchars <= 80
            && ctx.stands_apart(b.gap_before)
            && !reads_as_sentence(text)
            && !text.ends_with(['.', ':'])
            && !text.starts_with('(')
    } else if distinct {
        info.is_some() && nchars <= 200
    } else {
        // A numbered label in bold that opens its page ("Exhibit 10.13" set small over an
        // exhibit printed in a larger size than the report's): how the exhibit is cited.
        info.is_some() && nchars <= 80 && ctx.is_bold(first) && b.gap_before.is_infinite()
    };
    // Text on a cover page alone does not make headings below the title.
    if !ok || (cover_page && first.page == 0 && info.is_none() && !bigger) {
        return None;
    }
    Some(Cand { info, tag: None })
}

/// A line printed word for word at the head of [`CAPTION_PAGES`] or more pages, each time right
/// over another heading, is a running caption, not a division: the company's name set large over
/// each statement's title ("NIKE, INC." over "CONSOLIDATED BALANCE SHEETS"), which as a heading
/// took every statement and the Notes out of Item 8. A heading repeated over body text ("Fiscal
/// 2023 compared to fiscal 2022" in each segment's section), or over numbered paragraphs inside a
/// page (a rulebook's "Guidance"), stays.
pub(super) fn drop_running_captions(blocks: &[Blk], cands: &mut Cands) {
    let mut pages_over: std::collections::HashMap<String, (Vec<u32>, Vec<usize>)> = Default::default();
    for k in 0..blocks.len() {
        let b = &blocks[k];
        if cands[k].is_none() || b.declared.is_some() || b.kind == BlkKind::Heading {
            continue;
        }
        // Digits count: "Exhibit 21.1" and "Exhibit 23.1" are two labels.
        let key = alphanumerics(&b.text);
        if key.is_empty() {
            continue;
        }
        let entry = pages_over.entry(key).or_default();
        entry.1.push(k);
        // At the head of its page (a running head's place), right over a heading on that page.
        let opens_page = k == 0 || blocks[k - 1].pages.end < b.pages.start;
        let over_heading =
            blocks.get(k + 1).is_some_and(|n| cands[k + 1].is_some() && n.pages.start == b.pages.end);
        if opens_page && over_heading && !entry.0.contains(&b.pages.start) {
            entry.0.push(b.pages.start);
        }
    }
    for (pages, members) in pages_over.into_values() {
        if pages.len() >= CAPTION_PAGES {
            for k in members {
                cands[k] = None;
            }
        }
    }
}

/// Pages a caption repeats over headings on.
const CAPTION_PAGES: usize = 3;

/// Whether two consecutive lines of a block share no horizontal extent: labels set side by side
/// or in a zig-zag ("Exhibit" / "Description of Exhibit" / "Number"), not one title wrapped.
fn side_by_side(ctx: &Ctx, b: &Blk) -> bool {
    b.lines.windows(2).any(|w| {
        let (a, c) = (&ctx.lines[w[0]], &ctx.lines[w[1]]);
        a.page == c.page && (a.x1 <= c.x0 || c.x1 <= a.x0)
    })
}

/// A bold title that opens its page over a table ("Supplemental Financial Information (in
/// millions and unaudited)" over a statement) heads it even when set no larger than the table's
/// own figures, which set the page's body size.
pub(super) fn add_table_titles(ctx: &Ctx, blocks: &[Blk], cands: &mut Cands) {
    for k in 0..blocks.len() {
        let (b, Some(next)) = (&blocks[k], blocks.get(k + 1)) else { continue };
        if cands[k].is_some() || b.kind != BlkKind::Para || b.lines.len() > 2 || b.declared.is_some() {
            continue;
        }
        let text = b.text.trim();
        // Set as one run of words: a repeated row of column heads has gaps between its cells.
        let bold = b.lines.iter().all(|&i| {
            let l = &ctx.lines[i];
            ctx.is_bold(l) && ctx.size_class(l) >= TABLE_TITLE_SIZE && l.wide_gaps == 0
        });
        let titled = text.chars().count() <= 150
            && numbers_in(text) < FIGURES_NOT_TITLE
            && text.starts_with(|c: char| c.is_uppercase())
            && !text.ends_with(['.', ',', ';'])
            && !reads_as_sentence(text)
            && !continues_a_title(text);
        if bold && titled && b.gap_before.is_infinite() && matches!(next.kind, BlkKind::Table(_)) {
            cands[k] = Some(Cand { info: num_info(text).map(|x| x.0), tag: None });
        }
    }
}

/// A table's title may be set this much smaller than the page's body size (the table's figures).
const TABLE_TITLE_SIZE: f32 = 0.85;

/// A block that breaks off a sentence is no heading: a pull quote or a highlighted figure set
/// apart ("Noninterest revenue was $3.9 billion, down 15%, driven", then "by lower …"), whose
/// sentence the next block carries on in lower case. A title ends where its words end; the text
/// after it opens a sentence of its own.
pub(super) fn drop_sentence_fragments(blocks: &[Blk], cands: &mut Cands) {
    for k in 0..blocks.len() {
        let (b, Some(next)) = (&blocks[k], blocks.get(k + 1)) else { continue };
        let Some(c) = &cands[k] else { continue };
        if c.info.is_some() || c.tag.is_some() || b.declared.is_some() || b.kind == BlkKind::Heading {
            continue;
        }
        let text = b.text.trim_end();
        let closed = text.ends_with(['.', ':', '?', '!', ')', ']', '"', '\u{201d}']);
        let prose = matches!(next.kind, BlkKind::Para | BlkKind::List { .. }) && next.declared.is_none();
        if (!closed || text.ends_with('-')) && prose && continues_sentence(&next.text) {
            cands[k] = None;
        }
    }
}

/// Whether a line in the body's weight is larger than its page's body only, not than the
/// document's: a table's page, whose figures set smaller make the page's body size.
fn larger_on_its_page_alone(ctx: &Ctx, l: &Line) -> bool {
    !ctx.is_bold(l) && l.size < LARGER_THAN_BODY * ctx.body.size
}

/// The cover of a filing: the pages (up to [`COVER_PAGES`]) before a printed contents list, and
/// any page that is a form to tick ([`form_pages`]: a 10-K's cover wrapped inside an annual
/// report, after the letter to stockholders). Only the cover's most prominent style heads
/// anything there: its form, registrant, address, telephone and securities registered are no
/// sections ("Washington, D.C. 20549", "Delaware 77-0430924", "(Mark One)").
pub(super) fn drop_cover_lines(ctx: &Ctx, blocks: &[Blk], cands: &mut Cands) {
    let contents = blocks
        .iter()
        .zip(cands.iter())
        .find(|(b, c)| c.is_some() && is_contents_word(&b.text))
        .map(|(b, _)| b.pages.start);
    // A cover is a page or three; more pages before the list are a document of their own (an
    // annual report's letter to stockholders before the 10-K it wraps).
    let front = contents.filter(|&p| p > 1 && p <= COVER_PAGES + 1).map(|p| 1..p);
    let forms = form_pages(ctx.lines.iter().map(|l| (l.page, l.text.as_str())));
    for cover in front.into_iter().chain(forms.into_iter().map(|r| r.start + 1..r.end + 1)) {
        drop_below_cover_title(ctx, blocks, cands, cover);
    }
}

/// Drops the candidates on the cover's pages (1-based, half open) set smaller than its largest.
fn drop_below_cover_title(ctx: &Ctx, blocks: &[Blk], cands: &mut Cands, cover: std::ops::Range<u32>) {
    let size = |b: &Blk| ctx.lines[b.lines[0]].size;
    let on_cover =
        |b: &Blk| cover.contains(&b.pages.start) && b.declared.is_none() && b.kind != BlkKind::Heading;
    let largest = blocks
        .iter()
        .zip(cands.iter())
        .filter(|(b, c)| c.is_some() && on_cover(b))
        .map(|(b, _)| size(b))
        .fold(0.0f32, f32::max);
    for (b, c) in blocks.iter().zip(cands.iter_mut()) {
        if c.is_some() && on_cover(b) && size(b) < largest * COVER_TITLE_SHARE {
            *c = None;
        }
    }
}

/// Runs of consecutive pages (0-based, half open) that are forms to tick, given each line's page
/// and text in order: each prints at least [`FORM_BOXES`] ballot boxes (☐ ☑ ☒), as the cover of
/// every SEC filing does ("Yes ☒ No ☐").
fn form_pages<'a>(lines: impl Iterator<Item = (u32, &'a str)>) -> Vec<std::ops::Range<u32>> {
    let mut boxes: Vec<(u32, usize)> = Vec::new();
    for (page, text) in lines {
        let n = text.chars().filter(|c| matches!(c, '\u{2610}'..='\u{2612}')).count();
        match boxes.last_mut() {
            Some((p, count)) if *p == page => *count += n,
            _ => boxes.push((page, n)),
        }
    }
    let mut runs: Vec<std::ops::Range<u32>> = Vec::new();
    for (page, _) in boxes.into_iter().filter(|(_, n)| *n >= FORM_BOXES) {
        match runs.last_mut() {
            Some(r) if r.end == page => r.end = page + 1,
            _ => runs.push(page..page + 1),
        }
    }
    runs
}

/// The fewest ballot boxes that make a page a form.
const FORM_BOXES: usize = 4;

/// The most pages a cover takes before the contents list.
const COVER_PAGES: u32 = 3;

/// A cover line this near the cover's largest size is one of its titles.
const COVER_TITLE_SHARE: f32 = 0.95;

/// Numbered list items ("1. Free Redistribution") are no headings where the section numbers are
/// printed without a trailing dot.
pub(super) fn drop_numbered_list_items(ctx: &Ctx, blocks: &[Blk], cands: &mut Cands) {
    let (mut dotted, mut bare) = (0, 0);
    for inf in cands.iter().flatten().filter_map(|c| c.info.as_ref()) {
        if inf.plain_decimal && inf.depth >= 2 {
            if inf.trailing_dot {
                dotted += 1;
            } else {
                bare += 1;
            }
        }
    }
    if !(bare >= 3 && bare > 2 * dotted) {
        return;
    }
    for (b, cand) in blocks.iter().zip(cands.iter_mut()) {
        let listy = matches!(b.kind, BlkKind::List { .. });
        // A line set larger than the body is no list item, whatever its dot ("1. INTRODUCTION"
        // where OCR read a dot the others lack).
        let larger = ctx.is_larger(&ctx.lines[b.lines[0]]);
        let dotted_decimal = |c: &Cand| c.info.as_ref().is_some_and(|i| i.plain_decimal && i.trailing_dot);
        if listy && !larger && cand.as_ref().is_some_and(dotted_decimal) {
            *cand = None;
        }
    }
}

/// Numbered body-style lines in sequence with the numbered headings before them ("6.5.4" after
/// "6.5.3") are headings too: a rule's number set in the body's style.
pub(super) fn add_numbered_in_sequence(ctx: &Ctx, blocks: &[Blk], cands: &mut Cands) {
    let mut last_tokens: Option<Vec<String>> = None;
    for (b, cand) in blocks.iter().zip(cands.iter_mut()) {
        if let Some(c) = cand {
            if let Some(inf) = c.info.as_ref().filter(|i| i.plain_decimal) {
                last_tokens = Some(inf.tokens.clone());
            }
            continue;
        }
        if matches!(b.kind, BlkKind::Code | BlkKind::Table(_)) || b.lines.len() > 2 {
            continue;
        }
        let text = b.text.trim();
        if text.chars().count() > 100 || (text.ends_with('.') && text.split_whitespace().count() > 3) {
            continue;
        }
        let Some((inf, title)) = num_info(text) else { continue };
        if !inf.plain_decimal || !title.starts_with(|c: char| c.is_uppercase()) {
            continue;
        }
        if !ctx.stands_apart(b.gap_before) {
            continue;
        }
        if let Some(prev) = &last_tokens {
            // "6.5.4" after "6.5.3." continues the numbering whatever the dots (a scan may read
            // one that is not printed).
            if in_sequence(prev, &inf.tokens) && inf.depth >= 2 {
                last_tokens = Some(inf.tokens.clone());
                *cand = Some(Cand { info: Some(inf), tag: None });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::form_pages;

    #[test]
    fn pages_of_ballot_boxes_are_forms() {
        let lines = [
            (0, "To our stockholders"),
            (3, "FORM 10-K"),
            (3, "☒ ANNUAL REPORT PURSUANT TO SECTION 13"),
            (3, "☐ TRANSITION REPORT"),
            (3, "well-known seasoned issuer Yes ☒ No ☐"),
            (4, "Large accelerated filer ☒ Accelerated filer ☐ Non-accelerated filer ☐ Smaller ☐"),
            (6, "A survey's answers: ☐ ☒ ☐"),
            (9, "Shell company Yes ☐ No ☒ and ☐ ☐"),
        ];
        // The cover runs over pages 3 and 4; three boxes in a table on page 6 make no form.
        assert_eq!(form_pages(lines.into_iter()), [3..5, 9..10]);
        assert!(form_pages(std::iter::empty()).is_empty());
    }
}
