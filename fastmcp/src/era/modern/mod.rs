//! The modern era (2026-07-28): every request carries its own `_meta` envelope and is served statelessly.
//!
//! A request is first admitted — headers against the body, envelope, method, params, in the order the spec's
//! error ladder gives — without running anything, so a transport can still answer with the right status
//! before it commits to a stream. Then it is served: request state opened, the handler run, a suspension
//! turned into `input_required` (or a task), the result rendered with `resultType`, cache hints and
//! `serverInfo`.

mod envelope;
mod headers;
pub(crate) mod link;
mod listen;
mod render;
mod state;
pub(crate) mod tasks;

use super::classify::{Answer, Body, Classified, Delivery, Headers, Retry, Status};
use crate::cancel::Cancel;
use crate::context::{self, Context, Extras, HttpRequest, SessionState};
use crate::error::Error;
use crate::flow::Resume;
use crate::handler::TaskSupport;
use crate::protocol::{
    CacheHint, DiscoverResult, Era, ErrorObject, METHOD_LISTEN, ProtocolVersion, RequestId, TASKS_EXTENSION, codes,
    error_json,
};
use crate::server::Server;
use crate::server::call::Call;
use crate::server::dispatch::{Outcome, TaskPoints};
use crate::server::registry::Registry;
use crate::server::reply::Reply;
use crate::shares::Client;
use envelope::Envelope;
use link::ModernLink;
use render::render;
use serde::Serialize;
use std::sync::Arc;
use tasks::{Steer, TaskStart, TaskStore};
use tokio::sync::mpsc;
use tracing::Instrument as _;

/// Methods of the legacy era that 2026-07-28 removed: `-32601` when called with a modern envelope.
const REMOVED: [&str; 5] = ["initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"];

const NO_SESSION: &str = "there is no session on this request: the modern protocol (2026-07-28) over HTTP is \
     stateless. Keep state across rounds in locals that live across `.ask()` (they travel in the request state; by \
     hand, `ctx.mint_state(..)`), or mint your own handles and pass them as tool arguments";

/// A modern request that passed every check that needs nothing run: ready to serve.
pub(crate) struct Admitted {
    /// Still boxed as parsed (its `_meta` taken into `envelope`): moved whole through the layers of
    /// admission, a request was copied at each (four copies of ~300 bytes, by uprobe on memmove).
    req: Box<Classified>,
    envelope: Envelope,
    /// Read before `_meta` went into `envelope`.
    delivery: Delivery,
    span: tracing::Span,
    /// The registry the request was checked against, and is served from: a change swapped in between can't
    /// serve a call under checks made for another tool.
    registry: Arc<Registry>,
}

/// What a modern request came to, before it is rendered on the wire.
pub(crate) enum Wire {
    Complete(Reply),
    InputRequired(state::Asking),
    /// A `CreateTaskResult`'s body (`resultType: "task"`).
    Task(Reply),
    Error(Error),
}

impl Wire {
    fn reply(result: impl Serialize, cache: Option<CacheHint>) -> Self {
        Reply::new(result, cache).map_or_else(Wire::Error, Wire::Complete)
    }
}

/// Admits a modern request. `headers` are the HTTP request's (stdio has none): `MCP-Protocol-Version`
/// against the envelope (`-32020`), the envelope (`-32022`, `-32602`; HTTP 400), the method (`-32601`, 404),
/// the params (`-32602`; 400 on HTTP where the headers mirror them: a request the header check can't read is
/// refused, never served unchecked), the standard headers and `Mcp-Param-*` against the params (`-32020`),
/// then whether the caller may use what it names (401/403).
pub(crate) fn admit(
    server: &Server,
    mut req: Box<Classified>,
    headers: Option<&dyn Headers>,
) -> Result<Admitted, Answer> {
    let delivery = req.delivery();
    let span = req.span(None);
    let entered = span.enter();
    let registry = server.registry();
    // Decided now, answered after the checks of the request's form: a malformed request is 400 first.
    let refusal = req.refusal(&registry);
    let meta = std::mem::take(&mut req.meta);
    let Classified { id, method, body, .. } = &*req;
    let refuse = |status, e: &ErrorObject| Answer { json: error_json(Some(id), e), status };
    let mismatch = |why: String| ErrorObject::new(codes::HEADER_MISMATCH, format!("Header mismatch: {why}"));
    if let Some(headers) = headers {
        headers::check_version(headers, &meta).map_err(|why| refuse(Status::BadRequest, &mismatch(why)))?;
    }
    let envelope = envelope::open(id, meta).map_err(|e| refuse(Status::BadRequest, &e))?;
    match body {
        Body::Unknown => return Err(refuse(Status::NotFound, &ErrorObject::method_not_found(method))),
        _ if REMOVED.contains(&&**method) => {
            let e = ErrorObject::new(
                codes::METHOD_NOT_FOUND,
                format!("Method not found: {method} was removed in protocol revision 2026-07-28"),
            );
            return Err(refuse(Status::NotFound, &e));
        }
        Body::Invalid(e) => {
            let unreadable = headers.is_some() && headers::mirrored(method).is_some();
            let status = if unreadable { Status::BadRequest } else { Status::Ok };
            return Err(refuse(status, &e.to_error_object(Era::Modern)));
        }
        _ => {}
    }
    if let Some(headers) = headers {
        headers::check_standard(headers, method, body).map_err(|why| refuse(Status::BadRequest, &mismatch(why)))?;
        if let Body::Serve { call: Call::Tool { name, arguments }, .. } = body
            && let Some(tool) = registry.tools.get(name)
        {
            headers::check_params(headers, tool, arguments.as_deref())
                .map_err(|why| refuse(Status::BadRequest, &mismatch(why)))?;
        }
    }
    refusal?;
    drop(entered);
    Ok(Admitted { req, envelope, delivery, span, registry })
}

