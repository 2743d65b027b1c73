use fastmcp::prelude::*;

#[elicit]
enum Size {
    Small,
    Large,
}

// The macro can't tell that `Size` is an enum, so it passes the default on as written and the compiler
// checks it against what the field takes: a string (the wire value of a variant).
#[elicit]
struct Choice {
    #[elicit(default = 2)]
    size: Size,
}

fn main() {}
