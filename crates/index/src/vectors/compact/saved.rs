//! An index saved to disk, so that a large table opens without quantizing and training again: a
//! whole copy ([`CompactIndex::write_to`], the *base*) and a *log* of the documents written since
//! ([`CompactIndex::write_changes`]), each record taking the index from one table version to the
//! next. Adding a document to a library of a million rows then appends its rows (a few hundred
//! kilobytes) instead of writing every row again (hundreds of megabytes); the base is written
//! whole again when the log grows past a share of it, or when the lists are trained again.
//!
//! A log record is `length, body, checksum` (FNV-1a over the body), its body `from, to` (table
//! versions), then each document written: its id, its rows, and each row's chunk id, list, scale
//! and codes. A record cut short by a crash, or altered, fails its checksum: the log is read up
//! to it, and the table itself is the truth past it.

use super::{CompactIndex, List};

/// The first bytes of a saved index ([`CompactIndex::write_to`]), then the layout's version.
const MAGIC: &[u8; 8] = b"FOLIOIVF";
const LAYOUT: u32 = 1;
/// The first bytes of a log ([`log_header`]), then the layout's version and the base's stamp.
const LOG_MAGIC: &[u8; 8] = b"FOLIOLOG";

impl CompactIndex {
    /// Writes the index, stamped with `stamp` (the version of the table it mirrors), so that
    /// [`Self::read_from`] gives it back without training or quantizing anything.
    pub fn write_to(&self, stamp: u64, w: &mut impl std::io::Write) -> std::io::Result<()> {
        w.write_all(MAGIC)?;
        w.write_all(&LAYOUT.to_le_bytes())?;
        w.write_all(&(self.dim as u32).to_le_bytes())?;
        for n in [stamp, self.len() as u64, self.trained_at as u64, self.lists.len() as u64] {
            w.write_all(&n.to_le_bytes())?;
        }
        w.write_all(&self.probe_share.to_le_bytes())?;
        w.write_all(&(self.centroids.len() as u64).to_le_bytes())?;
        for x in &self.centroids {
            w.write_all(&x.to_le_bytes())?;
        }
        for l in &self.lists {
            w.write_all(&(l.ids.len() as u64).to_le_bytes())?;
            for (id, doc) in l.ids.iter().zip(&l.docs) {
                w.write_all(&id.to_le_bytes())?;
                w.write_all(&doc.to_le_bytes())?;
            }
            for s in &l.scales {
                w.write_all(&s.to_le_bytes())?;
            }
            let codes: Vec<u8> = l.codes.iter().map(|&c| c as u8).collect();
            w.write_all(&codes)?;
        }
        w.write_all(MAGIC)
    }

    /// An index written by [`Self::write_to`]: `Ok(None)` when it was written for another table
    /// version or width (stale), `Err` when the bytes are not such an index (torn or damaged).
    pub fn read_from(bytes: &[u8], dim: usize, stamp: u64) -> Result<Option<CompactIndex>, String> {
        Ok(Self::read_base(bytes, dim, Some(stamp))?.map(|(_, index)| index))
    }

    /// An index written by [`Self::write_to`], with its stamp: `Ok(None)` when it was written for
    /// another width, or for a stamp other than `stamp` where one is given.
    pub fn read_base(
        bytes: &[u8],
        dim: usize,
        stamp: Option<u64>,
    ) -> Result<Option<(u64, CompactIndex)>, String> {
        let mut r = Reader { bytes, at: 0 };
        if r.take(8)? != MAGIC || u32::from_le_bytes(r.array()?) != LAYOUT {
            return Err("not a saved index of this layout".into());
        }
        let width = u32::from_le_bytes(r.array()?) as usize;
        let [saved, rows, trained_at, lists] = [r.u64()?, r.u64()?, r.u64()?, r.u64()?];
        if stamp.is_some_and(|s| s != saved) || width != dim {
            return Ok(None);
        }
        let mut index = CompactIndex::new(dim);
        index.probe_share = f32::from_le_bytes(r.array()?);
        index.trained_at = trained_at as usize;
        let centroids = r.u64()? as usize;
        if centroids != if lists > 1 { lists as usize * dim } else { 0 } {
            return Err("centroids and lists disagree".into());
        }
        index.centroids = r
            .take(centroids * 4)?
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
            .collect();
        index.lists = Vec::with_capacity(lists as usize);
        index.place.reserve(rows as usize);
        for list in 0..lists as usize {
            let n = r.u64()? as usize;
            let pairs = r.take(n.checked_mul(16).ok_or("a list too long")?)?;
            let mut l = List { ids: Vec::with_capacity(n), docs: Vec::with_capacity(n), ..List::default() };
            for pair in pairs.chunks_exact(16) {
                let (id, doc) = (
                    i64::from_le_bytes(pair[..8].try_into().unwrap()),
                    i64::from_le_bytes(pair[8..].try_into().unwrap()),
                );
                if index.place.insert(id, (list as u32, l.ids.len() as u32)).is_some() {
                    return Err(format!("row {id} saved twice"));
                }
                index.by_doc.entry(doc).or_default().push(id);
                l.ids.push(id);
                l.docs.push(doc);
            }
            l.scales =
                r.take(n * 4)?.chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect();
            l.codes = r.take(n * dim)?.iter().map(|&b| b as i8).collect();
            index.lists.push(l);
        }
        if index.lists.is_empty()
            || index.len() != rows as usize
            || r.take(8)? != MAGIC
            || r.at != bytes.len()
        {
            return Err("the saved index ends early or late".into());
        }
        Ok(Some((saved, index)))
    }

