//! `#[elicit]` on structs: every kind of field and option, and the user's own attributes kept.

use fastmcp::flow::ElicitAsk;
use fastmcp::prelude::*;
use serde::{Deserialize, Serialize};

mod kinds {
    use fastmcp::prelude::*;
    use serde::{Deserialize, Serialize};

    /// How urgent.
    #[elicit(rename_all = "kebab-case")]
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
    pub enum Priority {
        /// Whenever
        Low,
        #[elicit(title = "As soon as possible")]
        VeryHigh,
    }

    // Derives may come before the attribute too.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
    #[elicit]
    pub enum Tag {
        Bug,
        Feature,
        #[elicit(rename = "docs")]
        Documentation,
    }
}

use kinds::{Priority, Tag};

type Count = u16;

/// Every kind of field.
#[elicit(title = "Everything", rename_all = "camelCase")]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Everything {
    /// Your name.
    #[elicit(title = "Name", min_length = 1, max_length = 64, default = "anonymous")]
    pub full_name: String,
    #[elicit(format = "email")]
    pub email: Option<String>,
    #[elicit(format = "uri")]
    homepage: Option<String>,
    #[elicit(format = "date")]
    pub(crate) birthday: Option<String>,
    #[elicit(format = "date-time", rename = "when")]
    at: Option<String>,
    #[elicit(default = true)]
    subscribe: bool,
    #[elicit(minimum = -5, maximum = 5, default = -1)]
    offset: i8,
    #[elicit(minimum = 0.5, maximum = 1e3, default = 2)]
    ratio: f64,
    single: f32,
    wide: u128,
    narrow: i16,
    size: usize,
    signed_size: isize,
    aliased: Count,
    #[elicit(default = "very-high")]
    priority: Priority,
    maybe_priority: Option<Priority>,
    #[elicit(min_items = 1, max_items = 2, default = ["Bug", "docs"])]
    tags: Vec<Tag>,
    other_tags: Option<Vec<Tag>>,
    #[serde(default)]
    r#type: Option<u64>,
}

/// A form with no fields: the client shows only accept, decline and cancel.
#[elicit]
#[derive(Debug, Default)]
struct Ack {}

/// The design's example.
#[elicit]
struct Confirm {
    /// Go ahead with the deployment?
    confirm: bool,
}

fn main() {
    let _: ElicitAsk<Everything> = Everything::elicit("Tell me everything");
    let _: ElicitAsk<Ack> = Ack::elicit(String::from("Proceed?"));
    let _ = Confirm::elicit(format!("Deploy {}?", "api"));
    let _ = Confirm { confirm: true }.confirm;
    let _ = (Priority::Low, Tag::Feature, Ack::default());
    let _ = <Ack as ElicitForm>::requested_schema();
}
