//! A server whose HTTP limits come from the environment, run as a real process by `tests/http_hardening.rs`:
//! `HARDENED_HEADER_MS`, `HARDENED_BODY_MS`, `HARDENED_IDLE_MS`, `HARDENED_GRACE_MS` (the timeouts and the
//! shutdown grace), `HARDENED_MAX_CONNECTIONS`, `HARDENED_PER_CLIENT` (connections),
//! `HARDENED_H2_STREAMS` (requests in flight per HTTP/2 connection), `HARDENED_MAX_STREAMS`,
//! `HARDENED_STREAMS_PER_CLIENT` (long-lived streams), `HARDENED_REQUESTS_PER_CLIENT`,
//! `HARDENED_SESSIONS_PER_CLIENT`, `HARDENED_SESSION_IDLE_MS` (per-client quotas, legacy sessions' idle
//! timeout); unset, the defaults. It serves on a free loopback port and says where on stderr, as every
//! fastmcp server does. Besides `echo` it has `hold`, which answers only once `release` is called, so a test
//! can keep requests in flight.

use fastmcp::prelude::*;
use std::sync::LazyLock;
use std::time::Duration;
use tokio::sync::Notify;

/// What `hold` waits for.
static RELEASE: LazyLock<Notify> = LazyLock::new(Notify::new);

/// Echo the text back.
#[tool]
async fn echo(text: String) -> String {
    text
}

/// Wait until `release` is called, then say so.
#[tool]
async fn hold() -> String {
    // Created before the log line: a `release` from then on reaches it.
    let released = RELEASE.notified();
    eprintln!("hold: waiting for release");
    released.await;
    "released".into()
}

/// Let every `hold` waiting now answer.
#[tool]
async fn release() -> String {
    RELEASE.notify_waiters();
    "released".into()
}

fn var<T: std::str::FromStr>(name: &str) -> Option<T> {
    let value = std::env::var(name).ok()?;
    Some(value.parse().unwrap_or_else(|_| panic!("{name} is not a number: {value:?}")))
}

fn millis(name: &str) -> Option<Duration> {
    var(name).map(Duration::from_millis)
}

#[tokio::main]
async fn main() -> fastmcp::Result<()> {
    fastmcp::init_tracing();
    let mut options = fastmcp::HttpOptions { addr: ([127, 0, 0, 1], 0).into(), ..Default::default() };
    let defaults = options.clone();
    options.header_read_timeout = millis("HARDENED_HEADER_MS").unwrap_or(defaults.header_read_timeout);
    options.body_read_timeout = millis("HARDENED_BODY_MS").unwrap_or(defaults.body_read_timeout);
    options.idle_timeout = millis("HARDENED_IDLE_MS").unwrap_or(defaults.idle_timeout);
    options.max_connections = var("HARDENED_MAX_CONNECTIONS").unwrap_or(defaults.max_connections);
    options.max_connections_per_client = var("HARDENED_PER_CLIENT").unwrap_or(defaults.max_connections_per_client);
    options.max_concurrent_streams = var("HARDENED_H2_STREAMS").unwrap_or(defaults.max_concurrent_streams);
    options.max_streams = var("HARDENED_MAX_STREAMS").unwrap_or(defaults.max_streams);
    options.max_streams_per_client = var("HARDENED_STREAMS_PER_CLIENT").unwrap_or(defaults.max_streams_per_client);
    options.max_requests_per_client = var("HARDENED_REQUESTS_PER_CLIENT").unwrap_or(defaults.max_requests_per_client);
    options.max_sessions_per_client = var("HARDENED_SESSIONS_PER_CLIENT").unwrap_or(defaults.max_sessions_per_client);
    let mut server = FastMcp::new("hardened").tool(echo).tool(hold).tool(release);
    if let Some(idle) = millis("HARDENED_SESSION_IDLE_MS") {
        server = server.session_idle_timeout(idle);
    }
    if let Some(grace) = millis("HARDENED_GRACE_MS") {
        server = server.shutdown_grace(grace);
    }
    server.build()?.serve_http(options).await
}
