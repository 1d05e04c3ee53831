//! Stage one, first step: a page's characters into fragments, runs of characters on one baseline
//! without large gaps, each with its style counts; fonts and style statistics are collected for
//! the whole document.

use super::binding::Page;
use std::collections::HashMap;

/// A font as the document uses it.
#[derive(Debug, Clone)]
pub(super) struct FontInfo {
    pub name: String,
    pub bold_name: bool,
    pub italic: bool,
    pub fixed: bool,
}

/// Fonts and style statistics, filled while reading pages.
#[derive(Default)]
pub(super) struct StyleStats {
    pub fonts: Vec<FontInfo>,
    font_ids: HashMap<String, u16>,
    /// Characters per (size in half points, weight, font).
    pub style_chars: HashMap<(u16, i16, u16), u64>,
}

impl StyleStats {
    pub(super) fn intern_font(&mut self, raw: &str, flags: i32) -> u16 {
        if let Some(&id) = self.font_ids.get(raw) {
            return id;
        }
        let base = raw.split_once('+').map(|(p, rest)| if p.len() == 6 { rest } else { raw }).unwrap_or(raw);
        let lower = base.to_ascii_lowercase();
        let bold_name =
            ["bold", "black", "heavy", "semibold", "demi", "-bd", "bx"].iter().any(|k| lower.contains(k))
                || lower.ends_with("-b")
                || (flags & 0x40000) != 0;
        let italic = lower.contains("italic") || lower.contains("oblique") || (flags & 0x40) != 0;
        let fixed = (flags & 1) != 0
            || ["courier", "mono", "consol", "cmtt", "typewriter", "menlo"].iter().any(|k| lower.contains(k));
        let id = self.fonts.len().min(u16::MAX as usize) as u16;
        self.fonts.push(FontInfo { name: base.to_string(), bold_name, italic, fixed });
        self.font_ids.insert(raw.to_string(), id);
        id
    }
}

/// A run of characters on one baseline without large gaps.
#[derive(Debug, Clone)]
pub(super) struct Frag {
    pub x0: f32,
    pub x1: f32,
    /// Baseline.
    pub y: f32,
    pub top: f32,
    pub bottom: f32,
    pub size: f32,
    pub text: String,
    /// Characters per style key (size in half points, weight, font).
    pub styles: Vec<((u16, i16, u16), u32)>,
    pub nchars: u32,
    /// Left edge of the last character (ligature parts share one box).
    pub last_left: f32,
    /// Characters in a monospaced font.
    pub fixed_chars: u32,
    /// Heading level from the structure tree (tagged PDFs).
    pub tag: Option<u8>,
}

impl Frag {
    /// The style key most of the fragment's characters have.
    pub fn dominant(&self) -> (u16, i16, u16) {
        self.styles.iter().max_by_key(|(_, n)| *n).map(|(k, _)| *k).unwrap_or((0, 400, 0))
    }
    pub fn width(&self) -> f32 {
        self.x1 - self.x0
    }
}

fn add_style(styles: &mut Vec<((u16, i16, u16), u32)>, key: (u16, i16, u16), n: u32) {
    if let Some(e) = styles.iter_mut().find(|(k, _)| *k == key) {
        e.1 += n;
    } else {
        styles.push((key, n));
    }
}

