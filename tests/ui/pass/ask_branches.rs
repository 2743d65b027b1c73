//! Asks in if/else branches (and `else if`), in an `if let` condition, and in match arms (a block arm and an
//! expression arm, next to a guarded arm that doesn't ask).
#![deny(warnings)]

use fastmcp::prelude::*;
use fastmcp::protocol::JsonObject;

struct Reply {
    answer: String,
}

impl ElicitForm for Reply {
    fn requested_schema() -> JsonObject {
        JsonObject::new()
    }
    fn from_content(content: JsonObject) -> Result<Self, String> {
        let answer = content.get("answer").and_then(|v| v.as_str()).ok_or("`answer` is missing")?;
        Ok(Reply { answer: answer.to_owned() })
    }
}

/// Greet, asking what is missing.
#[tool]
async fn greet(formal: bool, name: Option<String>) -> Result<String> {
    let greeting = "Hello";
    let name = if let Some(name) = name {
        name
    } else if formal {
        let title = Reply::elicit("Your title?").ask().await?;
        format!("{} Doe", title.accepted().map(|t| t.answer).unwrap_or_default())
    } else {
        Reply::elicit("Your name?").ask().await?.accepted().map(|n| n.answer).unwrap_or_default()
    };
    if let Some(Reply { answer }) = Reply::elicit("Anything else?").ask().await?.accepted() {
        return Ok(format!("{greeting}, {name}! ({answer})"));
    }
    Ok(format!("{greeting}, {name}!"))
}

/// Route by kind.
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

fn main() {
    let _server = FastMcp::new("pass").tool(greet).tool(route);
}
