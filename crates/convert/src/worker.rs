//! Conversions kept apart from the caller, so that one bad file costs that file and nothing else.
//!
//! [`convert_file_guarded`] runs a conversion under [`ConvertOptions::time_limit`] and
//! [`ConvertOptions::memory_limit`]:
//!
//! - in a **worker process** when the program offers one: its `main` calls [`serve_if_asked`] first
//!   thing, which turns the process into a worker when it was started as one and otherwise records
//!   which executable to start as one: `folio-convert-worker` beside the program when it is there
//!   (it links only the converters and starts in milliseconds), else the program itself. The worker limits its own address space, converts,
//!   and writes the document as JSON to its stdout. A hang is killed at the time limit, a crash
//!   (pdfium is C++) or an allocation past the memory limit ends the worker, not the program;
//! - otherwise (tests, embedders of the library) on a **thread** of this process: a panic is caught
//!   and a conversion past the time limit is abandoned (its thread runs on until it ends; memory is
//!   not limited).
//!
//! Either way the caller gets a typed [`ErrorKind`]: [`ErrorKind::TimedOut`],
//! [`ErrorKind::OutOfMemory`], [`ErrorKind::Crashed`] or [`ErrorKind::Cancelled`].

use crate::{check_file, convert_file_reporting, ConvertError, ConvertOptions, ErrorKind};
use folio_core::cancel::Cancel;
use folio_core::model::Document;
use folio_core::progress::{self, Stage, Step};
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Set in a worker's environment: the process converts one file and exits.
pub const WORKER_ENV: &str = "FOLIO_CONVERT_WORKER";

/// The executable that serves as a worker, once [`serve_if_asked`] ran in this process.
static WORKER_EXE: OnceLock<Option<PathBuf>> = OnceLock::new();

/// What a worker is asked.
#[derive(Serialize, Deserialize)]
struct Request {
    path: PathBuf,
    options: ConvertOptions,
}

/// Call first thing in `main`. In a process started as a worker, converts the file it is sent and
/// exits; in any other process, returns at once, after noting that this executable can be started
/// as a worker (so [`ConvertOptions::default`] converts in worker processes from then on).
pub fn serve_if_asked() {
    if std::env::var_os(WORKER_ENV).is_some() {
        std::process::exit(serve());
    }
    WORKER_EXE.get_or_init(|| {
        let exe = std::env::current_exe().ok()?;
        // The dedicated worker beside this program starts faster than the program itself (a
        // desktop shell links a web view); this program serves when it is absent.
        let name = format!("folio-convert-worker{}", std::env::consts::EXE_SUFFIX);
        let beside = exe.with_file_name(&name);
        // Installed, the worker is a helper in /usr/lib/folio, not a command in /usr/bin.
        let installed = exe.parent().map(|d| d.join("../lib/folio").join(&name));
        Some(match (beside.is_file(), installed) {
            (true, _) => beside,
            (false, Some(i)) if i.is_file() => i,
            _ => exe,
        })
    });
}

/// The worker executable, when this program offers one (see [`serve_if_asked`]).
pub fn this_executable() -> Option<PathBuf> {
    WORKER_EXE.get().cloned().flatten()
}

/// The worker's side: request on stdin; on stdout, a line `P done total` as pages are read, then
/// `Result<Document, ErrorKind>` as JSON (compact JSON has no line breaks: it is the last line).
fn serve() -> i32 {
    let mut input = Vec::new();
    if std::io::stdin().read_to_end(&mut input).is_err() {
        return 3;
    }
    let Ok(req) = serde_json::from_slice::<Request>(&input) else { return 3 };
    limit_memory(req.options.memory_limit);
    let mut stdout = std::io::stdout().lock();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut steps = |s: Step| {
            let prefix = if s.stage == Stage::Analysing { ANALYSING_LINE } else { PAGES_LINE };
            if writeln!(stdout, "{prefix}{} {}", s.done, s.total).and_then(|()| stdout.flush()).is_err() {
                // Nobody reads the answer any more (the program that asked has ended, or gave up
                // on the file): stop now rather than convert the rest for no one.
                std::process::exit(5);
            }
        };
        convert_file_reporting(&req.path, &req.options, &mut steps).map_err(|e| e.kind)
    }))
    .unwrap_or_else(|_| Err(ErrorKind::Crashed("the converter panicked on this file".into())));
    let Ok(out) = serde_json::to_vec(&result) else { return 4 };
    if stdout.write_all(&out).and_then(|()| stdout.flush()).is_err() {
        return 4;
    }
    0
}

