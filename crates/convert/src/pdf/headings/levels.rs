//! The last phases of [`super::decide_headings`]: each candidate's level. Numbering decides first
//! ([`super::numbered`]: keyword ranks as the document uses them, decimal depth, a numbered run
//! nested under the unnumbered heading that opens it), then a structure tree's heading roles; the
//! styles of the
//! numbered headings then rank the other candidates' styles; bookmarks and a contents list have
//! the last word where they speak. Without bookmarks, two passes follow: the parts of a filing's
//! financial statements are set beside one another ([`statement_parts_beside`]), and the
//! subheadings type alone placed under an Item or a Note are ranked in tiers
//! ([`rank_typed_subheadings`]).

use super::super::blocks::{Blk, BlkKind, Ctx, LevelFrom};
use super::super::titles::{clean_number, is_contents_word};
use super::candidates::Cands;
use super::numbered::Numbered;
use super::numbering::num_info;
use super::statements::{is_statement_part, statement_part, StatementPart};
use super::styles::{prominence, tiers_of_prominence, StyleKey, SAME_TIER};
use std::collections::HashMap;

/// A style this much more prominent than every numbered heading's style heads the document.
const ABOVE_ALL_KNOWN: f32 = 1.05;
/// An unnumbered heading set at most this much more prominently than the numbered heading above
/// it is its subheading.
const UNDER_ANCHOR: f32 = 1.02;

/// Pages apart past which two parts of financial statements belong to different sets (a set's
/// statements follow one another page by page, its Notes' title and auditor's report beside them).
const STATEMENT_SET_GAP: u32 = 2;

/// The parts of one set of financial statements stand beside one another, at the level most of
/// them have (the shallower on a tie), where only the type placed them: a smaller face for the
/// balance sheet than for the income statement before it, or an auditor's report set like the list
/// item above it, would otherwise hang one part under another ("Consolidated Balance Sheets" under
/// "Consolidated Statements of Comprehensive Income"). A set ends at a heading numbering or a
/// contents list placed at or above its parts, or after [`STATEMENT_SET_GAP`] pages without a part.
/// Then each part's own sections go under it ([`sections_under_parts`]).
pub(super) fn statement_parts_beside(ctx: &Ctx, blocks: &mut [Blk]) {
    let mut set: Vec<usize> = Vec::new();
    for k in 0..blocks.len() {
        let b = &blocks[k];
        let Some(level) = heading_level(b) else { continue };
        let by_type = matches!(b.level_from, Some(LevelFrom::Typography | LevelFrom::StatementParts));
        let top = set.iter().filter_map(|&j| blocks[j].level).min();
        let far = set.last().is_some_and(|&j| b.pages.start > blocks[j].pages.end + STATEMENT_SET_GAP);
        if far || (!by_type && top.is_some_and(|t| level <= t)) {
            align_set(blocks, &set);
            set.clear();
        }
        if by_type && is_statement_part(&blocks[k].text) {
            set.push(k);
        }
    }
    align_set(blocks, &set);
    appended_statements(blocks);
    sections_under_parts(ctx, blocks);
}

/// A heading's level (`None` for any other block).
fn heading_level(b: &Blk) -> Option<u8> {
    b.level.filter(|_| b.kind == BlkKind::Heading)
}

/// Whether type alone placed a heading (its style's tier, or beside the other statement parts).
fn placed_by_type(b: &Blk) -> bool {
    heading_level(b).is_some()
        && matches!(b.level_from, Some(LevelFrom::Typography | LevelFrom::StatementParts))
}

