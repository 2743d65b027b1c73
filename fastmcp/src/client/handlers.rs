//! What the client answers with when a server needs something only it has — a form answer, an LLM
//! completion, its roots — and where the server's notifications go. Registered once; the same handlers
//! answer modern `input_required` rounds and legacy server-to-client requests.

use super::transport::BoxFuture;
use crate::protocol::{
    ClientCapabilities, CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, ElicitationCapability,
    ListChanged, LoggingMessageParams, ProgressParams, Root, RootsCapability, SamplingCapability,
};
use serde_json::Value;
use std::future::Future;
use std::sync::Arc;

/// Answers `elicitation/create`: the user's answer to a form (or a URL to open).
pub type ElicitHandler = Arc<dyn Fn(ElicitParams) -> BoxFuture<'static, Result<ElicitResult, String>> + Send + Sync>;
/// Answers `sampling/createMessage`: a completion from the client's model.
pub type SampleHandler =
    Arc<dyn Fn(CreateMessageParams) -> BoxFuture<'static, Result<CreateMessageResult, String>> + Send + Sync>;
/// Sees each notification from the server.
pub type NotificationHandler = Arc<dyn Fn(ServerNotification) + Send + Sync>;

/// A notification from the server, by kind.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum ServerNotification {
    /// `notifications/progress`: how far a call has got (calls ask for progress when a notification
    /// handler is set).
    Progress(ProgressParams),
    /// `notifications/message`: a log message from the server (see `ClientBuilder::log_level`).
    Log(LoggingMessageParams),
    /// A `notifications/*/list_changed`: which list (tools, prompts, resources) to list again.
    ListChanged(ListChanged),
    /// `notifications/resources/updated`: a subscribed resource changed; read it again.
    ResourceUpdated {
        /// The resource that changed.
        uri: String,
    },
    /// Any other notification, as sent.
    Other {
        /// The notification's method.
        method: String,
        /// Its params, if it had any.
        params: Option<Value>,
    },
}

/// The client's handlers; what it declares as capabilities follows from which are set.
#[derive(Clone, Default)]
pub(crate) struct Handlers {
    pub elicit: Option<ElicitHandler>,
    pub sample: Option<SampleHandler>,
    pub roots: Option<Arc<Vec<Root>>>,
    pub notification: Option<NotificationHandler>,
    /// Declared besides what the handlers answer (see `ClientBuilder::declare`).
    pub declared: ClientCapabilities,
}

impl Handlers {
    pub fn on_elicit<F, Fut>(&mut self, handler: F)
    where
        F: Fn(ElicitParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ElicitResult, String>> + Send + 'static,
    {
        self.elicit = Some(Arc::new(move |params| Box::pin(handler(params))));
    }

    pub fn on_sample<F, Fut>(&mut self, handler: F)
    where
        F: Fn(CreateMessageParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CreateMessageResult, String>> + Send + 'static,
    {
        self.sample = Some(Arc::new(move |params| Box::pin(handler(params))));
    }

    /// Declares exactly what the handlers can answer, and what was declared besides: a server never asks
    /// for the rest.
    pub fn capabilities(&self) -> ClientCapabilities {
        let declared = self.declared.clone();
        ClientCapabilities {
            elicitation: declared.elicitation.or(self.elicit.as_ref().map(|_| ElicitationCapability::default())),
            sampling: declared.sampling.or(self.sample.as_ref().map(|_| SamplingCapability::default())),
            roots: declared.roots.or(self.roots.as_ref().map(|_| RootsCapability::default())),
            ..declared
        }
    }

    pub fn notify(&self, notification: ServerNotification) {
        if let Some(handler) = &self.notification {
            handler(notification);
        }
    }
}
