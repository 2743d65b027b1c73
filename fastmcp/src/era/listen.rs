//! `subscriptions/listen` (modern): a long-lived request whose stream carries the notifications the client
//! asked for (list changes, updates of named resources) — acknowledged first, every one tagged with the
//! subscription id (the listen request's id).
//!
//! It ends when the client goes away (closing the HTTP stream, or `notifications/cancelled` on stdio: no
//! response is due then) or when the server shuts down (a final `complete` result).

use crate::protocol::{
    ErrorObject, META_SUBSCRIPTION_ID, NOTIFY_SUBSCRIPTIONS_ACKNOWLEDGED, RequestId, notification_json,
};
use crate::server::dispatch::{Outcome, Reply, parse_params};
use crate::server::{Change, ListChanged, Server};
use serde::{Deserialize, Serialize};
use serde_json::json;
use serde_json::value::RawValue;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

#[derive(Debug, Default, Deserialize)]
struct ListenParams {
    #[serde(default)]
    notifications: Notifications,
}

/// Which notifications a subscription carries: asked for by the client, then the subset honoured.
#[derive(Debug, Default, Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
struct Notifications {
    #[serde(default, skip_serializing_if = "is_false")]
    tools_list_changed: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    prompts_list_changed: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    resources_list_changed: bool,
    /// Resources whose updates the client wants.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    resource_subscriptions: Option<Vec<String>>,
}

/// Resource URIs one subscription may watch.
const MAX_RESOURCE_SUBSCRIPTIONS: usize = 1024;

fn is_false(b: &bool) -> bool {
    !*b
}

impl Notifications {
    /// What this server can deliver of what was asked: the lists it serves, and the resource URIs it
    /// serves (at most [`MAX_RESOURCE_SUBSCRIPTIONS`], duplicates dropped).
    fn honoured(&self, server: &Server) -> Self {
        let caps = &server.inner.capabilities;
        let resources = self.resource_subscriptions.as_ref().map(|uris| {
            let mut served: Vec<String> = Vec::new();
            for uri in uris {
                if served.len() < MAX_RESOURCE_SUBSCRIPTIONS
                    && !served.contains(uri)
                    && server.inner.registry.resolve(uri).is_some()
                {
                    served.push(uri.clone());
                }
            }
            served
        });
        Self {
            tools_list_changed: self.tools_list_changed && caps.tools.is_some(),
            prompts_list_changed: self.prompts_list_changed && caps.prompts.is_some(),
            resources_list_changed: self.resources_list_changed && caps.resources.is_some(),
            resource_subscriptions: resources.filter(|r| !r.is_empty()),
        }
    }

    fn wants(&self, change: &Change) -> bool {
        match change {
            Change::List(ListChanged::Tools) => self.tools_list_changed,
            Change::List(ListChanged::Prompts) => self.prompts_list_changed,
            Change::List(ListChanged::Resources) => self.resources_list_changed,
            Change::Resource(uri) => {
                self.resource_subscriptions.as_ref().is_some_and(|r| r.iter().any(|u| **u == **uri))
            }
        }
    }
}

/// Serves one listen request on `stream` until the client leaves (`cancel`) or the server closes.
pub(crate) async fn listen(
    server: &Server,
    id: &RequestId,
    params: Option<&RawValue>,
    stream: Option<&mpsc::Sender<String>>,
    cancel: CancellationToken,
) -> Outcome {
    let asked = match parse_params::<ListenParams>("subscriptions/listen", params) {
        Ok(p) => p.notifications,
        Err(e) => return Outcome::Error(e),
    };
    let Some(stream) = stream else {
        let e = ErrorObject::internal("subscriptions/listen needs a stream to deliver notifications on");
        return Outcome::Error(crate::Error::rpc(e));
    };
    let honoured = asked.honoured(server);
    let tag = json!({ META_SUBSCRIPTION_ID: id });
    // Subscribe before acknowledging, so no change after the acknowledgement is missed.
    let mut changes = server.inner.changes.subscribe();
    let ack = json!({ "_meta": tag, "notifications": honoured });
    if send(stream, NOTIFY_SUBSCRIPTIONS_ACKNOWLEDGED, &ack).await.is_err() {
        return Outcome::Error(crate::Error::msg("the client closed the stream"));
    }
    let closing = &server.inner.closing;
    loop {
        tokio::select! {
            () = cancel.cancelled() => return Outcome::Error(crate::Error::msg("the client left the subscription")),
            () = closing.cancelled() => break,
            changed = changes.next() => {
                let Some(changes) = changed else { break };
                for change in changes.iter().filter(|c| honoured.wants(c)) {
                    let (method, mut params) = change.notification();
                    params.insert("_meta".into(), tag.clone());
                    if send(stream, method, &params.into()).await.is_err() {
                        return Outcome::Error(crate::Error::msg("the client closed the stream"));
                    }
                }
            }
        }
    }
    // The server ends the subscription gracefully: the listen request's own result, tagged.
    match Reply::new(json!({ "_meta": tag }), false) {
        Ok(reply) => Outcome::Complete(reply),
        Err(e) => Outcome::Error(e),
    }
}

async fn send(stream: &mpsc::Sender<String>, method: &str, params: &serde_json::Value) -> Result<(), ()> {
    let line = notification_json(method, params).map_err(|_| ())?;
    stream.send(line).await.map_err(|_| ())
}
