use fastmcp::prelude::*;

#[elicit]
struct Pair(String, u32);

#[elicit]
struct Nothing;

#[elicit]
struct Generic<T> {
    value: T,
}

fn main() {
    // The macro still implements `ElicitForm` on error, so uses of the type add no errors of their own.
    let _ = Pair::requested_schema();
}
