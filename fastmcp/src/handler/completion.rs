//! Argument completion (`completion/complete`) for prompt arguments and template variables.

use crate::protocol::Completion;
use std::collections::BTreeMap;

/// What a completer is asked: which argument, what the user typed so far, and the other arguments' values.
#[derive(Debug, Clone, PartialEq)]
pub struct CompletionQuery {
    /// The name of the prompt argument or template variable being completed.
    pub argument: String,
    /// What the user has typed of it so far (may be empty).
    pub value: String,
    /// The values already given for the other arguments (`context.arguments` on the wire), for completions
    /// that depend on them; empty when the client sent none.
    pub context: BTreeMap<String, String>,
}

/// What a completer may return.
pub trait IntoCompletion {
    /// The `completion/complete` result: a list of values becomes the candidates in order, at most 100
    /// (`total` and `hasMore` say how many there were).
    fn into_completion(self) -> Completion;
}

impl IntoCompletion for Completion {
    fn into_completion(self) -> Completion {
        self
    }
}

impl IntoCompletion for Vec<String> {
    fn into_completion(self) -> Completion {
        Completion::from_values(self)
    }
}

impl IntoCompletion for Vec<&str> {
    fn into_completion(self) -> Completion {
        Completion::from_values(self.into_iter().map(str::to_owned).collect())
    }
}

/// Completes from a fixed list: the entries that start with what was typed, ignoring case, in list order.
pub fn complete_from_list(list: &[&str], value: &str) -> Completion {
    let typed = value.to_lowercase();
    Completion::from_values(
        list.iter().filter(|v| v.to_lowercase().starts_with(&typed)).map(|v| (*v).to_owned()).collect(),
    )
}
