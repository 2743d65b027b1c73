//! Not a nested `async` block or `async` closure either.
use fastmcp::prelude::*;

#[tool]
async fn later() -> Result<String> {
    let pending = async { ListRoots.ask().await };
    let each = async |n: u32| checkpoint().ask().await.map(|()| n);
    let _ = each(1).await?;
    Ok(pending.await?.len().to_string())
}

fn main() {}
