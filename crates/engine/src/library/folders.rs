//! Watched folders and the files that failed, and what a folder sync must do.

use super::*;

/// What keeping files and folders in step with the library takes (see [`Library::sync_plan`]).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SyncPlan {
    /// Files new or changed since they were indexed (or failed).
    pub ingest: Vec<PathBuf>,
    /// Documents whose file is gone.
    pub remove: Vec<String>,
    /// Recorded failures of files that are gone.
    pub forget: Vec<String>,
}

impl SyncPlan {
    /// Whether the pass has nothing to do.
    pub fn is_empty(&self) -> bool {
        self.ingest.is_empty() && self.remove.is_empty() && self.forget.is_empty()
    }
}

/// Whether a file in a watched folder belongs in the library: a format Folio reads, and not an
/// editor's or a download's temporary or lock file.
pub fn is_library_file(path: &Path) -> bool {
    let Some(name) = path.file_name().map(|n| n.to_string_lossy().into_owned()) else { return false };
    let lower = name.to_ascii_lowercase();
    let temporary = name.starts_with('.')
        || name.starts_with("~$")
        || name.starts_with('#')
        || name.ends_with('~')
        || [".tmp", ".temp", ".part", ".partial", ".crdownload", ".download", ".swp", ".bak", ".lock"]
            .iter()
            .any(|e| lower.ends_with(e));
    !temporary && folio_convert::format_from_extension(&name).is_some() && !path.is_dir()
}

/// The files under a path (itself, when it is a file) that an ingest would read, with their
/// sizes in bytes.
pub fn library_files(p: &Path) -> Vec<(PathBuf, u64)> {
    let mut files = Vec::new();
    collect_files(p, &mut files);
    files
        .into_iter()
        .filter(|f| is_library_file(f))
        .map(|f| {
            let size = std::fs::metadata(&f).map_or(0, |m| m.len());
            (f, size)
        })
        .collect()
}

pub(super) fn collect_files(p: &Path, out: &mut Vec<PathBuf>) {
    if p.is_dir() {
        let mut entries: Vec<PathBuf> =
            std::fs::read_dir(p).into_iter().flatten().flatten().map(|e| e.path()).collect();
        entries.sort();
        for e in entries {
            let hidden = e.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.'));
            if !hidden {
                collect_files(&e, out);
            }
        }
    } else {
        out.push(p.to_path_buf());
    }
}

impl Library {
    pub(super) fn note_failure(&self, file: &Path, failure: Option<&EngineError>) {
        let abs = file.canonicalize().unwrap_or_else(|_| file.to_path_buf());
        let path = abs.display().to_string();
        let recorded = match failure {
            None => self.catalog.clear_failure(&path),
            Some(e) => {
                let (mtime, size) = file_stamp(&abs).unwrap_or((0, 0));
                self.catalog.put_failure(&FailureRow {
                    path,
                    mtime,
                    size,
                    code: e.code().as_str().to_string(),
                    message: e.reason(),
                    at: folio_index::catalog::now(),
                })
            }
        };
        // The ingest's own report carries the failure either way; only its record for the Library
        // view's list (and for trying the file again when it changes) is lost.
        if let Err(e) = recorded {
            tracing::warn!("a file's failure could not be recorded in the catalog: {e}");
        }
    }

    /// Files that could not be indexed, with why; each is tried again once it changes.
    pub fn failures(&self) -> Result<Vec<crate::FileFailure>, EngineError> {
        Ok(self.catalog.failures()?.into_iter().map(crate::FileFailure::from).collect())
    }

    /// The folders this library keeps in step with (see [`crate::FolderWatcher`]).
    pub fn watched_folders(&self) -> Result<Vec<PathBuf>, EngineError> {
        Ok(self.catalog.watched_folders()?.into_iter().map(PathBuf::from).collect())
    }

    /// Adds a folder to keep in step with; returns its canonical path and whether it is new.
    pub fn add_watched_folder(&mut self, folder: &Path) -> Result<(PathBuf, bool), EngineError> {
        self.check_writable()?;
        let abs =
            folder.canonicalize().map_err(|e| EngineError::NotFound(format!("{}: {e}", folder.display())))?;
        if !abs.is_dir() {
            return Err(EngineError::Invalid(format!("{} is not a folder", abs.display())));
        }
        if abs.starts_with(&self.dir) || self.dir.canonicalize().is_ok_and(|d| abs.starts_with(d)) {
            return Err(EngineError::Invalid("the library's own folder cannot be watched".into()));
        }
        let added = self.catalog.add_watched_folder(&abs.display().to_string())?;
        Ok((abs, added))
    }

    /// Stops keeping a folder in step (its documents stay); returns whether it was watched.
    pub fn remove_watched_folder(&mut self, folder: &Path) -> Result<bool, EngineError> {
        self.check_writable()?;
        let abs = folder.canonicalize().unwrap_or_else(|_| folder.to_path_buf());
        Ok(self.catalog.remove_watched_folder(&abs.display().to_string())?
            || self.catalog.remove_watched_folder(&folder.display().to_string())?)
    }

    /// What keeping `paths` (files or folders, existing or gone) in step takes: files to ingest
    /// (new, or changed in time or size since they were indexed or failed) and documents to remove
    /// (their file is gone). Cheap: no file is read.
    pub fn sync_plan(&self, paths: &[PathBuf]) -> Result<SyncPlan, EngineError> {
        let docs = self.catalog.documents()?;
        let failures = self.catalog.failures()?;
        let roots = self.watched_folders()?;
        let mut plan = SyncPlan::default();
        let library = self.dir.canonicalize().unwrap_or_else(|_| self.dir.clone());
        for p in paths {
            let abs = p.canonicalize().unwrap_or_else(|_| p.clone());
            if abs.starts_with(&library) {
                continue;
            }
            let mut files = Vec::new();
            if abs.exists() {
                collect_files(&abs, &mut files);
            }
            for f in files.into_iter().filter(|f| is_library_file(f)) {
                let key = f.display().to_string();
                let Some((mtime, size)) = file_stamp(&f) else { continue };
                let stamp_is = |m: i64, s: i64| m == mtime && s == size;
                let indexed = docs.iter().any(|d| {
                    d.path == key && d.status == DocumentStatus::Indexed && stamp_is(d.mtime, d.size)
                });
                let failed = failures.iter().any(|x| x.path == key && stamp_is(x.mtime, x.size));
                if !indexed && !failed && !plan.ingest.contains(&f) {
                    plan.ingest.push(f);
                }
            }
            // Documents at or under the path whose file is gone, unless the watched folder holding
            // them is gone as a whole (an unplugged drive, an unmounted share): their documents
            // stay until it is back or the user removes them.
            for d in &docs {
                let dp = Path::new(&d.path);
                let root_gone = roots.iter().any(|r| dp.starts_with(r) && !r.is_dir());
                if dp.starts_with(&abs) && !dp.exists() && !root_gone && !plan.remove.contains(&d.path) {
                    plan.remove.push(d.path.clone());
                }
            }
            for x in &failures {
                if Path::new(&x.path).starts_with(&abs) && !Path::new(&x.path).exists() {
                    plan.forget.push(x.path.clone());
                }
            }
        }
        Ok(plan)
    }

    /// Forgets the failures of files that are gone.
    pub fn forget_failures(&self, paths: &[String]) -> Result<(), EngineError> {
        for p in paths {
            self.catalog.clear_failure(p)?;
        }
        Ok(())
    }
}
