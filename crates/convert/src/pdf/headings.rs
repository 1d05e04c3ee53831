//! Which blocks are headings, and their levels: chapter labels merged with their titles,
//! candidates by style and numbering, levels from numbering, then style clusters ranked against
//! the numbered ones; in declared mode only the declared outline and its numbered children.

use super::blocks::{Blk, BlkKind, Ctx};
use super::titles::{
    clean_number, container_keyword, is_contents_word, label_value, sentence_case, unglue_number,
};
use folio_core::numbering::{split_heading_number, Container, Label};
use regex::Regex;
use std::collections::HashMap;
use std::sync::OnceLock;

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

/// The numbering of company filings and financial reports, which legal numbering does not know:
/// "Item 1A.", "Note 12 –", "Exhibit 21.1".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FilingLabel {
    Item,
    Note,
    Exhibit,
}

impl FilingLabel {
    fn word(self) -> &'static str {
        match self {
            FilingLabel::Item => "Item",
            FilingLabel::Note => "Note",
            FilingLabel::Exhibit => "Exhibit",
        }
    }
    /// Items sit in Parts, as chapters do; notes to financial statements below sections;
    /// exhibits beside the Parts they follow.
    fn rank(self) -> u8 {
        match self {
            FilingLabel::Item => container_rank(Container::Chapter),
            FilingLabel::Note => container_rank(Container::Guidance),
            FilingLabel::Exhibit => container_rank(Container::Part),
        }
    }
}

/// "Item 7A. Quantitative…" → (Item, "7A", "Quantitative…"); "Note 3 – Leases"; "Exhibit 4.1"
/// alone. A label needs its number, and Items and Notes a title.
fn filing_label(text: &str) -> Option<(FilingLabel, &str, &str)> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"^(?i:(item|note|exhibit))\s+(\d{1,3}[A-Z]?(?:\.\d{1,2})?)(?:\s*[.:—–-]\s*|\s+|$)(.*)$")
            .expect("valid filing label regex")
    });
    let c = re.captures(text.trim())?;
    let kind = match c[1].to_ascii_lowercase().as_str() {
        "item" => FilingLabel::Item,
        "note" => FilingLabel::Note,
        _ => FilingLabel::Exhibit,
    };
    let value = c.get(2)?.as_str().trim_end_matches('.');
    let title = c.get(3)?.as_str().trim();
    let letters = title.chars().filter(|c| c.is_alphabetic()).count();
    if kind != FilingLabel::Exhibit && (letters < 2 || title.starts_with(|c: char| c.is_lowercase())) {
        return None;
    }
    if kind == FilingLabel::Exhibit && letters > 0 && title.chars().count() > 120 {
        return None;
    }
    Some((kind, value, title))
}

/// Rank of a keyword container: lower is higher in the hierarchy.
fn container_rank(c: Container) -> u8 {
    match c {
        Container::Title => 1,
        Container::Division => 2,
        Container::Part => 3,
        Container::Subpart => 4,
        Container::Chapter | Container::Appendix | Container::Annex | Container::Schedule => 5,
        Container::Article => 6,
        Container::Section => 7,
        Container::Guidance => 8,
    }
}

/// Facts about a heading candidate's numbering.
#[derive(Debug, Clone)]
struct NumInfo {
    label: String,
    /// Rank of the explicit keyword of the first segment ("Part", "Item", "Note"), lower
    /// ranking higher ([`container_rank`], [`FilingLabel::rank`]).
    rank: Option<u8>,
    /// Decimal depth for plain numbers ("1.2.3" → 3).
    depth: usize,
    tokens: Vec<String>,
    plain_decimal: bool,
    trailing_dot: bool,
}

