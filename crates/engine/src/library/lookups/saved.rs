//! The lookup tables saved beside the catalog (`lookups.bin` in the library folder), so that an
//! open reads them back instead of computing them from every section and chunk (at a million
//! chunks, seconds of reading the catalog through).
//!
//! They are saved with the catalog's change stamp (`Catalog::change_stamp`, drawn again by every
//! change to what they are computed from) and read back only while the catalog still holds that
//! stamp, by the Folio build that wrote them, and whole (a checksum over what follows the
//! header). Anything else (no file, another stamp or version, a file cut short or damaged) means
//! computing them, as every open did before; the library is never wrong for it, only slower. A
//! team library's catalog keeps no stamp: its tables are always computed.
//!
//! The file: a 64-byte header (magic, format, stamp, length and checksum of the rest, the Folio
//! build and version), then the tables in bincode.

use super::{Lookups, Made, Outline};
use crate::library::glossary::{Adoptions, NameScan};
use folio_index::catalog::DocumentRow;
use folio_index::exact::ExactIndex;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::{Read, Seek, Write};
use std::path::Path;

/// The file's name in the library folder.
pub(super) const FILE: &str = "lookups.bin";
const MAGIC: [u8; 8] = *b"FOLIOLKP";
/// The layout of what follows the header.
const FORMAT: u32 = 1;
const HEADER: usize = 64;
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The build of Folio running: its version and the sources that compute the tables (`build.rs`:
/// a build of the same version may compute them otherwise), the same for each of its programs.
fn build() -> u64 {
    let id = format!("{VERSION} {}", env!("FOLIO_SOURCE_ID"));
    xxhash_rust::xxh3::xxh3_64(id.as_bytes())
}

/// The tables' own parts, what is saved of them (the rest is made again: which documents they
/// saw, from their list; the section indexes made as references need them).
#[derive(Serialize, Deserialize)]
pub(super) struct Tables {
    pub(super) docs: Vec<DocumentRow>,
    #[serde(with = "folio_index::shared")]
    pub(super) outlines: HashMap<i64, Outline>,
    pub(super) exact: ExactIndex,
    pub(super) adoptions: Adoptions,
    pub(super) library_titles: HashMap<i64, String>,
    pub(super) scan: NameScan,
}

impl Tables {
    /// Copies of `l`'s parts, sharing their large maps (so that they are written on a thread of
    /// their own while the library goes on).
    pub(super) fn of(l: &Lookups) -> Tables {
        Tables {
            docs: l.docs.clone(),
            outlines: l.outlines.clone(),
            exact: l.exact.clone(),
            adoptions: l.adoptions.clone(),
            library_titles: l.library_titles.clone(),
            scan: l.base.scan.clone(),
        }
    }
}

/// The header: what the tables were saved from and by, and what follows it.
#[derive(Debug, PartialEq)]
struct Header {
    format: u32,
    stamp: i64,
    len: u64,
    checksum: u64,
    /// [`build`].
    build: u64,
    version: String,
}

impl Header {
    fn bytes(&self) -> [u8; HEADER] {
        let mut b = [0u8; HEADER];
        b[..8].copy_from_slice(&MAGIC);
        b[8..12].copy_from_slice(&self.format.to_le_bytes());
        b[16..24].copy_from_slice(&self.stamp.to_le_bytes());
        b[24..32].copy_from_slice(&self.len.to_le_bytes());
        b[32..40].copy_from_slice(&self.checksum.to_le_bytes());
        b[40..48].copy_from_slice(&self.build.to_le_bytes());
        let v = self.version.as_bytes();
        let n = v.len().min(HEADER - 48);
        b[48..48 + n].copy_from_slice(&v[..n]);
        b
    }

    /// The header of a file this code wrote; `None` for anything else.
    fn parse(b: &[u8; HEADER]) -> Option<Header> {
        if b[..8] != MAGIC {
            return None;
        }
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or_default());
        let version = b[48..].split(|&c| c == 0).next().unwrap_or_default();
        Some(Header {
            format: u32::from_le_bytes(b[8..12].try_into().unwrap_or_default()),
            stamp: u64_at(16) as i64,
            len: u64_at(24),
            checksum: u64_at(32),
            build: u64_at(40),
            version: String::from_utf8_lossy(version).into_owned(),
        })
    }
}

/// Bytes written through, counted and hashed.
struct Hashing<T> {
    inner: T,
    hash: xxhash_rust::xxh3::Xxh3,
    len: u64,
}

