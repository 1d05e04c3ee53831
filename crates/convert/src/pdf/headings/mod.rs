//! Which blocks are headings, and their levels: chapter labels merged with their titles
//! ([`merge_chapter_labels`]), then [`decide_headings`] in phases — candidates by style and
//! numbering ([`candidates`]), levels from numbering, then style clusters ranked against the
//! numbered ones ([`levels`]); in declared mode only the declared outline and its numbered
//! children ([`restrict_to_declared`]). What a heading's number says is [`numbering`]'s.

mod candidates;
mod levels;
mod numbering;

use super::blocks::{Blk, BlkKind, Ctx};
use super::titles::{container_keyword, label_value, sentence_case};
use candidates::{add_numbered_in_sequence, candidates, drop_numbered_list_items};
use folio_core::numbering::{Container, Label};
use levels::{apply_levels, numbering_levels, StyleLevels};
use numbering::{container_rank, num_info};

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
                        let declared = blocks[j].declared.or(blocks[i].declared);
                        let mut merged_lines: Vec<usize> = Vec::new();
                        for b in &blocks[i..=j] {
                            merged_lines.extend(&b.lines);
                        }
                        let pages = blocks[i].pages.cover(blocks[j].pages);
                        let kind = kw.unwrap_or(Container::Chapter);
                        let new = Blk {
                            lines: merged_lines,
                            text: format!("{v} {title}"),
                            kind: BlkKind::Heading,
                            pages,
                            number: Some(v.clone()),
                            num_level: None,
                            level: None,
                            declared,
                            printed: None,
                            gap_before: blocks[i].gap_before,
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

/// Which blocks are headings, and at what level (see the module note): the phases in order.
pub(super) fn decide_headings(ctx: &Ctx, blocks: &mut [Blk], declared_mode: bool, page_count: u32) {
    let mut cands = candidates(ctx, blocks, page_count);
    drop_numbered_list_items(ctx, blocks, &mut cands);
    if !declared_mode {
        add_numbered_in_sequence(ctx, blocks, &mut cands);
    }
    let numbered = numbering_levels(ctx, blocks, &cands);
    let styles = StyleLevels::new(ctx, blocks, &cands, &numbered.levels);
    apply_levels(ctx, blocks, &cands, &numbered, &styles, declared_mode);
}

/// In declared mode keep only declared headings, plus numbered headings that extend the number of
/// the declared heading above them (deeper levels the outline leaves out).
pub(super) fn restrict_to_declared(blocks: &mut [Blk]) {
    let mut parent: Option<(u8, Vec<String>)> = None;
    for b in blocks.iter_mut() {
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
            parent = Some((d, tokens));
            continue;
        }
        let keep = match &parent {
            Some((lv, ptoks))
                if !ptoks.is_empty() && tokens.len() > ptoks.len() && tokens[..ptoks.len()] == ptoks[..] =>
            {
                b.level = Some(lv + (tokens.len() - ptoks.len()) as u8);
                true
            }
            _ => false,
        };
        if !keep {
            b.kind = BlkKind::Para;
            b.level = None;
        }
    }
}
