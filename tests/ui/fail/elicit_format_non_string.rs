use fastmcp::prelude::*;

#[elicit]
enum Size {
    Small,
    Large,
}

#[elicit]
struct Order {
    #[elicit(format = "email")]
    gift: bool,
    #[elicit(minimum = 1)]
    name: String,
    #[elicit(max_items = 2)]
    count: Option<u32>,
}

type Text = String;

// The macro can't tell what `Size` or `Text` are: the traits check the options, with the error on the option.
#[elicit]
struct Preferences {
    #[elicit(format = "date")]
    size: Size,
    #[elicit(min_items = 1, max_length = 3)]
    nick: Text,
}

fn main() {}