fn num_info(text: &str) -> Option<(NumInfo, String)> {
    if let Some((kind, value, title)) = filing_label(text) {
        return Some((
            NumInfo {
                label: format!("{} {value}", kind.word()),
                rank: Some(kind.rank()),
                depth: 1,
                tokens: vec![value.to_ascii_lowercase()],
                plain_decimal: false,
                trailing_dot: false,
            },
            title.to_string(),
        ));
    }
    let text = unglue_number(text);
    let h = split_heading_number(&text)?;
    if h.title.chars().filter(|c| c.is_alphabetic()).count() < 2 {
        return None;
    }
    let first = h.parsed.segments.first()?;
    let keyword = first.explicit.then_some(first.container);
    let rank = keyword.map(container_rank);
    let plain_decimal = keyword.is_none()
        && h.label
            .trim_end_matches('.')
            .split('.')
            .all(|t| !t.is_empty() && t.chars().all(|c| c.is_ascii_digit()));
    let tokens: Vec<String> = h.parsed.tokens().iter().map(|s| s.to_string()).collect();
    Some((
        NumInfo {
            label: h.label.to_string(),
            rank,
            depth: h.parsed.depth(),
            tokens,
            plain_decimal,
            trailing_dot: h.label.ends_with('.'),
        },
        h.title.to_string(),
    ))
}

/// Whether `next` continues the numbering sequence after `prev` ("1.2" → "1.3", "1.2.1", "2").
pub(super) fn in_sequence(prev: &[String], next: &[String]) -> bool {
    let num = |s: &String| s.parse::<u32>().ok();
    if next.is_empty() {
        return false;
    }
    // First child.
    if next.len() == prev.len() + 1 && next[..prev.len()] == prev[..] && next.last().and_then(num) == Some(1)
    {
        return true;
    }
    // Next sibling of prev or of an ancestor.
    if next.len() <= prev.len() {
        let k = next.len() - 1;
        if next[..k] == prev[..k] {
            if let (Some(a), Some(b)) = (num(&prev[k]), num(&next[k])) {
                return b == a + 1;
            }
        }
    }
    false
}

