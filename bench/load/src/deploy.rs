//! The `deploy` flow of the MRTR cell, shaped like `examples/src/bin/deploy.rs`: round 1 asks the user to
//! confirm (an elicitation form with one boolean, `confirm`), round 2 asks the client's model for release
//! notes (sampling), round 3 completes. The texts live here so that the servers build them and the load
//! generator checks them from one definition: a server that lost its plan between rounds answers a
//! different text, which the load counts as an error.

/// The `plan` the first round computes, which later rounds must get back from the request state.
pub fn plan(service: &str, replicas: u32) -> String {
    format!("{service} x{replicas}")
}

/// Round 1's elicitation message.
pub fn confirm_message(plan: &str) -> String {
    format!("Deploy {plan}?")
}

/// The description of the form's `confirm` field (fastmcp takes it from the doc comment).
pub const CONFIRM_FIELD: &str = "Go ahead with the deployment?";

/// Round 2's sampling prompt (one user message).
pub fn notes_prompt(plan: &str) -> String {
    format!("Write release notes for {plan}")
}

/// Round 2's `maxTokens`.
pub const NOTES_MAX_TOKENS: u32 = 200;

/// The text the load's "model" answers the sampling request with.
pub const NOTES: &str = "Faster, with fewer bugs.";

/// The final result's text.
pub fn deployed(plan: &str, notes: &str) -> String {
    format!("Deployed {plan}: {notes}")
}
