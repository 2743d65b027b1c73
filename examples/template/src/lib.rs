//! The server: its tools and resources, and `server()`, which `main.rs` runs and `tests/server.rs` drives.
//! Rename things, then add your own handlers the same way.

use fastmcp::prelude::*;

/// The sum of two integers: `add`'s structured result.
// Your own types derive through fastmcp's re-exports of serde and schemars, so they need no dependency.
#[derive(fastmcp::serde::Serialize, fastmcp::schemars::JsonSchema)]
#[serde(crate = "fastmcp::serde")]
#[schemars(crate = "fastmcp::schemars")]
pub struct Sum {
    /// `a + b`.
    pub sum: i64,
}

/// Add two integers.
#[tool(read_only, idempotent)]
async fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> Result<Json<Sum>, String> {
    let sum = a.checked_add(b).ok_or_else(|| format!("{a} + {b} does not fit in 64 bits"))?;
    Ok(Json(Sum { sum }))
}

/// The answer to the question `delete_note` asks (the client renders it as a form).
#[elicit]
struct Confirm {
    /// Delete it?
    confirm: bool,
}

/// Delete a note, asking the user first.
#[tool(destructive)]
async fn delete_note(
    /// The note's title.
    title: String,
) -> Result<String> {
    // The handler waits here for the user's answer: on the modern protocol the call ends with
    // `input_required` and the retry resumes right here; legacy clients are asked over their session.
    let answer = Confirm::elicit(format!("Delete the note {title:?}?")).ask().await?;
    let Some(Confirm { confirm: true }) = answer.accepted() else {
        return Ok(format!("Kept {title:?}: deletion cancelled."));
    };
    Ok(format!("Deleted {title:?}."))
}

/// What this server is.
#[resource("my-mcp-server://about", mime_type = "text/plain")]
async fn about() -> &'static str {
    "my-mcp-server: a fastmcp server made from its template."
}

/// The server, ready to `run()` (stdio, or HTTP as `FASTMCP_TRANSPORT` says) or to `build()` and serve.
pub fn server() -> FastMcp {
    FastMcp::new("my-mcp-server").version(env!("CARGO_PKG_VERSION")).tool(add).tool(delete_note).resource(about)
}
