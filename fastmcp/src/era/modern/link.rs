//! How a modern request's context reaches its client: notifications on the request's own response stream,
//! and nothing else (the modern protocol has no server-to-client requests; `.ask()` ends the round instead).

use crate::context::{ClientLink, Reply};
use crate::error::{Error, Result};
use crate::protocol::{InputRequests, InputResponses};
use tokio::sync::mpsc;

const NO_PUSH: &str = "this request cannot send requests to the client (only a legacy session can): use `.ask()` \
     in the handler body instead, which works on both protocol eras";

pub(crate) struct ModernLink {
    /// The request's SSE response, when it has one (it asked for progress or logs).
    pub stream: Option<mpsc::Sender<String>>,
}

impl ClientLink for ModernLink {
    fn stream(&self) -> Option<&mpsc::Sender<String>> {
        self.stream.as_ref()
    }

    fn ask(&self, _: InputRequests) -> Reply<'_, Result<InputResponses>> {
        Box::pin(async { Err(Error::msg(NO_PUSH)) })
    }
}
