use fastmcp::prelude::*;

#[elicit]
struct Confirm {
    yes: bool,
}

/// `once` on a tool that never asks: there is no final round to replay.
#[tool(once)]
async fn never_asks(name: String) -> String {
    name
}

/// A destructive flow is one-time; `once = false` can't say otherwise.
#[tool(destructive, once = false)]
async fn wipe(disk: String) -> Result<String> {
    let answer = Confirm::elicit(format!("Wipe {disk}?")).ask().await?;
    Ok(format!("{:?}", answer.accepted().map(|c| c.yes)))
}

#[tool(once = "yes")]
async fn not_a_flag() -> String {
    String::new()
}

fn main() {}
