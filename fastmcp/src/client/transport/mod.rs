//! How the client reaches a server: one duplex stream of JSON-RPC messages (stdio) or a request per message
//! (Streamable HTTP). Either way, what the server says arrives on one inbox; the session correlates it.

#[cfg(feature = "http")]
pub(crate) mod http;
pub(crate) mod stdio;

use super::error::ClientError;
use crate::protocol::RequestId;
use std::future::Future;
use std::pin::Pin;
use tokio::sync::mpsc;

pub(crate) type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// One message to the server.
#[derive(Debug, Clone)]
pub(crate) struct Outgoing {
    /// The JSON-RPC message's text.
    pub json: String,
    /// The request's id, when it is a request: an HTTP failure to deliver it is reported against it.
    pub id: Option<RequestId>,
    /// HTTP headers the era adds (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`); stdio
    /// ignores them.
    pub headers: Vec<(String, String)>,
}

/// What arrives from the server.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// A JSON-RPC message's text (a response, a notification, or — legacy — a request to the client).
    Message(String),
    /// A message that came on `request`'s own answer stream (HTTP): a server request there is part of
    /// that request's work.
    OnStream { text: String, request: RequestId },
    /// A request could not be delivered, or its answer not read (an HTTP error status, a broken stream):
    /// the request fails with this.
    Failed { id: RequestId, error: ClientError },
    /// The connection ended: every request still waiting fails.
    Closed(Option<String>),
}

/// Where a transport puts what arrives.
pub(crate) type Inbox = mpsc::UnboundedSender<Incoming>;

/// A way to a server.
pub(crate) trait Transport: Send + Sync + 'static {
    /// Sends one message. What answers it arrives on the inbox. Dropping the returned [`Exchange`]
    /// abandons what is still to come for it (HTTP: its response stream is closed — modern cancellation).
    fn send(&self, message: Outgoing) -> BoxFuture<'_, Result<Exchange, ClientError>>;
    /// Ends the connection (stdio: closes the server's stdin and waits for it; HTTP: ends the session).
    fn close(&self) -> BoxFuture<'_, ()>;
    /// Whether each request's answers come on a stream of its own, which the client closes to cancel it
    /// (modern HTTP); otherwise cancelling takes `notifications/cancelled`.
    fn closes_streams(&self) -> bool;
    /// A legacy session was opened (`initialize` answered, `notifications/initialized` sent): HTTP opens
    /// the session's standalone stream, and returns once the server has answered it.
    fn session_opened(&self) -> BoxFuture<'_, ()> {
        Box::pin(std::future::ready(()))
    }
    /// Whether a server request says which client request it belongs to ([`Incoming::OnStream`], HTTP);
    /// on stdio nothing does.
    fn relates_requests(&self) -> bool;
}

/// A message in flight; dropping it abandons its answer stream.
pub(crate) struct Exchange {
    abort: Option<tokio::task::AbortHandle>,
}

impl Exchange {
    /// Nothing to abandon (stdio, where answers come on the connection's one stream).
    pub fn done() -> Self {
        Self { abort: None }
    }

    /// The task reading this message's answers; it is aborted when the exchange is dropped.
    pub fn reading(task: tokio::task::AbortHandle) -> Self {
        Self { abort: Some(task) }
    }
}

impl Drop for Exchange {
    fn drop(&mut self) {
        if let Some(abort) = self.abort.take() {
            abort.abort();
        }
    }
}
