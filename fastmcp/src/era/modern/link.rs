//! How a modern request's context reaches its client: notifications on the request's own response stream,
//! and nothing else (the modern protocol has no server-to-client requests; `.ask()` ends the round instead).

use crate::context::{ClientLink, Reply};
use crate::error::{Error, Result};
use crate::protocol::{InputRequests, InputResponses};
use std::sync::Arc;
use tokio::sync::mpsc;

const NO_PUSH: &str = "this request cannot send requests to the client (only a legacy session can): use `.ask()` \
     in the handler body instead, which works on both protocol eras";

pub(crate) struct ModernLink {
    /// The request's SSE response, when it has one (it asked for progress or logs).
    pub stream: Option<mpsc::Sender<String>>,
}

impl ModernLink {
    /// The link of a request that sends nothing on a stream (no log level, no progress token; see
    /// `Admitted::delivery`): it holds nothing of the request's, so each thread's requests share one
    /// rather than allocating it a request.
    pub fn silent() -> Arc<dyn ClientLink> {
        thread_local! {
            static SILENT: Arc<ModernLink> = Arc::new(ModernLink { stream: None });
        }
        SILENT.with(|link| link.clone())
    }
}

impl ClientLink for ModernLink {
    fn stream(&self) -> Option<&mpsc::Sender<String>> {
        self.stream.as_ref()
    }

    fn ask(&self, _: InputRequests) -> Reply<'_, Result<InputResponses>> {
        Box::pin(async { Err(Error::msg(NO_PUSH)) })
    }
}
