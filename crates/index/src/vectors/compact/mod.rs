//! Vectors for libraries too large to scan in f32: 8-bit codes in inverted lists.
//!
//! Each vector is stored normalised as `dim` signed bytes and one scale (its largest magnitude
//! over 127): a quarter of its f32 size, and a cosine within about 0.005 of the exact one. Past
//! [`IVF_MIN_ROWS`] rows the vectors are grouped around centroids trained by spherical k-means
//! on a sample (about √rows lists), and a query scans only the lists of the centroids nearest to
//! it ([`CompactIndex::probes`]); below it, and for any search limited to some documents, every
//! row concerned is scanned. New vectors join their nearest list, so adding a document costs what
//! its vectors cost; the centroids are trained again only when the table has grown fourfold since
//! they were (so each row pays for a constant share of the training).
//!
//! The byte products run on the CPU's widest integer SIMD ([`super::int8`]).

mod saved;

pub(super) use saved::log_header;

use super::int8::{dot_i8, dot_rows, quantize};
use super::memory::dot as dot_f32;
use std::collections::HashMap;

/// Rows from which the vectors are split into inverted lists.
pub const IVF_MIN_ROWS: usize = 50_000;
/// Rows scanned from which a query's lists are split between two threads.
const PARALLEL_ROWS: usize = 16_384;
/// Rows trained on per list (a sample of the table).
const TRAIN_PER_LIST: usize = 48;
/// Rounds of k-means.
const TRAIN_ROUNDS: usize = 8;

/// One inverted list: its rows' ids, documents, codes (row-major, `dim` bytes each) and scales.
#[derive(Debug, Default, Clone)]
struct List {
    ids: Vec<i64>,
    docs: Vec<i64>,
    codes: Vec<i8>,
    scales: Vec<f32>,
}

/// 8-bit vectors in inverted lists; see the module note.
#[derive(Debug)]
pub struct CompactIndex {
    dim: usize,
    /// Unit-length centroids, `lists.len()` × `dim`; empty while there is one list.
    centroids: Vec<f32>,
    lists: Vec<List>,
    /// Chunk id → (list, position in it).
    place: HashMap<i64, (u32, u32)>,
    /// Document → its chunk ids.
    by_doc: HashMap<i64, Vec<i64>>,
    /// Rows when the centroids were last trained (0: never).
    trained_at: usize,
    /// The share of the lists a query scans.
    probe_share: f32,
}

fn unit(v: &mut [f32]) {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 {
        v.iter_mut().for_each(|x| *x /= n);
    }
}

impl CompactIndex {
    /// An empty index of `dim`-wide vectors.
    pub fn new(dim: usize) -> CompactIndex {
        CompactIndex {
            dim,
            centroids: Vec::new(),
            lists: vec![List::default()],
            place: HashMap::new(),
            by_doc: HashMap::new(),
            trained_at: 0,
            probe_share: 0.08,
        }
    }

    /// How many rows it holds.
    pub fn len(&self) -> usize {
        self.place.len()
    }

    /// Whether it holds no row.
    pub fn is_empty(&self) -> bool {
        self.place.is_empty()
    }

    /// The rows it held when its centroids were last trained (0: never): a saved log of changes
    /// extends only a base saved since.
    pub fn trained_at(&self) -> usize {
        self.trained_at
    }

    /// How many inverted lists the rows are in (1 below [`IVF_MIN_ROWS`]).
    pub fn lists(&self) -> usize {
        self.lists.len()
    }

    /// The bytes its codes, scales, ids and centroids take.
    pub fn heap_bytes(&self) -> usize {
        let rows = self.len();
        rows * (self.dim + 4 + 8 + 8) + self.centroids.len() * 4 + rows * 32
    }

    /// Scans this share of the lists (at least one) for a query not limited to documents.
    pub fn set_probe_share(&mut self, share: f32) {
        self.probe_share = share.clamp(0.0, 1.0);
    }

    /// The lists a query scans.
    pub fn probes(&self) -> usize {
        ((self.lists.len() as f32 * self.probe_share).ceil() as usize).clamp(1, self.lists.len())
    }

    /// Replaces a document's vectors with `rows` (chunk id, vector).
    pub fn put_document(&mut self, doc_id: i64, rows: &[(i64, &[f32])]) {
        self.remove_document(doc_id);
        for (id, v) in rows {
            self.insert(doc_id, *id, v);
        }
        self.train_if_due();
    }

