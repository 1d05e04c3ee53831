//! The one way to ask long work to stop: a [`Cancel`] flag, shared between whoever may ask (a
//! Cancel button, Ctrl-C, a window closing) and the work, which checks it between steps and stops
//! with its own "cancelled" error (in the engine, `EngineError::Cancelled`). milli's
//! `must_stop_processing` is the model.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A request to stop, cheap to clone and to check; every clone sees the same flag.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// A flag nobody has raised yet.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// A flag already raised (work given it stops at once; for tests).
    pub fn cancelled() -> Cancel {
        let c = Cancel::new();
        c.cancel();
        c
    }

    /// Asks the work to stop (it stops at its next check).
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Lowers the flag again, for the next piece of work.
    pub fn reset(&self) {
        self.0.store(false, Ordering::Relaxed);
    }

    /// Whether stopping was asked for.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_clone_sees_the_request() {
        let asker = Cancel::new();
        let worker = asker.clone();
        assert!(!worker.is_cancelled());
        asker.cancel();
        assert!(worker.is_cancelled());
        worker.reset();
        assert!(!asker.is_cancelled());
    }

    #[test]
    fn the_request_crosses_threads() {
        let c = Cancel::new();
        let seen = std::thread::scope(|s| {
            let worker = s.spawn(|| {
                while !c.is_cancelled() {
                    std::thread::yield_now();
                }
                true
            });
            c.cancel();
            worker.join().unwrap()
        });
        assert!(seen);
    }
}
