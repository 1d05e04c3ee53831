//! How prominent a heading's style is: its size, with bold and capitals counting a little more,
//! and which styles are near enough in prominence to be one tier.

/// A line's style, as headings are clustered by it: size (half points), bold, font, capitals,
/// underline. Underline adds no prominence: documents rank it either way, so the faces decide
/// ([`super::faces`]).
pub(super) type StyleKey = (u16, bool, u16, bool, bool);

/// How much more prominent bold makes a style of the same size.
const BOLD_PROMINENCE: f32 = 1.08;
/// Styles within this share of each other's prominence are one tier.
pub(super) const SAME_TIER: f32 = 0.03;
/// How much more prominent capitals make a style of the same size and weight.
const CAPS_PROMINENCE: f32 = 1.04;

/// How prominent a style is: its size, bold and capitals counting a little more.
pub(super) fn prominence(key: &StyleKey) -> f32 {
    key.0 as f32 / 2.0 * if key.1 { BOLD_PROMINENCE } else { 1.0 } * if key.3 { CAPS_PROMINENCE } else { 1.0 }
}

/// Levels by prominence alone, near-equal styles merged into one tier (at most six).
pub(super) fn tiers_of_prominence(styles: &[StyleKey]) -> Vec<(StyleKey, u8)> {
    let mut proms: Vec<f32> = styles.iter().map(prominence).collect();
    proms.sort_by(|a, b| b.total_cmp(a));
    let mut tiers: Vec<f32> = Vec::new();
    for p in proms {
        if tiers.last().is_none_or(|t| (t - p).abs() > SAME_TIER * t) {
            tiers.push(p);
        }
    }
    styles
        .iter()
        .map(|key| {
            let p = prominence(key);
            let tier = tiers.iter().position(|t| (t - p).abs() <= SAME_TIER * t).unwrap_or(0);
            (*key, (tier as u8 + 1).min(6))
        })
        .collect()
}