    /// Adds one row of a document to the list of its nearest centroid (as a table is loaded;
    /// [`Self::train_if_due`] after the last).
    pub fn insert(&mut self, doc_id: i64, id: i64, v: &[f32]) {
        let mut code = Vec::with_capacity(self.dim);
        let scale = quantize(v, &mut code);
        let list = self.nearest_list(v);
        self.add_row(list, id, doc_id, &code, scale);
    }

    /// Adds a quantized row of a document to `list`.
    fn add_row(&mut self, list: usize, id: i64, doc_id: i64, code: &[i8], scale: f32) {
        self.push(list, id, doc_id, code, scale);
        self.by_doc.entry(doc_id).or_default().push(id);
    }

    /// Trains the centroids again when the rows are past [`IVF_MIN_ROWS`] and four times as many
    /// as at the last training.
    pub fn train_if_due(&mut self) {
        if self.len() >= IVF_MIN_ROWS && self.len() >= 4 * self.trained_at.max(1) {
            self.train();
        }
    }

    /// Removes a document's vectors.
    pub fn remove_document(&mut self, doc_id: i64) {
        for id in self.by_doc.remove(&doc_id).unwrap_or_default() {
            self.remove_row(id);
        }
    }

    fn push(&mut self, list: usize, id: i64, doc: i64, code: &[i8], scale: f32) {
        if self.place.contains_key(&id) {
            self.remove_row(id);
        }
        let l = &mut self.lists[list];
        self.place.insert(id, (list as u32, l.ids.len() as u32));
        l.ids.push(id);
        l.docs.push(doc);
        l.codes.extend_from_slice(code);
        l.scales.push(scale);
    }

    /// Takes a row out of its list, moving the list's last row into its place.
    fn remove_row(&mut self, id: i64) {
        let Some((list, pos)) = self.place.remove(&id) else { return };
        let (list, pos, dim) = (list as usize, pos as usize, self.dim);
        let l = &mut self.lists[list];
        let last = l.ids.len() - 1;
        l.ids.swap_remove(pos);
        l.docs.swap_remove(pos);
        l.scales.swap_remove(pos);
        if pos != last {
            l.codes.copy_within(last * dim..(last + 1) * dim, pos * dim);
            self.place.insert(l.ids[pos], (list as u32, pos as u32));
        }
        l.codes.truncate(last * dim);
    }

    fn nearest_list(&self, v: &[f32]) -> usize {
        if self.centroids.is_empty() {
            return 0;
        }
        nearest(&self.centroids, self.dim, v)
    }

    /// Trains about √rows centroids on a sample (spherical k-means) and puts every row in the
    /// list of its nearest one.
    fn train(&mut self) {
        let rows = self.len();
        let k = ((rows as f64).sqrt().round() as usize).clamp(16, 4096);
        let dim = self.dim;
        // The rows back in f32 (code × scale, unit length), a strided sample of them.
        let all: Vec<(&List, usize)> =
            self.lists.iter().flat_map(|l| (0..l.ids.len()).map(move |p| (l, p))).collect();
        let want = (k * TRAIN_PER_LIST).min(rows);
        let step = (rows / want).max(1);
        let sample: Vec<Vec<f32>> = all
            .iter()
            .step_by(step)
            .take(want)
            .map(|(l, p)| l.codes[p * dim..(p + 1) * dim].iter().map(|&c| c as f32).collect())
            .map(|mut v: Vec<f32>| {
                unit(&mut v);
                v
            })
            .collect();
        let mut centroids: Vec<f32> =
            sample.iter().step_by((sample.len() / k).max(1)).take(k).flatten().copied().collect();
        let k = centroids.len() / dim;
        for _ in 0..TRAIN_ROUNDS {
            let mut sums = vec![0f32; k * dim];
            let mut counts = vec![0usize; k];
            let assigned = assign(&centroids, dim, &sample);
            for (v, &c) in sample.iter().zip(&assigned) {
                counts[c] += 1;
                sums[c * dim..(c + 1) * dim].iter_mut().zip(v).for_each(|(s, x)| *s += x);
            }
            for c in 0..k {
                // An empty cluster keeps its centroid.
                if counts[c] > 0 {
                    let s = &mut sums[c * dim..(c + 1) * dim];
                    unit(s);
                    centroids[c * dim..(c + 1) * dim].copy_from_slice(s);
                }
            }
        }
        // Every row into its nearest list.
        let old = std::mem::take(&mut self.lists);
        self.centroids = centroids;
        self.lists = vec![List::default(); k];
        self.place.clear();
        // A block of rows at a time back in f32 (a million never all at once).
        const BLOCK: usize = 1 << 15;
        for l in old {
            for start in (0..l.ids.len()).step_by(BLOCK) {
                let end = (start + BLOCK).min(l.ids.len());
                let rows: Vec<Vec<f32>> = l.codes[start * dim..end * dim]
                    .chunks_exact(dim)
                    .map(|c| c.iter().map(|&x| x as f32).collect())
                    .collect();
                let lists = assign(&self.centroids, dim, &rows);
                for (p, list) in (start..end).zip(lists) {
                    let code = &l.codes[p * dim..(p + 1) * dim];
                    self.push(list, l.ids[p], l.docs[p], code, l.scales[p]);
                }
            }
        }
        self.trained_at = rows;
    }

