#![deny(warnings)]

//! Prompts and resources return `Result<_, E>` for any error that displays, as tools do.

use fastmcp::prelude::*;
use std::fmt;

/// An error that displays and is no `std::error::Error` (as `anyhow::Error` is not).
struct Offline;

impl fmt::Display for Offline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("offline")
    }
}

/// A recap.
#[prompt]
async fn recap(topic: String) -> Result<String, String> {
    if topic.is_empty() { Err("say what to recap".into()) } else { Ok(format!("Recap {topic}.")) }
}

/// The archive.
#[resource("archive://{year}")]
async fn archive(year: u32) -> Result<String, Offline> {
    if year < 2000 { Err(Offline) } else { Ok(format!("{year}")) }
}

/// The tool's counterpart.
#[tool]
async fn lookup(year: u32) -> Result<String, Offline> {
    if year < 2000 { Err(Offline) } else { Ok(format!("{year}")) }
}

fn main() {
    let _server = FastMcp::new("pass").prompt(recap).resource(archive).tool(lookup);
}