/// The style shared by the characters of one text object.
struct CharStyle {
    obj: usize,
    tag: Option<u8>,
    size: f32,
    weight: i16,
    font: u16,
    rotated: bool,
}
/// Reads one page's characters into fragments.
pub(super) fn page_fragments(page: &Page, stats: &mut StyleStats, tags: &HashMap<i32, u8>) -> Vec<Frag> {
    let n = page.char_count();
    let mut frags: Vec<Frag> = Vec::new();
    let mut cur: Option<Frag> = None;
    let mut style: Option<CharStyle> = None;
    let mut name_buf = vec![0u8; 256];
    let flush = |cur: &mut Option<Frag>, frags: &mut Vec<Frag>| {
        if let Some(mut f) = cur.take() {
            let trimmed = f.text.trim_end().len();
            f.text.truncate(trimmed);
            if f.nchars > 0 && !f.text.trim().is_empty() {
                frags.push(f);
            }
        }
    };
    for i in 0..n {
        let u = page.unicode(i);
        let ch = match u {
            0x0d | 0x0a => {
                flush(&mut cur, &mut frags);
                continue;
            }
            0x02 | 0xad | 0xfffe => '-',
            0 => continue,
            _ => char::from_u32(u).unwrap_or('\u{fffd}'),
        };
        if ch.is_whitespace() || ch.is_control() {
            if let Some(f) = cur.as_mut() {
                if !f.text.ends_with(' ') {
                    f.text.push(' ');
                }
            }
            continue;
        }
        let obj = page.text_object(i);
        if style.as_ref().is_none_or(|s| s.obj != obj || obj == 0) {
            let f = page.char_font(i, &mut name_buf);
            let font = stats.intern_font(&f.name, f.flags);
            let tag = if tags.is_empty() || obj == 0 {
                None
            } else {
                tags.get(&page.marked_content_id(i)).copied()
            };
            style = Some(CharStyle { obj, tag, size: f.size, weight: f.weight, font, rotated: f.rotated });
        }
        let st = style.as_ref().expect("style set above");
        let fixed = stats.fonts.get(st.font as usize).is_some_and(|f| f.fixed) as u32;
        if st.rotated {
            continue;
        }
        let Some(cb) = page.char_box(i) else { continue };
        let baseline = cb.baseline;
        let size = st.size;
        let key = ((size * 2.0).round().clamp(0.0, 4000.0) as u16, st.weight, st.font);
        *stats.style_chars.entry(key).or_insert(0) += 1;
        let (left, right, bottom, top) = (cb.left, cb.right, cb.bottom, cb.top);
        let mut start_new = true;
        if let Some(f) = cur.as_mut() {
            let tol = 0.5 * f.size.max(size);
            let small = size < 0.85 * f.size || f.size < 0.85 * size;
            let dy = (baseline - f.y).abs();
            let same_line = dy <= tol || (small && dy <= 0.75 * f.size.max(size));
            // "2,540   $  2,422": a currency sign after a number opens the next column's cell.
            let after_number = f.text.trim_end().ends_with(|c: char| c.is_ascii_digit() || c == ')');
            // Two numbers a column gap apart ("3,587.5    3,262.8") are two cells.
            let numeric_start = ch.is_ascii_digit() || matches!(ch, '$' | '€' | '£' | '¥' | '(' | '—' | '-');
            let new_cell = (matches!(ch, '$' | '€' | '£' | '¥') && after_number && left - f.x1 > 0.3 * size)
                || (numeric_start && after_number && left - f.x1 > 0.9 * size);
            let gap = left - f.x1;
            if same_line && !new_cell && left >= f.last_left - 0.3 * size && gap < 1.6 * f.size.max(size) {
                start_new = false;
                if gap > 0.18 * size.min(f.size) && !f.text.ends_with(' ') {
                    f.text.push(' ');
                }
                f.text.push(ch);
                f.x1 = f.x1.max(right);
                f.last_left = left;
                f.top = f.top.max(top);
                f.bottom = f.bottom.min(bottom);
                f.nchars += 1;
                f.fixed_chars += fixed;
                f.tag = f.tag.or(st.tag);
                if !small || size > f.size {
                    // Superscripts do not move the baseline or size of the fragment.
                    if size > f.size * 1.15 {
                        f.y = baseline;
                        f.size = size;
                    }
                }
                add_style(&mut f.styles, key, 1);
            }
        }
        if start_new {
            flush(&mut cur, &mut frags);
            let mut text = String::new();
            text.push(ch);
            cur = Some(Frag {
                x0: left,
                x1: right,
                y: baseline,
                top,
                bottom,
                size,
                text,
                styles: vec![(key, 1)],
                nchars: 1,
                last_left: left,
                fixed_chars: fixed,
                tag: st.tag,
            });
        }
    }
    flush(&mut cur, &mut frags);
    frags
}
