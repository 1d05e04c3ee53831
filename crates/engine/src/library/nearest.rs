//! The section numbers nearest to one that is not there, for a "not found" that helps: "no
//! section 5.5.9 in GEN; nearest: 5.5.1, 5.5.2, 5.5.3". A number is compared part by part (runs of
//! digits and of letters, "Item 7A" → 7, A): the more leading parts two numbers share the nearer
//! they are, then the closer their first differing parts (numbers by value, letters by
//! alphabet); a parent or child comes after the siblings.

/// A number's parts: runs of digits (as numbers) and runs of letters (lower-cased).
fn parts(number: &str) -> Vec<Part> {
    let mut out = Vec::new();
    let mut chars = number.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_ascii_digit() {
            let mut n: u64 = 0;
            while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
                n = n.saturating_mul(10).saturating_add(d as u64);
                chars.next();
            }
            out.push(Part::Number(n));
        } else if c.is_alphabetic() {
            let mut w = String::new();
            while let Some(&c) = chars.peek().filter(|c| c.is_alphabetic()) {
                w.extend(c.to_lowercase());
                chars.next();
            }
            out.push(Part::Word(w));
        } else {
            chars.next();
        }
    }
    out
}

#[derive(Debug, PartialEq, Eq)]
enum Part {
    Number(u64),
    Word(String),
}

/// How near `candidate` is to `wanted`: shared leading parts, then (negated) the distance between
/// the first parts that differ when both are numbers.
fn nearness(wanted: &[Part], candidate: &[Part]) -> (usize, i64) {
    let shared = wanted.iter().zip(candidate).take_while(|(a, b)| a == b).count();
    let gap = match (wanted.get(shared), candidate.get(shared)) {
        (Some(Part::Number(a)), Some(Part::Number(b))) => -(a.abs_diff(*b).min(i64::MAX as u64 / 4) as i64),
        // Lettered siblings ("7A", "7B"): by the distance of their first letters.
        (Some(Part::Word(a)), Some(Part::Word(b))) => {
            let first = |w: &str| w.chars().next().map_or(0, |c| c as i64);
            -(first(a) - first(b)).abs()
        }
        (None, None) => 0,
        // The parent or a child of the number: after its siblings.
        (None, Some(_)) | (Some(_), None) => i64::MIN / 2,
        _ => i64::MIN,
    };
    (shared, gap)
}

/// At most `n` of `numbers` nearest to `wanted`, nearest first (ties in the given order); none
/// when nothing shares even a first part with it.
pub(super) fn nearest<'a>(wanted: &str, numbers: impl IntoIterator<Item = &'a str>, n: usize) -> Vec<String> {
    let want = parts(wanted);
    let mut scored: Vec<((usize, i64), usize, &str)> = numbers
        .into_iter()
        .enumerate()
        .map(|(i, num)| (nearness(&want, &parts(num)), i, num))
        .filter(|((shared, _), _, _)| *shared > 0)
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut out: Vec<String> = Vec::new();
    for (_, _, num) in scored {
        if out.len() == n {
            break;
        }
        if !out.iter().any(|o| o == num) {
            out.push(num.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_numbers_share_the_most_leading_parts_then_lie_closest() {
        let numbers = ["5.4.1", "5.5.1", "5.5.2", "5.5.10", "6.1.1", "5.5"];
        assert_eq!(nearest("5.5.9", numbers, 3), ["5.5.10", "5.5.2", "5.5.1"]);
        assert_eq!(nearest("Item 7B", ["Item 7", "Item 7A", "Item 8"], 2), ["Item 7A", "Item 7"]);
        assert!(nearest("12.1", numbers, 3).is_empty(), "nothing shares a first part");
        assert_eq!(nearest("5.5.1", ["5.5.1", "5.5.1"], 3), ["5.5.1"], "each once");
    }
}