    /// Appends to `w` one log record taking the index from table version `from` to `to`: the rows
    /// `docs` have now (none for a document removed). Returns the bytes written.
    pub fn write_changes(
        &self,
        from: u64,
        to: u64,
        docs: &[i64],
        w: &mut impl std::io::Write,
    ) -> std::io::Result<u64> {
        let mut docs = docs.to_vec();
        docs.sort_unstable();
        docs.dedup();
        let mut body = Vec::new();
        body.extend_from_slice(&from.to_le_bytes());
        body.extend_from_slice(&to.to_le_bytes());
        body.extend_from_slice(&(docs.len() as u64).to_le_bytes());
        for doc in docs {
            let ids = self.by_doc.get(&doc).map(Vec::as_slice).unwrap_or_default();
            body.extend_from_slice(&doc.to_le_bytes());
            body.extend_from_slice(&(ids.len() as u64).to_le_bytes());
            for id in ids {
                let (list, pos) = self.place[id];
                let (l, p) = (&self.lists[list as usize], pos as usize);
                body.extend_from_slice(&id.to_le_bytes());
                body.extend_from_slice(&list.to_le_bytes());
                body.extend_from_slice(&l.scales[p].to_le_bytes());
                body.extend(l.codes[p * self.dim..(p + 1) * self.dim].iter().map(|&c| c as u8));
            }
        }
        w.write_all(&(body.len() as u64).to_le_bytes())?;
        w.write_all(&body)?;
        w.write_all(&fnv1a(&body).to_le_bytes())?;
        Ok(16 + body.len() as u64)
    }

    /// Applies the records of `log` (a log of the base this index was read from, stamped `stamp`)
    /// in order while each starts where the last ended, up to table version `until`. Returns the
    /// version reached and the log's bytes read; a record cut short, altered or out of sequence
    /// ends the reading there.
    pub fn replay(&mut self, log: &[u8], stamp: u64, until: u64) -> (u64, u64) {
        let mut r = Reader { bytes: log, at: 0 };
        let header =
            (|| Ok::<_, String>((r.take(8)? == LOG_MAGIC, u32::from_le_bytes(r.array()?), r.u64()?)))();
        if header != Ok((true, LAYOUT, stamp)) {
            return (stamp, 0);
        }
        let mut at = stamp;
        while at != until && r.at < log.len() {
            let start = r.at;
            let Ok(Some(to)) = self.apply_record(&mut r, at) else {
                r.at = start;
                break;
            };
            at = to;
        }
        (at, r.at as u64)
    }

    /// Reads one record from `r` and applies it if it is whole and starts at version `at`,
    /// giving the version it ends at: `Ok(None)` or `Err` (nothing applied) otherwise.
    fn apply_record(&mut self, r: &mut Reader<'_>, at: u64) -> Result<Option<u64>, String> {
        let len = r.u64()? as usize;
        let body = r.take(len)?;
        if u64::from_le_bytes(r.array()?) != fnv1a(body) {
            return Ok(None);
        }
        let mut b = Reader { bytes: body, at: 0 };
        let (from, to) = (b.u64()?, b.u64()?);
        if from != at {
            return Ok(None);
        }
        // Checked whole before anything is applied, so that a record is applied whole or not at all.
        let mut docs = Vec::new();
        for _ in 0..b.u64()? {
            let doc = i64::from_le_bytes(b.array()?);
            let mut rows = Vec::new();
            for _ in 0..b.u64()? {
                let id = i64::from_le_bytes(b.array()?);
                let list = u32::from_le_bytes(b.array()?);
                let scale = f32::from_le_bytes(b.array()?);
                let codes = b.take(self.dim)?;
                if list as usize >= self.lists.len() {
                    return Err(format!("row {id} in list {list} of {}", self.lists.len()));
                }
                rows.push((id, list as usize, scale, codes));
            }
            docs.push((doc, rows));
        }
        if b.at != body.len() {
            return Err("a log record ends late".into());
        }
        for (doc, rows) in docs {
            self.remove_document(doc);
            for (id, list, scale, codes) in rows {
                let codes: Vec<i8> = codes.iter().map(|&c| c as i8).collect();
                self.add_row(list, id, doc, &codes, scale);
            }
        }
        Ok(Some(to))
    }
}

