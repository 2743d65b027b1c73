//! `completion/complete`.

use super::JsonObject;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The most values one completion result may carry (spec).
pub const MAX_COMPLETION_VALUES: usize = 100;

/// `completion/complete` params (both eras): suggest values for one argument of a prompt or resource template,
/// e.g. as the user types.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompleteParams {
    /// `ref` on the wire: the prompt or resource template whose argument is completed.
    #[serde(rename = "ref")]
    pub reference: CompletionReference,
    /// The argument to complete and what has been typed so far.
    pub argument: CompletionArgument,
    /// Optional values of arguments already filled in, so suggestions can depend on them. Since 2025-06-18.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<CompletionContext>,
    /// Request `_meta`, as on every other params type: the modern envelope and `progressToken` live here.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// What a completion is for: `ref` in [`CompleteParams`], told apart by its `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum CompletionReference {
    /// `{"type": "ref/prompt", "name": …}`: an argument of a prompt.
    #[serde(rename = "ref/prompt")]
    Prompt {
        /// The prompt's `name`, as `prompts/list` gives it.
        name: String,
        /// Optional display name of the prompt (since 2025-06-18); not used to find it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
    },
    /// `{"type": "ref/resource", "uri": …}`: a variable of a resource template.
    #[serde(rename = "ref/resource")]
    Resource {
        /// The resource template's `uriTemplate` (as `resources/templates/list` gives it), or a resource URI.
        uri: String,
    },
}

/// The argument being completed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompletionArgument {
    /// Its name: a prompt argument or a URI-template variable.
    pub name: String,
    /// What has been typed so far, for suggestions to match.
    pub value: String,
}

/// Extra input for a completion (since 2025-06-18).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CompletionContext {
    /// Arguments of the same prompt or template already resolved, by name; absent when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
}

/// The `completion/complete` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompleteResult {
    /// The suggestions.
    pub completion: Completion,
}

/// Suggested values for one argument.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// The suggestions; at most [`MAX_COMPLETION_VALUES`].
    pub values: Vec<String>,
    /// Optional number of matches in all, which may exceed the number of `values` sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// `hasMore` on the wire: optional; whether there are matches beyond `values`, even when `total` is unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

impl Completion {
    /// Keeps the first 100 values, recording how many there were.
    pub fn from_values(mut values: Vec<String>) -> Self {
        let total = values.len();
        let has_more = total > MAX_COMPLETION_VALUES;
        values.truncate(MAX_COMPLETION_VALUES);
        Self { values, total: Some(total as u64), has_more: Some(has_more) }
    }
}
