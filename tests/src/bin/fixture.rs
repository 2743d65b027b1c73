//! A server for tests that need misbehaving or slow handlers, run as a real process over stdio.

use fastmcp::prelude::*;
use std::time::Duration;

/// Sleep, then say how long.
#[tool]
async fn sleep(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms}ms")
}

/// Panic.
#[tool]
async fn boom() -> String {
    panic!("boom went the tool")
}

/// Fail with this message.
#[tool]
async fn fail(message: String) -> Result<String, String> {
    Err(message)
}

/// A resource whose reader panics.
#[resource("fixture://panics")]
async fn panics() -> String {
    panic!("boom went the resource")
}

#[tokio::main]
async fn main() -> fastmcp::Result<()> {
    let max = std::env::var("FIXTURE_MAX_MESSAGE_BYTES").ok().and_then(|v| v.parse().ok()).unwrap_or(4 << 20);
    FastMcp::new("fixture")
        .tool(sleep)
        .tool(boom)
        .tool(fail)
        .resource(panics)
        .max_message_bytes(max)
        .page_size(2)
        .shutdown_grace(Duration::from_secs(5))
        .run()
        .await
}
