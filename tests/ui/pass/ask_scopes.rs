//! What the lowering must respect about scopes: shadowing (a parameter by a local, a carried local by a later
//! one), literals bound again instead of carried, nested items used after an ask, a nested handler with asks
//! of its own, closures and macros reading carried locals, labelled blocks, and asks after inert operands.
#![deny(warnings)]

use fastmcp::prelude::*;

/// Scopes.
#[tool]
async fn scopes(chunk: u32, items: Vec<String>) -> Result<String> {
    let chunk = usize::try_from(chunk).unwrap_or(1).max(1);
    let label = "items";
    let limit: u64 = 3;
    let mut seen = Vec::new();
    seen.push(Sample::prompt(format!("first of {label}?")).ask().await?.text());
    let total = helper(seen.len()) + 1;
    let found = 'search: {
        for item in &items {
            if item.len() == chunk {
                break 'search Some(item.clone());
            }
        }
        None
    };
    let roots = ListRoots.ask().await?;
    let seen = seen.join(",");
    let shown: Vec<String> = roots.iter().map(|r| format!("{}:{seen}", r.uri)).collect();
    fn helper(n: usize) -> usize {
        n * 2
    }

    /// A handler declared inside another: its asks are its own.
    #[tool]
    async fn inner() -> Result<String> {
        Ok(checkpoint().ask().await.map(|()| "done".to_owned())?)
    }
    let _server = FastMcp::new("inner").tool(inner);
    Ok(format!("{label} {limit} {total} {found:?} {}", shown.join(";")))
}

fn main() {
    let _server = FastMcp::new("pass").tool(scopes);
}
