//! Only the handler's own control flow is compiled into resumable steps: not a closure's body.
use fastmcp::prelude::*;

#[tool]
async fn each(items: Vec<String>) -> Result<String> {
    let asked: Vec<_> = items.iter().map(|item| Sample::prompt(item.clone()).ask().await).collect();
    Ok(asked.len().to_string())
}

fn main() {}