/// How a worker's progress line starts: pages read, or steps of the analysis after them.
const PAGES_LINE: &str = "P ";
const ANALYSING_LINE: &str = "A ";

/// A worker's progress line: pages read of pages in all, or analysis steps done of all.
fn parse_pages(line: &[u8]) -> Option<Step> {
    let (stage, rest) = match line.strip_prefix(PAGES_LINE.as_bytes()) {
        Some(rest) => (Stage::Converting, rest),
        None => (Stage::Analysing, line.strip_prefix(ANALYSING_LINE.as_bytes())?),
    };
    let (done, total) = std::str::from_utf8(rest).ok()?.trim_end().split_once(' ')?;
    Some(Step::new(stage, done.parse().ok()?, total.parse().ok()?))
}

/// Caps this process's address space (Unix); allocations past it fail, and the process aborts.
fn limit_memory(bytes: u64) {
    #[cfg(unix)]
    {
        let limit = libc::rlimit { rlim_cur: bytes as libc::rlim_t, rlim_max: bytes as libc::rlim_t };
        // SAFETY: setrlimit reads the struct it is given and changes only this process's limits.
        unsafe {
            libc::setrlimit(libc::RLIMIT_AS, &limit);
        }
    }
    #[cfg(not(unix))]
    {
        // No address-space limit on this system: the time limit still applies.
        let _ = bytes;
    }
}

/// Converts a file under the options' limits, in a worker process when [`ConvertOptions::worker`]
/// names one, else on a thread. `cancel` stops the conversion (the worker is killed).
pub fn convert_file_guarded(
    path: &Path,
    options: &ConvertOptions,
    cancel: &Cancel,
) -> Result<Document, ConvertError> {
    convert_file_guarded_reporting(path, options, cancel, &mut progress::ignore)
}

/// [`convert_file_guarded`], giving `steps` a [`Stage::Converting`] step (pages read of pages in
/// all) on the caller's thread as the pages of a paged format (PDF) are read.
pub fn convert_file_guarded_reporting(
    path: &Path,
    options: &ConvertOptions,
    cancel: &Cancel,
    steps: &mut dyn FnMut(Step),
) -> Result<Document, ConvertError> {
    let fail = |kind| ConvertError { path: path.to_path_buf(), kind };
    // What needs no conversion is refused here: a folder, a file over the size limit (a 2 GB sparse
    // file is refused without reading a byte of it).
    check_file(path, options).map_err(fail)?;
    match &options.worker {
        Some(exe) => in_process(exe, path, options, cancel, steps).map_err(fail),
        None => on_thread(path, options, cancel, steps),
    }
}

/// What a conversion running elsewhere sends back.
enum Event<T> {
    Step(Step),
    Done(T),
}

/// Polls `done` until it answers, the time limit passes or `cancel` is set.
fn wait<T>(
    options: &ConvertOptions,
    cancel: &Cancel,
    mut done: impl FnMut() -> Option<T>,
) -> Result<T, ErrorKind> {
    let start = Instant::now();
    let mut pause = Duration::from_millis(2);
    loop {
        if let Some(t) = done() {
            return Ok(t);
        }
        if cancel.is_cancelled() {
            return Err(ErrorKind::Cancelled);
        }
        if start.elapsed() > options.time_limit {
            return Err(ErrorKind::TimedOut { seconds: options.time_limit.as_secs_f64() });
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

/// Takes what has arrived on `rx`: steps go to `steps`; the answer, if it came, is returned.
fn take_events<T>(
    rx: &std::sync::mpsc::Receiver<Event<T>>,
    steps: &mut dyn FnMut(Step),
) -> Result<Option<T>, std::sync::mpsc::TryRecvError> {
    loop {
        match rx.try_recv()? {
            Event::Step(s) => steps(s),
            Event::Done(r) => return Ok(Some(r)),
        }
    }
}

fn on_thread(
    path: &Path,
    options: &ConvertOptions,
    cancel: &Cancel,
    steps: &mut dyn FnMut(Step),
) -> Result<Document, ConvertError> {
    let (tx, rx) = std::sync::mpsc::channel();
    let (p, o) = (path.to_path_buf(), options.clone());
    let spawned = std::thread::Builder::new().name("folio-convert".into()).spawn(move || {
        let progress = tx.clone();
        let mut report = move |s: Step| {
            // Unsent only when the caller stopped waiting (cancelled, timed out): nobody to tell.
            let _ = progress.send(Event::Step(s));
        };
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            convert_file_reporting(&p, &o, &mut report)
        }))
        .unwrap_or_else(|_| {
            Err(ConvertError { path: p.clone(), kind: ErrorKind::Crashed("the converter panicked".into()) })
        });
        // Unsent only when the caller stopped waiting: the answer is no longer wanted.
        let _ = tx.send(Event::Done(r));
    });
    let fail = |kind| ConvertError { path: path.to_path_buf(), kind };
    if let Err(e) = spawned {
        return Err(fail(ErrorKind::Io(format!("cannot start a converter thread: {e}"))));
    }
    let got = wait(options, cancel, || match take_events(&rx, steps) {
        Ok(r) => r,
        Err(std::sync::mpsc::TryRecvError::Empty) => None,
        Err(std::sync::mpsc::TryRecvError::Disconnected) => {
            Some(Err(fail(ErrorKind::Crashed("the converter thread ended without an answer".into()))))
        }
    });
    got.map_err(fail)?
}

