//! Weighted Reciprocal Rank Fusion of the retrieval channels.
//!
//! score(d) = Σᵢ wᵢ / (k + rankᵢ(d)), with ranks starting at 1 and k = 60 by default. A channel that
//! did not return `d` adds nothing.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// A retrieval channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    /// Vector similarity of embeddings.
    Dense,
    /// BM25 over the contextualized text and headings.
    Keyword,
    /// Section numbers, defined terms and document labels named in the query.
    Exact,
}

impl Channel {
    pub const ALL: [Channel; 3] = [Channel::Dense, Channel::Keyword, Channel::Exact];

    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Dense => "dense",
            Channel::Keyword => "keyword",
            Channel::Exact => "exact",
        }
    }

    fn index(self) -> usize {
        match self {
            Channel::Dense => 0,
            Channel::Keyword => 1,
            Channel::Exact => 2,
        }
    }
}

/// Fusion settings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FusionConfig {
    pub k: f32,
    pub dense: f32,
    pub keyword: f32,
    pub exact: f32,
}

impl Default for FusionConfig {
    /// k = 60; dense 0.25, keyword 1, exact 2. Measured with all-MiniLM-L6-v2:
    /// - exact: `scripts/eval/identifiers.py` (40 ObliQA rulebooks, 50 queries) put 82 % of
    ///   identifier and term queries' targets first at weight 1, 98 % at 2 (4 gave no more); it
    ///   only answers lookups (`Query::is_lookup`);
    /// - dense: `scripts/eval/fusion_sweep.py` over ObliQA dev (2,788 questions), Recall@10 0.651
    ///   at dense weight 1, 0.668 at 0.5, 0.676 at 0.25 (BM25 alone 0.668); the cookbook's Pass@10
    ///   85.7 at 1 and 0.5, 86.8 at 0.25 (`scripts/eval/cookbook.py --weights`). MiniLM is a weak
    ///   retriever on both sets (dense alone 0.31 and 72.7), so it mostly breaks keyword ties.
    fn default() -> Self {
        FusionConfig { k: 60.0, dense: 0.25, keyword: 1.0, exact: 2.0 }
    }
}

impl FusionConfig {
    pub fn weight(&self, c: Channel) -> f32 {
        match c {
            Channel::Dense => self.dense,
            Channel::Keyword => self.keyword,
            Channel::Exact => self.exact,
        }
    }
}

/// One channel's verdict on a hit: its 1-based rank and its own score.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ChannelRank {
    pub rank: usize,
    pub score: f32,
}

/// A fused hit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fused<Id> {
    pub id: Id,
    pub score: f32,
    /// Per channel, in [`Channel::ALL`] order: the rank and score, where the channel found the hit.
    pub channels: [Option<ChannelRank>; 3],
}

impl<Id> Fused<Id> {
    pub fn channel(&self, c: Channel) -> Option<ChannelRank> {
        self.channels[c.index()]
    }
}

/// Fuses ranked lists (best first; each list's own scores kept for display).
///
/// ```
/// use folio_core::fusion::{fuse, Channel, FusionConfig};
/// let dense = vec![(7u64, 0.9), (3, 0.8)];
/// let keyword = vec![(3u64, 12.0), (9, 8.0)];
/// let equal = FusionConfig { dense: 1.0, keyword: 1.0, ..FusionConfig::default() };
/// let fused = fuse(&[(Channel::Dense, &dense[..]), (Channel::Keyword, &keyword[..])], &equal);
/// assert_eq!(fused[0].id, 3); // 1/62 + 1/61 beats 1/61
/// assert!((fused[0].score - (1.0 / 62.0 + 1.0 / 61.0)).abs() < 1e-6);
/// ```
pub fn fuse<Id>(lists: &[(Channel, &[(Id, f32)])], config: &FusionConfig) -> Vec<Fused<Id>>
where
    Id: Copy + Eq + std::hash::Hash + Ord,
{
    let mut by_id: HashMap<Id, Fused<Id>> = HashMap::new();
    for (channel, list) in lists {
        let w = config.weight(*channel);
        let mut seen = std::collections::HashSet::new();
        let mut rank = 0;
        for (id, score) in list.iter() {
            if !seen.insert(*id) {
                continue; // a list naming an id twice counts its best rank only
            }
            rank += 1;
            let entry = by_id.entry(*id).or_insert(Fused { id: *id, score: 0.0, channels: [None; 3] });
            entry.score += w / (config.k + rank as f32);
            entry.channels[channel.index()] = Some(ChannelRank { rank, score: *score });
        }
    }
    let mut out: Vec<Fused<Id>> = by_id.into_values().collect();
    out.sort_by(|a, b| {
        b.score
            .partial_cmp(&a.score)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| best_rank(a).cmp(&best_rank(b)))
            .then_with(|| a.id.cmp(&b.id))
    });
    out
}

fn best_rank<Id>(f: &Fused<Id>) -> usize {
    f.channels.iter().flatten().map(|c| c.rank).min().unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn ranks_start_at_one_and_k_is_sixty() {
        let a = [(1u32, 5.0)];
        let f = fuse(&[(Channel::Keyword, &a[..])], &FusionConfig::default());
        assert_eq!(f[0].channels[1], Some(ChannelRank { rank: 1, score: 5.0 }));
        assert!((f[0].score - 1.0 / 61.0).abs() < 1e-7);
    }

    #[test]
    fn weights_scale_channels() {
        let a = [(1u32, 0.0)];
        let b = [(2u32, 0.0)];
        let cfg = FusionConfig { exact: 2.0, ..FusionConfig::default() };
        let f = fuse(&[(Channel::Dense, &a[..]), (Channel::Exact, &b[..])], &cfg);
        assert_eq!(f[0].id, 2);
        assert!((f[0].score - 2.0 / 61.0).abs() < 1e-7);
    }

    proptest! {
        /// Every fused score is exactly the weighted RRF sum of its channel ranks, ranks are 1-based positions
        /// among distinct ids, and the output is sorted.
        #[test]
        fn rrf_sum_and_rank_base(lists in proptest::collection::vec(proptest::collection::vec(0u16..40, 0..30), 1..4)) {
            let chans = [Channel::Dense, Channel::Keyword, Channel::Exact];
            let owned: Vec<Vec<(u16, f32)>> = lists.iter().map(|l| l.iter().map(|&x| (x, 0.0)).collect()).collect();
            let input: Vec<(Channel, &[(u16, f32)])> = owned.iter().enumerate().map(|(i, l)| (chans[i], &l[..])).collect();
            let cfg = FusionConfig::default();
            let fused = fuse(&input, &cfg);
            for f in &fused {
                let mut expect = 0.0f32;
                for (i, l) in lists.iter().enumerate() {
                    let mut distinct: Vec<u16> = Vec::new();
                    for x in l { if !distinct.contains(x) { distinct.push(*x); } }
                    if let Some(p) = distinct.iter().position(|x| *x == f.id) {
                        expect += cfg.weight(chans[i]) / (60.0 + (p + 1) as f32);
                        prop_assert_eq!(f.channels[chans[i].index()].map(|c| c.rank), Some(p + 1));
                    }
                }
                prop_assert!((f.score - expect).abs() < 1e-6);
            }
            for w in fused.windows(2) { prop_assert!(w[0].score >= w[1].score); }
        }
    }
}
