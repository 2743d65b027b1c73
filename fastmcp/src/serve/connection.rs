//! One connection's life: served until it ends, goes idle, or the server stops. Idle means no request in
//! flight (a long-lived stream is one) for `idle_timeout`, or for `header_read_timeout` before its first
//! request (a client that connects and sends nothing, or an HTTP/2 client that never finishes a request's
//! headers). Between requests on HTTP/1.1 the wait is also the wait for the next request's head, so it ends
//! after the shorter of the two (a client that trickles a second request's headers is cut like one that
//! trickles its first). Stopping is graceful (requests in flight finish, HTTP/2 sends GOAWAY); killing, at
//! the end of the shutdown grace, drops the connection whatever it is doing.
//!
//! Timing the heads here rather than with hyper's `header_read_timeout` keeps a timer off the request path:
//! hyper set one each time an HTTP/1.1 connection waited for a head, and registering it woke the runtime's
//! I/O driver (an eventfd write and an `epoll_wait` return) whenever no earlier timer was pending — at one
//! connection, on every request.

use super::woken::WhenWoken;
use hyper_util::server::graceful::GracefulConnection;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::Notify;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// The requests in flight on one connection, and when the last one ended.
pub(super) struct Activity {
    born: Instant,
    in_flight: AtomicUsize,
    /// Milliseconds from `born` to the end of the last request; `NEVER` before the first.
    last_ms: AtomicU64,
    /// Its requests are HTTP/1.x: the wait between them is a wait for a head.
    http1: AtomicBool,
    ended: Notify,
}

const NEVER: u64 = u64::MAX;

/// One request in flight, until its response body is dropped (sent whole, or the client went away).
pub(super) struct InFlight(Arc<Activity>);

impl Activity {
    pub fn new() -> Arc<Self> {
        Arc::new(Self {
            born: Instant::now(),
            in_flight: AtomicUsize::new(0),
            last_ms: AtomicU64::new(NEVER),
            http1: AtomicBool::new(false),
            ended: Notify::new(),
        })
    }

    /// `first` (a wait for the connection's first bytes), for as long as the connection may wait for its
    /// first head: `None` once `header_read_timeout` from its start has passed or the server stops.
    pub async fn opening<F: Future>(self: &Arc<Self>, ends: &Ends, first: F) -> Option<F::Output> {
        tokio::select! {
            out = first => Some(out),
            // Before any request this is the wait for the first head.
            _ = self.clone().idle(ends.head, ends.idle) => None,
            () = ends.stop.cancelled() => None,
        }
    }

    pub fn begin(self: &Arc<Self>, version: hyper::Version) -> InFlight {
        if version < hyper::Version::HTTP_2 {
            self.http1.store(true, Ordering::Relaxed);
        }
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        InFlight(self.clone())
    }

    /// Resolves once the connection has had no request in flight for `idle` (`head`, before any request;
    /// the shorter of the two between HTTP/1.x requests), with which of the two it waited for.
    async fn idle(self: Arc<Self>, head: Duration, idle: Duration) -> Quiet {
        loop {
            if self.in_flight.load(Ordering::SeqCst) > 0 {
                // `notify_one` keeps a permit for a request that ends before this waits.
                self.ended.notified().await;
                continue;
            }
            let last = self.last_ms.load(Ordering::SeqCst);
            let (deadline, quiet) = match last {
                NEVER => (self.born + head, Quiet::Head),
                ms => {
                    let end = self.born + Duration::from_millis(ms);
                    match self.http1.load(Ordering::Relaxed) && head < idle {
                        true => (end + head, Quiet::Head),
                        false => (end + idle, Quiet::Idle),
                    }
                }
            };
            if Instant::now() >= deadline {
                if let Quiet::Head = quiet {
                    tracing::debug!("connection cut: no request head within HttpOptions::header_read_timeout");
                }
                return quiet;
            }
            if last == NEVER {
                // The first request's end may bring the deadline forward (`idle` shorter than `head`).
                tokio::select! {
                    () = tokio::time::sleep_until(deadline) => {}
                    () = self.ended.notified() => {}
                }
            } else {
                // Later requests only move the deadline on, and it is read again when this wakes: no timer
                // is set, and no task woken, per request.
                tokio::time::sleep_until(deadline).await;
            }
        }
    }
}

/// What a connection with no request in flight waited for in vain.
enum Quiet {
    /// A request's head, for `header_read_timeout`: the connection is cut, as hyper cuts a slow head (a
    /// graceful shutdown would let an HTTP/1.1 head that has begun finish, however slowly).
    Head,
    /// Another request, for `idle_timeout`: the connection is shut down gracefully.
    Idle,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let ms = u64::try_from(self.0.born.elapsed().as_millis()).unwrap_or(NEVER - 1);
        self.0.last_ms.store(ms, Ordering::SeqCst);
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
        self.0.ended.notify_one();
    }
}

/// How a connection that did not end by itself is let go.
enum End {
    /// Dropped as it is: a head that never came, or the shutdown's grace is over.
    Cut,
    /// Shut down gracefully: idle, or the server stops.
    Graceful,
}

/// When a connection is let go.
pub(super) struct Ends {
    /// Waiting for a request's head: before the first request, and between HTTP/1.x requests.
    pub head: Duration,
    /// Between requests.
    pub idle: Duration,
    /// The server stops: shut down gracefully.
    pub stop: CancellationToken,
    /// The shutdown grace is over: drop it.
    pub kill: CancellationToken,
}

/// Serves `conn` until it ends, goes idle, or the server stops it. Boxed here, where `C: Send` is in scope:
/// through the `select!`s rustc cannot prove the spawned connection task `Send` otherwise.
pub(super) fn drive<C>(conn: C, activity: Arc<Activity>, ends: Arc<Ends>) -> Pin<Box<dyn Future<Output = ()> + Send>>
where
    C: GracefulConnection + Send + 'static,
    C::Error: std::fmt::Display + Send,
{
    Box::pin(drive_boxed(conn, activity, ends))
}

async fn drive_boxed<C>(conn: C, activity: Arc<Activity>, ends: Arc<Ends>)
where
    C: GracefulConnection + Send,
    C::Error: std::fmt::Display + Send,
{
    let mut conn = std::pin::pin!(conn);
    let mut kill = std::pin::pin!(ends.kill.clone().cancelled_owned());
    let ended = {
        // The ways the connection ends, polled only when one of them woke the task (see `woken`).
        let ending = std::pin::pin!(async {
            tokio::select! {
                quiet = activity.idle(ends.head, ends.idle) => match quiet {
                    Quiet::Head => End::Cut,
                    Quiet::Idle => End::Graceful,
                },
                () = ends.stop.cancelled() => End::Graceful,
                () = kill.as_mut() => End::Cut,
            }
        });
        tokio::select! {
            biased;
            ended = conn.as_mut() => Ok(ended),
            end = WhenWoken::new(ending) => Err(end),
        }
    };
    let ended = match ended {
        Ok(ended) => ended,
        Err(End::Cut) => return,
        Err(End::Graceful) => {
            conn.as_mut().graceful_shutdown();
            tokio::select! {
                ended = conn => ended,
                () = kill => return,
            }
        }
    };
    if let Err(e) = ended {
        tracing::debug!("connection ended: {e}");
    }
}
