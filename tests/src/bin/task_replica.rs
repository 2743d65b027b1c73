//! A protected server to run as replicas, for the task limits across replicas (`tests/redis.rs`): fixed
//! bearer tokens `alice-token` and `bob-token` (two principals), a tool that runs as a task, and
//! `TASKS_PER_PRINCIPAL` / `TASK_TTL_MS` for `max_tasks_per_principal` / `task_ttl`.

use fastmcp::auth::{AccessToken, ProtectedResource, StaticTokens};
use fastmcp::prelude::*;
use std::time::Duration;

/// Waits `seconds`, as a task.
#[tool(read_only, task = "required")]
async fn hold(seconds: u64) -> String {
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    format!("held {seconds}s")
}

#[tokio::main]
async fn main() -> fastmcp::Result<()> {
    let env = |name: &str| std::env::var(name).ok().map(|v| v.parse::<u64>().unwrap_or_else(|_| panic!("{name}")));
    let tokens = StaticTokens::new()
        .token("alice-token", AccessToken::new().issuer("https://as.example").subject("alice"))
        .token("bob-token", AccessToken::new().issuer("https://as.example").subject("bob"));
    let mut server = FastMcp::new("task-replica")
        .tool(hold)
        .auth(ProtectedResource::new(tokens).authorization_server("https://as.example"));
    if let Some(n) = env("TASKS_PER_PRINCIPAL") {
        server = server.max_tasks_per_principal(usize::try_from(n).unwrap_or(usize::MAX));
    }
    if let Some(ms) = env("TASK_TTL_MS") {
        server = server.task_ttl(Duration::from_millis(ms));
    }
    server.run().await
}
