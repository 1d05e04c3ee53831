//! Progress for a UI, thinned: a window needs a few events a second, not one per embedded batch.

use crate::Progress;

/// Progress for a UI: at most one event per `interval` per file and stage, but every change of
/// stage, and every final event (indexed, unchanged, failed, cancelled), always goes through.
pub struct ProgressThrottle<F: FnMut(Progress)> {
    sink: F,
    interval: std::time::Duration,
    last: Option<(String, crate::Stage, std::time::Instant)>,
}

impl<F: FnMut(Progress)> ProgressThrottle<F> {
    /// Events to `sink`, at most one per `interval` per file and stage.
    pub fn new(interval: std::time::Duration, sink: F) -> Self {
        ProgressThrottle { sink, interval, last: None }
    }

    /// Passes the event on, or drops it when it comes too soon after the last of its file and stage.
    pub fn push(&mut self, p: Progress) {
        use crate::Stage::*;
        let last_event = matches!(p.stage, Queued | Indexed | Unchanged | Failed | Cancelled);
        let due = match &self.last {
            Some((file, stage, at)) => *file != p.file || *stage != p.stage || at.elapsed() >= self.interval,
            None => true,
        };
        if last_event || due || p.done == p.total {
            self.last = Some((p.file.clone(), p.stage, std::time::Instant::now()));
            (self.sink)(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Stage;

    fn ev(stage: Stage, done: usize) -> Progress {
        Progress {
            file: "a.pdf".into(),
            file_index: 0,
            files: 1,
            stage,
            done,
            total: 100,
            error: None,
            remaining_s: None,
        }
    }

    #[test]
    fn bursts_are_thinned_and_stage_changes_and_final_events_kept() {
        let mut got = Vec::new();
        let mut t = ProgressThrottle::new(std::time::Duration::from_secs(60), |p: Progress| {
            got.push((p.stage, p.done))
        });
        t.push(ev(Stage::Converting, 0));
        for i in 0..50 {
            t.push(ev(Stage::Embedding, i));
        }
        t.push(ev(Stage::Indexed, 1));
        drop(t);
        assert_eq!(got, vec![(Stage::Converting, 0), (Stage::Embedding, 0), (Stage::Indexed, 1)]);
    }
}