    /// The `limit` rows most similar to `query` (cosine, from the codes), best first; ties by
    /// chunk id. `docs` limits the search to those documents (every one of their rows scanned).
    pub fn search(&self, query: &[f32], limit: usize, docs: &[i64]) -> Vec<(i64, f32)> {
        let mut q = Vec::with_capacity(self.dim);
        let qs = quantize(query, &mut q);
        let dim = self.dim;
        let mut all: Vec<(i64, f32)> = Vec::new();
        if !docs.is_empty() {
            for id in docs.iter().filter_map(|d| self.by_doc.get(d)).flatten() {
                if let Some(&(list, pos)) = self.place.get(id) {
                    let (l, p) = (&self.lists[list as usize], pos as usize);
                    let d = dot_i8(&q, &l.codes[p * dim..(p + 1) * dim]);
                    all.push((l.ids[p], d as f32 * qs * l.scales[p]));
                }
            }
            return top(all, limit);
        }
        let lists = self.nearest_lists(query);
        let rows: usize = lists.iter().map(|&l| self.lists[l].ids.len()).sum();
        if rows < PARALLEL_ROWS {
            return self.scan(&lists, &q, qs, limit);
        }
        // Two halves of the rows, one on a thread of its own.
        let mut half = 0;
        let split = lists
            .iter()
            .position(|&l| {
                half += self.lists[l].ids.len();
                half >= rows / 2
            })
            .map_or(lists.len(), |i| i + 1);
        let (first, second) = lists.split_at(split);
        let (mut a, b) = std::thread::scope(|s| {
            let other = s.spawn(|| self.scan(second, &q, qs, limit));
            let mine = self.scan(first, &q, qs, limit);
            (mine, other.join().expect("a list-scanning thread panicked"))
        });
        a.extend(b);
        top(a, limit)
    }

    /// The best `limit` rows of `lists` for the quantized query `q` (scale `qs`).
    /// Rows below the `limit`-th best score so far are not kept: each time twice that many (or
    /// 1,024) are kept, they are cut to the best `limit` and the bar raised to the weakest of those.
    fn scan(&self, lists: &[usize], q: &[i8], qs: f32, limit: usize) -> Vec<(i64, f32)> {
        if limit == 0 {
            return Vec::new();
        }
        let most = (2 * limit).max(1024);
        let (mut kept, mut dots) = (Vec::with_capacity(most + 1024), Vec::new());
        let mut bar = f32::NEG_INFINITY;
        for &list in lists {
            let l = &self.lists[list];
            dot_rows(q, &l.codes, &mut dots);
            for ((id, d), s) in l.ids.iter().zip(&dots).zip(&l.scales) {
                let score = *d as f32 * qs * s;
                // Equal scores are kept: ties go to the smaller chunk id.
                if score >= bar {
                    kept.push((*id, score));
                }
            }
            if kept.len() > most {
                kept = top(kept, limit);
                bar = kept.last().map_or(f32::NEG_INFINITY, |w| w.1);
            }
        }
        top(kept, limit)
    }

    fn nearest_lists(&self, query: &[f32]) -> Vec<usize> {
        if self.centroids.is_empty() {
            return vec![0];
        }
        let mut scored: Vec<(usize, f32)> =
            self.centroids.chunks_exact(self.dim).map(|c| dot_f32(query, c)).enumerate().collect();
        let n = self.probes();
        scored.select_nth_unstable_by(n - 1, |a, b| b.1.total_cmp(&a.1));
        scored.truncate(n);
        scored.into_iter().map(|(i, _)| i).collect()
    }
}

