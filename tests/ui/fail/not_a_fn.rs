use fastmcp::prelude::*;

#[tool]
struct Greet;

fn main() {}
