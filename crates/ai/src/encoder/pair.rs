//! Two threads for one short text: the caller and a helper that waits spinning, so that each of a
//! query's 36 products can share its rows out in well under a microsecond.
//!
//! A query is latency-bound: its products are small (10–40 rows) and many, and waking a sleeping
//! thread for each (a lock, a futex: tens of microseconds on a virtual machine) costs more than
//! half a product saves. The helper lives only while one text is encoded ([`with_pair`]) and
//! spins between products, which are microseconds apart, yielding its core whenever it has spun
//! a while (the search's keyword channel runs beside the query's embedding).
//!
//! The parts of a product are claimed, not assigned: the caller does every part the helper has
//! not started, so a helper that the OS has not scheduled delays nothing.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};

const IDLE: u8 = 0;
const POSTED: u8 = 1;
const TAKEN: u8 = 2;
const DONE: u8 = 3;
const QUIT: u8 = 4;

/// Spins before each yield of the core, waiting.
const SPINS: u32 = 1 << 12;

/// A job handed to the helper: a type-erased `Fn` and the function that runs it.
#[derive(Clone, Copy)]
struct Job {
    data: *const (),
    call: unsafe fn(*const ()),
}

/// The caller's side of a pair of threads; see [`with_pair`].
pub struct Pair {
    state: AtomicU8,
    job: UnsafeCell<Option<Job>>,
    /// A panic of the helper's share, raised again on the caller's thread.
    panic: std::sync::Mutex<Option<Box<dyn std::any::Any + Send>>>,
}

// SAFETY: `job` is written only by the caller while the state is IDLE and read only by the helper
// once it has moved the state from POSTED to TAKEN (release/acquire on `state` orders the two);
// the job's closure is Sync (see `split`).
unsafe impl Sync for Pair {}

/// Waits for `ready`, spinning, then yielding the core between spins.
fn wait_for(ready: impl Fn() -> bool) {
    let mut spins = 0u32;
    while !ready() {
        spins += 1;
        if spins.is_multiple_of(SPINS) {
            std::thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
    }
}

impl Pair {
    /// Runs `f(0)`, …, `f(parts − 1)`, each once, here and on the helper, and returns when all
    /// are done.
    pub fn split<F: Fn(usize) + Sync>(&self, parts: usize, f: F) {
        let next = AtomicUsize::new(0);
        let work = || loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= parts {
                break;
            }
            f(i);
        };
        unsafe fn call<W: Fn()>(data: *const ()) {
            // SAFETY: `data` is `split`'s `work`, alive until the caller sees DONE.
            unsafe { (*(data as *const W))() }
        }
        fn erase<W: Fn() + Sync>(work: &W) -> Job {
            Job { data: work as *const W as *const (), call: call::<W> }
        }
        // SAFETY: the state is IDLE (each `split` returns only after setting it back), so the
        // helper does not read `job` now.
        unsafe { *self.job.get() = Some(erase(&work)) };
        self.state.store(POSTED, Ordering::Release);
        // Whether `work` returns or panics here, the helper must not be left running it once
        // this frame is gone: take the job back if it is not started, else wait until it is done.
        struct Settle<'a>(&'a AtomicU8);
        impl Drop for Settle<'_> {
            fn drop(&mut self) {
                if self.0.compare_exchange(POSTED, IDLE, Ordering::AcqRel, Ordering::Acquire).is_err() {
                    wait_for(|| self.0.load(Ordering::Acquire) == DONE);
                    self.0.store(IDLE, Ordering::Release);
                }
            }
        }
        let settle = Settle(&self.state);
        work();
        drop(settle);
        let panic = self.panic.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take();
        if let Some(panic) = panic {
            std::panic::resume_unwind(panic);
        }
    }

    /// The helper's loop: runs each posted job it takes until told to quit.
    fn serve(&self) {
        let mut spins = 0u32;
        loop {
            match self.state.load(Ordering::Acquire) {
                POSTED => {
                    if self
                        .state
                        .compare_exchange(POSTED, TAKEN, Ordering::AcqRel, Ordering::Acquire)
                        .is_err()
                    {
                        continue; // taken back by the caller, who did every part
                    }
                    // SAFETY: the job was written before POSTED was stored (release/acquire).
                    let job = unsafe { (*self.job.get()).expect("a posted job") };
                    // SAFETY: the job's data lives until the caller sees DONE.
                    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe {
                        (job.call)(job.data)
                    }));
                    // A panic goes to the caller, who raises it again once every part is done.
                    if let Err(panic) = ran {
                        *self.panic.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(panic);
                    }
                    self.state.store(DONE, Ordering::Release);
                    spins = 0;
                }
                QUIT => return,
                _ => {
                    spins += 1;
                    if spins.is_multiple_of(SPINS) {
                        std::thread::yield_now();
                    } else {
                        std::hint::spin_loop();
                    }
                }
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
    fn every_part_runs_once_and_its_writes_are_seen() {
        let total = with_pair(|pair| {
            let mut sum = 0u64;
            for round in 0..1000u64 {
                let cells: Vec<AtomicUsize> = (0..5).map(|_| AtomicUsize::new(0)).collect();
                pair.split(5, |i| {
                    cells[i].fetch_add(1, Ordering::Relaxed);
                });
                assert!(cells.iter().all(|c| c.load(Ordering::Relaxed) == 1));
                let mut halves = [0u64; 2];
                let slots: Vec<std::sync::Mutex<&mut u64>> =
                    halves.iter_mut().map(std::sync::Mutex::new).collect();
                pair.split(2, |i| **slots[i].lock().unwrap() = round * (i as u64 + 1));
                drop(slots);
                sum += halves[0] + halves[1];
            }
            sum
        });
        assert_eq!(total, 3 * (0..1000u64).sum::<u64>());
    }

    #[test]
    fn a_panic_in_a_part_reaches_the_caller_and_the_pair_goes_on() {
        let after = with_pair(|pair| {
            for _ in 0..20 {
                let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    pair.split(2, |i| assert!(i != 1, "part one"))
                }));
                assert!(caught.is_err());
            }
            let x = AtomicUsize::new(0);
            pair.split(2, |i| {
                x.fetch_add(i + 1, Ordering::Relaxed);
            });
            x.into_inner()
        });
        assert_eq!(after, 3);
    }
}
