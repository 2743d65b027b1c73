//! Where a statement evaluates something before the ask, the ask can't be a step of its own: the work before
//! it would run in the round that asks and again (or not at all) in the round that resumes.
use fastmcp::prelude::*;

fn count() -> usize {
    3
}

#[tool]
async fn positions(items: Vec<String>) -> Result<String> {
    let pair = (count(), ListRoots.ask().await?);
    let sum = count() + Sample::prompt("n?").ask().await?.text().len();
    let text = format!("{}", Sample::prompt("x").ask().await?.text());
    let first = match items.first() {
        Some(i) if Sample::prompt(i.clone()).ask().await.is_ok() => i.clone(),
        _ => String::new(),
    };
    let grown = items.len() + if sum > 1 { ListRoots.ask().await?.len() } else { 0 };
    Ok(format!("{} {sum} {text} {first} {grown}", pair.0))
}

fn main() {}
