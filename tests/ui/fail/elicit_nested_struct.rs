use fastmcp::prelude::*;

#[elicit]
struct Address {
    street: String,
    city: String,
}

#[elicit]
struct Order {
    quantity: u32,
    shipping: Address,
    notes: Option<std::collections::HashMap<String, String>>,
}

fn main() {}
