//! A question for the client awaited without `.ask()`: the error says to add `.ask()` (rustc alone says to
//! remove the `.await`), once per await, and the rest of the body is checked as if the `.ask()` were there.
use fastmcp::prelude::*;

#[elicit]
struct Confirm {
    /// Go ahead?
    confirm: bool,
}

#[tool]
async fn deploy(service: String) -> Result<String> {
    let answer = Confirm::elicit(format!("Deploy {service}?")).await?;
    let Some(Confirm { confirm: true }) = answer.accepted() else {
        return Ok("cancelled".into());
    };
    let notes = Sample::prompt("Release notes?").max_tokens(100).await?;
    Ok(format!("deployed {service}: {}", notes.text()))
}

fn main() {
    let _server = FastMcp::new("x").tool(deploy);
}
