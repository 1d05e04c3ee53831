//! Fusion of the retrieval channels, by their scores (the default) or by weighted Reciprocal Rank
//! Fusion.
//!
//! - [`FusionMethod::Scores`]: score(d) = Σᵢ wᵢ · (sᵢ(d) − floorᵢ) / (topᵢ − floorᵢ), each channel's
//!   own score scaled so that its best candidate gives 1 and its floor 0. The floor is the score of
//!   the last candidate when the channel filled its list (the `depth` asked for), so that a hit at
//!   the bottom of the list adds nothing; when the channel ran out of matches first, every match it
//!   has counts, and the floor is 0 (BM25's and the exact index's score of no match, a cosine of 0).
//! - [`FusionMethod::Rrf`]: score(d) = Σᵢ wᵢ / (k + rankᵢ(d)), with ranks starting at 1 and k = 60.
//!
//! A channel that did not return `d` adds nothing. Ranks keep what a score cannot say across
//! channels, but drop how far the first BM25 hit stands ahead of the second; the scores keep it,
//! and measure better (see [`FusionConfig::default`]).

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
    /// Every channel, in the order [`Fused::channels`] keeps them.
    pub const ALL: [Channel; 3] = [Channel::Dense, Channel::Keyword, Channel::Exact];

    /// The channel's name as serialised: `dense`, `keyword` or `exact`.
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

/// How the channels' lists are combined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FusionMethod {
    /// Each channel's scores scaled to [0, 1] over its list, then weighted and added.
    #[default]
    Scores,
    /// Weighted Reciprocal Rank Fusion: ranks only.
    Rrf,
}

/// Fusion settings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FusionConfig {
    /// How the channels' lists are combined (default [`FusionMethod::Scores`]).
    #[serde(default)]
    pub method: FusionMethod,
    /// RRF's k (used by [`FusionMethod::Rrf`] only).
    pub k: f32,
    /// The weight of the dense (embedding) channel.
    pub dense: f32,
    /// The weight of the keyword (BM25) channel.
    pub keyword: f32,
    /// The weight of the exact channel (section numbers, defined terms, document labels).
    pub exact: f32,
}

impl Default for FusionConfig {
    /// Score fusion; dense 0.75, keyword 1, exact 2. Measured on ObliQA dev (2,788 questions,
    /// all-MiniLM-L6-v2, 200 candidates a channel; `scripts/eval/obliqa.py`), Recall@10 / MAP@10:
    /// weighted RRF at its best setting 0.787 / 0.644 (k 10, dense 0.6; the old default k 60, dense
    /// 0.25 gave 0.782 / 0.639); score fusion with dense 0.6 → 0.790 / 0.664, 0.75 → 0.791 / 0.662,
    /// 0.9 → 0.791 / 0.657, 1 → 0.790 / 0.654. Chosen on the even half of the questions and the same
    /// on the odd half (0.75: even 0.783 / 0.664, odd 0.799 / 0.660). Exact 2 puts an exact match
    /// above any hit the other two channels can make (at most 1.75): identifier and term queries'
    /// targets first for 98 % of `scripts/eval/identifiers.py`'s queries, as under RRF.
    fn default() -> Self {
        FusionConfig { method: FusionMethod::Scores, k: 60.0, dense: 0.75, keyword: 1.0, exact: 2.0 }
    }
}

impl FusionConfig {
    /// Weighted RRF with its measured defaults: k = 60; dense 0.25, keyword 1, exact 2. Measured
    /// with all-MiniLM-L6-v2:
    /// - exact: `scripts/eval/identifiers.py` (40 ObliQA rulebooks, 50 queries) put 82 % of
    ///   identifier and term queries' targets first at weight 1, 98 % at 2 (4 gave no more); it
    ///   only answers lookups (`Query::is_lookup`);
    /// - dense: `scripts/eval/fusion_sweep.py` over ObliQA dev (2,788 questions), Recall@10 0.651
    ///   at dense weight 1, 0.668 at 0.5, 0.676 at 0.25 (BM25 alone 0.668); the cookbook's Pass@10
    ///   85.7 at 1 and 0.5, 86.8 at 0.25 (`scripts/eval/cookbook.py --weights`). MiniLM is a weak
    ///   retriever on both sets (dense alone 0.31 and 72.7), so it mostly breaks keyword ties.
    pub fn rrf() -> Self {
        FusionConfig { method: FusionMethod::Rrf, k: 60.0, dense: 0.25, keyword: 1.0, exact: 2.0 }
    }

    /// What a channel's first hit adds at weight 1: the unit other boosts are stated in.
    pub fn unit(&self) -> f32 {
        match self.method {
            FusionMethod::Scores => 1.0,
            FusionMethod::Rrf => 1.0 / (self.k + 1.0),
        }
    }

