//! Sub-flows: one that asks, one that never does, one that nests another and checkpoints, public ones, awaited
//! from a tool and a prompt; no warnings in what the macros emit.
#![deny(warnings)]

use fastmcp::prelude::*;

#[elicit]
struct Confirm {
    confirm: bool,
}

/// Ask twice before doing something dangerous.
#[elicit]
pub async fn double_check(what: String) -> Result<bool> {
    let first = Confirm::elicit(format!("Really {what}?")).ask().await?;
    if !first.accepted().is_some_and(|c| c.confirm) {
        return Ok(false);
    }
    let second = Confirm::elicit(format!("Really, really {what}?")).ask().await?;
    Ok(second.accepted().is_some_and(|c| c.confirm))
}

/// Never asks.
#[elicit]
async fn doubled(n: u32) -> u32 {
    n * 2
}

#[elicit]
pub(crate) async fn careful(what: String, mut tries: u32) -> Result<u32> {
    while tries > 0 {
        tries -= 1;
        checkpoint().ask().await?;
        if double_check(what.clone()).ask().await?? {
            return Ok(tries);
        }
    }
    Ok(0)
}

#[tool]
async fn wipe(disk: String) -> Result<String> {
    let label = format!("wipe {disk}");
    let ok = double_check(label.clone()).ask().await??;
    let n = doubled(2).ask().await?;
    let left = careful(label.clone(), n).ask().await??;
    Ok(format!("{label}: {ok} {left}"))
}

#[prompt]
async fn confirm_prompt(topic: String) -> Result<String> {
    let ok = double_check(topic.clone()).ask().await??;
    Ok(format!("{topic}: {ok}"))
}

fn main() {
    let _ = FastMcp::new("x").tool(wipe).prompt(confirm_prompt);
}
