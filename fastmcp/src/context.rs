//! The request-scoped `Context`: who is asking, on which era, with which capabilities.
//!
//! A handler takes it as a parameter (`ctx: Context`); it is never part of the input schema and is supplied
//! fresh on every round.

use crate::protocol::{ClientCapabilities, Era, Implementation, ProtocolVersion, RequestId};
use std::sync::Arc;

/// What the runtime knows about the request being served. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Context {
    inner: Arc<Scope>,
}

/// The facts an era adapter establishes for one request before dispatch.
#[derive(Debug, Clone)]
pub struct Scope {
    pub request_id: RequestId,
    pub protocol_version: ProtocolVersion,
    pub client_info: Option<Implementation>,
    pub client_capabilities: ClientCapabilities,
}

impl Context {
    /// A context for this scope; dispatch makes one per request (public for testing handlers).
    pub fn new(scope: Scope) -> Self {
        Self { inner: Arc::new(scope) }
    }

    /// The JSON-RPC id of the request being served.
    pub fn request_id(&self) -> &RequestId {
        &self.inner.request_id
    }

    /// The protocol revision this request is served on.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.inner.protocol_version
    }

    /// Legacy (session, `initialize`) or modern (stateless, per-request `_meta`).
    pub fn era(&self) -> Era {
        self.inner.protocol_version.era()
    }

    /// The client's name and version, when it said.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.inner.client_info.as_ref()
    }

    /// What the client declared it can do: at `initialize` (legacy) or in this request's `_meta` (modern).
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.inner.client_capabilities
    }
}
