//! Not a nested fn (a nested handler, though, compiles its own asks).
use fastmcp::prelude::*;

#[tool]
async fn outer() -> Result<String> {
    async fn helper() -> Result<usize> {
        Ok(ListRoots.ask().await?.len())
    }
    Ok(helper().await?.to_string())
}

fn main() {}
