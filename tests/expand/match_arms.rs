//! Asks in `match` arms: one whose arm binds a value carried across the ask, one as an arm's expression.
use fastmcp::prelude::*;

#[tool]
async fn route(kind: String) -> Result<String> {
    let out = match kind.parse::<u32>() {
        Ok(n) => {
            let roots = ListRoots.ask().await?;
            format!("{n} of {}", roots.len())
        }
        Err(_) if kind.is_empty() => "nothing".to_owned(),
        Err(e) => Sample::prompt(format!("Explain {e}")).ask().await?.text(),
    };
    Ok(out)
}
