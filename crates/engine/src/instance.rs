//! One app per library: the files a user opens with Folio ("Open with" in the file manager, or
//! `folio-desktop FILE…`) go to the window that is already running on that library instead of a
//! second window that could only read it (the first holds the library's write lock).
//!
//! The first process binds a Unix socket named after its settings file in the user's runtime folder
//! (`$XDG_RUNTIME_DIR`, else the temporary folder) and listens; a later process connects, writes
//! the absolute paths it was given, one per line and an empty line, waits for the first one's
//! `ok`, and exits. A socket left behind by a process that died is noticed (nobody answers) and
//! replaced; so is the socket of a process that is ending: the kernel still queues connections for
//! it while it closes its files, but no one acknowledges them.
//!
//! ```no_run
//! use folio_engine::instance::{claim, Claim};
//! # let settings = std::path::PathBuf::from("settings.json");
//! # let opened: Vec<std::path::PathBuf> = vec![];
//! match claim(&settings, &opened) {
//!     Claim::Forwarded => std::process::exit(0),
//!     Claim::First(listener) => {
//!         listener.serve(|paths| println!("open {paths:?}"));
//!     }
//!     Claim::Alone(why) => eprintln!("files opened later start a second window: {why}"),
//! }
//! ```

use std::hash::{Hash, Hasher};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What [`claim`] found.
pub enum Claim {
    /// No other process runs on this library: this one listens for the files opened later.
    First(Listener),
    /// Another process runs on this library and was handed the files: this one should exit.
    Forwarded,
    /// Neither could be done (no writable runtime folder): this process runs on its own.
    Alone(String),
}

/// The socket of the first process; removed when dropped.
pub struct Listener {
    socket: UnixListener,
    path: PathBuf,
}

impl Listener {
    /// Where this listener's socket lives.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Calls `on_open` on a background thread with the paths each later process hands over (an
    /// empty list when it was started without files: the window should come to the front).
    pub fn serve(self, on_open: impl Fn(Vec<PathBuf>) + Send + 'static) {
        std::thread::Builder::new()
            .name("folio-instance".into())
            .spawn(move || {
                for stream in self.socket.incoming() {
                    let Ok(stream) = stream else { continue };
                    // Fails only for a zero duration: these are not.
                    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
                    let _ = stream.set_write_timeout(Some(Duration::from_secs(5)));
                    let mut paths = Vec::new();
                    let mut ended = false;
                    for line in BufReader::new(&stream).lines() {
                        let Ok(line) = line else { break };
                        if line.is_empty() {
                            ended = true;
                            break;
                        }
                        paths.push(PathBuf::from(line));
                    }
                    // A message cut short (the sender died mid-way) is dropped, not half-opened.
                    if ended {
                        // Acknowledged first: the sender may exit now, its files are taken. A
                        // sender gone meanwhile misses only the acknowledgement.
                        let _ = (&stream).write_all(ACK).and_then(|()| (&stream).flush());
                        on_open(paths);
                    }
                }
                drop(self);
            })
            .expect("a thread for the instance socket");
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        // A socket left behind is replaced by the next app that finds nobody answering on it.
        if let Err(e) = std::fs::remove_file(&self.path) {
            tracing::debug!("the instance socket {} was not removed: {e}", self.path.display());
        }
    }
}

/// The socket for the library that `settings` names.
pub fn socket_path(settings: &Path) -> PathBuf {
    let dir = dirs::runtime_dir().filter(|d| d.is_dir()).unwrap_or_else(std::env::temp_dir);
    // Not canonical: the file may not exist yet on a first run, and must name the same socket once
    // it does.
    let settings = std::path::absolute(settings).unwrap_or_else(|_| settings.to_path_buf());
    let mut h = std::collections::hash_map::DefaultHasher::new();
    settings.hash(&mut h);
    // The runtime folder is the user's own; in the shared temporary folder the user's id keeps
    // users apart.
    // SAFETY: getuid has no preconditions and cannot fail.
    let user = unsafe { libc::getuid() };
    dir.join(format!("folio-{user}-{:016x}.sock", h.finish()))
}

/// Becomes the app for the library that `settings` names, or hands `paths` (absolute, as
/// [`opened_paths`] gives them) to the process that already is.
pub fn claim(settings: &Path, paths: &[PathBuf]) -> Claim {
    claim_at(&socket_path(settings), paths)
}

/// [`claim`] with the socket's path given.
pub fn claim_at(socket: &Path, paths: &[PathBuf]) -> Claim {
    for _ in 0..2 {
        match UnixListener::bind(socket) {
            Ok(listener) => return Claim::First(Listener { socket: listener, path: socket.to_path_buf() }),
            Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
                if forward(socket, paths).is_ok() {
                    return Claim::Forwarded;
                }
                // Nobody answers: the socket of a process that died. Replace it (should another
                // process have removed it first, the bind below succeeds all the same).
                let _ = std::fs::remove_file(socket);
            }
            Err(e) => return Claim::Alone(format!("{}: {e}", socket.display())),
        }
    }
    Claim::Alone(format!("{}: in use but not answering", socket.display()))
}

