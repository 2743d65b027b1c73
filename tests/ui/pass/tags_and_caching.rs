use fastmcp::handler::{PromptHandler, ResourceHandler, ToolHandler};
use fastmcp::prelude::*;

/// Tagged.
#[tool(tags = ["admin", "beta"])]
async fn tagged() -> String {
    String::new()
}

/// Never cached, whatever the server's default.
#[prompt(tags = ["ops"], ttl = "0s")]
async fn ops() -> String {
    String::new()
}

#[resource("config://app", tags = ["ops"], ttl = "5m", cache_scope = "public")]
async fn config() -> String {
    String::new()
}

fn main() {
    assert_eq!(tagged.tags(), ["admin", "beta"]);
    assert_eq!(ops.tags(), ["ops"]);
    assert_eq!(config.tags(), ["ops"]);
    let caching = config.caching();
    assert_eq!(caching.ttl, Some(std::time::Duration::from_secs(300)));
    assert_eq!(caching.scope, Some(fastmcp::protocol::CacheScope::Public));
    assert_eq!(tagged.caching(), Default::default());
    assert_eq!(ops.caching().ttl, Some(std::time::Duration::ZERO));
}
