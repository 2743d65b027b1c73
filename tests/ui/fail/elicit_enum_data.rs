use fastmcp::prelude::*;

#[elicit]
enum Shipping {
    Standard,
    Express { days: u8 },
    Pickup(String),
}

#[elicit(rename_all = "snake_case")]
enum Clash {
    #[elicit(rename = "a_b")]
    First,
    AB,
}

#[elicit]
enum Empty {}

#[elicit]
fn not_a_form() {}

fn main() {}
