//! What `#[elicit]` generates is warning-free under strict lints.
#![deny(warnings, unused, nonstandard_style, rust_2018_idioms, unreachable_pub)]
#![forbid(unsafe_code)]

use fastmcp::prelude::*;

#[elicit]
#[derive(Debug)]
enum Mood {
    Happy,
    #[elicit(title = "Not great")]
    Sad,
}

#[elicit]
#[derive(Debug)]
struct Empty {}

#[elicit(title = "Check-in")]
#[derive(Debug)]
struct CheckIn {
    /// How are you?
    mood: Mood,
    #[elicit(max_length = 200)]
    note: Option<String>,
    #[elicit(default = 7, minimum = 0, maximum = 10)]
    energy: u8,
    moods: Vec<Mood>,
}

fn main() {
    let form = CheckIn::from_content(fastmcp::protocol::JsonObject::new());
    if let Ok(CheckIn { mood, note, energy, moods }) = form {
        println!("{mood:?} {note:?} {energy} {moods:?}");
    }
    println!("{:?}", Empty::from_content(fastmcp::protocol::JsonObject::new()));
    let _ = (Mood::Happy, Mood::Sad);
}
