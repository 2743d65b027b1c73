//! Argument completion (`completion/complete`) for prompt arguments and template variables.

use crate::protocol::Completion;
use std::collections::BTreeMap;

/// What a completer is asked: which argument, what the user typed so far, and the other arguments' values.
#[derive(Debug, Clone, PartialEq)]
pub struct CompletionQuery {
    pub argument: String,
    pub value: String,
    pub context: BTreeMap<String, String>,
}

/// What a completer may return.
pub trait IntoCompletion {
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
