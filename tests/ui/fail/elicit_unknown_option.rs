use fastmcp::prelude::*;

#[elicit(titel = "Survey", rename_all = "camel")]
struct Survey {
    #[elicit(minLength = 1, colour = "red")]
    name: String,
    /// The description comes from here.
    #[elicit(description = "Age")]
    age: u8,
    #[elicit(format = "url")]
    homepage: String,
    #[elicit(min_length = -1, title = 5)]
    nick: String,
}

#[elicit]
enum Level {
    #[elicit(label = "Low")]
    Low,
}

fn main() {}
