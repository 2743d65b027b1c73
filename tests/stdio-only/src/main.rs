//! A stdio server built with `default-features = false`: no HTTP transport (no hyper), no log subscriber of
//! fastmcp's own. It installs none either, so it writes nothing but protocol to stdout.

use fastmcp::prelude::*;

/// Echo a message back.
#[tool]
async fn echo(
    /// What to echo.
    message: String,
) -> String {
    message
}

#[tokio::main]
async fn main() -> fastmcp::Result<()> {
    FastMcp::new("stdio-only").tool(echo).build()?.serve_stdio().await
}
