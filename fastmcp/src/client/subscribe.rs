//! Notifications as streams: a modern `subscriptions/listen` (a request that stays open, its notifications
//! tagged with its id) or a legacy `resources/subscribe` (updates of one resource, on the session).

use super::error::ClientError;
use super::handlers::ServerNotification;
use super::session::{Filter, Session};
use super::{Client, parse};
use crate::protocol::{Era, ListenNotifications, METHOD_LISTEN, NOTIFY_SUBSCRIPTIONS_ACKNOWLEDGED};
use serde_json::json;
use std::pin::Pin;
use std::sync::{Arc, Weak};
use std::task::{Context, Poll};
use tokio::sync::mpsc;

/// A stream of the server's notifications for one subscription. Dropping it ends the subscription (the
/// listen request is cancelled, or the resource unsubscribed).
pub struct Subscription {
    rx: mpsc::UnboundedReceiver<ServerNotification>,
    session: Weak<Session>,
    watcher: u64,
    end: End,
    /// What the server agreed to deliver (modern), as its acknowledgement said.
    acknowledged: Option<ListenNotifications>,
}

enum End {
    /// The listen request, running until the subscription is dropped.
    Listen(tokio::task::JoinHandle<()>),
    Unsubscribe(String),
}

impl Subscription {
    /// The next notification; `None` once the subscription ended (the server closed it, or the connection).
    pub async fn next(&mut self) -> Option<ServerNotification> {
        self.rx.recv().await
    }

    /// What the server said it will deliver (`notifications/subscriptions/acknowledged`); `None` on legacy
    /// subscriptions, which have no acknowledgement.
    pub fn acknowledged(&self) -> Option<&ListenNotifications> {
        self.acknowledged.as_ref()
    }
}

impl futures_util::Stream for Subscription {
    type Item = ServerNotification;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<ServerNotification>> {
        self.rx.poll_recv(cx)
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        let Some(session) = self.session.upgrade() else { return };
        session.unwatch(self.watcher);
        match &self.end {
            // Aborting drops the request's future, which cancels it (a closed stream, or a notification).
            End::Listen(task) => task.abort(),
            End::Unsubscribe(uri) => {
                let uri = uri.clone();
                if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                    runtime.spawn(async move {
                        let _ = session.request("resources/unsubscribe", json!({ "uri": uri }), Vec::new()).await;
                    });
                }
            }
        }
    }
}

impl Client {
    /// Subscribes to what `notifications` names: list changes and resource updates. Modern: a
    /// `subscriptions/listen` request, returned once the server acknowledged it. Legacy: each resource is
    /// `resources/subscribe`d (list changes come to every legacy session anyway, through
    /// [`on_notification`](super::ClientBuilder::on_notification)); one resource per subscription there —
    /// use [`subscribe_resource`](Self::subscribe_resource).
    pub async fn listen(&self, notifications: ListenNotifications) -> Result<Subscription, ClientError> {
        if self.era() == Era::Legacy {
            return match notifications.resource_subscriptions.as_deref() {
                Some([uri]) => self.subscribe_legacy(uri).await,
                _ => Err(ClientError::Protocol(
                    "a legacy session subscribes to one resource at a time (Client::subscribe_resource)".into(),
                )),
            };
        }
        self.listen_modern(notifications).await
    }

    async fn listen_modern(&self, notifications: ListenNotifications) -> Result<Subscription, ClientError> {
        let id = self.session.reserve_id();
        let (watcher, mut rx) = self.session.watch(Filter::Tagged(id.clone()));
        let (params, headers) = self.modern_shape(METHOD_LISTEN, json!({ "notifications": notifications }), None, &[]);
        let session: Arc<Session> = self.session.clone();
        let task = tokio::spawn(async move {
            if let Err(e) = session.request_as(id, METHOD_LISTEN, params, headers).await {
                tracing::debug!("the subscription ended: {e}");
            }
            session.unwatch(watcher);
        });
        let mut subscription = Subscription {
            rx: mpsc::unbounded_channel().1,
            session: Arc::downgrade(&self.session),
            watcher,
            end: End::Listen(task),
            acknowledged: None,
        };
        loop {
            match rx.recv().await {
                Some(ServerNotification::Other { method, params }) if method == NOTIFY_SUBSCRIPTIONS_ACKNOWLEDGED => {
                    let params = params.unwrap_or_default();
                    let honoured = params.get("notifications").cloned().unwrap_or_default();
                    subscription.acknowledged = Some(serde_json::from_value(honoured).unwrap_or_default());
                    subscription.rx = rx;
                    return Ok(subscription);
                }
                Some(_) => {}
                None => return Err(ClientError::Protocol("the subscription ended before it was acknowledged".into())),
            }
        }
    }

    /// Subscribes to updates of the resource at `uri`: `resources/subscribe` on a legacy session, a listen
    /// stream with `resourceSubscriptions: [uri]` on the modern protocol.
    pub async fn subscribe_resource(&self, uri: &str) -> Result<Subscription, ClientError> {
        if self.era() == Era::Modern {
            let notifications =
                ListenNotifications { resource_subscriptions: Some(vec![uri.to_owned()]), ..Default::default() };
            return self.listen_modern(notifications).await;
        }
        self.subscribe_legacy(uri).await
    }

    async fn subscribe_legacy(&self, uri: &str) -> Result<Subscription, ClientError> {
        let (watcher, rx) = self.session.watch(Filter::Resource(uri.to_owned()));
        let subscription = Subscription {
            rx,
            session: Arc::downgrade(&self.session),
            watcher,
            end: End::Unsubscribe(uri.to_owned()),
            acknowledged: None,
        };
        let raw = self.session.request("resources/subscribe", json!({ "uri": uri }), Vec::new()).await?;
        let _: serde_json::Value = parse(&raw)?;
        Ok(subscription)
    }
}