    /// The weight of channel `c`.
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
    /// The hit's place in the channel's list, from 1.
    pub rank: usize,
    /// The channel's own score: cosine similarity (dense), BM25 (keyword), the exact index's score.
    pub score: f32,
}

/// A fused hit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fused<Id> {
    /// The hit's id (in the library, a chunk id).
    pub id: Id,
    /// The fused score, higher is better: each channel's weighted share added (see [`FusionMethod`]).
    pub score: f32,
    /// Per channel, in [`Channel::ALL`] order: the rank and score, where the channel found the hit.
    pub channels: [Option<ChannelRank>; 3],
}

impl<Id> Fused<Id> {
    /// What channel `c` said of the hit; `None` when it did not find it.
    pub fn channel(&self, c: Channel) -> Option<ChannelRank> {
        self.channels[c.index()]
    }
}

/// Fuses ranked lists (best first; each list's own scores kept for display). `depth` is how many
/// candidates each channel was asked for: a list that long is full, and its last score is its
/// floor under [`FusionMethod::Scores`].
///
/// ```
/// use folio_core::fusion::{fuse, Channel, FusionConfig};
/// let dense = vec![(7u64, 0.9), (3, 0.8), (5, 0.5)];
/// let keyword = vec![(3u64, 12.0), (9, 8.0), (7, 2.0)];
/// // By scores: 3 is dense's (0.8 − 0.5) / (0.9 − 0.5) = 0.75 and keyword's first, 1.
/// let equal = FusionConfig { dense: 1.0, keyword: 1.0, ..FusionConfig::default() };
/// let fused = fuse(&[(Channel::Dense, &dense[..]), (Channel::Keyword, &keyword[..])], &equal, 3);
/// assert_eq!(fused[0].id, 3);
/// assert!((fused[0].score - 1.75).abs() < 1e-6);
/// // By ranks: 1/62 + 1/61 beats 7's 1/61 + 1/63.
/// let rrf = FusionConfig { dense: 1.0, keyword: 1.0, ..FusionConfig::rrf() };
/// let fused = fuse(&[(Channel::Dense, &dense[..]), (Channel::Keyword, &keyword[..])], &rrf, 3);
/// assert_eq!(fused[0].id, 3);
/// assert!((fused[0].score - (1.0 / 62.0 + 1.0 / 61.0)).abs() < 1e-6);
/// ```
pub fn fuse<Id>(lists: &[(Channel, &[(Id, f32)])], config: &FusionConfig, depth: usize) -> Vec<Fused<Id>>
where
    Id: Copy + Eq + std::hash::Hash + Ord,
{
    let mut by_id: HashMap<Id, Fused<Id>> = HashMap::new();
    for (channel, list) in lists {
        let w = config.weight(*channel);
        let mut seen = std::collections::HashSet::new();
        let distinct: Vec<(Id, f32)> = list.iter().filter(|(id, _)| seen.insert(*id)).copied().collect();
        let scale = Scale::of(&distinct, depth);
        for (at, (id, score)) in distinct.iter().enumerate() {
            let rank = at + 1;
            let entry = by_id.entry(*id).or_insert(Fused { id: *id, score: 0.0, channels: [None; 3] });
            entry.score += match config.method {
                FusionMethod::Scores => w * scale.apply(*score),
                FusionMethod::Rrf => w / (config.k + rank as f32),
            };
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

/// A channel's scores mapped to [0, 1]: its best to 1, its floor to 0.
struct Scale {
    floor: f32,
    span: f32,
}

impl Scale {
    /// `list` best first, ids distinct.
    fn of<Id>(list: &[(Id, f32)], depth: usize) -> Scale {
        let top = list.iter().map(|x| x.1).fold(f32::NEG_INFINITY, f32::max);
        let low = list.iter().map(|x| x.1).fold(f32::INFINITY, f32::min);
        let floor = if list.len() >= depth.max(2) { low } else { low.min(0.0) };
        Scale { floor, span: top - floor }
    }

    fn apply(&self, score: f32) -> f32 {
        if self.span > 0.0 && self.span.is_finite() && score.is_finite() {
            ((score - self.floor) / self.span).clamp(0.0, 1.0)
        } else {
            1.0 // every candidate scored alike (or a single one): each is a first
        }
    }
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
        let f = fuse(&[(Channel::Keyword, &a[..])], &FusionConfig::rrf(), 10);
        assert_eq!(f[0].channels[1], Some(ChannelRank { rank: 1, score: 5.0 }));
        assert!((f[0].score - 1.0 / 61.0).abs() < 1e-7);
    }

    #[test]
    fn weights_scale_channels() {
        let a = [(1u32, 0.0)];
        let b = [(2u32, 0.0)];
        let cfg = FusionConfig { exact: 2.0, ..FusionConfig::rrf() };
        let f = fuse(&[(Channel::Dense, &a[..]), (Channel::Exact, &b[..])], &cfg, 10);
        assert_eq!(f[0].id, 2);
        assert!((f[0].score - 2.0 / 61.0).abs() < 1e-7);
    }

    #[test]
    fn scores_keep_how_far_the_first_stands_ahead() {
        // BM25 puts 1 far ahead of 2 and 3; the dense channel has 2 a little ahead of 3 and 1.
        // Ranks follow the dense channel; scores keep keyword's lead.
        let keyword = [(1u32, 30.0), (2, 12.0), (3, 10.0)];
        let dense = [(2u32, 0.62), (3, 0.61), (1, 0.60)];
        let lists = [(Channel::Dense, &dense[..]), (Channel::Keyword, &keyword[..])];
        let by_scores = fuse(&lists, &FusionConfig::default(), 3);
        assert_eq!(by_scores[0].id, 1);
        assert!((by_scores[0].score - 1.0).abs() < 1e-5);
        assert!((by_scores[1].score - (0.1 + 0.75)).abs() < 1e-5);
        let by_ranks = fuse(&lists, &FusionConfig { dense: 0.75, ..FusionConfig::rrf() }, 3);
        assert_eq!(by_ranks[0].id, 2);
    }

    #[test]
    fn a_list_that_ran_out_counts_every_match() {
        // Two exact matches (1 and 0.5) in a list of up to 100: the second still adds half its
        // weight; a full list's last adds nothing.
        let exact = [(7u32, 1.0), (8, 0.5)];
        let f = fuse(&[(Channel::Exact, &exact[..])], &FusionConfig::default(), 100);
        assert!((f[1].score - 1.0).abs() < 1e-6, "{f:?}");
        let f = fuse(&[(Channel::Exact, &exact[..])], &FusionConfig::default(), 2);
        assert_eq!(f[1].score, 0.0);
        // Scores all alike, or a single negative cosine: each is a first.
        let flat = [(1u32, -0.2)];
        assert_eq!(fuse(&[(Channel::Dense, &flat[..])], &FusionConfig::default(), 1)[0].score, 0.75);
    }

    proptest! {
        /// Every fused score is exactly the weighted RRF sum of its channel ranks, ranks are 1-based positions
        /// among distinct ids, and the output is sorted.
        #[test]
        fn rrf_sum_and_rank_base(lists in proptest::collection::vec(proptest::collection::vec(0u16..40, 0..30), 1..4)) {
            let chans = [Channel::Dense, Channel::Keyword, Channel::Exact];
            let owned: Vec<Vec<(u16, f32)>> = lists.iter().map(|l| l.iter().map(|&x| (x, 0.0)).collect()).collect();
            let input: Vec<(Channel, &[(u16, f32)])> = owned.iter().enumerate().map(|(i, l)| (chans[i], &l[..])).collect();
            let cfg = FusionConfig::rrf();
            let fused = fuse(&input, &cfg, 30);
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

        /// Under score fusion each channel adds between 0 and its weight, its first hit adds all
        /// of its weight, and the output is sorted.
        #[test]
        fn scores_stay_within_weights(
            lists in proptest::collection::vec(proptest::collection::vec((0u16..40, -1.0f32..50.0), 0..30), 1..4),
            depth in 1usize..40,
        ) {
            let chans = [Channel::Dense, Channel::Keyword, Channel::Exact];
            let owned: Vec<Vec<(u16, f32)>> = lists
                .iter()
                .map(|l| {
                    let mut l = l.clone();
                    l.sort_by(|a, b| b.1.total_cmp(&a.1));
                    l
                })
                .collect();
            let input: Vec<(Channel, &[(u16, f32)])> = owned.iter().enumerate().map(|(i, l)| (chans[i], &l[..])).collect();
            let cfg = FusionConfig::default();
            let fused = fuse(&input, &cfg, depth);
            let most: f32 = (0..owned.len()).map(|i| cfg.weight(chans[i])).sum();
            for f in &fused {
                prop_assert!(f.score >= 0.0 && f.score <= most + 1e-5);
            }
            for (i, l) in owned.iter().enumerate() {
                if let Some((first, _)) = l.first() {
                    let f = fused.iter().find(|f| f.id == *first).unwrap();
                    let others: f32 = (0..owned.len()).filter(|j| *j != i).map(|j| cfg.weight(chans[j])).sum();
                    prop_assert!(f.score + 1e-5 >= cfg.weight(chans[i]) && f.score <= cfg.weight(chans[i]) + others + 1e-5);
                }
            }
            for w in fused.windows(2) { prop_assert!(w[0].score >= w[1].score); }
        }
    }
}
