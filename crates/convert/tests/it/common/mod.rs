//! Outline comparison shared by the cross-format tests.
#![allow(dead_code)]

use folio_core::model::{BlockKind, Document};
use folio_core::numbering::split_heading_number;

/// A heading title normalised for comparison: its numbering label dropped, then only lower-case
/// letters kept (digits and punctuation stripped).
pub fn norm_title(text: &str) -> String {
    let rest = split_heading_number(text).map(|h| h.title).unwrap_or(text);
    rest.chars().filter(|c| c.is_alphabetic()).flat_map(char::to_lowercase).collect()
}

pub fn outline(doc: &Document) -> Vec<(String, u8, String)> {
    doc.blocks_with_text()
        .filter_map(|(b, t)| b.kind.heading_level().map(|l| (norm_title(t), l, t.to_string())))
        .collect()
}

/// Matched heading pairs (index in a, index in b) by the longest common subsequence of titles.
pub fn lcs_pairs(a: &[(String, u8, String)], b: &[(String, u8, String)]) -> Vec<(usize, usize)> {
    let (n, m) = (a.len(), b.len());
    let mut dp = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            dp[i][j] = if a[i].0 == b[j].0 { dp[i + 1][j + 1] + 1 } else { dp[i + 1][j].max(dp[i][j + 1]) };
        }
    }
    let (mut i, mut j, mut pairs) = (0, 0, Vec::new());
    while i < n && j < m {
        if a[i].0 == b[j].0 {
            pairs.push((i, j));
            i += 1;
            j += 1;
        } else if dp[i + 1][j] >= dp[i][j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    pairs
}

pub struct Agreement {
    pub matched: usize,
    pub max_len: usize,
    pub same_level: usize,
}

impl Agreement {
    pub fn of(a: &[(String, u8, String)], b: &[(String, u8, String)]) -> (Agreement, Vec<(usize, usize)>) {
        let pairs = lcs_pairs(a, b);
        let same_level = pairs.iter().filter(|(i, j)| a[*i].1 == b[*j].1).count();
        (Agreement { matched: pairs.len(), max_len: a.len().max(b.len()), same_level }, pairs)
    }
    pub fn add(&mut self, o: &Agreement) {
        self.matched += o.matched;
        self.max_len += o.max_len;
        self.same_level += o.same_level;
    }
    pub fn headings(&self) -> f64 {
        self.matched as f64 / self.max_len.max(1) as f64
    }
    pub fn levels(&self) -> f64 {
        self.same_level as f64 / self.matched.max(1) as f64
    }
}

/// Prints the headings of one side that the other lacks, and level disagreements.
pub fn report_differences(
    label_a: &str,
    a: &[(String, u8, String)],
    label_b: &str,
    b: &[(String, u8, String)],
    pairs: &[(usize, usize)],
) {
    let in_a: std::collections::HashSet<usize> = pairs.iter().map(|p| p.0).collect();
    let in_b: std::collections::HashSet<usize> = pairs.iter().map(|p| p.1).collect();
    for (i, h) in a.iter().enumerate().filter(|(i, _)| !in_a.contains(i)) {
        eprintln!("  only in {label_a} [{i}]: L{} {:?}", h.1, h.2);
    }
    for (j, h) in b.iter().enumerate().filter(|(j, _)| !in_b.contains(j)) {
        eprintln!("  only in {label_b} [{j}]: L{} {:?}", h.1, h.2);
    }
    for (i, j) in pairs.iter().filter(|(i, j)| a[*i].1 != b[*j].1) {
        eprintln!(
            "  level differs: {label_a} L{} {:?} / {label_b} L{} {:?}",
            a[*i].1, a[*i].2, b[*j].1, b[*j].2
        );
    }
}

/// Heading blocks as (text, level, number).
pub fn headings(doc: &Document) -> Vec<(String, u8, Option<String>)> {
    doc.blocks_with_text()
        .filter_map(|(b, t)| match &b.kind {
            BlockKind::Heading { level, number } => Some((t.to_string(), *level, number.clone())),
            _ => None,
        })
        .collect()
}
