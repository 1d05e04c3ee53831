//! How a call's texts are cut into batches for the encoder's threads.

/// Batches of at most about this many pieces. Small: the threads claim batches as they finish
/// them, so a call ends with one thread idle for at most part of a batch, and a batch's widest
/// activations (pieces × 1536 floats) stay near the core's own cache. Ingesting ObliQA's first
/// eleven rulebooks as on an AVX2-only CPU, against 2,048 pieces: the threads busy 97% of each
/// call, not 93%, and the calls 5-14% shorter (128 pieces gives the same as 256). The products
/// still see hundreds of rows, as the kernels' blocks (at most 48 rows) want.
const MAX_BATCH_PIECES: usize = 256;

/// What one text costs against another: per piece, the linear layers' fixed work plus attention's,
/// which grows with the text's length. At MiniLM's size a piece's linear multiply-adds (6 · (4h² +
/// 2hi)) are about 1,150 times one attention score's per layer (2h), and attention runs in f32 at
/// about half the 8-bit products' rate: this is that ratio, rounded.
const ATTENTION_PARITY: usize = 1024;

/// The work of a text of `len` pieces, in the unit of one attention score per piece.
fn cost(len: usize) -> usize {
    len * (ATTENTION_PARITY + len)
}

/// `seqs` cut into consecutive batches, as many as a multiple of the `workers` that keeps each
/// under [`MAX_BATCH_PIECES`] on average; each cut falls at the text boundary nearest its share of
/// the work (see [`cost`]: the texts come sorted by length, so the last batches hold the longest
/// texts, whose pieces cost more), so that the threads, which wait for one another at the end,
/// finish together.
pub(super) fn batches(seqs: &[&[u32]], workers: usize) -> Vec<std::ops::Range<usize>> {
    let total: usize = seqs.iter().map(|s| s.len()).sum();
    let work: usize = seqs.iter().map(|s| cost(s.len())).sum();
    let count = total.div_ceil(MAX_BATCH_PIECES).div_ceil(workers).max(1) * workers;
    let mut out = Vec::with_capacity(count);
    let (mut start, mut before) = (0, 0);
    let mut next = 1;
    for (i, s) in seqs.iter().enumerate() {
        let after = before + cost(s.len());
        let goal = work * next / count;
        // Cut after text i when its end is nearer the goal than its start is.
        if next < count && after >= goal {
            if goal.saturating_sub(before) < after - goal && i > start {
                out.push(start..i);
                start = i;
            } else {
                out.push(start..i + 1);
                start = i + 1;
            }
            next += 1;
        }
        before = after;
    }
    if start < seqs.len() {
        out.push(start..seqs.len());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Batches hold every text once, in order; there are as many as the pieces need, a
        /// multiple of the workers (fewer only where a text outweighs a share); and none holds
        /// more than its share of the work and one text.
        #[test]
        fn batches_cover_the_texts_in_balanced_parts(
            lens in proptest::collection::vec(1usize..300, 1..120),
            workers in 1usize..5,
        ) {
            let seqs: Vec<Vec<u32>> = lens.iter().map(|&n| vec![0; n]).collect();
            let refs: Vec<&[u32]> = seqs.iter().map(|s| s.as_slice()).collect();
            let got = batches(&refs, workers);
            let flat: Vec<usize> = got.iter().flat_map(|r| r.clone()).collect();
            proptest::prop_assert_eq!(flat, (0..lens.len()).collect::<Vec<_>>());
            proptest::prop_assert!(got.iter().all(|r| !r.is_empty()));
            let total: usize = lens.iter().sum();
            let want = total.div_ceil(MAX_BATCH_PIECES).div_ceil(workers) * workers;
            let share = lens.iter().map(|&n| cost(n)).sum::<usize>() as f64 / want as f64;
            let costliest = cost(*lens.iter().max().unwrap()) as f64;
            if costliest <= share / 2.0 {
                proptest::prop_assert_eq!(got.len(), want, "{:?}", got);
            }
            proptest::prop_assert!(got.len() <= want);
            for r in &got {
                let c = lens[r.clone()].iter().map(|&n| cost(n)).sum::<usize>() as f64;
                proptest::prop_assert!(c <= share + costliest, "{:?}: {} against {}", r, c, share);
            }
        }
    }
}
