//! The legacy era (2024-11-05 … 2025-11-25): `initialize` opens a session whose version and capabilities
//! apply to every later request on the connection.

use super::{Link, shim};
use crate::context::{Context, Extras, Push, Scope, SessionState};
use crate::error::Error;
use crate::protocol::{
    ClientCapabilities, Era, ErrorObject, Implementation, InitializeParams, InitializeResult, LoggingLevel,
    ProtocolVersion, Request, ResourceUriParams, SetLevelParams, error_json, response_json,
};
use crate::server::Server;
use crate::server::dispatch::{self, Outcome, Reply, Round, parse_params};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};

/// A legacy session: set once by `initialize`, read lock-free by every later request.
#[derive(Default)]
pub(crate) struct Session {
    peer: OnceLock<Arc<Peer>>,
    initialized: AtomicBool,
    /// The `logging/setLevel` threshold, as `LoggingLevel as u8 + 1`; 0 means not set.
    log_level: AtomicU8,
    /// What handlers keep per session (`Context::set`), and `on_close` callbacks.
    state: Arc<SessionState>,
    /// URIs the client subscribed to with `resources/subscribe`.
    subscriptions: std::sync::Mutex<std::collections::BTreeSet<String>>,
    /// One request of legacy HTTP served without sessions: no state, nothing can be pushed to the client.
    stateless: bool,
}

/// What the client said at `initialize`.
pub(crate) struct Peer {
    pub protocol_version: ProtocolVersion,
    /// `None` on a stateless request, whose `initialize` another request carried.
    pub client_info: Option<Implementation>,
    pub capabilities: ClientCapabilities,
}

impl Session {
    /// A session that exists for one request only (legacy HTTP without sessions): taken as initialized at
    /// `version`, with no declared client capabilities, since `initialize` travelled on another request.
    pub fn stateless(version: ProtocolVersion) -> Self {
        let peer = Peer { protocol_version: version, client_info: None, capabilities: ClientCapabilities::default() };
        let session = Self { stateless: true, ..Self::default() };
        let _ = session.peer.set(Arc::new(peer));
        session.mark_initialized();
        session
    }

    pub fn mark_initialized(&self) {
        self.initialized.store(true, Ordering::Relaxed);
    }

    /// The version `initialize` settled on, once it has.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.peer.get().map(|p| p.protocol_version)
    }

    /// Whether the client subscribed to updates of the resource at `uri`.
    pub fn subscribed(&self, uri: &str) -> bool {
        self.subscriptions.lock().unwrap_or_else(|e| e.into_inner()).contains(uri)
    }

    /// The client sent `notifications/initialized`: the server may now send it notifications of its own.
    pub fn is_initialized(&self) -> bool {
        self.initialized.load(Ordering::Relaxed)
    }

    /// The level `logging/setLevel` set; until the client sets one, everything is sent.
    fn log_level(&self) -> LoggingLevel {
        const LEVELS: [LoggingLevel; 8] = [
            LoggingLevel::Debug,
            LoggingLevel::Info,
            LoggingLevel::Notice,
            LoggingLevel::Warning,
            LoggingLevel::Error,
            LoggingLevel::Critical,
            LoggingLevel::Alert,
            LoggingLevel::Emergency,
        ];
        let set = usize::from(self.log_level.load(Ordering::Relaxed));
        set.checked_sub(1).and_then(|i| LEVELS.get(i).copied()).unwrap_or(LoggingLevel::Debug)
    }

    pub fn close(&self) {
        self.state.close();
    }
}

