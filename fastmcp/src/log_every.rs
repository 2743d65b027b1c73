//! A log line at most once per interval for events that can come in floods (refused tokens, failing
//! `accept`): an attacker, or a machine out of file descriptors, must not be able to fill the disk with
//! logs or spend the CPU writing them. The lines that were held back are counted, and the next line says
//! how many.

use crate::sync::lock;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Lets one event an interval through; counts the others.
#[derive(Debug)]
pub(crate) struct LogEvery {
    interval: Duration,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    /// When the last line was let through; `None` before the first.
    last: Option<Instant>,
    suppressed: u64,
}

impl LogEvery {
    pub const fn new(interval: Duration) -> Self {
        Self { interval, state: Mutex::new(State { last: None, suppressed: 0 }) }
    }

    /// One event happened. `Some(n)` when it may be logged now, `n` being the events held back since the
    /// last line (say so in the line); `None` when it is to be held back.
    pub fn ready(&self) -> Option<u64> {
        self.ready_at(Instant::now())
    }

    fn ready_at(&self, now: Instant) -> Option<u64> {
        let mut state = lock(&self.state);
        if state.last.is_some_and(|last| now.saturating_duration_since(last) < self.interval) {
            state.suppressed += 1;
            return None;
        }
        state.last = Some(now);
        Some(std::mem::take(&mut state.suppressed))
    }
}

/// ", N more like it held back" after a line that had predecessors held back; nothing otherwise.
pub(crate) fn held_back(suppressed: u64) -> String {
    if suppressed == 0 { String::new() } else { format!(" ({suppressed} more like it held back)") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_an_interval_with_the_count_of_the_rest() {
        let limit = LogEvery::new(Duration::from_secs(1));
        let start = Instant::now();
        assert_eq!(limit.ready_at(start), Some(0), "the first event is logged");
        for ms in [1, 10, 500, 999] {
            assert_eq!(limit.ready_at(start + Duration::from_millis(ms)), None, "{ms} ms");
        }
        assert_eq!(limit.ready_at(start + Duration::from_secs(1)), Some(4), "the next line counts the held back");
        assert_eq!(limit.ready_at(start + Duration::from_millis(1500)), None);
        assert_eq!(limit.ready_at(start + Duration::from_secs(5)), Some(1));
        assert_eq!(held_back(0), "");
        assert_eq!(held_back(3), " (3 more like it held back)");
    }
}
