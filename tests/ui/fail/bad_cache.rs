use fastmcp::prelude::*;

/// A time without a unit, and a scope that is neither.
#[resource("config://app", ttl = "300", cache_scope = "shared")]
async fn config() -> String {
    String::new()
}

/// A negative time.
#[tool(ttl = "-5s")]
async fn never() -> String {
    String::new()
}

fn main() {}
