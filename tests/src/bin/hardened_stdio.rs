//! A server for the stdio hardening tests (`tests/stdio_hardening.rs`): tools that record how many of them
//! run at once, return replies of a chosen size, or ask the client, with the connection's limits set from
//! the environment.

use fastmcp::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

static RUNNING: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

/// Sleep while counted as running, keeping the most that ever ran at once.
#[tool]
async fn gauge(ms: u64) -> String {
    let now = RUNNING.fetch_add(1, Ordering::SeqCst) + 1;
    PEAK.fetch_max(now, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(ms)).await;
    RUNNING.fetch_sub(1, Ordering::SeqCst);
    format!("slept {ms}ms")
}

/// The most `gauge` calls that ran at once so far.
#[tool]
async fn peak() -> String {
    PEAK.load(Ordering::SeqCst).to_string()
}

/// A text of `bytes` bytes.
#[tool]
async fn blob(bytes: usize) -> String {
    "x".repeat(bytes)
}

/// Echo the text back.
#[tool]
async fn echo(text: String) -> String {
    text
}

/// A name, asked for with a form.
#[elicit]
struct Name {
    /// Your name.
    name: String,
}

/// Ask the user's name, then greet them.
#[tool]
async fn ask_name() -> Result<String> {
    let answer = Name::elicit("What is your name?").ask().await?;
    Ok(match answer.accepted() {
        Some(Name { name }) => format!("Hello, {name}!"),
        None => "No name given.".into(),
    })
}

#[tokio::main]
async fn main() -> fastmcp::Result<()> {
    let env = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<usize>().ok());
    let mut server = FastMcp::new("hardened").tool(gauge).tool(peak).tool(blob).tool(echo).tool(ask_name);
    if let Some(n) = env("HARDENED_MAX_IN_FLIGHT") {
        server = server.max_in_flight_per_connection(n);
    }
    if let Some(n) = env("HARDENED_MAX_BATCH") {
        server = server.max_batch_size(n);
    }
    if let Some(n) = env("HARDENED_MAX_MESSAGE_BYTES") {
        server = server.max_message_bytes(n);
    }
    if let Some(n) = env("HARDENED_MAX_REPLY_BYTES") {
        server = server.max_reply_bytes(n);
    }
    server.run().await
}
