//! What an `accept` error means for the accept loop. A connection that died in the backlog (aborted,
//! reset) is that connection's problem: accept the next one at once. Anything else (out of file
//! descriptors — EMFILE, ENFILE — or of buffers or memory — ENOBUFS, ENOMEM) will fail again straight away,
//! so the loop waits, 10 ms doubling to 1 s and back to 10 ms after the next success, instead of spinning;
//! and it says so at most once a second, with a count of the lines it held back.

use crate::log_every::{LogEvery, held_back};
use std::io;
use std::time::Duration;

const FIRST: Duration = Duration::from_millis(10);
const MOST: Duration = Duration::from_secs(1);

pub(super) struct Backoff {
    /// The wait after the next failure; `None` after a success.
    next: Option<Duration>,
    log: LogEvery,
}

impl Backoff {
    pub fn new() -> Self {
        Self { next: None, log: LogEvery::new(Duration::from_secs(1)) }
    }

    pub fn succeeded(&mut self) {
        self.next = None;
    }

    /// Handles a failed `accept`: returns at once for a connection's own error, else after the back-off.
    pub async fn failed(&mut self, e: &io::Error) {
        if is_connection_error(e) {
            tracing::debug!("a connection failed before it was accepted: {e}");
            return;
        }
        let wait = self.next.unwrap_or(FIRST);
        self.next = Some((wait * 2).min(MOST));
        if let Some(suppressed) = self.log.ready() {
            tracing::warn!("accept failed: {e}; accepting again in {} ms{}", wait.as_millis(), held_back(suppressed));
        }
        tokio::time::sleep(wait).await;
    }
}

/// Errors of the one connection being accepted, not of the listener.
fn is_connection_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::Interrupted
            // Linux hands the new socket's pending network errors to `accept` (accept(2)).
            | io::ErrorKind::HostUnreachable
            | io::ErrorKind::NetworkUnreachable
            | io::ErrorKind::NetworkDown
            | io::ErrorKind::WouldBlock
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn resource_errors_back_off_doubling_and_reset_on_success() {
        let mut backoff = Backoff::new();
        let emfile = io::Error::from_raw_os_error(24);
        let mut waits = Vec::new();
        for _ in 0..9 {
            let start = tokio::time::Instant::now();
            backoff.failed(&emfile).await;
            waits.push(start.elapsed().as_millis());
        }
        assert_eq!(waits, [10, 20, 40, 80, 160, 320, 640, 1000, 1000]);
        backoff.succeeded();
        let start = tokio::time::Instant::now();
        backoff.failed(&emfile).await;
        assert_eq!(start.elapsed(), FIRST, "reset by the success");
        let start = tokio::time::Instant::now();
        backoff.failed(&io::Error::from(io::ErrorKind::ConnectionAborted)).await;
        assert_eq!(start.elapsed(), Duration::ZERO, "a connection's own error does not wait");
    }
}
