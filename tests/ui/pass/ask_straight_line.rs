//! Straight line: asks in `let` initialisers with `?` and a method chain after the `.await`, a local carried
//! across both, a sampling ask built fluently, and a tail expression that asks.
#![deny(warnings)]

use fastmcp::prelude::*;
use fastmcp::protocol::JsonObject;

struct Confirm {
    confirm: bool,
}

impl ElicitForm for Confirm {
    fn requested_schema() -> JsonObject {
        JsonObject::new()
    }
    fn from_content(content: JsonObject) -> Result<Self, String> {
        let confirm = content.get("confirm").and_then(|v| v.as_bool()).ok_or("`confirm` is missing")?;
        Ok(Confirm { confirm })
    }
}

/// Deploy, asking first.
#[tool(destructive)]
async fn deploy(service: String, replicas: u32) -> Result<String> {
    let plan = format!("{service} x{replicas}");
    let confirmed = Confirm::elicit(format!("Deploy {plan}?")).ask().await?.accepted().is_some_and(|c| c.confirm);
    if !confirmed {
        return Ok("cancelled".into());
    }
    let notes = Sample::prompt(format!("Release notes for {plan}")).max_tokens(200).ask().await?;
    Ok(format!("{plan}: {}", notes.text()))
}

/// The answer is the result.
#[tool]
async fn roots() -> Result<String> {
    Ok(ListRoots.ask().await?.into_iter().map(|r| r.uri).collect::<Vec<_>>().join(","))
}

fn main() {
    let _server = FastMcp::new("pass").tool(deploy).tool(roots);
}