/// A release's financial statements, appended to its narrative, are not sections of the
/// narrative's last subheading: where the first part of a set that type placed comes under a
/// heading that type placed too, the set moves up to the narrative's top tier since the last
/// heading other evidence placed above it, and with it everything after it at its level or deeper
/// up to the next heading shallower than it (the schedules, the glossary and the cautionary
/// statement after them). The statements' own face (a table's typeface, or the size of the
/// narrative's smallest subheadings) says nothing about their rank there.
///
/// Only statements without Notes are a release's schedules: a filing's statements come with their
/// Notes (numbered, or under the Notes' title), inside the report's own divisions, and where those
/// follow, or any heading other evidence placed, nothing moves.
fn appended_statements(blocks: &mut [Blk]) {
    let mut k = 0;
    while k < blocks.len() {
        let b = &blocks[k];
        let Some(level) = b.level.filter(|_| placed_by_type(b) && is_statement_part(&b.text)) else {
            k += 1;
            continue;
        };
        // The headings above it, nearest first, back to one other evidence placed above it.
        let mut above = blocks[..k].iter().rev().filter(|p| heading_level(p).is_some());
        let parent_typed = above.clone().find(|p| p.level < Some(level)).is_some_and(placed_by_type);
        let top = above
            .by_ref()
            .take_while(|p| placed_by_type(p) || p.level >= Some(level))
            .filter(|p| placed_by_type(p))
            .filter_map(|p| p.level)
            .min();
        // The set and what follows it at its level or deeper.
        let end = (k + 1..blocks.len())
            .find(|&j| heading_level(&blocks[j]).is_some_and(|lv| lv < level))
            .unwrap_or(blocks.len());
        let schedules = blocks[k..end]
            .iter()
            .filter(|b| heading_level(b).is_some())
            .all(|b| placed_by_type(b) && statement_part(&b.text) != Some(StatementPart::NotesTitle));
        if let Some(shift) = top.filter(|&t| schedules && parent_typed && t < level).map(|t| level - t) {
            for b in blocks[k..end].iter_mut().filter(|b| b.kind == BlkKind::Heading) {
                b.level = b.level.map(|lv| lv - shift);
            }
        }
        k = end;
    }
}

/// The auditor's report's sections, set beside it by type and no more prominently, go under it:
/// "Opinion on the Financial Statements", "Basis for Opinion" and "Critical Audit Matters" (the
/// sections the PCAOB's standard gives every report) are the report's, not the statements'. They
/// end at the next part of the statements, at a heading other evidence placed, and at one set above
/// the report or more prominently. (A statement has no sections: what follows it beside it, such
/// as a release's supplemental schedules, stays beside it.)
fn sections_under_parts(ctx: &Ctx, blocks: &mut [Blk]) {
    let mut part: Option<(u8, f32)> = None;
    for b in blocks.iter_mut() {
        let Some(level) = heading_level(b) else { continue };
        let p = prominence(&ctx.style_key(&ctx.lines[b.lines[0]]));
        let typed = b.level_from == Some(LevelFrom::Typography);
        if let Some(kind) = statement_part(&b.text) {
            part = (kind == StatementPart::AuditorReport).then_some((level, p));
        } else if let Some((pl, _)) = part.filter(|(pl, pp)| typed && level == *pl && p <= pp * UNDER_ANCHOR)
        {
            b.level = Some(pl + 1);
        } else if !typed || part.is_some_and(|(pl, _)| level <= pl) {
            part = None;
        }
    }
}

fn align_set(blocks: &mut [Blk], set: &[usize]) {
    let levels: Vec<u8> = set.iter().filter_map(|&j| blocks[j].level).collect();
    if levels.is_empty() {
        return;
    }
    let top = most_common(&levels);
    for &j in set {
        if blocks[j].level != Some(top) {
            blocks[j].level = Some(top);
            blocks[j].level_from = Some(LevelFrom::StatementParts);
        }
    }
}

