//! Asks in both branches of an `if`/`else`, and after it.
use fastmcp::prelude::*;

#[tool]
async fn greet(formal: bool) -> Result<String> {
    let greeting = "Hello";
    let name = if formal {
        let title = Title::elicit("Your title?").ask().await?;
        format!("{} {}", title.accepted().map(|t| t.title).unwrap_or_default(), "Doe")
    } else {
        Name::elicit("Your name?").ask().await?.accepted().map(|n| n.name).unwrap_or_default()
    };
    checkpoint().ask().await?;
    Ok(format!("{greeting}, {name}!"))
}