/// What the first process answers to a whole message.
const ACK: &[u8] = b"ok\n";

/// How long a later process waits for the first one's answer: a live app answers from a thread of
/// its own at once; an ending one never does.
const ACK_WAIT: Duration = Duration::from_secs(3);

fn forward(socket: &Path, paths: &[PathBuf]) -> std::io::Result<()> {
    let mut stream = UnixStream::connect(socket)?;
    stream.set_write_timeout(Some(Duration::from_secs(5)))?;
    stream.set_read_timeout(Some(ACK_WAIT))?;
    let mut msg = String::new();
    for p in paths {
        let Some(s) = p.to_str() else { continue };
        if s.contains('\n') {
            continue;
        }
        msg.push_str(s);
        msg.push('\n');
    }
    msg.push('\n');
    stream.write_all(msg.as_bytes())?;
    stream.flush()?;
    let mut answer = [0u8; 3];
    std::io::Read::read_exact(&mut stream, &mut answer)?;
    if answer != ACK {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "no acknowledgement"));
    }
    Ok(())
}

/// The files among a process's arguments, as the library records paths (canonical): options
/// (`-…`) and paths that do not exist are skipped (a desktop entry's `%F` gives files; a test
/// driver may add options).
pub fn opened_paths(args: impl IntoIterator<Item = std::ffi::OsString>) -> Vec<PathBuf> {
    args.into_iter()
        .filter(|a| !a.to_string_lossy().starts_with('-'))
        .filter_map(|a| PathBuf::from(a).canonicalize().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    fn scratch() -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "folio-instance-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_second_process_hands_its_files_to_the_first() {
        let dir = scratch();
        let sock = dir.join("a.sock");
        let Claim::First(listener) = claim_at(&sock, &[]) else { panic!("the first claim must listen") };
        let (tx, rx) = mpsc::channel();
        listener.serve(move |p| tx.send(p).unwrap());
        let file = dir.join("report.pdf");
        assert!(matches!(claim_at(&sock, std::slice::from_ref(&file)), Claim::Forwarded));
        assert_eq!(rx.recv_timeout(Duration::from_secs(5)).unwrap(), vec![file]);
        // Started again without files: an empty list (bring the window forward).
        assert!(matches!(claim_at(&sock, &[]), Claim::Forwarded));
        assert_eq!(rx.recv_timeout(Duration::from_secs(5)).unwrap(), Vec::<PathBuf>::new());
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_socket_left_by_a_dead_process_is_replaced() {
        let dir = scratch();
        let sock = dir.join("b.sock");
        // Bound and dropped without removing the file: what a killed process leaves.
        drop(UnixListener::bind(&sock).unwrap());
        assert!(sock.exists());
        let Claim::First(listener) = claim_at(&sock, &[]) else { panic!("a stale socket must be replaced") };
        drop(listener);
        assert!(!sock.exists(), "the listener removes its socket");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_socket_whose_process_is_ending_is_replaced() {
        let dir = scratch();
        let sock = dir.join("d.sock");
        // Listening, but nobody accepts or answers: a process between its last event and its exit.
        let ending = UnixListener::bind(&sock).unwrap();
        let t = std::time::Instant::now();
        let claim = claim_at(&sock, &[]);
        assert!(matches!(claim, Claim::First(_)), "the files must not go to a process that is ending");
        assert!(t.elapsed() < ACK_WAIT * 2, "gave up waiting in time: {:?}", t.elapsed());
        drop((claim, ending));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_message_cut_short_is_dropped() {
        let dir = scratch();
        let sock = dir.join("c.sock");
        let Claim::First(listener) = claim_at(&sock, &[]) else { panic!() };
        let (tx, rx) = mpsc::channel();
        listener.serve(move |p| tx.send(p).unwrap());
        let mut s = UnixStream::connect(&sock).unwrap();
        s.write_all(b"/half/a/path").unwrap();
        drop(s);
        assert!(rx.recv_timeout(Duration::from_millis(500)).is_err());
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn only_existing_files_count_as_opened() {
        let dir = scratch();
        let f = dir.join("x.txt");
        std::fs::write(&f, "x").unwrap();
        let args =
            ["--automation".into(), f.clone().into_os_string(), dir.join("absent.pdf").into_os_string()];
        assert_eq!(opened_paths(args), vec![f.canonicalize().unwrap()]);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn each_settings_file_has_its_own_socket() {
        assert_ne!(socket_path(Path::new("/a/settings.json")), socket_path(Path::new("/b/settings.json")));
    }
}