/// Under a heading whose level numbering or a contents list fixed (an Item, a Note), the headings
/// only type placed one level below it are ranked among themselves: where they come in more than
/// one tier of prominence (capitals over bold, bold over plain), each tier is a level below the one
/// above it ("Item 7 › CONSOLIDATED RESULTS › Revenue"), at most three deep. A part of the
/// financial statements starts a group of its own.
pub(super) fn rank_typed_subheadings(ctx: &Ctx, blocks: &mut [Blk]) {
    let mut groups: Vec<(u8, Vec<usize>)> = Vec::new();
    for (k, b) in blocks.iter().enumerate() {
        let Some(level) = heading_level(b) else { continue };
        let typed = b.level_from == Some(LevelFrom::Typography) && !is_statement_part(&b.text);
        match groups.last_mut() {
            Some((parent, group)) if typed && level > *parent => group.push(k),
            // Before any heading it could be under: left as it is.
            None if typed => {}
            // Fixed by other evidence, or placed by type beside or above the group's parent: the
            // parent of the headings after it.
            _ => groups.push((level, Vec::new())),
        }
    }
    // The group is the typed headings at the shallowest level under the parent, one below it or
    // further where the style's level left a gap (Nike's MD&A subheadings share the Notes' style,
    // which their numbered run under the Notes' title puts two below the Items); those placed
    // deeper between them are left as they are.
    for (_, group) in groups.iter_mut() {
        let top = group.iter().filter_map(|&k| blocks[k].level).min();
        group.retain(|&k| blocks[k].level == top);
    }
    let keys: HashMap<usize, StyleKey> = groups
        .iter()
        .flat_map(|(_, g)| g)
        .map(|&k| (k, ctx.style_key(&ctx.lines[blocks[k].lines[0]])))
        .collect();
    // A style used once among them all ranks nothing: "COVID-19" is in capitals because it is an
    // acronym, not because it heads the subheadings after it.
    let mut uses: HashMap<StyleKey, usize> = HashMap::new();
    keys.values().for_each(|key| *uses.entry(*key).or_insert(0) += 1);
    for (parent, group) in &groups {
        let mut ranked: Vec<StyleKey> = group.iter().map(|k| keys[k]).filter(|key| uses[key] > 1).collect();
        // A style used once, less prominent than every style the group uses more than once, is a
        // subheading below them all, not their sibling (Oracle's one plain underlined "Oracle
        // Autonomous Database" among bold faces). One more prominent still ranks nothing.
        if let Some(least) = ranked.iter().map(prominence).reduce(f32::min) {
            let lone = group.iter().map(|k| keys[k]).filter(|key| uses[key] == 1);
            ranked.extend(lone.filter(|key| prominence(key) < least * (1.0 - SAME_TIER)));
        }
        ranked.sort_unstable();
        ranked.dedup();
        let tiers: HashMap<StyleKey, u8> = tiers_of_prominence(&ranked).into_iter().collect();
        if tiers.values().all(|t| *t == 1) {
            continue;
        }
        for &k in group {
            if let Some(tier) = tiers.get(&keys[&k]) {
                blocks[k].level = Some(parent + tier.min(&3));
            }
        }
    }
}

/// The level each heading style stands for: a numbered heading's style the level its headings
/// most often take; a style only unnumbered headings use, the level of the numbered style nearest
/// in prominence (or, with no numbered headings at all, its tier of prominence).
pub(super) struct StyleLevels {
    by_style: HashMap<StyleKey, u8>,
}

impl StyleLevels {
    pub(super) fn new(ctx: &Ctx, blocks: &[Blk], cands: &Cands, numbered: &Numbered) -> StyleLevels {
        let levels = &numbered.levels;
        // A run nested under an opening heading ("Note 1" under "Notes to …") has levels relative
        // to that heading. Beside headings whose numbering stands alone (Parts, Items) those levels
        // are anchored too; where nothing else is numbered, the opening heading's own level is the
        // type's to decide, and the run ranks no style.
        let anchored = levels.iter().zip(&numbered.run_parent).any(|(lv, p)| lv.is_some() && p.is_none());
        let mut cluster_levels: HashMap<StyleKey, Vec<u8>> = HashMap::new();
        for ((b, lv), parent) in blocks.iter().zip(levels).zip(&numbered.run_parent) {
            if parent.is_some() && !anchored {
                continue;
            }
            if let Some(lv) = lv {
                let l = &ctx.lines[b.lines[b.lines.len() - 1]];
                cluster_levels.entry(ctx.style_key(l)).or_default().push(*lv);
            }
        }
        // In the styles' order, so that a tie below (two known styles as near) goes the same way
        // on every run, whatever the map's order.
        let mut known: Vec<(StyleKey, u8)> =
            cluster_levels.iter().map(|(k, v)| (*k, most_common(v))).collect();
        known.sort_unstable();
        // Unnumbered-only clusters.
        let mut unknown: Vec<StyleKey> = Vec::new();
        for ((b, c), lv) in blocks.iter().zip(cands).zip(levels) {
            if c.is_some() && lv.is_none() && b.declared.is_none() {
                let key = ctx.style_key(&ctx.lines[b.lines[0]]);
                if !cluster_levels.contains_key(&key) && !unknown.contains(&key) {
                    unknown.push(key);
                }
            }
        }
        let mut by_style: HashMap<StyleKey, u8> = known.iter().cloned().collect();
        if known.is_empty() {
            by_style.extend(tiers_of_prominence(&unknown));
        } else {
            let top = known.iter().map(|(_, lv)| *lv).min().unwrap_or(1);
            let max_p = known.iter().map(|(k, _)| prominence(k)).fold(f32::MIN, f32::max);
            for key in &unknown {
                let p = prominence(key);
                // The known style nearest in prominence; above all known styles → the top level.
                let best = known
                    .iter()
                    .min_by(|a, b| (prominence(&a.0) - p).abs().total_cmp(&(prominence(&b.0) - p).abs()))
                    .map(|(_, lv)| *lv)
                    .unwrap_or(1);
                by_style.insert(*key, if p > max_p * ABOVE_ALL_KNOWN { top } else { best });
            }
        }
        StyleLevels { by_style }
    }