impl<T> Hashing<T> {
    fn new(inner: T) -> Hashing<T> {
        Hashing { inner, hash: xxhash_rust::xxh3::Xxh3::new(), len: 0 }
    }
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash.update(&buf[..n]);
        self.len += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Bincode's options for the tables, the same for writing and reading: lengths and integers as
/// variable-length integers.
fn options() -> impl bincode::Options {
    bincode::DefaultOptions::new()
}

/// Why saved tables were not read back (a file there but not usable; logged, never shown).
#[derive(Debug, thiserror::Error)]
pub(super) enum Unread {
    #[error("reading it failed: {0}")]
    Io(#[from] std::io::Error),
    #[error("it is not a file of saved lookup tables")]
    Foreign,
    #[error("it was saved by another build of Folio ({0}, format {1})")]
    OtherBuild(String, u32),
    #[error("it is damaged or cut short ({0})")]
    Damaged(String),
}

/// Saves `tables`, computed from the catalog at `stamp`, in `dir` (through a file of its own,
/// renamed over the last one: a reader finds the old file or the new one, whole).
pub(super) fn save(dir: &Path, stamp: i64, tables: &Tables) -> Result<(), std::io::Error> {
    let path = dir.join(FILE);
    let part = dir.join(format!("{FILE}.{}.part", std::process::id()));
    remove_parts_left(dir);
    let written = (|| -> std::io::Result<()> {
        let mut file = std::fs::File::create(&part)?;
        file.write_all(&[0u8; HEADER])?;
        // Hashed in the buffer's blocks, not in the encoder's small writes.
        let mut out = std::io::BufWriter::with_capacity(1 << 20, Hashing::new(file));
        bincode::Options::serialize_into(options(), &mut out, tables).map_err(std::io::Error::other)?;
        let hashed = out.into_inner().map_err(|e| e.into_error())?;
        let (checksum, len, mut file) = (hashed.hash.digest(), hashed.len, hashed.inner);
        let header = Header { format: FORMAT, stamp, len, checksum, build: build(), version: VERSION.into() };
        file.seek(std::io::SeekFrom::Start(0))?;
        file.write_all(&header.bytes())?;
        std::fs::rename(&part, &path)
    })();
    if written.is_err() {
        // What is left of the part file is of no use; the error that matters is the one returned.
        let _ = std::fs::remove_file(&part);
    }
    written
}

/// Removes part files a process that stopped while saving left (only the process holding the
/// library's write lock saves, so no other is being written).
fn remove_parts_left(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        if name.starts_with(&format!("{FILE}.")) && name.ends_with(".part") {
            if let Err(err) = std::fs::remove_file(e.path()) {
                tracing::warn!("a part file of the saved lookup tables ({name}) could not be removed: {err}");
            }
        }
    }
}

/// The tables saved in `dir` at `stamp`: `Ok(None)` where none are saved or they were saved at
/// another stamp (the catalog changed since), an error where a file is there but cannot be used.
pub(super) fn read(dir: &Path, stamp: i64, generation: u64) -> Result<Option<Lookups>, Unread> {
    let file = match std::fs::File::open(dir.join(FILE)) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let mut input = file;
    let mut head = [0u8; HEADER];
    input.read_exact(&mut head)?;
    let header = Header::parse(&head).ok_or(Unread::Foreign)?;
    if header.format != FORMAT || header.build != build() {
        return Err(Unread::OtherBuild(header.version, header.format));
    }
    if header.stamp != stamp {
        return Ok(None);
    }
    // Read whole and checked before it is decoded (decoding from memory is several times faster
    // than from a reader).
    let on_disk = input.metadata()?.len().saturating_sub(HEADER as u64);
    let mut bytes = Vec::with_capacity(header.len.min(on_disk) as usize);
    input.take(header.len).read_to_end(&mut bytes)?;
    if bytes.len() as u64 != header.len || xxhash_rust::xxh3::xxh3_64(&bytes) != header.checksum {
        return Err(Unread::Damaged("its checksum differs".into()));
    }
    let tables: Tables =
        bincode::Options::deserialize(options(), &bytes).map_err(|e| Unread::Damaged(e.to_string()))?;
    Ok(Some(Lookups::of(tables, Default::default(), Made::ReadBack, generation)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_read_back_and_others_refused() {
        let h = Header {
            format: FORMAT,
            stamp: -42,
            len: 7,
            checksum: 99,
            build: build(),
            version: VERSION.into(),
        };
        assert_eq!(Header::parse(&h.bytes()), Some(h));
        let mut other = [0u8; HEADER];
        other[..8].copy_from_slice(b"SQLite f");
        assert_eq!(Header::parse(&other), None);
    }
}
