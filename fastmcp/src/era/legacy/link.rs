//! How a legacy request reaches its client: notifications on the stream it answers on, and server-to-client
//! requests for input. [`LegacyLink::ask`] is the one way input requests go out on a session, for the shim's
//! `.ask()` rounds and the deprecated push calls alike: checked against the capabilities the client
//! declared, shaped for its revision, sent all at once, each bounded by the round timeout.

use super::outbound::Outbound;
use super::session::Peer;
use super::shape;
use crate::context::{ClientLink, Reply};
use crate::error::{Error, Result};
use crate::protocol::{InputRequests, InputResponses};
use futures_util::future::try_join_all;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// Closes the HTTP response stream a request answers on, without ending the request.
pub(crate) type CloseStream = Arc<dyn Fn() + Send + Sync>;

const NO_PUSH: &str = "this request has no session to send requests to the client on (legacy HTTP served \
     without sessions); only state-only rounds (`checkpoint().ask()`) work here. Serve HTTP with sessions, or use \
     a client on protocol 2026-07-28, where `.ask()` becomes an input_required result";

/// One legacy request's way to its client.
pub(crate) struct LegacyLink {
    /// Where requests to the client go (the connection's own stream, or the request's SSE response); `None`
    /// on legacy HTTP without sessions, which has nowhere to send them.
    pub outbound: Option<Arc<Outbound>>,
    /// Where the request's notifications go.
    pub notify: Option<mpsc::Sender<String>>,
    pub peer: Arc<Peer>,
    /// How long the client may take to answer one round.
    pub timeout: Duration,
    pub close_stream: Option<CloseStream>,
}

impl LegacyLink {
    /// Sends every input request of a round at once and waits for all the answers; the first failure ends
    /// the round. A request the client's declared capabilities don't cover is never sent (`-32021`).
    pub async fn ask(&self, requests: InputRequests) -> Result<InputResponses> {
        let Some(outbound) = &self.outbound else { return Err(Error::msg(NO_PUSH)) };
        if let Some(missing) = self.peer.capabilities.uncovered(&requests, "the session's") {
            return Err(Error::rpc(missing));
        }
        let version = self.peer.protocol_version;
        let asks = requests.into_iter().map(|(key, request)| async move {
            let request = shape::input_request(request, version);
            let answer =
                outbound.ask(&request, self.timeout).await.map_err(|e| format!("{} ({key}): {e}", request.method()))?;
            Ok::<_, String>((key, answer))
        });
        Ok(try_join_all(asks).await.map_err(Error::msg)?.into_iter().collect())
    }
}

impl ClientLink for LegacyLink {
    fn stream(&self) -> Option<&mpsc::Sender<String>> {
        self.notify.as_ref()
    }

    fn ask(&self, requests: InputRequests) -> Reply<'_, Result<InputResponses>> {
        Box::pin(LegacyLink::ask(self, requests))
    }

    fn close_stream(&self) -> bool {
        match &self.close_stream {
            Some(close) => {
                close();
                true
            }
            None => false,
        }
    }
}
