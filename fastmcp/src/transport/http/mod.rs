//! Streamable HTTP: one endpoint serving legacy sessions and modern stateless requests at once, as a `tower`
//! service ([`McpService`]) that mounts into any tower/axum application or runs on fastmcp's own accept
//! loop (`Server::serve_http`).
//!
//! Modern requests are served statelessly (JSON, or SSE when they asked for progress, logs or a
//! subscription). Legacy requests belong to a session minted on `initialize` whose streams are resumable
//! (`Last-Event-ID`), or, with sessions off, are each served alone.

mod headers;
mod origin;
mod quotas;
mod request_body;
mod service;
mod session;
mod shared_log;
mod sse;
mod streams;

pub use service::{McpService, ServiceOptions};
pub use sse::Body;
pub(crate) use sse::holding;
pub use streams::PeerAddr;
