use fastmcp::prelude::*;

#[elicit]
struct Labels {
    /// Free-form labels: not something a form can ask for.
    labels: Vec<String>,
}

fn main() {}
