//! Two asks answered in one round (`(a, b).ask()`), and state-only rounds (`checkpoint()`) in a loop.
#![deny(warnings)]

use fastmcp::prelude::*;

/// Pick a model and a root, then work a slice per round.
#[tool(read_only)]
async fn work(chunks: u32) -> Result<String> {
    let (roots, sampled) = (ListRoots, Sample::prompt("model?").system("be brief")).ask().await?;
    let model = sampled.model().to_owned();
    let mut done = 0;
    while done < chunks {
        done += 1;
        if done < chunks {
            checkpoint().ask().await?;
        }
    }
    Ok(format!("{} roots, {model}, {done} chunks", roots.len()))
}

fn main() {
    let _server = FastMcp::new("pass").tool(work);
}
