//! Era adapters: decide per message which era serves it, validate that era's envelope, call dispatch, and
//! turn the outcome into that era's wire result.
//!
//! The spec's rule: a request whose `params._meta` claims a protocol version is modern and served
//! statelessly; `initialize` opens a legacy session for the connection. One connection may carry both.

pub(crate) mod legacy;
pub(crate) mod modern;

use crate::protocol::{ErrorObject, Inbound, JsonObject, MODERN_CLAIM_KEYS, Notification, Request, error_json};
use crate::server::Server;
use serde::Deserialize;
use serde_json::value::RawValue;

/// One client connection (a stdio process; later, an HTTP session): the server and the legacy session state.
pub(crate) struct Connection {
    server: Server,
    session: legacy::Session,
}

impl Connection {
    pub fn new(server: Server) -> Self {
        Self { server, session: legacy::Session::default() }
    }

    /// Requests that change connection state must finish before the next message is read.
    pub fn is_sequential(req: &Request) -> bool {
        req.method == "initialize"
    }

    /// Serves one request; returns the response's JSON text.
    pub async fn request(&self, req: Request) -> String {
        match modern_claim(req.params.as_deref()) {
            Some(meta) => modern::serve(&self.server, req, meta).await,
            None => legacy::serve(&self.server, &self.session, req).await,
        }
    }

    /// Serves a JSON-RPC batch (2025-03-26 requires receiving them): every element concurrently, the
    /// responses in one array, or nothing when the batch held only notifications.
    pub async fn batch(&self, items: Vec<Box<RawValue>>) -> Option<String> {
        let replies = futures_util::future::join_all(items.iter().map(|item| async move {
            match Inbound::parse(item.get()) {
                Err(rejected) => Some(error_json(rejected.id.as_ref(), &rejected.error)),
                Ok(Inbound::Request(req)) if Self::is_sequential(&req) => Some(error_json(
                    Some(&req.id),
                    &ErrorObject::invalid_request(format!("`{}` must not be part of a batch", req.method)),
                )),
                Ok(Inbound::Request(req)) => Some(self.request(req).await),
                Ok(Inbound::Notification(note)) => {
                    self.notification(note);
                    None
                }
                Ok(Inbound::Response { .. }) => None,
            }
        }))
        .await;
        let replies: Vec<String> = replies.into_iter().flatten().collect();
        (!replies.is_empty()).then(|| format!("[{}]", replies.join(",")))
    }

    pub fn notification(&self, note: Notification) {
        match note.method.as_str() {
            crate::protocol::NOTIFY_INITIALIZED => self.session.mark_initialized(),
            other => tracing::debug!("ignoring notification {other}"),
        }
    }
}

/// The request's `_meta` if it claims the modern era (carries any `io.modelcontextprotocol/…` envelope key).
fn modern_claim(params: Option<&RawValue>) -> Option<JsonObject> {
    #[derive(Deserialize)]
    struct Peek {
        #[serde(rename = "_meta")]
        meta: Option<JsonObject>,
    }
    let raw = params?.get();
    if !raw.trim_start().starts_with('{') || !raw.contains("io.modelcontextprotocol/") {
        return None;
    }
    let meta = serde_json::from_str::<Peek>(raw).ok()?.meta?;
    MODERN_CLAIM_KEYS.iter().any(|k| meta.contains_key(*k)).then_some(meta)
}