pub(super) fn decide_headings(ctx: &Ctx, blocks: &mut [Blk], declared_mode: bool, page_count: u32) {
    let lines = ctx.lines;
    let body = ctx.body;
    // A sparse first page of a longer document is a cover page.
    let cover_page = page_count > 2 && lines.iter().filter(|l| l.page == 0 && !l.skip).count() < 20;
    // 1. Candidates.
    let mut cand: Vec<bool> = vec![false; blocks.len()];
    let mut infos: Vec<Option<NumInfo>> = vec![None; blocks.len()];
    let mut tag_levels: Vec<Option<u8>> = vec![None; blocks.len()];
    for (k, b) in blocks.iter().enumerate() {
        if b.kind == BlkKind::Heading {
            cand[k] = true;
            continue;
        }
        if b.declared.is_some() {
            cand[k] = true;
            infos[k] = num_info(&b.text).map(|x| x.0);
            continue;
        }
        if matches!(b.kind, BlkKind::Code | BlkKind::Table(_)) {
            continue;
        }
        let first = &lines[b.lines[0]];
        let text = b.text.trim();
        let nchars = text.chars().count();
        let letters = text.chars().filter(|c| c.is_alphabetic()).count();
        if letters < 2 || nchars > 250 || b.lines.len() > 4 {
            continue;
        }
        if b.lines.iter().any(|&i| lines[i].wide_gaps >= 2) && ctx.size_class(first) < 1.12 {
            // A table row, not a heading.
            continue;
        }
        if let Some(lv) = first.tag {
            // A heading role in the structure tree decides, after the declared outline.
            cand[k] = true;
            tag_levels[k] = Some(lv);
            infos[k] = num_info(text).map(|x| x.0);
            continue;
        }
        if text.ends_with([',', ';']) || text.starts_with(|c: char| c.is_lowercase()) {
            continue;
        }
        let info = num_info(text).map(|x| x.0);
        let styled = b.lines.iter().all(|&i| ctx.styled(&lines[i]));
        let distinct = b
            .lines
            .iter()
            .all(|&i| ctx.distinct_font(&lines[i]) && lines[i].size >= 0.95 * ctx.body_size(&lines[i]));
        let bigger = ctx.size_class(first) >= 1.12;
        let mut info = info;
        if let BlkKind::List { marker, .. } = &b.kind {
            // "(a) Comments Due Date" set bold is a lettered heading; other list items are not.
            let enumerator = marker.chars().any(|c| c.is_alphanumeric());
            if info.is_none() {
                if !(styled && enumerator && nchars <= 80 && !text.ends_with('.')) {
                    continue;
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
            // Bold text at body size must stand alone and be short.
            bigger
                || (nchars <= 150
                    && (b.gap_before > 1.15 * body.spacing || b.gap_before.is_infinite())
                    && (!text.ends_with('.') || info.is_some() || text == text.to_uppercase()))
        } else if distinct {
            info.is_some() && nchars <= 200
        } else {
            false
        };
        // Text on a cover page alone does not make headings below the title.
        if ok && cover_page && first.page == 0 && info.is_none() && !bigger {
            continue;
        }
        if ok {
            cand[k] = true;
            infos[k] = info;
        }
    }
    // Numbered list items ("1. Free Redistribution") are no headings where the section numbers
    // are printed without a trailing dot.
    let (mut dotted, mut bare) = (0, 0);
    for inf in infos.iter().flatten() {
        if inf.plain_decimal && inf.depth >= 2 {
            if inf.trailing_dot {
                dotted += 1;
            } else {
                bare += 1;
            }
        }
    }
    if bare >= 3 && bare > 2 * dotted {
        for k in 0..blocks.len() {
            let listy = matches!(blocks[k].kind, BlkKind::List { .. });
            // A line set larger than the body is no list item, whatever its dot ("1. INTRODUCTION"
            // where OCR read a dot the others lack).
            let larger = ctx.size_class(&lines[blocks[k].lines[0]]) >= 1.12;
            if cand[k]
                && listy
                && !larger
                && infos[k].as_ref().is_some_and(|i| i.plain_decimal && i.trailing_dot)
            {
                cand[k] = false;
                infos[k] = None;
            }
        }
    }
    // 2. Numbered body-style lines in sequence with neighbouring numbered headings.
    if !declared_mode {
        let mut last_tokens: Option<Vec<String>> = None;
        for k in 0..blocks.len() {
            if cand[k] {
                if let Some(inf) = &infos[k] {
                    if inf.plain_decimal {
                        last_tokens = Some(inf.tokens.clone());
                    }
                }
                continue;
            }
            let b = &blocks[k];
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
            let stands_alone = b.gap_before > 1.15 * body.spacing || b.gap_before.is_infinite();
            if !stands_alone {
                continue;
            }
            if let Some(prev) = &last_tokens {
                // "6.5.4" after "6.5.3." continues the numbering whatever the dots (a scan may read
                // one that is not printed).
                if in_sequence(prev, &inf.tokens) && inf.depth >= 2 {
                    cand[k] = true;
                    last_tokens = Some(inf.tokens.clone());
                    infos[k] = Some(inf);
                }
            }
        }
    }
    // 3. Levels from numbering.
    let mut ranks: Vec<u8> = Vec::new();
    for (k, b) in blocks.iter().enumerate() {
        if !cand[k] {
            continue;
        }
        if b.kind == BlkKind::Heading {
            if let Some(r) = b.num_level {
                ranks.push(r);
            }
        } else if let Some(inf) = &infos[k] {
            if let Some(r) = inf.rank {
                ranks.push(r);
            }
        }
    }
    ranks.sort_unstable();
    ranks.dedup();
    let kw_level =
        |rank: u8| -> u8 { ranks.iter().position(|r| *r == rank).map(|p| p as u8 + 1).unwrap_or(1) };
    let max_kw = ranks.len() as u8;
    let mut current_kw: Option<(u8, String)> = None; // (level, number)
    let mut num_levels: Vec<Option<u8>> = vec![None; blocks.len()];
    // Ranks whose current run nests one level under an unnumbered heading: the heading, and the
    // level the run's first heading takes.
    let mut nested: HashMap<u8, (usize, u8)> = HashMap::new();
    let mut run_parent: Vec<Option<(usize, u8)>> = vec![None; blocks.len()];
    for k in 0..blocks.len() {
        if !cand[k] {
            continue;
        }
        let b = &blocks[k];
        if b.kind == BlkKind::Heading {
            if let Some(r) = b.num_level {
                let lv = kw_level(r);
                num_levels[k] = Some(lv);
                current_kw = Some((lv, b.number.clone().unwrap_or_default()));
            }
            continue;
        }
        let Some(inf) = &infos[k] else { continue };
        if let Some(r) = inf.rank {
            // A run of numbered headings that opens right under an unnumbered heading set at
            // least as prominently ("Notes to Consolidated Financial Statements", then "Note 1 –")
            // nests under it, down to the next heading of a higher rank.
            nested.retain(|&rank, _| rank <= r);
            if inf.tokens.first().map(String::as_str) == Some("1") {
                let prev = (0..k).rev().find(|&j| cand[j]);
                let parent = prev.filter(|&j| {
                    infos[j].is_none()
                        && blocks[j].kind != BlkKind::Heading
                        && blocks[j].declared.is_none()
                        && ctx.style_key(&lines[blocks[j].lines[0]]).0 >= ctx.style_key(&lines[b.lines[0]]).0
                });
                match parent {
                    Some(j) => nested.insert(r, (j, kw_level(r) + 1)),
                    None => nested.remove(&r),
                };
            }
            let run = nested.get(&r).copied();
            run_parent[k] = run;
            let lv = run.map(|(_, base)| base).unwrap_or_else(|| kw_level(r));
            num_levels[k] = Some(lv + inf.depth.saturating_sub(1) as u8);
            current_kw = Some((lv, inf.tokens.first().cloned().unwrap_or_default()));
        } else if inf.plain_decimal {
            let d = inf.depth as u8;
            num_levels[k] = Some(match &current_kw {
                Some((lv, num)) if inf.tokens.first() == Some(num) => lv + d - 1,
                Some(_) => max_kw + d,
                None => d,
            });
        }
    }
    for k in 0..blocks.len() {
        if tag_levels[k].is_some() {
            num_levels[k] = tag_levels[k];
        }
    }
    // 4. Style clusters give levels to the other candidates.
    let mut cluster_levels: HashMap<(u16, bool, u16), Vec<u8>> = HashMap::new();
    for k in 0..blocks.len() {
        if let Some(lv) = num_levels[k] {
            let l = &lines[blocks[k].lines[blocks[k].lines.len() - 1]];
            cluster_levels.entry(ctx.style_key(l)).or_default().push(lv);
        }
    }
    let mode = |v: &Vec<u8>| -> u8 {
        let mut c: HashMap<u8, usize> = HashMap::new();
        for x in v {
            *c.entry(*x).or_insert(0) += 1;
        }
        c.into_iter().max_by_key(|(lv, n)| (*n, -(*lv as i32))).map(|(lv, _)| lv).unwrap_or(1)
    };
    // In the styles' order, so that a tie below (two known styles as near) goes the same way on
    // every run, whatever the map's order.
    let mut known: Vec<((u16, bool, u16), u8)> = cluster_levels.iter().map(|(k, v)| (*k, mode(v))).collect();
    known.sort_unstable();
    let prominence = |key: &(u16, bool, u16)| key.0 as f32 / 2.0 * if key.1 { 1.08 } else { 1.0 };
    // Unnumbered-only clusters.
    let mut unknown: Vec<(u16, bool, u16)> = Vec::new();
    for k in 0..blocks.len() {
        if cand[k] && num_levels[k].is_none() && blocks[k].declared.is_none() {
            let l = &lines[blocks[k].lines[0]];
            let key = ctx.style_key(l);
            if !cluster_levels.contains_key(&key) && !unknown.contains(&key) {
                unknown.push(key);
            }
        }
    }
    let mut style_level: HashMap<(u16, bool, u16), u8> = known.iter().cloned().collect();
    if known.is_empty() {
        // Rank by prominence, merging near-equal styles.
        let mut proms: Vec<f32> = unknown.iter().map(prominence).collect();
        proms.sort_by(|a, b| b.total_cmp(a));
        let mut tiers: Vec<f32> = Vec::new();
        for p in proms {
            if tiers.last().is_none_or(|t| (t - p).abs() > 0.03 * t) {
                tiers.push(p);
            }
        }
        for key in &unknown {
            let p = prominence(key);
            let tier = tiers.iter().position(|t| (t - p).abs() <= 0.03 * t).unwrap_or(0);
            style_level.insert(*key, (tier as u8 + 1).min(6));
        }
    } else {
        for key in &unknown {
            let p = prominence(key);
            // The known style nearest in prominence; above all known styles → the top level.
            let best = known
                .iter()
                .min_by(|a, b| (prominence(&a.0) - p).abs().total_cmp(&(prominence(&b.0) - p).abs()))
                .map(|(_, lv)| *lv)
                .unwrap_or(1);
            let top = known.iter().map(|(_, lv)| *lv).min().unwrap_or(1);
            let max_p = known.iter().map(|(k, _)| prominence(k)).fold(f32::MIN, f32::max);
            style_level.insert(*key, if p > max_p * 1.05 { top } else { best });
        }
    }
    // 5. Apply. Bookmarks decide levels; otherwise numbering does, then a contents list. An
    // unnumbered heading set no more prominently than the numbered heading above it is a
    // subheading of it ("Fiscal Year Highlights" under "Item 7.").
    let mut anchor: Option<(u8, f32)> = None;
    let toc_listed = !declared_mode && blocks.iter().any(|b| b.declared.is_some());
    // The level the contents list gives the next heading it names.
    let mut next_declared: Vec<Option<u8>> = vec![None; blocks.len()];
    let mut next = None;
    for k in (0..blocks.len()).rev() {
        next_declared[k] = next;
        if cand[k] && blocks[k].declared.is_some() {
            next = blocks[k].declared;
        }
    }
    for k in 0..blocks.len() {
        // A numbered run's parent comes before it, its level already final.
        let parent_level = run_parent[k].and_then(|(j, _)| blocks[j].level);
        let b = &mut blocks[k];
        if !cand[k] {
            if b.kind == BlkKind::Heading {
                b.kind = BlkKind::Para;
            }
            continue;
        }
        let key = ctx.style_key(&lines[b.lines[0]]);
        let fixed = match (b.declared, num_levels[k]) {
            (Some(d), _) if declared_mode => Some(d),
            (_, Some(lv)) => Some(lv),
            (Some(d), None) => Some(d),
            (None, None) => None,
        };
        // A numbered run opened under an unnumbered heading sits one level below that heading's
        // final level (known only now), wherever the numbering's own ranks would put it.
        let fixed = match (fixed, run_parent[k]) {
            (Some(lv), Some((_, base))) if b.declared.is_none() || !declared_mode => {
                let below = parent_level.map(|pl| pl + 1).unwrap_or(base);
                Some(lv + below.saturating_sub(base))
            }
            (f, _) => f,
        };
        let level = match fixed {
            Some(lv) => {
                anchor = Some((lv, prominence(&key)));
                Some(lv)
            }
            None => style_level.get(&key).copied().map(|lv| match anchor {
                Some((alv, ap)) if prominence(&key) <= ap * 1.02 => lv.max(alv + 1),
                // A heading the contents list does not name, set above the next heading it does
                // name, would take that heading away from the division the list puts it in ("Fair
                // value measurement of equity investments" between Notes 8 and 9): it belongs to
                // the heading above it.
                Some((alv, _)) if toc_listed && next_declared[k].is_some_and(|n| lv < n) => lv.max(alv + 1),
                // Before the first heading a contents list names (front matter: "Forward-Looking
                // Statements" after the contents page) a heading belongs to no listed division.
                None if toc_listed => 1,
                _ => lv,
            }),
        };
        let Some(level) = level else { continue };
        b.kind = BlkKind::Heading;
        b.level = Some(level.clamp(1, 9));
        if is_contents_word(&b.text) {
            // The contents page's title heads the contents alone: what follows is no part of it.
            anchor = None;
        }
        if b.number.is_none() {
            b.number = infos[k]
                .as_ref()
                .map(|i| clean_number(&i.label))
                .or_else(|| num_info(&b.text).map(|(i, _)| clean_number(&i.label)));
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequences() {
        let v = |s: &str| s.split('.').map(String::from).collect::<Vec<_>>();
        assert!(in_sequence(&v("1.2"), &v("1.3")));
        assert!(in_sequence(&v("1.2"), &v("1.2.1")));
        assert!(in_sequence(&v("1.2.4"), &v("1.3")));
        assert!(in_sequence(&v("1.2.4"), &v("2")));
        assert!(!in_sequence(&v("1.2"), &v("4.9")));
        assert!(!in_sequence(&v("1.2"), &v("1.2.3")));
    }
}
