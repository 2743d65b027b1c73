//! A borrow can't be carried to the next round: that round runs in another request.
use fastmcp::prelude::*;

#[tool]
async fn pick(items: Vec<String>) -> Result<String> {
    let first = &items[0];
    let Some(ref last) = items.last().cloned() else { return Ok(String::new()) };
    let answer = Sample::prompt("Pick?").ask().await?;
    Ok(format!("{first} {last} {}", answer.text()))
}

fn main() {}
