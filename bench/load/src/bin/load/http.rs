//! The HTTP side: C keep-alive HTTP/1.1 connections (hyper 1 client, `TCP_NODELAY`), each a task sending
//! its ops' requests one after another. Every answer is checked: HTTP 200, the JSON-RPC response to that id
//! (from the JSON body or the SSE `data:` events), then [`Op::check`]. A broken connection is counted as an
//! error and reopened (with a new legacy session).

use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;

use crate::measure::{Tally, Window};
use crate::reply::{self, Reply};
use crate::scenario::{self, Op, Outgoing, Scenario};

/// Runs `conns` clients of `scenario` against `addr` over `window`, each sending as soon as it is answered,
/// or at `rate` requests a second in all.
pub async fn run(
    addr: SocketAddr,
    quickack: bool,
    scenario: Scenario,
    conns: usize,
    window: Window,
    rate: Option<f64>,
) -> Tally {
    let start = Instant::now();
    let tasks: Vec<_> = (0..conns)
        .map(|slot| {
            let pace = rate.map(|rate| Pace::new(start, rate, conns, slot));
            tokio::spawn(client(addr, quickack, scenario, slot as u64, window, pace))
        })
        .collect();
    let mut total = Tally::default();
    for task in tasks {
        match task.await {
            Ok(tally) => total.merge(tally),
            Err(e) => total.error(format!("client task failed: {e}")),
        }
    }
    total
}

/// When a connection's requests are due at a fixed rate.
struct Pace {
    next: Instant,
    interval: Duration,
}

impl Pace {
    /// Connection `slot` of `conns` sharing `rate` requests a second: every `conns / rate` seconds, the
    /// connections' schedules staggered evenly.
    fn new(start: Instant, rate: f64, conns: usize, slot: usize) -> Self {
        let interval = Duration::from_secs_f64(conns as f64 / rate);
        Self { next: start + interval.mul_f64(slot as f64 / conns as f64), interval }
    }

    /// Waits until the next request is due; returns when it counts from (see the crate's `--rate`).
    async fn due(&mut self) -> Instant {
        let due = self.next;
        self.next += self.interval;
        if Instant::now() >= due {
            return due;
        }
        tokio::time::sleep_until(due.into()).await;
        Instant::now()
    }
}

/// A failed request.
enum Failure {
    /// A wrong answer on a connection that is still usable.
    Wrong(String),
    /// The connection is gone: reconnect.
    Broken(String),
}