impl Admitted {
    /// How the answer travels on HTTP.
    pub fn delivery(&self) -> Delivery {
        self.delivery
    }

    /// Serves the request. `stream` is its response stream when it has one (progress, logs and
    /// subscriptions travel on it); `cancel` fires when the client goes away; `session` is the state of the
    /// connection where one client owns it (stdio), which modern requests share as legacy ones do.
    pub async fn serve(
        self,
        server: &Server,
        tasks: &Arc<TaskStore>,
        stream: Option<mpsc::Sender<String>>,
        cancel: Cancel,
        session: Option<Arc<SessionState>>,
    ) -> Answer {
        let Admitted { req, envelope, span, registry, .. } = self;
        let Classified { id, method, body, caller, http, .. } = *req;
        let Envelope { scope, log_level, progress_token } = envelope;
        let id = &id;
        let wire = async move {
            match body {
                Body::Bare => discover(server),
                Body::Listen(params) => {
                    let caller = caller.as_deref();
                    listen::listen(server, id, &params.notifications, caller, stream.as_ref(), cancel).await
                }
                Body::Serve { call, retry } => {
                    let extras = Extras {
                        cancel: Some(cancel),
                        log_level,
                        progress_token,
                        session: session.map_or(context::Session::None(NO_SESSION), context::Session::Open),
                        client: Some(match stream {
                            Some(stream) => Arc::new(ModernLink { stream: Some(stream) }),
                            None => ModernLink::silent(),
                        }),
                        announce: Some(server.announcer()),
                        auth: caller,
                        http,
                    };
                    serve_call(server, registry, tasks, &Context::with(scope, extras), call, retry).await
                }
                // Boxed: a steering future is as large as a tool call's, and this one state holds both.
                Body::TaskGet(task) => {
                    let steer =
                        tasks::steer(tasks, &scope.client_capabilities, &method, &task, caller.as_deref(), Steer::Get);
                    Box::pin(steer).await
                }
                Body::TaskCancel(task) => {
                    let caller = caller.as_deref();
                    Box::pin(tasks::steer(tasks, &scope.client_capabilities, &method, &task, caller, Steer::Cancel))
                        .await
                }
                Body::TaskUpdate { task_id, responses } => {
                    let steer = Steer::Update(responses);
                    let caller = caller.as_deref();
                    Box::pin(tasks::steer(tasks, &scope.client_capabilities, &method, &task_id, caller, steer)).await
                }
                // Admission let through only the methods above: removed, unknown and invalid ones were answered.
                Body::Initialize(_)
                | Body::SetLevel(_)
                | Body::Subscribe(_)
                | Body::Unsubscribe(_)
                | Body::Invalid(_)
                | Body::Unknown => {
                    Wire::Error(Error::internal(format!("{method} is not served on protocol 2026-07-28")))
                }
            }
        }
        .instrument(span)
        .await;
        // A missing client capability is 400 on HTTP, a client over its share 429; other handler errors stay
        // in-band.
        let status = match &wire {
            Wire::Error(e) if e.code() == Some(codes::MISSING_REQUIRED_CLIENT_CAPABILITY) => Status::BadRequest,
            Wire::Error(e) => e.retry_after().map_or(Status::Ok, Status::TooMany),
            _ => Status::Ok,
        };
        Answer { json: render(server, id, wire), status }
    }
}

