//! Asks in `loop` (with `break value`), `while`, `while let` (in its condition), `for` (its iterator
//! materialised), nested loops with labelled `continue`/`break`, and a `mut` parameter changed across asks.
#![deny(warnings)]

use fastmcp::prelude::*;
use fastmcp::protocol::JsonObject;

struct Number {
    value: i64,
}

impl ElicitForm for Number {
    fn requested_schema() -> JsonObject {
        JsonObject::new()
    }
    fn from_content(content: JsonObject) -> Result<Self, String> {
        let value = content.get("value").and_then(|v| v.as_i64()).ok_or("`value` is missing")?;
        Ok(Number { value })
    }
}

/// Guess a number.
#[tool]
async fn guess(secret: i64) -> Result<String> {
    let mut tries = 0;
    let found = loop {
        tries += 1;
        let attempt = Number::elicit(format!("Guess #{tries}")).ask().await?;
        let Some(Number { value }) = attempt.accepted() else { continue };
        if value == secret {
            break true;
        }
        if tries == 3 {
            break false;
        }
    };
    Ok(format!("found={found} after {tries} tries"))
}

/// Fill a grid, row by row.
#[tool]
async fn grid(rows: u32, mut skipped: Vec<String>) -> Result<String> {
    let mut log = Vec::new();
    let mut row = 0;
    'rows: while row < rows {
        row += 1;
        let mut col = 0;
        'cols: loop {
            col += 1;
            let n = Number::elicit(format!("{row}.{col}")).ask().await?;
            match n.accepted().map(|n| n.value) {
                Some(0) => continue 'rows,
                Some(1) => break 'rows,
                Some(2) => {
                    skipped.push(format!("{row}.{col}"));
                    continue 'cols;
                }
                Some(v) => log.push(v.to_string()),
                None => break,
            }
            if col > 2 {
                break 'cols;
            }
        }
    }
    Ok(format!("{} (skipped {})", log.join(","), skipped.join(",")))
}

/// Sum the numbers the user gives, then confirm each of `labels`.
#[tool]
async fn collect(labels: Vec<String>) -> Result<String> {
    let mut sum = 0;
    while let Some(Number { value }) = Number::elicit("Another?").ask().await?.accepted() {
        sum += value;
    }
    let mut confirmed = Vec::new();
    for (i, label) in labels.into_iter().enumerate() {
        if label.is_empty() {
            continue;
        }
        let n = Number::elicit(format!("{i}: {label}?")).ask().await?;
        confirmed.push(format!("{label}={}", n.accepted().map(|n| n.value).unwrap_or_default()));
    }
    Ok(format!("{sum} {}", confirmed.join(",")))
}

fn main() {
    let _server = FastMcp::new("pass").tool(guess).tool(grid).tool(collect);
}
