use fastmcp::prelude::*;

#[elicit]
enum Size {
    Small,
    Large,
}

#[elicit]
struct Order {
    #[elicit(default = "yes")]
    gift: bool,
    #[elicit(default = 2.5)]
    count: u32,
    #[elicit(min_length = 5, default = "abc")]
    name: String,
    #[elicit(minimum = 10, maximum = 1)]
    quantity: i32,
    #[elicit(maximum = 300)]
    small: u8,
    #[elicit(minimum = 300)]
    tiny: u8,
    #[elicit(default = ["Small"], max_items = 0)]
    sizes: Vec<Size>,
}

// Checked by the compiler after expansion: the default's membership in the enum, and its range.
#[elicit]
struct Choices {
    #[elicit(default = "Medium")]
    size: Size,
    #[elicit(default = ["Small", "Huge"])]
    sizes: Vec<Size>,
}

fn main() {}
