//! List counters printed the way Word's `numFmt` and HTML's `ol type` print them.

/// Formats a list counter the way Word's `numFmt` (and HTML's `ol type`) prints it.
pub(crate) fn format_number(n: i64, fmt: &str) -> String {
    match fmt {
        "lowerLetter" | "a" => letters(n, false),
        "upperLetter" | "A" => letters(n, true),
        "lowerRoman" | "i" => roman(n).to_ascii_lowercase(),
        "upperRoman" | "I" => roman(n),
        "decimalZero" => format!("{n:02}"),
        "none" => String::new(),
        _ => n.to_string(),
    }
}

/// a..z, then aa, bb, ... (Word repeats the letter rather than counting in base 26).
fn letters(n: i64, upper: bool) -> String {
    if n <= 0 {
        return n.to_string();
    }
    let idx = ((n - 1) % 26) as u8;
    let count = ((n - 1) / 26 + 1).min(50) as usize;
    let base = if upper { b'A' } else { b'a' };
    std::iter::repeat_n((base + idx) as char, count).collect()
}

fn roman(n: i64) -> String {
    if !(1..4000).contains(&n) {
        return n.to_string();
    }
    const TABLE: [(i64, &str); 13] = [
        (1000, "M"),
        (900, "CM"),
        (500, "D"),
        (400, "CD"),
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ];
    let mut n = n;
    let mut s = String::new();
    for (v, r) in TABLE {
        while n >= v {
            s.push_str(r);
            n -= v;
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_formats() {
        assert_eq!(format_number(3, "decimal"), "3");
        assert_eq!(format_number(2, "lowerLetter"), "b");
        assert_eq!(format_number(28, "upperLetter"), "BB");
        assert_eq!(format_number(4, "lowerRoman"), "iv");
        assert_eq!(format_number(14, "upperRoman"), "XIV");
        assert_eq!(format_number(5, "decimalZero"), "05");
    }
}
