//! A borrow the syntax doesn't show is caught by the type check, on the same binding.
use fastmcp::prelude::*;

#[tool]
async fn pick(items: Vec<String>) -> Result<String> {
    let name = items[0].as_str();
    let answer = Sample::prompt("Pick?").ask().await?;
    Ok(format!("{name} {}", answer.text()))
}

fn main() {}
