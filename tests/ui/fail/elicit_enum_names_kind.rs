use fastmcp::prelude::*;

#[elicit]
enum Size {
    #[elicit(title = "Small cup")]
    Small,
    Large,
}

#[elicit]
struct Order {
    // `enum_names` shapes a titled single select: a `String` or a multi-select has none.
    #[elicit(enum_names)]
    note: String,
    #[elicit(enum_names)]
    extras: Vec<Size>,
    #[elicit(enum_names)]
    size: Option<Size>,
}

type Text = String;

// The macro can't tell what `Text` is: the traits check the option, with the error on the option.
#[elicit]
struct Nick {
    #[elicit(enum_names)]
    nick: Text,
}

fn main() {}
