//! A stdio server built with `default-features = false`: no HTTP transport (no hyper), no log subscriber of
//! fastmcp's own. It installs none either, so it writes nothing but protocol to stdout. Its only
//! dependencies are fastmcp and tokio: its own argument type derives through fastmcp's re-exports.

use fastmcp::prelude::*;

/// Echo a message back.
#[tool]
async fn echo(
    /// What to echo.
    message: String,
) -> String {
    message
}

/// Where to send a greeting.
#[derive(fastmcp::serde::Deserialize, fastmcp::schemars::JsonSchema)]
#[serde(crate = "fastmcp::serde")]
#[schemars(crate = "fastmcp::schemars")]
struct Address {
    /// Who to greet.
    name: String,
    /// How many times.
    times: u32,
}

/// Greet someone, more than once.
#[tool]
async fn greet(
    /// Whom, and how often.
    to: Address,
) -> String {
    vec![format!("Hello, {}!", to.name); to.times as usize].join(" ")
}

#[tokio::main]
async fn main() -> fastmcp::Result<()> {
    FastMcp::new("stdio-only").tool(echo).tool(greet).build()?.serve_stdio().await
}
