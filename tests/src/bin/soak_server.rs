//! The server the soak harness (`soak`) runs as replicas: a plain tool, a three-round flow shaped like the
//! `deploy` example, a tool that changes the tool list (so listeners have something to hear), and a running
//! total kept in the legacy session (so a session's state has something to carry between replicas).

use fastmcp::prelude::*;

/// Echo the text back.
#[tool]
async fn echo(text: String) -> String {
    text
}

/// Go ahead?
#[elicit]
struct Confirm {
    /// Go ahead with the deployment?
    confirm: bool,
}

/// Deploy a service, asking the user first and the client's model for notes.
#[tool(destructive)]
async fn deploy(service: String, replicas: u32) -> Result<String> {
    let plan = format!("{service} x{replicas}");
    let answer = Confirm::elicit(format!("Deploy {plan}?")).ask().await?;
    let Some(Confirm { confirm: true }) = answer.accepted() else {
        return Ok(format!("Deployment of {service} cancelled."));
    };
    let notes = Sample::prompt(format!("Write release notes for {plan}")).max_tokens(200).ask().await?;
    Ok(format!("Deployed {plan}: {}", notes.text()))
}

/// Add to the session's running total; returns the new total.
#[tool]
async fn tally(ctx: Context, add: i64) -> Result<String> {
    let total = ctx.get::<i64>("total")?.unwrap_or(0) + add;
    ctx.set("total", total)?;
    Ok(total.to_string())
}

/// A tool `toggle` switches on and off.
#[tool]
async fn spare() -> String {
    "spare".into()
}

/// Switch `spare` on or off: the tool list changes.
#[tool]
async fn toggle(ctx: Context, on: bool) -> Result<String> {
    let server = ctx.server().ok_or_else(|| Error::msg("not served by a server"))?;
    let changed = if on { server.enable_tool("spare") } else { server.disable_tool("spare") };
    Ok(format!("changed: {changed}"))
}

#[tokio::main]
async fn main() -> fastmcp::Result<()> {
    let mut transport = fastmcp::Transport::from_env()?;
    // The harness is many clients on one address, and its vanishing legacy clients leave their sessions
    // to the idle timeout: one address may hold as many sessions and requests as the whole server.
    if let fastmcp::Transport::Http(options) = &mut transport {
        options.max_sessions_per_client = usize::MAX;
        options.max_requests_per_client = usize::MAX;
    }
    FastMcp::new("soak").tool(echo).tool(deploy).tool(spare).tool(toggle).tool(tally).transport(transport).run().await
}
