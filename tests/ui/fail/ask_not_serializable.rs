//! A local read after an `.ask()` travels in the request state, so it must serialize both ways; the error,
//! on the local's own `let`, comes once and names both traits.
use fastmcp::prelude::*;

struct Plan {
    steps: u32,
}

#[tool]
async fn deploy(service: String) -> Result<String> {
    let plan = Plan { steps: 3 };
    let answer = Sample::prompt(format!("Deploy {service}?")).ask().await?;
    Ok(format!("{} {}", plan.steps, answer.text()))
}

fn main() {}
