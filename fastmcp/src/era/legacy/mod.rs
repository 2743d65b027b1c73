//! The legacy era (2024-11-05 … 2025-11-25): `initialize` opens a session whose version and capabilities
//! apply to every later request on the connection. A handler that suspends is served by the shim, through
//! real server-to-client requests on the session.

mod link;
mod outbound;
mod session;
mod shape;
mod shim;

pub(crate) use link::{CloseStream, LegacyLink};
pub(crate) use outbound::{Outbound, Pending};
pub(crate) use session::{Record as SessionRecord, Session};

use super::classify::{Body, Classified};
use crate::auth::AccessToken;
use crate::cancel::Cancel;
use crate::context::{self, Context, Extras, Facts, HttpRequest};
use crate::error::Error;
use crate::protocol::{
    Era, ErrorObject, InitializeParams, InitializeResult, ProgressToken, ProtocolVersion, RequestId, TASKS_EXTENSION,
    error_json,
};
use crate::server::Server;
use crate::server::access::refused;
use crate::server::call::Call;
use crate::server::dispatch::{Outcome, TaskPoints};
use crate::server::reply::Reply;
use session::Peer;
use std::sync::Arc;
use tokio::sync::mpsc;

const NO_HTTP_SESSION: &str = "there is no session on this request: the server serves legacy HTTP without \
     sessions. Serve HTTP with sessions, or keep state across rounds in locals that live across `.ask()`";

/// Why a server serving legacy HTTP without sessions has no `resources/subscribe`.
const NO_SUBSCRIPTIONS: &str = "is not available on a server that serves legacy HTTP without sessions \
     (HttpOptions::sessions = false, FASTMCP_STATELESS): there is no session to send updates on. Serve HTTP with \
     sessions, or use protocol 2026-07-28, where subscriptions/listen streams resource updates";

/// What the connection lends one legacy request: where its messages go, and its cancellation.
pub(crate) struct Channel {
    /// Where server-to-client requests go; `None` where nothing can be pushed (legacy HTTP alone).
    pub outbound: Option<Arc<Outbound>>,
    /// Where the request's notifications (progress, logs) go.
    pub notify: Option<mpsc::Sender<String>>,
    /// Closes the request's response stream early (resumable HTTP streams).
    pub close_stream: Option<CloseStream>,
    pub cancel: Cancel,
}

/// Serves one legacy request on `session`; returns the response's JSON text.
pub(crate) async fn serve(server: &Server, session: &Session, req: Classified, channel: Channel) -> String {
    let progress_token = req.progress_token();
    let Classified { id, method, body, caller, http, .. } = req;
    let version = || session.protocol_version().unwrap_or(ProtocolVersion::LATEST_LEGACY);
    let reply = match body {
        Body::Initialize(params) => initialize(server, session, params),
        Body::Invalid(e) if method == "initialize" => Err(e),
        _ if method == "ping" => Ok(Reply::empty()),
        body => {
            let Some(peer) = session.peer.get().cloned() else {
                let e = ErrorObject::invalid_request(format!(
                    "`{method}` before `initialize`: a legacy client must initialize first; a modern client sends \
                     `_meta` with io.modelcontextprotocol/protocolVersion on every request"
                ));
                return error_json(Some(&id), &e);
            };
            match body {
                Body::Serve { call, .. } => {
                    let asked = Asked { id: &id, progress_token, caller, http };
                    let (ctx, link) = context(server, session, peer, asked, channel);
                    let outcome = call_handler(server, &method, call, &ctx, &link).await;
                    return finish(&id, &method, version(), outcome);
                }
                Body::Subscribe(_) | Body::Unsubscribe(_) if session.stateless => Err(Error::rpc(ErrorObject::new(
                    crate::protocol::codes::METHOD_NOT_FOUND,
                    format!("Method not found: {method} {NO_SUBSCRIPTIONS}"),
                ))),
                Body::Subscribe(uri) | Body::Unsubscribe(uri) if server.registry().resolve(&uri).is_none() => {
                    Err(Error::resource_not_found(uri))
                }
                Body::Subscribe(uri) => match server.registry().may_read(&uri, caller.as_deref()) {
                    Ok(()) => {
                        session.subscribe(uri, true);
                        Ok(Reply::empty())
                    }
                    Err(refusal) => Err(refused(&refusal)),
                },
                Body::Unsubscribe(uri) => {
                    session.subscribe(uri, false);
                    Ok(Reply::empty())
                }
                Body::SetLevel(level) => {
                    session.set_log_level(level);
                    Ok(Reply::empty())
                }
                Body::Invalid(e) => Err(e),
                // `server/discover` is routed as a probe; what is left is modern-only or unknown.
                _ => Err(Error::rpc(ErrorObject::method_not_found(&method))),
            }
        }
    };
    finish(&id, &method, version(), reply.map_or_else(Outcome::Error, Outcome::Complete))
}