/// The `limit` best of `all`, best first; ties by chunk id.
fn top(mut all: Vec<(i64, f32)>, limit: usize) -> Vec<(i64, f32)> {
    let order = |a: &(i64, f32), b: &(i64, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if all.len() > limit && limit > 0 {
        all.select_nth_unstable_by(limit - 1, order);
    }
    all.truncate(limit);
    all.sort_by(order);
    all
}

/// The index of the centroid (of `centroids`, `dim` wide each) most similar to `v`.
fn nearest(centroids: &[f32], dim: usize, v: &[f32]) -> usize {
    let mut best = (0, f32::MIN);
    for (i, c) in centroids.chunks_exact(dim).enumerate() {
        let s = dot_f32(v, c);
        if s > best.1 {
            best = (i, s);
        }
    }
    best.0
}

/// The nearest centroid of each vector, on every core.
fn assign(centroids: &[f32], dim: usize, vectors: &[Vec<f32>]) -> Vec<usize> {
    let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let per = vectors.len().div_ceil(threads).max(1);
    let nearest = |v: &Vec<f32>| nearest(centroids, dim, v);
    std::thread::scope(|s| {
        let parts: Vec<_> = vectors
            .chunks(per)
            .map(|part| s.spawn(move || part.iter().map(nearest).collect::<Vec<_>>()))
            .collect();
        parts.into_iter().flat_map(|p| p.join().expect("a k-means thread panicked")).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Clustered unit vectors, as sentence embeddings are.
    fn clustered(rows: usize, dim: usize, seed: u64) -> Vec<Vec<f32>> {
        let mut s = seed;
        let mut rnd = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f32 / (1u64 << 53) as f32 * 2.0 - 1.0
        };
        let centers: Vec<Vec<f32>> = (0..50).map(|_| (0..dim).map(|_| rnd()).collect()).collect();
        (0..rows)
            .map(|i| {
                let mut v: Vec<f32> = centers[i % 50].iter().map(|c| c + 0.6 * rnd()).collect();
                unit(&mut v);
                v
            })
            .collect()
    }

    fn exact(vectors: &[Vec<f32>], q: &[f32], limit: usize) -> Vec<i64> {
        let mut s: Vec<(i64, f32)> =
            vectors.iter().enumerate().map(|(i, v)| (i as i64, dot_f32(q, v))).collect();
        s.sort_by(|a, b| b.1.total_cmp(&a.1));
        s.into_iter().take(limit).map(|x| x.0).collect()
    }

    #[test]
    fn scores_are_near_the_cosine_and_the_top_ten_near_exact() {
        let (dim, rows) = (64, 3000);
        let vectors = clustered(rows, dim, 7);
        let mut x = CompactIndex::new(dim);
        for (d, chunk) in vectors.chunks(100).enumerate() {
            let rows: Vec<(i64, &[f32])> =
                chunk.iter().enumerate().map(|(i, v)| ((d * 100 + i) as i64, v.as_slice())).collect();
            x.put_document(d as i64, &rows);
        }
        assert_eq!((x.len(), x.lists()), (rows, 1));
        let mut found = 0;
        for q in vectors.iter().step_by(97).take(20) {
            let hits = x.search(q, 10, &[]);
            for (id, s) in &hits {
                assert!((s - dot_f32(q, &vectors[*id as usize])).abs() < 0.02);
            }
            let truth = exact(&vectors, q, 10);
            found += hits.iter().filter(|h| truth.contains(&h.0)).count();
        }
        assert!(found as f32 / 200.0 >= 0.9, "recall@10 {}", found as f32 / 200.0);
        // Limited to two documents: only their rows, all of them scanned.
        let hits = x.search(&vectors[0], 1000, &[3, 5]);
        assert_eq!(hits.len(), 200);
        assert!(hits.iter().all(|h| (300..400).contains(&h.0) || (500..600).contains(&h.0)));
    }

    /// Scanning every list keeps exactly the best rows by their 8-bit scores, ties by chunk id,
    /// although rows below the best so far are dropped as the lists go by: vectors of few
    /// distinct values, so that many scores tie.
    #[test]
    fn the_lists_scanned_keep_the_best_rows_ties_by_chunk_id() {
        let dim = 8;
        let mut s = 5u64;
        let mut level = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s % 3) as f32 - 1.0
        };
        let vectors: Vec<Vec<f32>> =
            (0..IVF_MIN_ROWS + 5000).map(|_| (0..dim).map(|_| level()).collect()).collect();
        let mut x = CompactIndex::new(dim);
        let rows: Vec<(i64, &[f32])> =
            vectors.iter().enumerate().map(|(i, v)| (i as i64, v.as_slice())).collect();
        x.put_document(0, &rows);
        assert!(x.lists() > 100, "{} lists", x.lists());
        x.set_probe_share(1.0);
        for (q, limit) in vectors.iter().step_by(9973).zip([1, 7, 200, 3000, 1]) {
            let mut code = Vec::new();
            let qs = quantize(q, &mut code);
            let mut want: Vec<(i64, f32)> = vectors
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let mut c = Vec::new();
                    let vs = quantize(v, &mut c);
                    (i as i64, dot_i8(&code, &c) as f32 * qs * vs)
                })
                .collect();
            want.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            want.truncate(limit);
            assert_eq!(x.search(q, limit, &[]), want, "limit {limit}");
        }
    }

    #[test]
    fn past_the_threshold_rows_go_into_lists_and_stay_findable() {
        let dim = 16;
        let vectors = clustered(IVF_MIN_ROWS + 1000, dim, 11);
        let mut x = CompactIndex::new(dim);
        for (d, chunk) in vectors.chunks(1000).enumerate() {
            let rows: Vec<(i64, &[f32])> =
                chunk.iter().enumerate().map(|(i, v)| ((d * 1000 + i) as i64, v.as_slice())).collect();
            x.put_document(d as i64, &rows);
        }
        assert!(x.lists() > 100, "{} lists", x.lists());
        // Every row is where `place` says, and a row finds itself first.
        for (id, &(list, pos)) in &x.place {
            assert_eq!(x.lists[list as usize].ids[pos as usize], *id);
        }
        x.set_probe_share(0.05);
        for i in (0..vectors.len()).step_by(5011) {
            assert_eq!(x.search(&vectors[i], 1, &[])[0].0, i as i64);
        }
        // Replacing and removing documents keeps the places right.
        x.remove_document(3);
        let rows: Vec<(i64, &[f32])> = vec![(7, vectors[7].as_slice())];
        x.put_document(0, &rows);
        assert_eq!(x.len(), vectors.len() - 2000 + 1);
        for (id, &(list, pos)) in &x.place {
            assert_eq!(x.lists[list as usize].ids[pos as usize], *id);
        }
        assert!(x.search(&vectors[3500], 5, &[3]).is_empty());
        assert_eq!(x.search(&vectors[7], 1, &[0])[0].0, 7);
        saved_index_reads_back_the_same(&x, &vectors);
    }

    /// A saved index (trained lists here) reads back answering as the original does, and only
    /// for its own table version and width; torn or altered bytes are an error.
    fn saved_index_reads_back_the_same(x: &CompactIndex, vectors: &[Vec<f32>]) {
        let mut bytes = Vec::new();
        x.write_to(42, &mut bytes).unwrap();
        let back = CompactIndex::read_from(&bytes, x.dim, 42).unwrap().expect("same stamp");
        assert_eq!((back.len(), back.lists(), back.trained_at), (x.len(), x.lists(), x.trained_at));
        assert_eq!(back.by_doc.len(), x.by_doc.len());
        for i in (0..vectors.len()).step_by(977) {
            assert_eq!(back.search(&vectors[i], 10, &[]), x.search(&vectors[i], 10, &[]));
            assert_eq!(back.search(&vectors[i], 3, &[1, 4]), x.search(&vectors[i], 3, &[1, 4]));
        }
        assert!(CompactIndex::read_from(&bytes, x.dim, 43).unwrap().is_none(), "another version");
        assert!(CompactIndex::read_from(&bytes, x.dim + 1, 42).unwrap().is_none(), "another width");
        for cut in [0, 7, 40, bytes.len() / 2, bytes.len() - 1] {
            assert!(CompactIndex::read_from(&bytes[..cut], x.dim, 42).is_err(), "torn at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(CompactIndex::read_from(&longer, x.dim, 42).is_err());
    }

    #[test]
    fn a_small_index_saved_reads_back_too() {
        let vectors = clustered(500, 8, 3);
        let mut x = CompactIndex::new(8);
        for (d, chunk) in vectors.chunks(100).enumerate() {
            let rows: Vec<(i64, &[f32])> =
                chunk.iter().enumerate().map(|(i, v)| ((d * 100 + i) as i64, v.as_slice())).collect();
            x.put_document(d as i64, &rows);
        }
        assert_eq!(x.lists(), 1);
        saved_index_reads_back_the_same(&x, &vectors);
        let mut empty = Vec::new();
        CompactIndex::new(8).write_to(1, &mut empty).unwrap();
        assert_eq!(CompactIndex::read_from(&empty, 8, 1).unwrap().unwrap().len(), 0);
    }
}