pub(crate) async fn serve(server: &Server, session: &Session, link: Link<'_>, req: Request) -> String {
    let method = req.method.as_str();
    let params = req.params.as_deref();
    let result = match method {
        "initialize" => initialize(server, session, parse_params("initialize", params)),
        "ping" => Reply::new(serde_json::json!({}), false),
        "server/discover" => return super::modern::finish(server, &req.id, super::modern::discover(server)),
        _ => {
            let Some(peer) = session.peer.get() else {
                let e = ErrorObject::invalid_request(format!(
                    "`{method}` before `initialize`: a legacy client must initialize first; a modern client sends \
                     `_meta` with io.modelcontextprotocol/protocolVersion on every request"
                ));
                return error_json(Some(&req.id), &e);
            };
            if method == "resources/subscribe" || method == "resources/unsubscribe" {
                parse_params::<ResourceUriParams>(method, params).and_then(|p| {
                    if server.inner.registry.resolve(&p.uri).is_none() {
                        return Err(Error::resource_not_found(p.uri));
                    }
                    let mut subscriptions = session.subscriptions.lock().unwrap_or_else(|e| e.into_inner());
                    if method == "resources/subscribe" {
                        subscriptions.insert(p.uri);
                    } else {
                        subscriptions.remove(&p.uri);
                    }
                    Reply::new(serde_json::json!({}), false)
                })
            } else if method == "logging/setLevel" {
                parse_params::<SetLevelParams>(method, params).and_then(|p| {
                    session.log_level.store(p.level as u8 + 1, Ordering::Relaxed);
                    Reply::new(serde_json::json!({}), false)
                })
            } else if dispatch::serves(method) {
                let scope = Scope {
                    request_id: req.id.clone(),
                    protocol_version: peer.protocol_version,
                    client_info: peer.client_info.clone(),
                    client_capabilities: peer.capabilities.clone(),
                };
                let extras = Extras {
                    cancel: Some(link.cancel),
                    notify: link.notify.cloned(),
                    log_level: Some(session.log_level()),
                    progress_token: super::progress_token(params),
                    session: (!session.stateless).then(|| session.state.clone()),
                    push: link.outbound.map(|o| Push { outbound: o.clone(), timeout: server.options().round_timeout }),
                    auth: None,
                    server: Some(server.clone()),
                    close_stream: link.close_stream,
                };
                let ctx = Context::with(scope, extras);
                let outbound = link.outbound.map(|o| &**o);
                let outcome = match dispatch::dispatch(server, method, params, ctx.clone(), Round::Wire).await {
                    Outcome::Suspend(suspended) if server.options().legacy_shim => {
                        shim::fulfil(server, peer, outbound, method, params, ctx, suspended).await
                    }
                    other => other,
                };
                return finish(&req, peer.protocol_version, outcome);
            } else {
                Err(Error::rpc(ErrorObject::method_not_found(method)))
            }
        }
    };
    let version = session.peer.get().map_or(ProtocolVersion::LATEST_LEGACY, |p| p.protocol_version);
    finish(&req, version, result.map_or_else(Outcome::Error, Outcome::Complete))
}

/// Negotiates the version (echo a supported legacy version, else offer the newest) and opens the session.
fn initialize(server: &Server, session: &Session, params: Result<InitializeParams, Error>) -> Result<Reply, Error> {
    let params = params?;
    let protocol_version = ProtocolVersion::parse(&params.protocol_version)
        .filter(|v| v.era() == Era::Legacy)
        .unwrap_or(ProtocolVersion::LATEST_LEGACY);
    let peer = Peer { protocol_version, client_info: Some(params.client_info), capabilities: params.capabilities };
    if session.peer.set(Arc::new(peer)).is_err() {
        return Err(Error::rpc(ErrorObject::invalid_request("the session is already initialized")));
    }
    let inner = &server.inner;
    // Tasks are a modern-era extension here: a legacy session's calls run synchronously.
    let mut capabilities = inner.capabilities.clone();
    if let Some(extensions) = &mut capabilities.extensions {
        extensions.remove(crate::protocol::TASKS_EXTENSION);
        if extensions.is_empty() {
            capabilities.extensions = None;
        }
    }
    Reply::new(
        InitializeResult {
            protocol_version: protocol_version.as_str().to_owned(),
            capabilities,
            server_info: inner.info.clone(),
            instructions: inner.instructions.clone(),
        },
        false,
    )
}

fn finish(req: &Request, version: ProtocolVersion, outcome: Outcome) -> String {
    match outcome {
        Outcome::Complete(reply) => response_json(&req.id, &reply),
        Outcome::Suspend(_) | Outcome::InputRequired(_) => error_json(
            Some(&req.id),
            &ErrorObject::internal(format!(
                "Handler for {} asked the client for input, but this request is served on protocol revision \
                 {version}, which has no input_required vocabulary, and the legacy shim is off \
                 (FastMcp::legacy_shim)",
                req.method
            )),
        ),
        Outcome::Error(e) => error_json(Some(&req.id), &e.to_error_object(Era::Legacy)),
        // Only requests that negotiated the tasks extension (modern ones) become tasks.
        Outcome::Task(_) | Outcome::Created(_) => {
            error_json(Some(&req.id), &ErrorObject::internal("a task reached a legacy session"))
        }
    }
}