/// Who asked what, as the request's context states it.
struct Asked<'a> {
    id: &'a RequestId,
    progress_token: Option<ProgressToken>,
    caller: Option<Arc<AccessToken>>,
    http: Option<HttpRequest>,
}

/// The context of a request on an initialized session, and its way to the client (the shim asks through it).
fn context(
    server: &Server,
    session: &Session,
    peer: Arc<Peer>,
    asked: Asked<'_>,
    channel: Channel,
) -> (Context, Arc<LegacyLink>) {
    let Asked { id, progress_token, caller, http } = asked;
    let scope = Facts {
        request_id: id.clone(),
        protocol_version: peer.protocol_version,
        client_info: peer.client_info.clone(),
        client_capabilities: peer.capabilities.clone(),
    };
    let link = Arc::new(LegacyLink {
        outbound: channel.outbound,
        notify: channel.notify,
        peer,
        timeout: server.options().round_timeout,
        close_stream: channel.close_stream,
    });
    let extras = Extras {
        cancel: Some(channel.cancel),
        log_level: Some(session.log_level()),
        progress_token,
        session: match session.stateless {
            true => context::Session::None(NO_HTTP_SESSION),
            false => context::Session::Open(session.state.clone()),
        },
        client: Some(link.clone()),
        announce: Some(server.announcer()),
        auth: caller,
        http,
    };
    (Context::with(scope, extras), link)
}

/// A request dispatch serves: the shim takes over when the handler suspends.
async fn call_handler(server: &Server, method: &str, call: Call, ctx: &Context, link: &LegacyLink) -> Outcome {
    let registry = server.registry();
    let prepared = match server.prepare(&registry, &call, ctx.auth()) {
        Ok(prepared) => prepared,
        Err(e) => return Outcome::Error(e),
    };
    let options = server.options();
    match prepared.run(ctx, None, TaskPoints::PassThrough).await {
        Outcome::Suspended(suspension) if options.legacy_shim => {
            shim::fulfil(&prepared, method, link, ctx, options.max_rounds, suspension).await
        }
        other => other,
    }
}

/// Negotiates the version (echo a supported legacy version, else offer the newest) and opens the session.
fn initialize(server: &Server, session: &Session, params: Box<InitializeParams>) -> Result<Reply, Error> {
    let params = *params;
    let protocol_version = ProtocolVersion::parse(&params.protocol_version)
        .filter(|v| v.era() == Era::Legacy)
        .unwrap_or(ProtocolVersion::LATEST_LEGACY);
    let peer = Peer {
        protocol_version,
        client_info: Some(Arc::new(params.client_info)),
        capabilities: Arc::new(params.capabilities),
    };
    if session.peer.set(Arc::new(peer)).is_err() {
        return Err(Error::rpc(ErrorObject::invalid_request("the session is already initialized")));
    }
    let inner = &server.inner;
    // Tasks are a modern-era extension here: a legacy session's calls run synchronously.
    let mut capabilities = server.registry().capabilities.clone();
    // Without a session nothing could carry `notifications/resources/updated`.
    if session.stateless
        && let Some(resources) = &mut capabilities.resources
    {
        resources.subscribe = None;
    }
    if let Some(extensions) = &mut capabilities.extensions {
        extensions.remove(TASKS_EXTENSION);
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
        None,
    )
}

/// Renders an outcome on the legacy wire.
fn finish(id: &RequestId, method: &str, version: ProtocolVersion, outcome: Outcome) -> String {
    match outcome {
        Outcome::Complete(reply) => reply.into_response(id, |_| {}),
        Outcome::Suspended(_) => error_json(
            Some(id),
            &ErrorObject::internal(format!(
                "Handler for {method} asked the client for input, but this request is served on protocol revision \
                 {version}, which has no input_required vocabulary, and the legacy shim is off \
                 (FastMcp::legacy_shim)"
            )),
        ),
        Outcome::Error(e) => error_json(Some(id), &e.to_error_object(Era::Legacy)),
    }
}
