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
    /// The gaps between its words, left to right.
    pub gaps: Vec<WordGap>,
}

/// The gap between two words of a fragment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct WordGap {
    /// Byte offset in the fragment's text where the word after the gap starts.
    pub at: usize,
    /// Right edge of the word before and left edge of the word after.
    pub x0: f32,
    pub x1: f32,
}

/// A word gap far wider than a word space parts two cells set closer than a fragment break
/// ("FISCAL 2022   % CHANGE" over two columns): one at least [`LOOSE_WIDE`] times the text size,
/// or at least [`LOOSE_OVER_TIGHTEST`] times the fragment's narrowest gap and [`LOOSE_GAP`] times
/// the size. Word spaces run from a fifth to half the size, and a justified line stretches all
/// of its spaces alike.
const LOOSE_GAP: f32 = 0.6;
const LOOSE_OVER_TIGHTEST: f32 = 2.5;
const LOOSE_WIDE: f32 = 0.75;

impl Frag {
    /// The word gaps far wider than a word space, where cells set side by side in one run part
    /// ([`LOOSE_GAP`]).
    pub fn loose_gaps(&self) -> Vec<WordGap> {
        let width = |g: &WordGap| g.x1 - g.x0;
        // A space the next glyph overlaps counts as a narrow one.
        let tightest = self.gaps.iter().map(width).fold(f32::MAX, f32::min).max(0.2 * self.size);
        let least = match self.gaps.len() {
            0 | 1 => LOOSE_WIDE * self.size,
            _ => (LOOSE_OVER_TIGHTEST * tightest).max(LOOSE_GAP * self.size).min(LOOSE_WIDE * self.size),
        };
        self.gaps.iter().filter(|g| width(g) >= least).copied().collect()
    }

    /// The style key most of the fragment's characters have.
    pub fn dominant(&self) -> (u16, i16, u16) {
        self.styles.iter().max_by_key(|(_, n)| *n).map(|(k, _)| *k).unwrap_or((0, 400, 0))
    }
    pub fn width(&self) -> f32 {
        self.x1 - self.x0
    }
}

/// A currency sign's character: the table builder, the fragment splitter and the heading rules
/// read it alike.
pub(super) fn is_currency_char(c: char) -> bool {
    matches!(c, '$' | '€' | '£' | '¥')
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
            let numeric_start = ch.is_ascii_digit() || is_currency_char(ch) || matches!(ch, '(' | '—' | '-');
            let new_cell = (is_currency_char(ch) && after_number && left - f.x1 > 0.3 * size)
                || (numeric_start && after_number && left - f.x1 > 0.9 * size);
            let gap = left - f.x1;
            if same_line && !new_cell && left >= f.last_left - 0.3 * size && gap < 1.6 * f.size.max(size) {
                start_new = false;
                if gap > 0.18 * size.min(f.size) && !f.text.ends_with(' ') {
                    f.text.push(' ');
                }
                if f.text.ends_with(' ') {
                    f.gaps.push(WordGap { at: f.text.len(), x0: f.x1, x1: left });
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
                gaps: Vec::new(),
            });
        }
    }
    flush(&mut cur, &mut frags);
    frags
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fragment of 9 pt text whose words stand `gaps` points apart, each word 20 points wide.
    fn frag(gaps: &[f32]) -> Frag {
        let (mut text, mut x, mut wgaps) = (String::from("w0"), 20.0, Vec::new());
        for (i, g) in gaps.iter().enumerate() {
            text.push(' ');
            wgaps.push(WordGap { at: text.len(), x0: x, x1: x + g });
            text.push_str(&format!("w{}", i + 1));
            x += g + 20.0;
        }
        Frag {
            x0: 0.0,
            x1: x,
            y: 100.0,
            top: 109.0,
            bottom: 98.0,
            size: 9.0,
            text,
            styles: Vec::new(),
            nchars: 0,
            last_left: 0.0,
            fixed_chars: 0,
            tag: None,
            gaps: wgaps,
        }
    }

    fn loose_at(f: &Frag) -> Vec<usize> {
        f.loose_gaps().iter().map(|g| g.at).collect()
    }

    #[test]
    fn a_gap_far_wider_than_the_word_spaces_is_loose() {
        // "FISCAL 2022   % CHANGE   FISCAL 2021": Nike's spaces 2.5 pt, its column gaps 13.
        assert_eq!(loose_at(&frag(&[2.5, 13.2, 2.7, 13.4, 2.5])), vec![6, 12]);
        // "FISCAL 2023  FISCAL 2022": 6.6 pt, two and a half spaces, under a size.
        assert_eq!(loose_at(&frag(&[2.5, 6.6, 2.5])).len(), 1);
        // Two words a size apart; Nike's "SHARES  AMOUNT  SHARES  AMOUNT", every gap wide.
        assert_eq!(loose_at(&frag(&[10.0])).len(), 1);
        assert_eq!(loose_at(&frag(&[9.2, 12.9, 6.9])).len(), 3);
    }

    #[test]
    fn word_spaces_are_not_loose() {
        // A justified line stretches its spaces alike.
        assert!(loose_at(&frag(&[5.0, 5.2, 4.9, 5.1])).is_empty());
        // Ordinary spaces, and one wider space of two words alone.
        assert!(loose_at(&frag(&[2.5, 3.0, 2.6])).is_empty());
        assert!(loose_at(&frag(&[5.0])).is_empty());
        assert!(loose_at(&frag(&[])).is_empty());
    }
}
