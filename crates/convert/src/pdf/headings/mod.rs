//! Which blocks are headings, and their levels: chapter labels merged with their titles
//! ([`merge_chapter_labels`]), then [`decide_headings`] in phases — candidates by style and
//! numbering ([`candidates`]), levels from numbering, then style clusters ranked against the
//! numbered ones ([`levels`]), faces of one size ranked as the document uses them ([`faces`]);
//! in declared mode only the declared outline and its numbered children
//! ([`restrict_to_declared`]). What a heading's number says is [`numbering`]'s.

mod candidates;
mod faces;
mod levels;
mod numbered;
mod numbering;
mod statements;
mod styles;
mod wording;

use super::blocks::{Blk, BlkKind, Ctx, LevelFrom};
use super::titles::{container_keyword, label_value, normalise_title, sentence_case};
use candidates::{
    add_numbered_in_sequence, add_table_titles, candidates, drop_cover_lines, drop_numbered_list_items,
    drop_running_captions, drop_sentence_fragments,
};
use faces::nest_faces;
use folio_core::numbering::{Container, Label};
use levels::{apply_levels, rank_typed_subheadings, statement_parts_beside, StyleLevels};
use numbered::numbering_levels;
use numbering::{container_rank, is_note_number, num_info};
use statements::{statement_part, StatementPart};
use std::collections::HashMap;

/// Merges label-only heading lines ("CHAPTER", "ONE") into the title block that follows.
pub(super) fn merge_chapter_labels(ctx: &Ctx, blocks: &mut Vec<Blk>) {
    let mut i = 0;
    while i < blocks.len() {
        let b = &blocks[i];
        let words: Vec<&str> = b.text.split_whitespace().collect();
        let kw = words.first().and_then(|w| container_keyword(w));
        let lone_kw = kw.is_some() && words.len() == 1;
        let kw_value = kw.is_some() && words.len() == 2 && label_value(words[1]).is_some();
        // A label a bookmark names is a heading of its own, titled as the bookmark says.
        if (lone_kw || kw_value) && b.lines.len() <= 2 && i + 1 < blocks.len() && b.declared.is_none() {
            let same_page = |j: usize| blocks[j].pages.start == blocks[i].pages.end;
            let mut j = i + 1;
            let mut value = if kw_value { label_value(words[1]) } else { None };
            if value.is_none() && j < blocks.len() && same_page(j) {
                let t = blocks[j].text.trim();
                if t.split_whitespace().count() == 1 {
                    value = label_value(t);
                    if value.is_some() {
                        j += 1;
                    }
                }
            }
            if let Some(v) = value.clone() {
                // "PART I" over "Item 1. Business": the label is a heading of its own.
                let next_numbered = j < blocks.len() && num_info(&blocks[j].text).is_some();
                let first = &ctx.lines[blocks[i].lines[0]];
                if kw_value && next_numbered && (ctx.styled(first) || ctx.distinct_font(first)) {
                    let b = &mut blocks[i];
                    b.kind = BlkKind::Heading;
                    b.num_level = Some(container_rank(kw.unwrap_or(Container::Part)));
                    b.number = Some(v);
                    i += 1;
                    continue;
                }
                if j < blocks.len() && same_page(j) && !next_numbered {
                    let title_line = &ctx.lines[blocks[j].lines[0]];
                    let title_ok = blocks[j].text.chars().count() < 200
                        && (ctx.styled(title_line)
                            || blocks[j].declared.is_some()
                            || ctx.lines[blocks[i].lines[0]].top - title_line.y < 12.0 * ctx.body.size);
                    if title_ok && !matches!(blocks[j].kind, BlkKind::Code | BlkKind::Table(_)) {
                        let title = sentence_case(blocks[j].text.trim());
                        // "SCHEDULE II" printed on one line keeps its label as printed ("Schedule
                        // II Valuation and qualifying accounts"): it is how the text is cited. A
                        // label spelled out over lines ("CHAPTER" / "ONE") gives its number.
                        let text = if kw_value {
                            format!("{} {} {title}", sentence_case(words[0]), words[1])
                        } else {
                            format!("{v} {title}")
                        };
                        let declared = blocks[j].declared.or(blocks[i].declared);
                        let mut merged_lines: Vec<usize> = Vec::new();
                        for b in &blocks[i..=j] {
                            merged_lines.extend(&b.lines);
                        }
                        let pages = blocks[i].pages.cover(blocks[j].pages);
                        let kind = kw.unwrap_or(Container::Chapter);
                        let new = Blk {
                            lines: merged_lines,
                            text,
                            kind: BlkKind::Heading,
                            pages,
                            number: Some(v.clone()),
                            num_level: None,
                            level: None,
                            declared,
                            printed: None,
                            gap_before: blocks[i].gap_before,
                            level_from: None,
                        };
                        blocks.splice(i..=j, [new]);
                        blocks[i].num_level = Some(container_rank(kind));
                        // num_level holds the container rank for now; resolved later.
                        blocks[i].number = Some(v);
                        i += 1;
                        continue;
                    }
                }
            }
        }
        i += 1;
    }
}