/// The first bytes of a log of the base stamped `stamp`.
pub fn log_header(stamp: u64) -> Vec<u8> {
    let mut h = LOG_MAGIC.to_vec();
    h.extend_from_slice(&LAYOUT.to_le_bytes());
    h.extend_from_slice(&stamp.to_le_bytes());
    h
}

/// FNV-1a, 64 bits: a log record's checksum.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3))
}

/// Reads a saved index's bytes in order, each read checked against the end.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end =
            self.at.checked_add(n).filter(|e| *e <= self.bytes.len()).ok_or("the saved index ends early")?;
        let got = &self.bytes[self.at..end];
        self.at = end;
        Ok(got)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], String> {
        Ok(self.take(N)?.try_into().expect("take gives N bytes"))
    }

    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.array()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIM: usize = 8;

    fn vector(i: usize) -> Vec<f32> {
        (0..DIM).map(|j| ((i * 7 + j * 3) % 11) as f32 - 5.0 + (i % 13) as f32 * 0.1).collect()
    }

    fn put(x: &mut CompactIndex, doc: i64, ids: std::ops::Range<usize>) {
        let vs: Vec<(i64, Vec<f32>)> = ids.map(|i| (i as i64, vector(i))).collect();
        let rows: Vec<(i64, &[f32])> = vs.iter().map(|(i, v)| (*i, v.as_slice())).collect();
        x.put_document(doc, &rows);
    }

    fn answers(x: &CompactIndex) -> Vec<Vec<(i64, f32)>> {
        let mut out: Vec<Vec<(i64, f32)>> =
            (0..600).step_by(37).map(|i| x.search(&vector(i), 10, &[])).collect();
        out.extend([1, 2, 5].map(|d| x.search(&vector(3), 200, &[d])));
        out
    }

    /// A log replayed on its base gives the index as written since, record by record; a record
    /// cut short, altered, out of sequence or of another base ends the reading before it.
    #[test]
    fn a_log_replayed_on_its_base_gives_the_index_written_since() {
        let mut x = CompactIndex::new(DIM);
        for d in 0..4 {
            put(&mut x, d, d as usize * 100..(d as usize + 1) * 100);
        }
        let mut base = Vec::new();
        x.write_to(1, &mut base).unwrap();
        let mut log = log_header(1);
        put(&mut x, 5, 500..600);
        let first = x.write_changes(1, 2, &[5], &mut log).unwrap();
        let after_first = (answers(&x), x.len());
        let first_end = log.len() as u64;
        assert_eq!(first_end, log_header(1).len() as u64 + first);
        x.remove_document(1);
        put(&mut x, 2, 200..250);
        x.write_changes(2, 3, &[1, 2, 2], &mut log).unwrap();
        let replayed = |log: &[u8], stamp: u64, until: u64| {
            let (_, mut y) = CompactIndex::read_base(&base, DIM, None).unwrap().unwrap();
            let (at, read) = y.replay(log, stamp, until);
            (y, at, read)
        };
        let (y, at, read) = replayed(&log, 1, 3);
        assert_eq!((at, read), (3, log.len() as u64));
        assert_eq!((y.len(), answers(&y)), (x.len(), answers(&x)));
        assert!(y.search(&vector(150), 5, &[1]).is_empty(), "the removed document is gone");
        // Up to version 2 only.
        let (y, at, read) = replayed(&log, 1, 2);
        assert_eq!((at, read), (2, first_end));
        assert_eq!((answers(&y), y.len()), after_first);
        // The last record cut short or altered: read up to the one before.
        let mut altered = log.clone();
        let n = altered.len();
        altered[n - 30] ^= 1;
        for bad in [&log[..log.len() - 1], &log[..first_end as usize + 9], &altered[..]] {
            let (y, at, read) = replayed(bad, 1, 3);
            assert_eq!((at, read), (2, first_end));
            assert_eq!((answers(&y), y.len()), after_first);
        }
        // A log of another base, or a record out of sequence: nothing applied.
        assert_eq!(replayed(&log, 7, 3).1, 7);
        let mut skipped = log_header(1);
        skipped.extend_from_slice(&log[first_end as usize..]);
        let (y, at, _) = replayed(&skipped, 1, 3);
        assert_eq!((at, y.len()), (1, 400));
    }
}
