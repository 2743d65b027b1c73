//! `#[prompt]` and `#[resource]` bodies are compiled into resumable steps too; context parameters come
//! again with every round.
#![deny(warnings)]

use fastmcp::prelude::*;

/// Review code in the style the user picks.
#[prompt]
async fn review(code: String, ctx: Context) -> Result<String> {
    let _ = ctx.request_id();
    let style = Sample::prompt("Which style?").ask().await?.text();
    let _ = ctx.request_id();
    Ok(format!("Review in {style} style:\n{code}"))
}

/// A note, with the client's roots.
#[resource("notes://{id}", mime_type = "text/plain")]
async fn note(id: u32, ctx: &Context) -> Result<String> {
    let roots = ListRoots.ask().await?;
    let _ = ctx.request_id();
    Ok(format!("note {id} with {} roots", roots.len()))
}

fn main() {
    let _server = FastMcp::new("pass").prompt(review).resource(note);
}
