//! A built server: the registry and options every connection shares, the request-state codec, and the
//! fan-out of changes to clients.

use super::builder::Options;
use super::catalog::Catalog;
use super::changes::{Change, Changes};
use super::registry::Registry;
use crate::auth::Gate;
use crate::context::Announce;
use crate::error::{Error, Result};
use crate::leases::Leases;
use crate::protocol::{Implementation, ListChanged};
use crate::shares::Client;
use crate::state::{RequestStateConfig, StateCodec};
use arc_swap::ArcSwap;
use std::sync::{Arc, Mutex, OnceLock};
use tokio_util::sync::CancellationToken;

/// A built server: cheap to clone, shared by every connection. What it serves may change while it runs
/// ([`add_tool`](Self::add_tool) and the like); each request sees one registry, whole.
#[derive(Clone)]
pub struct Server {
    pub(crate) inner: Arc<ServerInner>,
}

pub(crate) struct ServerInner {
    pub info: Implementation,
    pub instructions: Option<String>,
    /// What requests are served from: read lock-free, replaced whole by a change.
    pub registry: ArcSwap<Registry>,
    /// What the registry is built from; held while a change builds the next one, so changes apply in turn.
    pub catalog: Mutex<Catalog>,
    pub options: Options,
    /// `serverInfo`, serialized once: it is stamped on every modern result.
    pub server_info_meta: Box<serde_json::value::RawValue>,
    pub request_state: RequestStateConfig,
    /// Made at build time when keys were configured, else on first use.
    pub state: OnceLock<StateCodec>,
    /// The fan-out of changes; counts them too (see [`Server::generation`]).
    pub changes: Changes,
    /// What replicas share (see [`FastMcp::store`](super::FastMcp::store)).
    pub store: Arc<dyn crate::store::Store>,
    /// This replica, as the others sharing the store know it.
    pub replica: Arc<crate::store::Replica>,
    /// Fires when the server shuts down: long-lived streams (`subscriptions/listen`, the legacy GET stream)
    /// end so in-flight requests can finish.
    pub closing: CancellationToken,
    /// The authorization edge, when the server is a protected resource.
    pub gate: Option<Arc<Gate>>,
    /// Around every round of dispatch, outermost first.
    pub middleware: super::middleware::Chain,
    /// Each client's consumed-round records of one-time flows on this replica, until their tokens expire.
    pub one_time: Arc<Leases<Client>>,
}

impl Server {
    /// The limits and tunables it was built with (set on the [`FastMcp`](super::FastMcp) builder).
    pub fn options(&self) -> &Options {
        &self.inner.options
    }

    /// How many changes clients have been told of so far — list changes and resource updates. Something
    /// kept under it (a cached answer) is no staler than what clients know.
    pub fn generation(&self) -> u64 {
        self.inner.changes.generation()
    }

    /// Each client's consumed-round records of one-time flows
    /// ([`max_one_time_rounds_per_client`](super::FastMcp::max_one_time_rounds_per_client)).
    pub(crate) fn one_time_rounds(&self) -> &Arc<Leases<Client>> {
        &self.inner.one_time
    }

    /// The store replicas share (in-memory by default).
    pub fn store(&self) -> &Arc<dyn crate::store::Store> {
        &self.inner.store
    }

    /// The registry as it is now: a snapshot that a change does not alter (the next one replaces it).
    pub(crate) fn registry(&self) -> Arc<Registry> {
        self.inner.registry.load_full()
    }

    /// Tells clients a list changed: legacy sessions on their own stream, modern clients on the
    /// `subscriptions/listen` streams that asked for it. Handlers can use
    /// [`Context::notify_list_changed`](crate::Context::notify_list_changed).
    pub fn notify_list_changed(&self, list: ListChanged) {
        self.inner.list_changed(list);
    }

    /// Tells clients the contents of the resource at `uri` changed, so they should read it again: legacy
    /// sessions that subscribed to it (`resources/subscribe`), modern clients on the `subscriptions/listen`
    /// streams that named it in `resourceSubscriptions`. Handlers can use
    /// [`Context::notify_resource_updated`](crate::Context::notify_resource_updated).
    pub fn notify_resource_updated(&self, uri: impl Into<String>) {
        self.inner.resource_updated(uri.into());
    }

    /// Starts shutting down: subscriptions and standalone streams, which never end on their own, end now (a
    /// listen request with its final result), so requests in flight can finish and connections close.
    pub fn close(&self) {
        self.inner.closing.cancel();
    }

    /// The request-state codec, made on first use when no keys were configured.
    pub(crate) fn state_codec(&self) -> Result<&StateCodec> {
        if let Some(codec) = self.inner.state.get() {
            return Ok(codec);
        }
        let codec = StateCodec::new(self.inner.request_state.clone())
            .map_err(|e| Error::internal(format!("request state: {e}")))?;
        Ok(self.inner.state.get_or_init(|| codec))
    }
}

impl Server {
    /// What a handler's context announces changes through (`Context::notify_list_changed`).
    pub(crate) fn announcer(&self) -> Arc<dyn Announce> {
        self.inner.clone()
    }
}

impl Announce for ServerInner {
    fn list_changed(&self, list: ListChanged) {
        self.changes.publish(Change::List(list));
    }

    fn resource_updated(&self, uri: String) {
        self.changes.publish(Change::Resource(uri.into()));
    }

    fn as_any(self: Arc<Self>) -> Arc<dyn std::any::Any + Send + Sync> {
        self
    }
}
