use fastmcp::auth::{AccessToken, Denied};
use fastmcp::prelude::*;

fn is_admin(_: &AccessToken) -> Result<(), Denied> {
    Ok(())
}

fn is_owner(_: &AccessToken) -> Result<(), Denied> {
    Ok(())
}

/// A string instead of a path.
#[tool(auth = "is_admin")]
async fn quoted() -> String {
    String::new()
}

/// A closure instead of a path.
#[prompt(auth = |_| Ok(()))]
async fn closure() -> String {
    String::new()
}

/// Given twice.
#[resource("config://app", auth = is_admin, auth = is_owner)]
async fn twice() -> String {
    String::new()
}

fn main() {}
