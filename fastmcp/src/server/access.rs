//! Who may use what: the one decision of whether a caller may reach a component, for every era and
//! transport. Lists leave out what a caller may not use ([`Listing::page`](super::registry::Listing::page));
//! this refuses the rest.

use super::call::Call;
use super::registry::Registry;
use crate::auth::{AccessToken, Refusal};
use crate::error::Error;
use crate::protocol::{CompletionReference, ErrorObject, codes};
use serde_json::json;

impl Registry {
    /// Whether `caller` may make this call. A component the registry doesn't know passes here: its own
    /// "unknown" error follows.
    pub(crate) fn authorize(&self, call: &Call, caller: Option<&AccessToken>) -> Result<(), Refusal> {
        if !self.restricted {
            return Ok(());
        }
        let access = match call {
            Call::List { .. } => None,
            Call::Tool { name, .. } => self.tools.get(name).map(|t| t.access),
            Call::Prompt { name, .. } => self.prompts.get(name).map(|p| p.access),
            Call::Read { uri } => self.resolve(uri).map(|r| r.access),
            Call::Complete(params) => match &params.reference {
                CompletionReference::Prompt { name, .. } => self.prompts.get(name).map(|p| p.access),
                CompletionReference::Resource { uri } => self
                    .templates
                    .iter()
                    .find(|t| t.uri_template == *uri)
                    .map(|t| t.access)
                    .or_else(|| self.resources.get(uri).map(|r| r.access)),
            },
        };
        access.map_or(Ok(()), |access| access.permits(caller))
    }

    /// Whether `caller` may read (or subscribe to) the resource at `uri`.
    pub(crate) fn may_read(&self, uri: &str, caller: Option<&AccessToken>) -> Result<(), Refusal> {
        if !self.restricted {
            return Ok(());
        }
        self.resolve(uri).map_or(Ok(()), |r| r.access.permits(caller))
    }
}

/// A refusal as a JSON-RPC error (stdio, and in-band answers): `-32600` with the message a client shows
/// ("Authentication required", `Missing required scope: "admin"`) and the scopes that would lift it.
pub(crate) fn refused(refusal: &Refusal) -> Error {
    let mut error = ErrorObject::new(codes::INVALID_REQUEST, refusal.to_string());
    if let Refusal::Denied(denied) = refusal
        && !denied.scopes().is_empty()
    {
        error = error.with_data(json!({ "requiredScopes": denied.scopes() }));
    }
    Error::rpc(error)
}
