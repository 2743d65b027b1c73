//! `return` before, after and inside the branch that asks: it returns from the handler in every round.
use fastmcp::prelude::*;

#[tool]
async fn delete(path: String, force: bool) -> Result<String> {
    if path.is_empty() {
        return Ok("nothing to delete".into());
    }
    let reason = format!("delete {path}");
    if !force {
        let Some(Confirm { confirm: true }) = Confirm::elicit(&reason).ask().await?.accepted() else {
            return Ok(format!("kept {path}"));
        };
    }
    Ok(format!("{reason}: done"))
}
