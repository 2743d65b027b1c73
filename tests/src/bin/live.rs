//! A server whose tools change what it serves while it runs (the live registry), run as a real process.
//! `FASTMCP_TEST_INCLUDE` / `FASTMCP_TEST_EXCLUDE` (comma-separated) filter its tagged tools. Its cache
//! hints: 60 s public by default, `beta` 30 s, the `live://fresh` resource 5 min, `live://mine` private.

use fastmcp::prelude::*;
use fastmcp::protocol::CacheScope;
use std::time::Duration;

/// Echo the text back.
#[tool]
async fn echo(text: String) -> String {
    text
}

/// The tool `unlock` adds.
#[tool]
async fn secret() -> String {
    "the secret".into()
}

fn server(ctx: &Context) -> Result<fastmcp::Server> {
    ctx.server().ok_or_else(|| Error::msg("not served by a server"))
}

/// Serve `secret` from now on.
#[tool]
async fn unlock(ctx: Context) -> Result<String> {
    server(&ctx)?.add_tool(secret)?;
    Ok("unlocked".into())
}

/// Stop serving `secret`.
#[tool]
async fn lock(ctx: Context) -> Result<String> {
    Ok(format!("removed: {}", server(&ctx)?.remove_tool("secret")))
}

/// Disable (`on: false`) or enable `echo`.
#[tool]
async fn switch_echo(ctx: Context, on: bool) -> Result<String> {
    let server = server(&ctx)?;
    let changed = if on { server.enable_tool("echo") } else { server.disable_tool("echo") };
    Ok(format!("changed: {changed}"))
}

/// Only for admins.
#[tool(tags = ["admin"])]
async fn admin_only() -> String {
    "admin".into()
}

/// Still in beta.
#[tool(tags = ["beta", "public"], ttl = "30s")]
async fn beta() -> String {
    "beta".into()
}

/// Changes rarely; anyone may cache it.
#[resource("live://fresh", ttl = "5m", cache_scope = "public")]
async fn fresh() -> String {
    "fresh".into()
}

/// The caller's own.
#[resource("live://mine", cache_scope = "private")]
async fn mine() -> String {
    "mine".into()
}

#[tokio::main]
async fn main() -> fastmcp::Result<()> {
    fastmcp::init_tracing();
    let list = |name: &str| -> Vec<String> {
        std::env::var(name).map(|v| v.split(',').map(str::to_owned).collect()).unwrap_or_default()
    };
    FastMcp::new("live")
        .tool(echo)
        .tool(unlock)
        .tool(lock)
        .tool(switch_echo)
        .tool(admin_only)
        .tool(beta)
        .resource(fresh)
        .resource(mine)
        .cache_hints(Duration::from_secs(60), CacheScope::Public)
        .include_tags(list("FASTMCP_TEST_INCLUDE"))
        .exclude_tags(list("FASTMCP_TEST_EXCLUDE"))
        .run()
        .await
}
