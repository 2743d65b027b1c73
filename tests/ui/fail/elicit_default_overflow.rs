use fastmcp::prelude::*;

type Level = u8;

// Integer defaults are passed on as written, so the compiler checks them against the field's type.
#[elicit]
struct Settings {
    #[elicit(default = 300)]
    level: u8,
    #[elicit(default = 1000)]
    aliased: Level,
}

fn main() {}
