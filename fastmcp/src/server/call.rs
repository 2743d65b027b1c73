//! The requests dispatch serves, as the era adapters hand them over: params already parsed, once, with what
//! belongs to an era (the `_meta` envelope, `requestState`, `inputResponses`) taken out.

use crate::protocol::CompleteParams;
use serde_json::value::RawValue;
use std::collections::BTreeMap;

/// One request for dispatch.
#[derive(Debug)]
pub(crate) enum Call {
    /// A `*/list` page.
    List { list: List, cursor: Option<String> },
    /// `tools/call`. The arguments stay raw: they deserialize once, straight into the tool's own type.
    Tool { name: String, arguments: Option<Box<RawValue>> },
    /// `prompts/get`.
    Prompt { name: String, arguments: Option<BTreeMap<String, String>> },
    /// `resources/read`.
    Read { uri: String },
    /// `completion/complete`. Boxed: four times the size of the others, and every request's future holds a
    /// `Call` (in several layers).
    Complete(Box<CompleteParams>),
}

/// Which list a `*/list` request pages through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum List {
    Tools,
    Prompts,
    Resources,
    Templates,
}

impl List {
    /// The list method's name, if `method` is one.
    pub fn of(method: &str) -> Option<Self> {
        Some(match method {
            "tools/list" => List::Tools,
            "prompts/list" => List::Prompts,
            "resources/list" => List::Resources,
            "resources/templates/list" => List::Templates,
            _ => return None,
        })
    }

    /// The list's method.
    pub fn method(self) -> &'static str {
        match self {
            List::Tools => "tools/list",
            List::Prompts => "prompts/list",
            List::Resources => "resources/list",
            List::Templates => "resources/templates/list",
        }
    }

    /// The result's field holding the page.
    pub fn key(self) -> &'static str {
        match self {
            List::Tools => "tools",
            List::Prompts => "prompts",
            List::Resources => "resources",
            List::Templates => "resourceTemplates",
        }
    }
}

impl Call {
    /// The tool or prompt name, or the resource URI, this request is for: what `Mcp-Name` mirrors, spans
    /// name, and request state is bound to.
    pub fn target(&self) -> Option<&str> {
        match self {
            Call::Tool { name, .. } | Call::Prompt { name, .. } => Some(name),
            Call::Read { uri } => Some(uri),
            Call::List { .. } | Call::Complete(_) => None,
        }
    }
}