/// One connection: connects (again after a failure), opens its session when the scenario has one, then runs
/// ops back to back until the window ends.
async fn client(
    addr: SocketAddr,
    quickack: bool,
    scenario: Scenario,
    slot: u64,
    window: Window,
    mut pace: Option<Pace>,
) -> Tally {
    let mut tally = Tally::default();
    let mut seq = 0;
    let mut id = 0;
    'connect: while Instant::now() < window.until {
        let mut link = match Link::open(addr, quickack).await {
            Ok(link) => link,
            Err(why) => {
                tally.error(why);
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        if scenario.legacy() {
            match link.open_session().await {
                Ok(session) if session.is_some() == scenario.wants_session() => link.session = session,
                Ok(session) => {
                    tally.error(format!(
                        "initialize: expected a session id: {}, got {session:?}",
                        scenario.wants_session()
                    ));
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
                Err(why) => {
                    tally.error(why);
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            }
        }
        loop {
            seq += 1;
            let mut op = Op::new(scenario, slot, seq);
            let started = Instant::now();
            loop {
                id += 1;
                let sent = match &mut pace {
                    Some(pace) => pace.due().await,
                    None => Instant::now(),
                };
                let outcome = link.call(op.request(id)).await;
                let done = Instant::now();
                match outcome.map(|reply| op.check(reply)) {
                    Ok(Ok(finished)) => {
                        tally.answered(&window, sent, done);
                        if finished {
                            if scenario.rounds() > 1 {
                                tally.op_done(&window, started, done);
                            }
                            break;
                        }
                    }
                    Ok(Err(why)) | Err(Failure::Wrong(why)) => {
                        tally.error(why);
                        break;
                    }
                    Err(Failure::Broken(why)) => {
                        tally.error(why);
                        continue 'connect;
                    }
                }
            }
            if Instant::now() >= window.until {
                // A client done with its session ends it, so the next round's sessions find room under the
                // server's per-client limit (fastmcp's is 64).
                if let Err(why) = link.close_session().await {
                    tally.error(why);
                }
                break 'connect;
            }
        }
    }
    tally
}

/// A keep-alive HTTP/1.1 connection and, for legacy scenarios, its session.
pub struct Link {
    sender: SendRequest<Full<Bytes>>,
    host: String,
    pub session: Option<String>,
}

impl Link {
    pub async fn open(addr: SocketAddr, quickack: bool) -> Result<Self, String> {
        let stream = tokio::net::TcpStream::connect(addr).await.map_err(|e| format!("connect: {e}"))?;
        stream.set_nodelay(true).map_err(|e| format!("nodelay: {e}"))?;
        let io = TokioIo::new(Socket { stream, quickack });
        let (sender, connection) =
            hyper::client::conn::http1::handshake(io).await.map_err(|e| format!("handshake: {e}"))?;
        tokio::spawn(connection);
        Ok(Link { sender, host: addr.to_string(), session: None })
    }

    /// The legacy handshake (`initialize`, then `notifications/initialized`), on this connection but not
    /// for it: returns the session id the server gave, if any (a server serving legacy requests without
    /// sessions gives none), and leaves [`session`](Self::session) alone.
    pub async fn open_session(&mut self) -> Result<Option<String>, String> {
        let init = scenario::initialize();
        let (status, content_type, session, body) =
            self.post(init, None, None, &[]).await.map_err(|e| format!("initialize: {e}"))?;
        if status != 200 {
            return Err(format!("initialize: HTTP {status}: {}", reply::excerpt(&body)));
        }
        let answer = reply::from_http(content_type.as_deref(), &body, 0).map_err(|e| format!("initialize: {e}"))?;
        scenario::check_initialize(&answer)?;
        let note = scenario::INITIALIZED.to_owned();
        let (status, _, _, body) = self
            .post(note, Some(fastmcp_bench_load::LEGACY), session.as_deref(), &[])
            .await
            .map_err(|e| format!("initialized: {e}"))?;
        if status != 202 {
            return Err(format!("notifications/initialized: HTTP {status}: {}", reply::excerpt(&body)));
        }
        Ok(session)
    }

    /// Ends the session, if there is one (`DELETE` with its id; any 2xx will do).
    async fn close_session(&mut self) -> Result<(), String> {
        let Some(session) = self.session.take() else { return Ok(()) };
        let request = hyper::Request::delete("/mcp")
            .header("host", &self.host)
            .header("mcp-protocol-version", fastmcp_bench_load::LEGACY)
            .header("mcp-session-id", session)
            .body(Full::new(Bytes::new()))
            .map_err(|e| format!("request: {e}"))?;
        self.sender.ready().await.map_err(|e| format!("DELETE: connection: {e}"))?;
        let response = self.sender.send_request(request).await.map_err(|e| format!("DELETE: send: {e}"))?;
        let status = response.status();
        let body = response.into_body().collect().await.map_err(|e| format!("DELETE: body: {e}"))?.to_bytes();
        if !status.is_success() {
            return Err(format!("DELETE of the session: HTTP {status}: {}", reply::excerpt(&body)));
        }
        Ok(())
    }

    /// One request on this connection's session (if any): the checked JSON-RPC response to its id.
    async fn call(&mut self, out: Outgoing) -> Result<Reply, Failure> {
        let mut extra: Vec<(&str, &str)> = Vec::with_capacity(2);
        extra.extend(out.method.map(|m| ("mcp-method", m)));
        extra.extend(out.name.map(|n| ("mcp-name", n)));
        let session = self.session.clone();
        let (status, content_type, _, body) =
            self.post(out.body, Some(out.version), session.as_deref(), &extra).await.map_err(Failure::Broken)?;
        if status != 200 {
            return Err(Failure::Wrong(format!("HTTP {status}: {}", reply::excerpt(&body))));
        }
        reply::from_http(content_type.as_deref(), &body, out.id).map_err(Failure::Wrong)
    }

    /// One POST with the headers every request carries (`MCP-Protocol-Version` on all but `initialize`),
    /// `session` as `Mcp-Session-Id`, and `extra`; returns the status, content type, session id header and
    /// the whole body.
    async fn post(
        &mut self,
        body: String,
        version: Option<&str>,
        session: Option<&str>,
        extra: &[(&str, &str)],
    ) -> Result<(u16, Option<String>, Option<String>, Bytes), String> {
        let mut request = hyper::Request::post("/mcp")
            .header("host", &self.host)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(version) = version {
            request = request.header("mcp-protocol-version", version);
        }
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        for (k, v) in extra {
            request = request.header(*k, *v);
        }
        let request = request.body(Full::new(Bytes::from(body))).map_err(|e| format!("request: {e}"))?;
        self.sender.ready().await.map_err(|e| format!("connection: {e}"))?;
        let response = self.sender.send_request(request).await.map_err(|e| format!("send: {e}"))?;
        let (parts, body) = response.into_parts();
        let header = |name: &str| parts.headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let (content_type, session) = (header("content-type"), header("mcp-session-id"));
        let body = body.collect().await.map_err(|e| format!("body: {e}"))?.to_bytes();
        Ok((parts.status.as_u16(), content_type, session, body))
    }
}

/// The client's socket; with `quickack`, every read that got bytes is followed by TCP_QUICKACK, which sends
/// the ACK the kernel would otherwise have delayed.
struct Socket {
    stream: tokio::net::TcpStream,
    quickack: bool,
}

impl tokio::io::AsyncRead for Socket {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        if self.quickack && matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            // Best effort: a failure only brings the delayed ACK back.
            let _ = socket2::SockRef::from(&self.stream).set_tcp_quickack(true);
        }
        polled
    }
}

impl tokio::io::AsyncWrite for Socket {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}
