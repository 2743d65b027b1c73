//! Straight line: two asks in `let` initialisers; `plan` is carried across both, `audit` runs once.
use fastmcp::prelude::*;

#[tool]
async fn deploy(service: String, replicas: u32) -> Result<String> {
    let plan = format!("{service} x{replicas}");
    audit(&plan);
    let answer = Confirm::elicit(format!("Deploy {plan}?")).ask().await?;
    let notes = Sample::prompt(format!("Release notes for {plan}")).max_tokens(200).ask().await?;
    Ok(format!("{plan}: {} {}", answer.is_accepted(), notes.text()))
}
