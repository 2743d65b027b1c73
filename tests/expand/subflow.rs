//! A sub-flow (`#[elicit] async fn`) and a tool that awaits it: the sub-flow's body is lowered like a
//! handler's; the caller's point is lowered like any ask (the runtime tells the two apart by type).
use fastmcp::prelude::*;

/// Ask twice before doing something dangerous.
#[elicit]
async fn double_check(what: String) -> Result<bool> {
    let first = Confirm::elicit(format!("Really {what}?")).ask().await?;
    if !first.accepted().is_some_and(|c| c.confirm) {
        return Ok(false);
    }
    let second = Confirm::elicit(format!("Really, really {what}?")).ask().await?;
    Ok(second.accepted().is_some_and(|c| c.confirm))
}

#[tool]
async fn wipe(disk: String) -> Result<String> {
    let label = format!("wipe {disk}");
    let ok = double_check(label.clone()).ask().await??;
    Ok(if ok { format!("{label}: done") } else { format!("{label}: kept") })
}