    fn get(&self, key: &StyleKey) -> Option<u8> {
        self.by_style.get(key).copied()
    }
}

/// The most common level (the higher one on a tie).
fn most_common(v: &[u8]) -> u8 {
    let mut c: HashMap<u8, usize> = HashMap::new();
    for x in v {
        *c.entry(*x).or_insert(0) += 1;
    }
    c.into_iter().max_by_key(|(lv, n)| (*n, -(*lv as i32))).map(|(lv, _)| lv).unwrap_or(1)
}

/// The heading the next typed headings are measured against: the last one numbering, a contents
/// list or the statements' parts placed.
#[derive(Clone, Copy)]
struct Anchor {
    level: u8,
    prominence: f32,
    /// Its style, where the contents list names it, unnumbered, with no entry of the list under
    /// it: a heading set exactly so stands beside it.
    listed_leaf: Option<StyleKey>,
}

/// Gives each candidate its level, and makes the others paragraphs. Bookmarks decide levels;
/// otherwise numbering does, then a contents list. An unnumbered heading set no more prominently
/// than the numbered heading above it is a subheading of it ("Fiscal Year Highlights" under
/// "Item 7."); without bookmarks, so is one of any type between it and the next heading of its
/// numbered sequence ([`Numbered::inside`]: a statement's title set larger than the Items, between
/// Item 8 and Item 9).
pub(super) fn apply_levels(
    ctx: &Ctx,
    blocks: &mut [Blk],
    cands: &Cands,
    numbered: &Numbered,
    styles: &StyleLevels,
    declared_mode: bool,
) {
    let mut anchor: Option<Anchor> = None;
    // The contents list's entries met so far, open ones only: (level in the list, final level).
    let mut toc_stack: Vec<(u8, u8)> = Vec::new();
    let toc_listed = !declared_mode && blocks.iter().any(|b| b.declared.is_some());
    // The heading the Notes' numbered run opened under ("Notes to Consolidated Financial
    // Statements"), while the run lasts.
    let mut notes_title: Option<usize> = None;
    let next_declared = next_declared_levels(blocks, cands);
    let inside = if declared_mode {
        vec![None; blocks.len()]
    } else {
        let mut inside = numbered.inside();
        let style = |k: usize| cands[k].as_ref().map(|_| ctx.style_key(&ctx.lines[blocks[k].lines[0]]));
        numbered.extend_last_division(&mut inside, style);
        inside
    };
    for k in 0..blocks.len() {
        // A numbered run's parent comes before it, its level already final.
        let parent_level = numbered.run_parent[k].and_then(|(j, _)| blocks[j].level);
        let notes_title_level = notes_title.and_then(|j| blocks[j].level);
        let b = &mut blocks[k];
        let Some(cand) = &cands[k] else {
            if b.kind == BlkKind::Heading {
                b.kind = BlkKind::Para;
            }
            continue;
        };
        let key = ctx.style_key(&ctx.lines[b.lines[0]]);
        let fixed = fixed_level(b, numbered, k, parent_level, &toc_stack, declared_mode);
        let mut from = match (b.declared, numbered.levels[k]) {
            (Some(_), _) if declared_mode => LevelFrom::Bookmarks,
            (_, Some(_)) if cand.tag.is_some() => LevelFrom::StructureTags,
            (_, Some(_)) => LevelFrom::Numbering,
            (Some(_), None) => LevelFrom::ContentsPage,
            (None, None) => LevelFrom::Typography,
        };
        if fixed.is_some() {
            notes_title = numbered.run_parent[k].map(|(j, _)| j);
        }
        let level = match (fixed, notes_title_level) {
            (Some(lv), _) => {
                let leaf = next_declared[k].is_none_or(|n| b.declared.is_some_and(|d| n <= d));
                let listed_leaf = (from == LevelFrom::ContentsPage && leaf).then_some(key);
                anchor = Some(Anchor { level: lv, prominence: prominence(&key), listed_leaf });
                Some(lv)
            }
            // The auditor's report after the last Note stands beside the Notes' title, not under
            // the last Note, wherever the type leaves it (one bold face for Items, Notes and all).
            (None, Some(lv)) if is_statement_part(&b.text) => {
                anchor = Some(Anchor { level: lv, prominence: prominence(&key), listed_leaf: None });
                from = LevelFrom::StatementParts;
                Some(lv)
            }
            (None, _) => styles
                .get(&key)
                .map(|lv| typed_level(lv, &key, anchor, toc_listed, next_declared[k]))
                .map(|lv| inside[k].map_or(lv, |within| lv.max(within + 1))),
        };
        let Some(level) = level else { continue };
        b.kind = BlkKind::Heading;
        b.level = Some(level.clamp(1, 9));
        b.level_from = Some(from);
        if let (Some(d), false) = (b.declared, declared_mode) {
            while toc_stack.last().is_some_and(|(t, _)| *t >= d) {
                toc_stack.pop();
            }
            toc_stack.push((d, level));
        }
        if is_contents_word(&b.text) {
            // The contents page's title heads the contents alone: what follows is no part of it.
            anchor = None;
        }
        if b.number.is_none() {
            b.number = cand
                .info
                .as_ref()
                .map(|i| clean_number(&i.label))
                .or_else(|| num_info(&b.text).map(|(i, _)| clean_number(&i.label)));
        }
    }
}