/// Each kind of evidence with how many headings' levels it decided, most first.
pub(super) fn outline_evidence(blocks: &[Blk]) -> Option<String> {
    let mut counts: Vec<(LevelFrom, usize)> = Vec::new();
    for from in blocks.iter().filter(|b| b.kind == BlkKind::Heading).filter_map(|b| b.level_from) {
        match counts.iter_mut().find(|(f, _)| *f == from) {
            Some((_, n)) => *n += 1,
            None => counts.push((from, 1)),
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let parts: Vec<String> = counts.iter().map(|(f, n)| format!("{} {n}", f.name())).collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// Which blocks are headings, and at what level (see the module note): the phases in order.
pub(super) fn decide_headings(ctx: &Ctx, blocks: &mut [Blk], declared_mode: bool, page_count: u32) {
    let mut cands = candidates(ctx, blocks, page_count);
    drop_numbered_list_items(ctx, blocks, &mut cands);
    drop_sentence_fragments(blocks, &mut cands);
    drop_running_captions(blocks, &mut cands);
    add_table_titles(ctx, blocks, &mut cands);
    // A cover's lines head nothing, with or without bookmarks (below a coarse bookmark, the page's
    // own headings refine it; a cover's lines would not); bookmarked headings stay.
    drop_cover_lines(ctx, blocks, &mut cands);
    if !declared_mode {
        add_numbered_in_sequence(ctx, blocks, &mut cands);
    }
    let numbered = numbering_levels(ctx, blocks, &cands);
    let styles = StyleLevels::new(ctx, blocks, &cands, &numbered);
    apply_levels(ctx, blocks, &cands, &numbered, &styles, declared_mode);
    // Below coarse bookmarks these levels rank the page's own headings ([`refine_leaf_sections`]).
    statement_parts_beside(ctx, blocks);
    rank_typed_subheadings(ctx, blocks);
    nest_faces(ctx, blocks);
    if !declared_mode {
        close_level_gaps(blocks);
        lift_below_title(blocks);
    }
}

/// A document's title is its name, not a division of it: where the first heading is on the first
/// page, unnumbered (a "PART I" there divides the document) and at the top level, the headings
/// under it, down to the next one at the top level, move up a level beside it (an earnings
/// release's headline over its highlights and sections), as the sections of a report whose
/// cover title stands alone already are. Breadcrumbs then start at the division a hit is in; the
/// document's name is shown with every hit anyway.
fn lift_below_title(blocks: &mut [Blk]) {
    let mut headings = blocks.iter_mut().filter(|b| b.kind == BlkKind::Heading && b.level.is_some());
    let Some(title) = headings.next() else { return };
    let by_type = title.level_from == Some(LevelFrom::Typography) && title.number.is_none();
    if title.pages.start > 1 || title.level != Some(1) || !by_type {
        return;
    }
    for b in headings.take_while(|b| b.level.is_some_and(|lv| lv > 1)) {
        b.level = b.level.map(|lv| lv - 1);
    }
}

/// An outline has no gaps: a heading sits one level below the nearest heading before it with a
/// smaller level, whatever number the evidence gave it (subheadings ranked 4 right under an Item
/// at 2 become 3; a heading ranked between them stays between).
fn close_level_gaps(blocks: &mut [Blk]) {
    let mut headings: Vec<&mut Blk> =
        blocks.iter_mut().filter(|b| b.kind == BlkKind::Heading && b.level.is_some()).collect();
    let given: Vec<u8> = headings.iter().filter_map(|b| b.level).collect();
    for (b, level) in headings.iter_mut().zip(without_gaps(&given, 1)) {
        b.level = Some(level);
    }
}

/// Levels in order with the gaps closed: each at most one under the level before it (the first at
/// most `top`), and never deeper than the evidence gave it; headings the evidence put deeper than
/// an earlier one stay under it.
fn without_gaps(given: &[u8], top: u8) -> Vec<u8> {
    // Open headings: (level the evidence gave, level in the outline).
    let mut open: Vec<(u8, u8)> = Vec::new();
    given
        .iter()
        .map(|&g| {
            while open.last().is_some_and(|(o, _)| *o >= g) {
                open.pop();
            }
            let level = open.last().map(|(_, l)| l + 1).unwrap_or(top).min(g);
            open.push((g, level));
            level
        })
        .collect()
}

/// In declared mode keep the declared headings, the numbered headings that extend the number of
/// the declared heading above them (deeper levels the outline leaves out), and, below a bookmark
/// that has no bookmarks under it, the page's own headings ([`refine_leaf_sections`]).
pub(super) fn restrict_to_declared(blocks: &mut [Blk]) {
    let refined = refine_leaf_sections(blocks);
    let mut parent: Option<(u8, Vec<String>)> = None;
    for (b, refined) in blocks.iter_mut().zip(refined) {
        if b.kind != BlkKind::Heading {
            continue;
        }
        let tokens: Vec<String> = b
            .number
            .as_deref()
            .and_then(Label::parse)
            .map(|l| l.tokens().iter().map(|s| s.to_string()).collect())
            .unwrap_or_default();
        if let Some(d) = b.declared {
            b.level = Some(d);
            b.level_from = Some(LevelFrom::Bookmarks);
            parent = Some((d, tokens));
            continue;
        }
        let keep = match &parent {
            Some((lv, ptoks))
                if !ptoks.is_empty() && tokens.len() > ptoks.len() && tokens[..ptoks.len()] == ptoks[..] =>
            {
                b.level = Some(lv + (tokens.len() - ptoks.len()) as u8);
                b.level_from = Some(LevelFrom::Numbering);
                true
            }
            _ => false,
        };
        if !keep {
            b.level = refined;
            b.level_from = refined.map(|_| LevelFrom::BelowBookmarks);
            if refined.is_none() {
                b.kind = BlkKind::Para;
            }
        }
    }
}

/// A bookmark over this many pages with no bookmark under it is coarser than the page: an Item 8
/// over fifty pages of statements and Notes. Below the leaves of a detailed outline (a policy
/// manual's sections of a page or two) the page's bolder lines are list entries and asides.
const COARSE_SECTION_PAGES: u32 = 8;

/// A page heading that prints a bookmark's title on the bookmark's page or next to it (an
/// exhibit's label printed above its title, a statement's name repeated on its second page) is
/// that heading again, not a subheading.
fn repeats_a_bookmark(b: &Blk, titles: &[(String, u32)]) -> bool {
    let own = normalise_title(&b.text);
    // The same title, or it behind a label ("Note 15: Other Comprehensive Income (Loss)" printed
    // where the bookmark says "Other Comprehensive Income (Loss)").
    let same = |t: &str| own == t || (t.len() >= 8 && own.len() <= t.len() + 8 && own.ends_with(t));
    titles.iter().any(|(t, page)| same(t) && page.abs_diff(b.pages.start) <= 1)
}

/// Bookmarks coarser than the page: below a bookmark with no bookmarks under it, in an outline of
/// one level or over [`COARSE_SECTION_PAGES`] pages (FedEx's "Item 8" over fifty pages of
/// statements and Notes), the headings the page's typography and numbering
/// find inside its section become its subheadings. Their levels keep the order the page gives
/// them, ranked from right below the bookmark; nothing above the
/// bookmark changes. Returns each block's level as such a subheading (numbered children of a
/// bookmark keep the level their number gives, in [`restrict_to_declared`]).
fn refine_leaf_sections(blocks: &[Blk]) -> Vec<Option<u8>> {
    let mut refined = vec![None; blocks.len()];
    let declared: Vec<usize> = (0..blocks.len()).filter(|&k| blocks[k].declared.is_some()).collect();
    let flat = declared.iter().all(|&k| blocks[k].declared == Some(1));
    let titles: Vec<(String, u32)> =
        declared.iter().map(|&k| (normalise_title(&blocks[k].text), blocks[k].pages.start)).collect();
    for (n, &k) in declared.iter().enumerate() {
        let level = blocks[k].declared.unwrap_or(1);
        let end = declared.get(n + 1).copied().unwrap_or(blocks.len());
        let leaf = declared.get(n + 1).is_none_or(|&next| blocks[next].declared.unwrap_or(1) <= level);
        let last_page = blocks[k..end].last().map(|b| b.pages.end).unwrap_or(blocks[k].pages.end);
        let long = last_page.saturating_sub(blocks[k].pages.start) + 1 >= COARSE_SECTION_PAGES;
        if !leaf || !(flat || long) {
            continue;
        }
        let inside: Vec<usize> = (k + 1..end)
            .filter(|&j| blocks[j].kind == BlkKind::Heading && blocks[j].declared.is_none())
            .filter(|&j| !repeats_a_bookmark(&blocks[j], &titles))
            .collect();
        // Notes that open with no title of their own after the statements stand beside them,
        // as the page alone sets them: no Note is a part of the statement above it. Their
        // subheadings keep their order below them.
        let page_level = notes_beside_statements(blocks, &inside);
        let page_level = |j: usize| page_level.get(&j).copied().or(blocks[j].level);
        // The page's levels, ranked densely: a level the section does not use leaves no gap.
        let mut used: Vec<u8> = inside.iter().filter_map(|&j| page_level(j)).collect();
        used.sort_unstable();
        used.dedup();
        // A heading goes at most one level under the one before it: a section that opens on
        // the page's deeper headings ("Digital Media" before "PRINCIPAL PRODUCTS") leaves no gap
        // under its bookmark.
        let given: Vec<u8> = inside
            .iter()
            .map(|&j| {
                let rank = page_level(j).and_then(|lv| used.iter().position(|u| *u == lv)).unwrap_or(0);
                (level as usize + 1 + rank).min(9) as u8
            })
            .collect();
        for (&j, at) in inside.iter().zip(without_gaps(&given, level + 1)) {
            refined[j] = Some(at);
        }
    }
    refined
}

/// Within a bookmark's section (`inside`, in order): where the parts of the financial statements
/// are followed by Notes ("Note 1:" …) with no Notes title between, the level each Note and its
/// subheadings take to stand the Notes beside the statements, shifted up by the same amount.
fn notes_beside_statements(blocks: &[Blk], inside: &[usize]) -> HashMap<usize, u8> {
    let mut out = HashMap::new();
    let is_note = |j: usize| blocks[j].number.as_deref().is_some_and(is_note_number);
    let part = |j: usize| statement_part(&blocks[j].text);
    let Some(first_note) = inside.iter().position(|&j| is_note(j)) else { return out };
    if inside.iter().any(|&j| part(j) == Some(StatementPart::NotesTitle)) {
        return out;
    }
    let statement = inside[..first_note]
        .iter()
        .filter(|&&j| part(j) == Some(StatementPart::Statement))
        .filter_map(|&j| blocks[j].level)
        .min();
    let (Some(statement), Some(note)) = (statement, blocks[inside[first_note]].level) else { return out };
    let lift = note.saturating_sub(statement);
    if lift == 0 {
        return out;
    }
    for &j in &inside[first_note..] {
        match blocks[j].level {
            Some(lv) if lv >= note => {
                out.insert(j, lv - lift);
            }
            // A heading above the Notes' level ends them.
            _ => break,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::without_gaps;

    #[test]
    fn levels_close_their_gaps_and_keep_their_order() {
        assert_eq!(without_gaps(&[1, 3, 4, 2, 5], 1), [1, 2, 3, 2, 3]);
        // Below a bookmark at level 2: the section's first heading at 3, however deep it was.
        assert_eq!(without_gaps(&[5, 4, 6], 3), [3, 3, 4]);
        assert!(without_gaps(&[], 1).is_empty());
    }
}
