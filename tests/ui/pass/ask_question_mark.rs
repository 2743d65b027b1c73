//! `?` after `.ask().await` (and later in the statement) into the fn's own error type, and `return` before,
//! between and after asks.
#![deny(warnings)]

use fastmcp::prelude::*;

#[derive(Debug)]
struct Failure(String);

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Failure {}

impl From<fastmcp::Error> for Failure {
    fn from(e: fastmcp::Error) -> Self {
        Failure(e.to_string())
    }
}

impl From<std::num::ParseIntError> for Failure {
    fn from(e: std::num::ParseIntError) -> Self {
        Failure(e.to_string())
    }
}

/// Multiply by a factor the model picks.
#[tool]
async fn multiply(text: String) -> Result<String, Failure> {
    if text.is_empty() {
        return Ok("0".into());
    }
    let base: i64 = text.parse()?;
    let factor: i64 = Sample::prompt("A factor?").ask().await?.text().trim().parse()?;
    if factor == 0 {
        return Err(Failure("zero".into()));
    }
    let roots = ListRoots.ask().await?;
    if roots.is_empty() {
        return Ok((base * factor).to_string());
    }
    Ok(format!("{} in {}", base * factor, roots.len()))
}

fn main() {
    let _server = FastMcp::new("pass").tool(multiply);
}