/// For each block, the level the contents list gives the next candidate after it that the list
/// names.
fn next_declared_levels(blocks: &[Blk], cands: &Cands) -> Vec<Option<u8>> {
    let mut next_declared = vec![None; blocks.len()];
    let mut next = None;
    for k in (0..blocks.len()).rev() {
        next_declared[k] = next;
        if cands[k].is_some() && blocks[k].declared.is_some() {
            next = blocks[k].declared;
        }
    }
    next_declared
}

/// The level bookmarks, numbering or a contents list fix for block `k`, if any (`parent_level`:
/// the final level of the unnumbered heading its numbered run opened under; `toc_stack`: the
/// contents list's open entries, as (level in the list, final level)).
fn fixed_level(
    b: &Blk,
    numbered: &Numbered,
    k: usize,
    parent_level: Option<u8>,
    toc_stack: &[(u8, u8)],
    declared_mode: bool,
) -> Option<u8> {
    // A contents list's nesting is relative: an entry indented under "ITEM 1. Business" sits one
    // level below wherever the numbering put that Item (under its Part), not at the list's own
    // count of indents.
    let listed_under =
        |d: u8| toc_stack.iter().rev().find(|(t, _)| *t < d).map(|(t, lv)| lv + (d - t)).unwrap_or(d);
    let fixed = match (b.declared, numbered.levels[k]) {
        (Some(d), _) if declared_mode => Some(d),
        (_, Some(lv)) => Some(lv),
        (Some(d), None) => Some(listed_under(d)),
        (None, None) => None,
    };
    // A numbered run opened under an unnumbered heading sits one level below that heading's final
    // level (known only now), wherever the numbering's own ranks would put it.
    match (fixed, numbered.run_parent[k]) {
        (Some(lv), Some((_, base))) if b.declared.is_none() || !declared_mode => {
            let below = parent_level.map(|pl| pl + 1).unwrap_or(base);
            Some(lv + below.saturating_sub(base))
        }
        (f, _) => f,
    }
}

