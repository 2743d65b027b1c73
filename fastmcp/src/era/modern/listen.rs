//! `subscriptions/listen` (modern): a long-lived request whose stream carries the notifications the client
//! asked for (list changes, updates of named resources) — acknowledged first, every one tagged with the
//! subscription id (the listen request's id).
//!
//! With a shared store, changes made on any replica arrive here; the acknowledgement waits until they can
//! (a store that can't be reached is `-32603` "shared store unavailable", before anything is sent).
//!
//! It ends when the client goes away (closing the HTTP stream, or `notifications/cancelled` on stdio: no
//! response is due then) or when the server shuts down (a final `complete` result).

use super::Wire;
use crate::auth::AccessToken;
use crate::cancel::Cancel;
use crate::protocol::{
    ErrorObject, ListChanged, ListenNotifications, META_SUBSCRIPTION_ID, NOTIFY_SUBSCRIPTIONS_ACKNOWLEDGED, RequestId,
    notification_json,
};
use crate::server::{Change, Server};
use serde_json::json;
use tokio::sync::mpsc;

/// Resource URIs one subscription may watch.
const MAX_RESOURCE_SUBSCRIPTIONS: usize = 1024;

/// What this server can deliver of what was asked: the lists it serves, and the resource URIs it serves and
/// `caller` may read (at most [`MAX_RESOURCE_SUBSCRIPTIONS`], duplicates dropped).
fn honoured(asked: &ListenNotifications, server: &Server, caller: Option<&AccessToken>) -> ListenNotifications {
    let registry = server.registry();
    let caps = &registry.capabilities;
    let resources = asked.resource_subscriptions.as_ref().map(|uris| {
        let mut served: Vec<String> = Vec::new();
        for uri in uris {
            if served.len() < MAX_RESOURCE_SUBSCRIPTIONS
                && !served.contains(uri)
                && registry.resolve(uri).is_some()
                && registry.may_read(uri, caller).is_ok()
            {
                served.push(uri.clone());
            }
        }
        served
    });
    ListenNotifications {
        tools_list_changed: asked.tools_list_changed && caps.tools.is_some(),
        prompts_list_changed: asked.prompts_list_changed && caps.prompts.is_some(),
        resources_list_changed: asked.resources_list_changed && caps.resources.is_some(),
        resource_subscriptions: resources.filter(|r| !r.is_empty()),
    }
}

fn wants(honoured: &ListenNotifications, change: &Change) -> bool {
    match change {
        Change::List(ListChanged::Tools) => honoured.tools_list_changed,
        Change::List(ListChanged::Prompts) => honoured.prompts_list_changed,
        Change::List(ListChanged::Resources) => honoured.resources_list_changed,
        Change::Resource(uri) => {
            honoured.resource_subscriptions.as_ref().is_some_and(|r| r.iter().any(|u| **u == **uri))
        }
    }
}

/// Serves one listen request on `stream` until the client leaves (`cancel`) or the server closes.
pub(super) async fn listen(
    server: &Server,
    id: &RequestId,
    asked: &ListenNotifications,
    caller: Option<&AccessToken>,
    stream: Option<&mpsc::Sender<String>>,
    cancel: Cancel,
) -> Wire {
    let Some(stream) = stream else {
        let e = ErrorObject::internal("subscriptions/listen needs a stream to deliver notifications on");
        return Wire::Error(crate::Error::rpc(e));
    };
    let honoured = honoured(asked, server, caller);
    let tag = json!({ META_SUBSCRIPTION_ID: id });
    // Subscribe before acknowledging, so no change after the acknowledgement is missed — on any replica.
    let mut changes = server.inner.changes.subscribe();
    if let Err(e) = server.inner.changes.ready().await {
        return Wire::Error(e.to_rpc());
    }
    let ack = json!({ "_meta": tag, "notifications": honoured });
    if send(stream, NOTIFY_SUBSCRIPTIONS_ACKNOWLEDGED, &ack).await.is_err() {
        return Wire::Error(crate::Error::msg("the client closed the stream"));
    }
    let closing = &server.inner.closing;
    loop {
        tokio::select! {
            () = cancel.cancelled() => return Wire::Error(crate::Error::msg("the client left the subscription")),
            () = closing.cancelled() => break,
            changed = changes.next() => {
                let Some(changes) = changed else { break };
                for change in changes.iter().filter(|c| wants(&honoured, c)) {
                    let (method, mut params) = change.notification();
                    params.insert("_meta".into(), tag.clone());
                    if send(stream, method, &params.into()).await.is_err() {
                        return Wire::Error(crate::Error::msg("the client closed the stream"));
                    }
                }
            }
        }
    }
    // The server ends the subscription gracefully: the listen request's own result, tagged.
    Wire::reply(json!({ "_meta": tag }), None)
}

async fn send(stream: &mpsc::Sender<String>, method: &str, params: &serde_json::Value) -> Result<(), ()> {
    let line = notification_json(method, params).map_err(|_| ())?;
    stream.send(line).await.map_err(|_| ())
}