/// Reads a worker's stdout to its end on a thread: its page lines become events on `tx` as they
/// come; the rest (the answer) is returned.
fn drain_answer(
    r: impl Read + Send + 'static,
    tx: std::sync::mpsc::Sender<Event<()>>,
) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut r = std::io::BufReader::with_capacity(64 * 1024, r);
        let mut out = Vec::new();
        let mut line = Vec::new();
        loop {
            line.clear();
            match std::io::BufRead::read_until(&mut r, b'\n', &mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => match parse_pages(&line) {
                    Some(s) => {
                        // Unsent only when the caller stopped waiting: nobody to tell.
                        let _ = tx.send(Event::Step(s));
                    }
                    None => out.extend_from_slice(&line),
                },
            }
        }
        out
    })
}

/// Reads a pipe to its end on a thread, keeping at most `cap` bytes.
fn drain(mut r: impl Read + Send + 'static, cap: usize) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut out = Vec::new();
        let mut buf = [0u8; 64 * 1024];
        while let Ok(n) = r.read(&mut buf) {
            if n == 0 {
                break;
            }
            if out.len() < cap {
                out.extend_from_slice(&buf[..n.min(cap - out.len())]);
            }
        }
        out
    })
}

fn in_process(
    exe: &Path,
    path: &Path,
    options: &ConvertOptions,
    cancel: &Cancel,
    steps: &mut dyn FnMut(Step),
) -> Result<Document, ErrorKind> {
    let request = serde_json::to_vec(&Request { path: path.to_path_buf(), options: options.clone() })
        .map_err(|e| ErrorKind::Io(e.to_string()))?;
    let mut child = Command::new(exe)
        .env(WORKER_ENV, "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| ErrorKind::Io(format!("cannot start the converter process {}: {e}", exe.display())))?;
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = drain_answer(child.stdout.take().expect("stdout is piped"), tx);
    let stderr = drain(child.stderr.take().expect("stderr is piped"), 64 * 1024);
    if let Some(mut stdin) = child.stdin.take() {
        // A worker that died at once closed its end; its exit status tells why.
        let _ = stdin.write_all(&request);
    }
    // The worker's events are its page counts (its answer comes on stdout): each is passed on as
    // it arrives, and an empty or closed channel is the worker's exit, which `try_wait` sees.
    let status = wait(options, cancel, || {
        let _ = take_events(&rx, steps);
        child.try_wait().ok().flatten()
    });
    let status = match status {
        Ok(s) => s,
        Err(e) => {
            // Stopped for the time limit or a cancel: killed, and reaped so it leaves no zombie.
            // Either fails only for a worker that has exited on its own meanwhile.
            let _ = child.kill();
            let _ = child.wait();
            return Err(e);
        }
    };
    let out = stdout.join().unwrap_or_default();
    let _ = take_events(&rx, steps);
    let err = String::from_utf8_lossy(&stderr.join().unwrap_or_default()).into_owned();
    if status.success() {
        return serde_json::from_slice::<Result<Document, ErrorKind>>(&out).unwrap_or_else(|e| {
            Err(ErrorKind::Crashed(format!("the converter process gave an unreadable answer ({e})")))
        });
    }
    let memory = ["memory allocation of", "bad_alloc", "out of memory", "Out of memory"];
    if memory.iter().any(|m| err.contains(m)) {
        return Err(ErrorKind::OutOfMemory { limit: options.memory_limit });
    }
    let last = err.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
    let how = ended(&status);
    Err(ErrorKind::Crashed(if last.is_empty() {
        format!("the converter process {how}")
    } else {
        format!("the converter process {how}: {last}")
    }))
}

/// "was killed by signal 11 (SIGSEGV)" or "exited with code 3".
fn ended(status: &std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            let name = match sig {
                libc::SIGSEGV => " (SIGSEGV)",
                libc::SIGABRT => " (SIGABRT)",
                libc::SIGKILL => " (SIGKILL)",
                libc::SIGBUS => " (SIGBUS)",
                libc::SIGFPE => " (SIGFPE)",
                libc::SIGILL => " (SIGILL)",
                _ => "",
            };
            return format!("was killed by signal {sig}{name}");
        }
    }
    match status.code() {
        Some(c) => format!("exited with code {c}"),
        None => "ended abnormally".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_file(name: &str, bytes: &[u8]) -> (PathBuf, PathBuf) {
        let dir = std::env::temp_dir().join(format!("folio-worker-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        (dir, p)
    }

    #[test]
    fn page_lines_are_told_from_the_answer() {
        assert_eq!(parse_pages(b"P 3 12\n"), Some(Step::new(Stage::Converting, 3, 12)));
        assert_eq!(parse_pages(b"P 3 12"), Some(Step::new(Stage::Converting, 3, 12)));
        assert_eq!(parse_pages(b"A 1 4\n"), Some(Step::new(Stage::Analysing, 1, 4)));
        assert_eq!(parse_pages(b"A 1\n"), None);
        assert_eq!(parse_pages(b"{\"Ok\":{}}"), None);
        assert_eq!(parse_pages(b"P x 12\n"), None);
        assert_eq!(parse_pages(b"P 3\n"), None);
    }

    #[test]
    fn a_thread_conversion_answers_like_a_direct_one() {
        let (dir, p) = temp_file("rules.md", b"# 1 Scope\n\nThese rules apply.\n");
        let options = ConvertOptions { worker: None, ..ConvertOptions::default() };
        let guarded = convert_file_guarded(&p, &options, &Cancel::new()).unwrap();
        assert_eq!(guarded, crate::convert_file(&p, &options).unwrap());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_conversion_past_the_time_limit_is_abandoned() {
        // Twenty megabytes of Markdown take far longer than a millisecond to convert.
        let text = "# 1 Scope\n\nThese rules apply to every person.\n\n".repeat(400_000);
        let (dir, p) = temp_file("big.md", text.as_bytes());
        let options = ConvertOptions {
            worker: None,
            time_limit: Duration::from_millis(1),
            ..ConvertOptions::default()
        };
        let t = Instant::now();
        let e = convert_file_guarded(&p, &options, &Cancel::new()).unwrap_err();
        assert!(matches!(e.kind, ErrorKind::TimedOut { .. }), "{e}");
        assert!(t.elapsed() < Duration::from_secs(2), "gave up after {:?}", t.elapsed());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn cancel_stops_waiting() {
        let text = "# 1 Scope\n\nThese rules apply to every person.\n\n".repeat(400_000);
        let (dir, p) = temp_file("big.md", text.as_bytes());
        let options = ConvertOptions { worker: None, ..ConvertOptions::default() };
        let e = convert_file_guarded(&p, &options, &Cancel::cancelled()).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Cancelled);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_missing_worker_executable_is_a_typed_error() {
        let (dir, p) = temp_file("rules.md", b"# 1 Scope\n\nThese rules apply.\n");
        let options =
            ConvertOptions { worker: Some("/nonexistent/folio".into()), ..ConvertOptions::default() };
        let e = convert_file_guarded(&p, &options, &Cancel::new()).unwrap_err();
        assert!(
            matches!(e.kind, ErrorKind::Io(ref m) if m.contains("cannot start the converter process")),
            "{e}"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_sparse_file_over_the_size_limit_is_refused_unread() {
        let dir = std::env::temp_dir().join(format!("folio-worker-{}-sparse", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("huge.pdf");
        let f = std::fs::File::create(&p).unwrap();
        f.set_len(2 * 1024 * 1024 * 1024).unwrap();
        let t = Instant::now();
        let e = convert_file_guarded(&p, &ConvertOptions::default(), &Cancel::new()).unwrap_err();
        assert!(matches!(e.kind, ErrorKind::TooLarge { size, .. } if size == 2 << 30), "{e}");
        assert!(t.elapsed() < Duration::from_millis(500), "{:?}", t.elapsed());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
