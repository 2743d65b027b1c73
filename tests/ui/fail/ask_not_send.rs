//! A value that isn't `Send` held where the round suspends: the error is on the fn's name, with the value and
//! the `.ask()`.
use fastmcp::prelude::*;
use std::rc::Rc;

#[tool]
async fn counts() -> Result<String> {
    let rc = Rc::new(1);
    let n = *rc;
    let answer = Sample::prompt(format!("Count {n}?")).ask().await?;
    Ok(answer.text())
}

fn main() {}
