//! `?` after `.ask().await` and in the rest of the statement: it keeps its meaning (and its `From` conversion
//! into the fn's error type) in the resumed round.
use fastmcp::prelude::*;

#[tool]
async fn parse(text: String) -> Result<u32, Failure> {
    let base: u32 = text.parse()?;
    let factor: u32 = Sample::prompt("A number?").ask().await?.text().trim().parse()?;
    Ok(base * factor)
}
