//! An ask in a `loop` that `continue`s and `break`s (with a value) in the rest of the interrupted iteration.
use fastmcp::prelude::*;

#[tool]
async fn guess(secret: u32) -> Result<String> {
    let mut tries = 0;
    let found = loop {
        tries += 1;
        let guess = Number::elicit(format!("Guess #{tries}")).ask().await?;
        let Some(Number { value }) = guess.accepted() else { continue };
        if value == secret {
            break true;
        }
        if tries == 3 {
            break false;
        }
    };
    Ok(format!("found={found} after {tries} tries"))
}
