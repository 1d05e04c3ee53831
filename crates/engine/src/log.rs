//! The app's log: a file in the data folder (`folio.log`, rotated by size, a few files kept), so
//! that what went wrong in an app opened from the menu, which has no terminal, can be read
//! afterwards and sent with a bug report.
//!
//! What is logged is what happened to Folio (a store that failed to open, a watch the OS refused,
//! a worker that stopped): never a document's text, a query or a key. Log messages name files and
//! stores by path and errors by their message; the engine's errors carry no document text.
//!
//! ```no_run
//! let options = folio_engine::log::LogOptions::in_folder("/tmp/folio-logs".into());
//! let _log = folio_engine::log::start(&options).unwrap();
//! tracing::warn!("a watched folder is not followed: the folder is not there");
//! ```

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// The log file's name; older files are `folio.log.1` (the newest of them) to `folio.log.N`.
pub const LOG_FILE: &str = "folio.log";

/// Folio's own crates, whose information is logged too (other crates' only from warnings up).
const FOLIO_CRATES: [&str; 7] =
    ["folio", "folio_engine", "folio_desktop", "folio_index", "folio_convert", "folio_ai", "folio_core"];

/// Where the log goes and how much of it is kept.
#[derive(Debug, Clone)]
pub struct LogOptions {
    /// The folder of the log files.
    pub dir: PathBuf,
    /// The size at which the log file is rotated.
    pub max_bytes: u64,
    /// Older files kept beside the current one.
    pub keep: usize,
    /// Also write the log to standard error (a terminal that started the app).
    pub stderr: bool,
}

impl LogOptions {
    /// The desktop app's log: 1 MB a file, three older files kept (at most 4 MB in all).
    pub fn in_folder(dir: PathBuf) -> LogOptions {
        LogOptions { dir, max_bytes: 1 << 20, keep: 3, stderr: false }
    }
}

/// The log folder of the desktop app: the platform's data folder + `folio/logs` (on Linux
/// `~/.local/share/folio/logs`), beside the default library.
pub fn default_log_dir() -> PathBuf {
    dirs::data_dir().unwrap_or_else(|| PathBuf::from(".")).join("folio/logs")
}

/// A log file that starts a new file once it passes its size, keeping a few older ones.
#[derive(Debug)]
pub struct RotatingFile {
    options: LogOptions,
    file: File,
    written: u64,
}

impl RotatingFile {
    /// Opens (appending to) the log file in `options.dir`, creating the folder.
    pub fn open(options: LogOptions) -> io::Result<RotatingFile> {
        std::fs::create_dir_all(&options.dir)?;
        let file = OpenOptions::new().create(true).append(true).open(options.dir.join(LOG_FILE))?;
        let written = file.metadata()?.len();
        Ok(RotatingFile { options, file, written })
    }

    /// `folio.log` → `folio.log.1` → … → `folio.log.{keep}` (the oldest dropped), then a new
    /// `folio.log`.
    fn rotate(&mut self) -> io::Result<()> {
        let path = |n: usize| match n {
            0 => self.options.dir.join(LOG_FILE),
            n => self.options.dir.join(format!("{LOG_FILE}.{n}")),
        };
        for n in (0..self.options.keep).rev() {
            let from = path(n);
            if from.exists() {
                std::fs::rename(&from, path(n + 1))?;
            }
        }
        if self.options.keep == 0 {
            std::fs::remove_file(path(0))?;
        }
        self.file = OpenOptions::new().create(true).append(true).open(path(0))?;
        self.written = 0;
        Ok(())
    }
}

impl Write for RotatingFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.written > 0 && self.written + buf.len() as u64 > self.options.max_bytes {
            self.rotate()?;
        }
        let n = self.file.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// The shared log file, handed to the formatter one event at a time.
#[derive(Clone)]
struct SharedFile(Arc<Mutex<RotatingFile>>);

/// One event's writer: holds the file for the event, so lines of two threads never interleave.
struct EventWriter<'a>(std::sync::MutexGuard<'a, RotatingFile>);

impl Write for EventWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

