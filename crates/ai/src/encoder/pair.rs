//! Two threads for one short text: the caller and a helper that waits spinning, so that each of a
//! query's 36 products can hand half its rows over in well under a microsecond.
//!
//! A query is latency-bound: its products are small (10–40 rows) and many, and waking a sleeping
//! thread for each (a lock, a futex: tens of microseconds on a virtual machine) costs more than
//! half a product saves. The helper lives only while one text is encoded ([`with_pair`]) and
//! spins between products, which are microseconds apart.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicU8, Ordering};

const IDLE: u8 = 0;
const POSTED: u8 = 1;
const DONE: u8 = 2;
const QUIT: u8 = 3;

/// A job handed to the helper: a type-erased `FnOnce` and the function that runs it.
#[derive(Clone, Copy)]
struct Job {
    data: *mut (),
    call: unsafe fn(*mut ()),
}

/// The caller's side of a pair of threads; see [`with_pair`].
pub struct Pair {
    state: AtomicU8,
    job: UnsafeCell<Option<Job>>,
    /// A panic of the helper's half, raised again on the caller's thread.
    panic: std::sync::Mutex<Option<Box<dyn std::any::Any + Send>>>,
}

// SAFETY: `job` is written only by the caller while the state is IDLE and read only by the helper
// after it has seen POSTED (release/acquire on `state` orders the two); the job's closure is Send
// (see `join`).
unsafe impl Sync for Pair {}

impl Pair {
    /// Runs `a` here and `b` on the helper, and returns when both are done.
    pub fn join<A: FnOnce(), B: FnOnce() + Send>(&self, a: A, b: B) {
        unsafe fn call<B: FnOnce()>(data: *mut ()) {
            // SAFETY: `data` is the `Option<B>` on `join`'s stack, alive until DONE is seen.
            let b = unsafe { &mut *(data as *mut Option<B>) };
            if let Some(b) = b.take() {
                b()
            }
        }
        let mut b = Some(b);
        // SAFETY: the state is IDLE (each `join` returns only after setting it back), so the
        // helper does not read `job` now.
        unsafe { *self.job.get() = Some(Job { data: &mut b as *mut Option<B> as *mut (), call: call::<B> }) };
        self.state.store(POSTED, Ordering::Release);
        // Should `a` panic, the helper may still be running `b` on this frame's data: wait for it.
        struct Wait<'a>(&'a AtomicU8);
        impl Drop for Wait<'_> {
            fn drop(&mut self) {
                while self.0.load(Ordering::Acquire) != DONE {
                    std::hint::spin_loop();
                }
                self.0.store(IDLE, Ordering::Relaxed);
            }
        }
        let wait = Wait(&self.state);
        a();
        drop(wait);
        let panic = self.panic.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take();
        if let Some(panic) = panic {
            std::panic::resume_unwind(panic);
        }
    }

    /// The helper's loop: runs each posted job until told to quit.
    fn serve(&self) {
        loop {
            match self.state.load(Ordering::Acquire) {
                POSTED => {
                    // SAFETY: POSTED was stored after `job` was written (release/acquire).
                    let job = unsafe { (*self.job.get()).expect("a posted job") };
                    // SAFETY: the job's data lives until the caller sees DONE.
                    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe {
                        (job.call)(job.data)
                    }));
                    // A panic goes to the caller, who raises it again once both halves are done.
                    if let Err(panic) = ran {
                        *self.panic.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(panic);
                    }
                    self.state.store(DONE, Ordering::Release);
                }
                QUIT => return,
                _ => std::hint::spin_loop(),
            }
        }
    }
}

/// Runs `f` with a [`Pair`] whose helper thread spins for as long as `f` runs.
pub fn with_pair<T>(f: impl FnOnce(&Pair) -> T) -> T {
    let pair = Pair { state: AtomicU8::new(IDLE), job: UnsafeCell::new(None), panic: Default::default() };
    std::thread::scope(|scope| {
        let helper = scope.spawn(|| pair.serve());
        struct Quit<'a>(&'a AtomicU8);
        impl Drop for Quit<'_> {
            fn drop(&mut self) {
                self.0.store(QUIT, Ordering::Release);
            }
        }
        let quit = Quit(&pair.state);
        let out = f(&pair);
        drop(quit);
        // The helper's jobs catch their panics (`serve`), so its loop ends only by QUIT.
        if let Err(panic) = helper.join() {
            std::panic::resume_unwind(panic);
        }
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_halves_run_and_their_writes_are_seen() {
        let total = with_pair(|pair| {
            let mut sum = 0u64;
            for round in 0..1000u64 {
                let (mut left, mut right) = (0u64, 0u64);
                pair.join(|| left = round, || right = round * 2);
                sum += left + right;
            }
            sum
        });
        assert_eq!(total, 3 * (0..1000u64).sum::<u64>());
    }

    #[test]
    fn a_panic_on_the_helper_reaches_the_caller_and_the_pair_goes_on() {
        let after = with_pair(|pair| {
            let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pair.join(|| (), || panic!("helper's half"))
            }));
            assert!(caught.is_err());
            let mut x = 0;
            pair.join(|| (), || x = 7);
            x
        });
        assert_eq!(after, 7);
    }
}