/// A call dispatch serves: its state opened (if it brings any), its rounds run, a suspension sealed into
/// `input_required` or made a task.
async fn serve_call(
    server: &Server,
    registry: Arc<Registry>,
    tasks: &Arc<TaskStore>,
    ctx: &Context,
    call: Call,
    retry: Retry,
) -> Wire {
    let prepared = match server.prepare(&registry, &call, ctx.auth()) {
        Ok(prepared) => prepared,
        Err(e) => return Wire::Error(e),
    };
    let Retry { mut input_responses, request_state } = retry;
    // A tool that supports tasks runs as one for a client that negotiated them.
    let negotiated = tasks::negotiated(ctx.client_capabilities());
    let tool = prepared.tool();
    let support = tool.map_or(TaskSupport::Forbidden, |t| t.task_support);
    if support == TaskSupport::Required && !negotiated {
        let name = tool.map_or("", |t| t.name.as_str());
        return Wire::Error(tasks::missing_extension(format!(
            "Tool `{name}` runs only as a task: declare the {TASKS_EXTENSION} extension in the request's client \
             capabilities"
        )));
    }
    let as_task = negotiated && support != TaskSupport::Forbidden;
    let first_round = request_state.is_none();
    let task = async |resume: Option<Resume>| match &call {
        Call::Tool { name, arguments } => {
            let start = TaskStart { tool: name.clone(), arguments: arguments.clone(), resume };
            // Boxed: rare, and as large as the round it would otherwise share a state with.
            Box::pin(tasks::create(server, tasks, ctx, start)).await
        }
        _ => Wire::Error(Error::internal("only a tool call becomes a task")),
    };
    // Unless the body places the switch itself (`run_as_task()`), the call becomes a task before it runs.
    if as_task && first_round && !tool.is_some_and(|t| t.task_step) {
        return task(None).await;
    }
    if !prepared.suspends() {
        // Lists and completions: one round.
        return outcome(prepared.run(ctx, None, TaskPoints::PassThrough).await);
    }
    // Digesting the arguments parses them: only a round that opens or seals state does it, and once (a
    // middle round seals with the binding it opened with).
    let binding = || prepared.binding().ok_or_else(|| Error::internal("a suspending request has no state binding"));
    let mut bound = None;
    let one_time = tool.is_some_and(|t| t.once);
    let (resume, ticket) = match request_state {
        None => (None, None),
        Some(token) => {
            match binding().and_then(|b| state::open(server, bound.insert(b), token, input_responses.take())) {
                Ok(state::Opened::Resume(resume, ticket)) => (Some(resume), one_time.then_some(ticket)),
                Ok(state::Opened::AskAgain(again)) => return Wire::InputRequired(again),
                Err(e) => return Wire::Error(e),
            }
        }
    };
    let claim = match ticket {
        Some(ticket) => {
            match ticket.claim(server, Client::of(ctx.auth(), ctx.http().and_then(HttpRequest::peer_addr))).await {
                Ok(claim) => Some(claim),
                Err(e) => return Wire::Error(e),
            }
        }
        None => None,
    };
    let points = if as_task { TaskPoints::Stop } else { TaskPoints::PassThrough };
    let mut round = prepared.run(ctx, resume, points).await;
    if let Some(claim) = claim
        && matches!(round, Outcome::Suspended(_) | Outcome::Error(_))
    {
        claim.release(server).await;
    }
    if first_round && let Outcome::Suspended(suspension) = round {
        round = match state::answered_upfront(suspension, &mut input_responses) {
            Ok(resume) => prepared.run(ctx, Some(resume), points).await,
            Err(suspension) => Outcome::Suspended(suspension),
        };
    }
    match round {
        Outcome::Suspended(s) if s.task => {
            task(Some(Resume { step: s.step, locals: s.locals, responses: Default::default() })).await
        }
        Outcome::Suspended(s) => {
            let sealed = bound
                .map_or_else(binding, Ok)
                .and_then(|b| state::seal(server, ctx.client_capabilities(), &b, s, one_time));
            sealed.map_or_else(Wire::Error, Wire::InputRequired)
        }
        other => outcome(other),
    }
}

fn outcome(outcome: Outcome) -> Wire {
    match outcome {
        Outcome::Complete(reply) => Wire::Complete(reply),
        Outcome::Error(e) => Wire::Error(e),
        Outcome::Suspended(_) => Wire::Error(Error::internal("a suspended round reached the wire unsealed")),
    }
}

/// `server/discover` without the modern envelope: a probe, answered in either era so clients find us.
pub(crate) fn probe(server: &Server, id: &RequestId) -> String {
    render(server, id, discover(server))
}

/// `server/discover`: what the server supports.
fn discover(server: &Server) -> Wire {
    let inner = &server.inner;
    // `resources.subscribe` means `resourceSubscriptions` on `subscriptions/listen` here, and
    // `resources/subscribe` on legacy sessions: both are served.
    let result = DiscoverResult {
        supported_versions: ProtocolVersion::MODERN.iter().map(|v| v.as_str().to_owned()).collect(),
        capabilities: server.registry().capabilities.clone(),
        instructions: inner.instructions.clone(),
    };
    Wire::reply(result, Some(inner.options.cache.discover))
}

/// Whether a method's request stays open until the client leaves (a subscription).
pub(crate) fn is_subscription(method: &str) -> bool {
    method == METHOD_LISTEN
}
