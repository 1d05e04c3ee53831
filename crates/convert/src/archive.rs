//! Bounded reading of zip containers (DOCX, EPUB): every member read under an inflation budget, and
//! member paths resolved the way the container's own links name them.

use crate::ErrorKind;
use std::io::{Cursor, Read};

/// A zip archive whose members are read under an inflation budget: each member's declared size is
/// checked before reading and the actual bytes are read through `Read::take`, so a member whose
/// header lies about its size is still stopped at the limit.
pub(crate) struct Archive<'a> {
    zip: zip::ZipArchive<Cursor<&'a [u8]>>,
    limit: u64,
    used: u64,
}

impl<'a> Archive<'a> {
    /// Opens an archive; `limit` bounds the inflated bytes of all members read together.
    pub(crate) fn open(bytes: &'a [u8], limit: u64) -> Result<Self, ErrorKind> {
        let zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(zip_error)?;
        Ok(Archive { zip, limit, used: 0 })
    }

    /// The stored name of a member, matched exactly, else case-insensitively.
    fn find_name(&self, name: &str) -> Option<String> {
        if self.zip.index_for_name(name).is_some() {
            return Some(name.to_string());
        }
        self.zip.file_names().find(|n| n.eq_ignore_ascii_case(name)).map(str::to_string)
    }

    /// Whether a member exists.
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.find_name(name).is_some()
    }

    /// Reads one member, `None` when it is absent.
    pub(crate) fn read(&mut self, name: &str) -> Result<Option<Vec<u8>>, ErrorKind> {
        let Some(stored) = self.find_name(name) else {
            return Ok(None);
        };
        let remaining = self.limit.saturating_sub(self.used);
        let file = match self.zip.by_name(&stored) {
            Ok(f) => f,
            Err(zip::result::ZipError::FileNotFound) => return Ok(None),
            Err(e) => return Err(zip_error(e)),
        };
        if file.size() > remaining {
            return Err(ErrorKind::ZipBomb { limit: self.limit });
        }
        let mut out = Vec::with_capacity(file.size().min(16 * 1024 * 1024) as usize);
        let mut limited = file.take(remaining.saturating_add(1));
        limited
            .read_to_end(&mut out)
            .map_err(|e| ErrorKind::Corrupt(format!("cannot inflate archive member {stored}: {e}")))?;
        if out.len() as u64 > remaining {
            return Err(ErrorKind::ZipBomb { limit: self.limit });
        }
        self.used += out.len() as u64;
        Ok(Some(out))
    }
}

fn zip_error(e: zip::result::ZipError) -> ErrorKind {
    use zip::result::ZipError;
    match e {
        ZipError::InvalidPassword => ErrorKind::Encrypted,
        ZipError::UnsupportedArchive(msg) if msg == ZipError::PASSWORD_REQUIRED => ErrorKind::Encrypted,
        ZipError::UnsupportedArchive(msg) => ErrorKind::Unsupported(format!("zip archive: {msg}")),
        other => ErrorKind::Corrupt(format!("not a readable zip archive: {other}")),
    }
}

/// A path inside an archive with `.` and `..` segments applied and empty segments dropped.
pub(crate) fn normalize_archive_path(joined: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for seg in joined.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    parts.join("/")
}