/// The level of a heading only its type places, at `lv` by its style's rank, after `anchor`
/// (`next_declared`: the level the contents list gives the next heading it names).
fn typed_level(
    lv: u8,
    key: &StyleKey,
    anchor: Option<Anchor>,
    toc_listed: bool,
    next_declared: Option<u8>,
) -> u8 {
    match anchor {
        // "Stock Performance Graph" set as "Market for Our Common Stock", the entry before it in
        // the contents list, is a division the list leaves out, beside it.
        Some(a) if a.listed_leaf == Some(*key) => a.level,
        Some(a) if prominence(key) <= a.prominence * UNDER_ANCHOR => lv.max(a.level + 1),
        // A heading the contents list does not name, set above the next heading it does name,
        // would take that heading away from the division the list puts it in ("Fair value
        // measurement of equity investments" between Notes 8 and 9): it belongs to the heading
        // above it.
        Some(a) if toc_listed && next_declared.is_some_and(|n| lv < n) => lv.max(a.level + 1),
        // Before the first heading a contents list names (front matter: "Forward-Looking
        // Statements" after the contents page) a heading belongs to no listed division.
        None if toc_listed => 1,
        _ => lv,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use folio_core::model::PageRange;

    fn heading(text: &str, level: u8, from: LevelFrom) -> Blk {
        Blk {
            lines: Vec::new(),
            text: text.into(),
            kind: BlkKind::Heading,
            pages: PageRange::single(1),
            number: None,
            num_level: None,
            level: Some(level),
            declared: None,
            printed: None,
            gap_before: 0.0,
            level_from: Some(from),
        }
    }

    fn levels(blocks: &[Blk]) -> Vec<u8> {
        blocks.iter().filter_map(|b| b.level).collect()
    }

    #[test]
    fn statements_appended_to_a_narrative_stand_at_its_top_tier() {
        use LevelFrom::{Numbering, StatementParts, Typography};
        // A release: its headline, a section and its subsection, then the schedules in a smaller
        // face (ranked below the subsection), a glossary set as they are, and a later section
        // ranked above them, which stays where it is.
        let mut blocks = vec![
            heading("Company Reports Results", 1, Typography),
            heading("Guidance and Outlook", 2, Typography),
            heading("Webcast", 3, Typography),
            heading("Condensed Consolidated Statement of Income", 4, StatementParts),
            heading("Supplemental Information", 4, Typography),
            heading("Condensed Consolidated Balance Sheet", 4, StatementParts),
            heading("Glossary", 4, Typography),
            heading("Later Overview", 2, Typography),
        ];
        appended_statements(&mut blocks);
        assert_eq!(levels(&blocks), [1, 2, 3, 1, 1, 1, 1, 2]);
        // A filing's statements, with their Notes after them, under a heading type placed: nothing
        // moves, whether the Notes are numbered or under their title.
        for notes in [
            heading("Note 1 - Summary", 4, Numbering),
            heading("Notes to Consolidated Financial Statements", 4, StatementParts),
        ] {
            let mut blocks = vec![
                heading("Financial Statements and Supplemental Details", 2, Typography),
                heading("Consolidated Statements of Operations", 3, StatementParts),
                heading("Consolidated Balance Sheets", 3, StatementParts),
                notes,
                heading("Other Information", 2, Typography),
            ];
            let before = levels(&blocks);
            appended_statements(&mut blocks);
            assert_eq!(levels(&blocks), before);
        }
        // Right under an Item that numbering placed: nothing moves.
        let mut blocks = vec![
            heading("Item 8. Financial Statements", 2, Numbering),
            heading("Consolidated Statements of Operations", 3, StatementParts),
            heading("Consolidated Balance Sheets", 3, StatementParts),
        ];
        appended_statements(&mut blocks);
        assert_eq!(levels(&blocks), [2, 3, 3]);
    }
}