impl<'a> MakeWriter<'a> for SharedFile {
    type Writer = EventWriter<'a>;
    fn make_writer(&'a self) -> Self::Writer {
        EventWriter(self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// The running log; dropping it changes nothing (the log lives as long as the process).
#[derive(Debug)]
pub struct Log {
    dir: PathBuf,
}

impl Log {
    /// The folder of the log files.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// Starts logging to the file (and, when asked, standard error) for the rest of the process:
/// warnings and errors from every crate, Folio's own information too; panics are logged with
/// where they happened. Fails when the folder cannot be written or a log is already running.
pub fn start(options: &LogOptions) -> io::Result<Log> {
    let file = SharedFile(Arc::new(Mutex::new(RotatingFile::open(options.clone())?)));
    let filter = FOLIO_CRATES
        .iter()
        .fold(tracing_subscriber::filter::Targets::new().with_default(tracing::Level::WARN), |f, target| {
            f.with_target(*target, tracing::Level::INFO)
        });
    let to_file = tracing_subscriber::fmt::layer().with_ansi(false).with_writer(file);
    let to_stderr = options.stderr.then(|| tracing_subscriber::fmt::layer().with_writer(io::stderr));
    tracing_subscriber::registry()
        .with(filter)
        .with(to_file)
        .with(to_stderr)
        .try_init()
        .map_err(|e| io::Error::other(format!("a log is already running: {e}")))?;
    log_panics();
    tracing::info!(version = env!("CARGO_PKG_VERSION"), "Folio started");
    Ok(Log { dir: options.dir.clone() })
}

/// Panics go to the log as well as to the default hook (a terminal, if any): where they happened,
/// and their message up to anything it quotes (the standard library quotes the text it was given,
/// as in "byte index 9 is not a char boundary; it is inside 'é' … of `…`", which may be a
/// document's).
fn log_panics() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let place = info.location().map(|l| format!("{}:{}", l.file(), l.line())).unwrap_or_default();
        tracing::error!("panic at {place}: {}", folio_core::panics::message(info.payload()));
        previous(info);
    }));
}

/// Opens a folder in the system's file manager (`xdg-open` on Linux, `open` on macOS, Explorer on
/// Windows), without waiting for it.
pub fn reveal(dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    let mut child = std::process::Command::new(opener)
        .arg(dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()?;
    // Reaped on a thread of its own, so no finished opener is left behind.
    std::thread::spawn(move || {
        if let Err(e) = child.wait() {
            tracing::debug!("the file manager's opener was not waited for: {e}");
        }
    });
    Ok(())
}

/// The last `n` warnings and errors in the log folder, oldest first, each as its log line without
/// the time stamp: what a bug report's diagnostics show.
pub fn recent_problems(dir: &Path, n: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    // The current file last, so the newest lines end the list.
    let mut files: Vec<PathBuf> = (1..=9).rev().map(|k| dir.join(format!("{LOG_FILE}.{k}"))).collect();
    files.push(dir.join(LOG_FILE));
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else { continue };
        for line in text.lines() {
            // "2026-12-05T01:02:03.456789Z  WARN folio_engine::watcher: …"
            let mut words = line.splitn(2, ' ');
            let (Some(_time), Some(rest)) = (words.next(), words.next()) else { continue };
            let rest = rest.trim_start();
            if rest.starts_with("WARN") || rest.starts_with("ERROR") {
                out.push(rest.to_string());
            }
        }
    }
    let skip = out.len().saturating_sub(n);
    out.split_off(skip)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(dir: &Path, max_bytes: u64, keep: usize) -> LogOptions {
        LogOptions { dir: dir.to_path_buf(), max_bytes, keep, stderr: false }
    }

    #[test]
    fn the_log_rotates_by_size_and_keeps_only_so_many_files() {
        let dir = tempfile::tempdir().unwrap();
        let mut f = RotatingFile::open(options(dir.path(), 100, 2)).unwrap();
        for i in 0..50 {
            writeln!(f, "line {i:02} of the log, some thirty bytes").unwrap();
        }
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["folio.log", "folio.log.1", "folio.log.2"]);
        for name in &names {
            let len = std::fs::metadata(dir.path().join(name)).unwrap().len();
            assert!(len <= 100, "{name} has {len} bytes");
        }
        // The newest line is in the current file, the ones before it in .1.
        let current = std::fs::read_to_string(dir.path().join("folio.log")).unwrap();
        assert!(current.contains("line 49"), "{current}");
        let older = std::fs::read_to_string(dir.path().join("folio.log.1")).unwrap();
        assert!(!older.contains("line 49") && older.contains("line 4"), "{older}");
    }

    #[test]
    fn a_reopened_log_appends_and_counts_what_it_holds() {
        let dir = tempfile::tempdir().unwrap();
        writeln!(RotatingFile::open(options(dir.path(), 1000, 1)).unwrap(), "first").unwrap();
        let mut again = RotatingFile::open(options(dir.path(), 1000, 1)).unwrap();
        assert_eq!(again.written, 6);
        writeln!(again, "second").unwrap();
        let text = std::fs::read_to_string(dir.path().join(LOG_FILE)).unwrap();
        assert_eq!(text, "first\nsecond\n");
    }

    #[test]
    fn recent_problems_are_the_last_warnings_and_errors_across_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("folio.log.1"),
            "2026-12-05T01:00:00Z ERROR folio_engine: an old error\n2026-12-05T01:00:01Z  INFO folio: started\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join(LOG_FILE),
            "2026-12-05T02:00:00Z  WARN folio_engine::watcher: a warning\n2026-12-05T02:00:01Z ERROR folio_desktop: the newest\n",
        )
        .unwrap();
        assert_eq!(
            recent_problems(dir.path(), 2),
            ["WARN folio_engine::watcher: a warning", "ERROR folio_desktop: the newest"]
        );
        assert_eq!(recent_problems(dir.path(), 10).len(), 3);
        assert!(recent_problems(&dir.path().join("absent"), 5).is_empty());
    }
}
