//! Long work a slice per round: state-only suspensions (`checkpoint()`) with nothing to ask.
//!
//! Each round adds `chunk` numbers and ends with only the request state; the client sends it straight back
//! and the next round carries on from the position and total it holds.

use fastmcp::prelude::*;
use fastmcp_examples::cli::{Help, LOG_ENV, RUN_ENV, RUN_TRANSPORTS};

/// Add numbers, `chunk` of them per round.
#[tool(read_only)]
async fn sum(
    /// The numbers to add.
    numbers: Vec<i64>,
    /// How many numbers to add per round (at least 1).
    chunk: u32,
) -> Result<String> {
    let chunk = usize::try_from(chunk.max(1)).unwrap_or(usize::MAX);
    let mut total: i64 = 0;
    let mut position = 0;
    let mut rounds = 1;
    while position < numbers.len() {
        let end = numbers.len().min(position.saturating_add(chunk));
        for n in &numbers[position..end] {
            total = total.checked_add(*n).ok_or_else(|| Error::msg("the sum does not fit in a 64-bit integer"))?;
        }
        position = end;
        if position < numbers.len() {
            checkpoint().ask().await?;
            rounds += 1;
        }
    }
    Ok(format!("sum={total} in {rounds} rounds"))
}

/// `sum --help`.
const HELP: Help = Help {
    usage: "sum [--help]",
    serves: "One tool: sum(numbers, chunk) adds `chunk` numbers per round, handing the client only its\n\
             request state between rounds (a state-only suspension, nothing asked).",
    transports: RUN_TRANSPORTS,
    env: &[RUN_ENV, LOG_ENV],
};

#[tokio::main]
async fn main() -> fastmcp::Result<()> {
    HELP.check_args();
    FastMcp::new("sum").version(env!("CARGO_PKG_VERSION")).tool(sum).run().await
}
