//! Dispatch, shared by both eras and every transport: a prepared request, its [`Context`] and the round it
//! resumes, in; a neutral [`Outcome`] out.
//!
//! Dispatch never sees an era, a request-state token, a task or a transport. The era adapters open and seal
//! state, decide what a suspension becomes (a modern `input_required` result, a legacy shim round, a task)
//! and render outcomes on their wire. A request is resolved against the registry once ([`Server::prepare`])
//! and may then run as many rounds as its flow takes, with no parse in between.

use super::access::refused;
use super::call::{Call, List};
use super::middleware::{Arguments, BoxFuture, Chain, Next, Request, Response};
use super::registry::{PromptEntry, Registry, ToolEntry, Variables};
use super::reply::Reply;
use super::running::Server;
use crate::auth::{AccessToken, Principal};
use crate::context::Context;
use crate::error::Error;
use crate::flow::{Resume, Step, Suspension};
use crate::handler::{CompletionQuery, HandlerResult, PromptGet, ResourceHandler, ResourceRead, ToolCall};
use crate::protocol::{
    CacheHint, CallToolResult, CompleteParams, CompleteResult, CompletionReference, JsonObject, codes,
};
use crate::state::{ArgumentsDigest, Binding, Method};
use futures_util::FutureExt as _;
use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

/// What one round of a request came to.
pub(crate) enum Outcome {
    Complete(Reply),
    /// The handler stopped at an `.ask()` (or at `run_as_task()`); the era adapter decides what that becomes.
    Suspended(Suspension),
    Error(Error),
}

/// Whether a `run_as_task()` point ends the round (the era adapter turns the rest into a task) or is passed
/// through at once, in the same round (the call can't become a task here).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TaskPoints {
    Stop,
    PassThrough,
}

/// Where a failed round's result goes: the call's own response, or the state of a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Delivery {
    Response,
    Task,
}

/// What a failure around a tool's handler becomes — the one place that decides it, for every era and
/// delivery. A handler's own `Err` is an `isError` result already (its return type makes it one); what
/// reaches here is the runtime's: an error without a code (a round's timeout, the legacy shim giving up) is
/// a tool error the model can read; a coded one (a malformed answer, a missing capability, bad state) is a
/// protocol error. An internal error (a panicking handler) depends on where it goes: a synchronous call
/// reports it as a tool error, a task (which has a state for protocol errors) as `failed`.
pub(crate) fn tool_failure(error: Error, delivery: Delivery) -> Result<CallToolResult, Error> {
    let readable = match error.code() {
        None => true,
        Some(codes::INTERNAL_ERROR) => delivery == Delivery::Response,
        Some(_) => false,
    };
    if readable { Ok(CallToolResult::error(error.to_string())) } else { Err(error) }
}

/// A request resolved against the registry: the handler it reaches and the parsed params it reads. It borrows
/// the registry snapshot it was resolved against, so every round of it sees one registry.
pub(crate) struct Prepared<'a> {
    server: &'a Server,
    registry: &'a Registry,
    target: Target<'a>,
    /// Whom request state is bound to.
    principal: Option<Principal>,
    caller: Option<&'a AccessToken>,
}

enum Target<'a> {
    List { list: List, cursor: Option<&'a str> },
    Tool { entry: &'a ToolEntry, arguments: Option<&'a RawValue> },
    Prompt { name: &'a str, entry: &'a PromptEntry, arguments: Option<&'a BTreeMap<String, String>> },
    Read { uri: &'a str, handler: Arc<dyn ResourceHandler>, variables: Variables, hint: CacheHint, chain: Chain },
    Complete(&'a CompleteParams),
}

impl Server {
    /// Resolves a request against the registry for `caller`: a component it may not use is refused (see
    /// [`access`](super::access)), an unknown tool or prompt is `-32602`, an unknown resource "resource not
    /// found". `registry` is the snapshot the request was admitted against, so what was checked is what runs;
    /// what it resolves to is borrowed from it (a reference count is an atomic add and subtract a request).
    pub(crate) fn prepare<'a>(
        &'a self,
        registry: &'a Registry,
        call: &'a Call,
        caller: Option<&'a AccessToken>,
    ) -> Result<Prepared<'a>, Error> {
        registry.authorize(call, caller).map_err(|refusal| refused(&refusal))?;
        let target = match call {
            Call::List { list, cursor } => Target::List { list: *list, cursor: cursor.as_deref() },
            Call::Tool { name, arguments } => {
                let entry =
                    registry.tools.get(name).ok_or_else(|| Error::invalid_params(format!("Unknown tool: {name}")))?;
                Target::Tool { entry, arguments: arguments.as_deref() }
            }
            Call::Prompt { name, arguments } => {
                let entry = registry
                    .prompts
                    .get(name)
                    .ok_or_else(|| Error::invalid_params(format!("Unknown prompt: {name}")))?;
                Target::Prompt { name, entry, arguments: arguments.as_ref() }
            }
            Call::Read { uri } => {
                let resolved = registry.resolve(uri).ok_or_else(|| Error::resource_not_found(uri))?;
                let (handler, chain) = (resolved.handler.clone(), resolved.chain.clone());
                Target::Read { uri, handler, variables: resolved.variables, hint: resolved.hint, chain }
            }
            Call::Complete(params) => Target::Complete(params),
        };
        let mut prepared = Prepared { server: self, registry, target, principal: None, caller };
        // Only requests that can suspend bind their state to the caller.
        prepared.principal = caller.filter(|_| prepared.suspends()).map(AccessToken::principal);
        Ok(prepared)
    }
}

impl<'a> Prepared<'a> {
    /// The tool a `tools/call` reaches.
    pub fn tool(&self) -> Option<&'a ToolEntry> {
        match &self.target {
            Target::Tool { entry, .. } => Some(entry),
            _ => None,
        }
    }

    /// Whether this request's handler can suspend at an `.ask()` (lists and completions never do).
    pub fn suspends(&self) -> bool {
        matches!(self.target, Target::Tool { .. } | Target::Prompt { .. } | Target::Read { .. })
    }

    /// What request state for this request is bound to: the method, its target, a digest of the arguments
    /// and the handler's build. `None` for requests that never suspend (lists, completions). Digesting parses
    /// the arguments, so callers ask only when they open or seal state.
    pub fn binding(&self) -> Option<Binding<'_>> {
        // Absent arguments and `{}` are one request to a client, and hash alike here.
        let digest_raw = |raw: Option<&RawValue>| match raw.map(RawValue::get) {
            None | Some("null") => ArgumentsDigest::of_json(&Value::Object(JsonObject::new())),
            Some(raw) => {
                ArgumentsDigest::of_raw_json(raw).unwrap_or_else(|_| ArgumentsDigest::of_bytes(raw.as_bytes()))
            }
        };
        let (method, target, digest, fingerprint) = match &self.target {
            Target::Tool { entry, arguments } => {
                (Method::ToolsCall, entry.name.as_str(), digest_raw(*arguments), entry.handler.fingerprint())
            }
            Target::Prompt { name, entry, arguments } => {
                let digest = match arguments {
                    None => digest_raw(None),
                    Some(map) => ArgumentsDigest::of_json(&serde_json::to_value(map).unwrap_or_default()),
                };
                (Method::PromptsGet, *name, digest, entry.handler.fingerprint())
            }
            Target::Read { uri, handler, .. } => (Method::ResourcesRead, *uri, digest_raw(None), handler.fingerprint()),
            Target::List { .. } | Target::Complete(_) => return None,
        };
        let principal = self.principal.as_ref().map(Principal::as_str);
        Some(Binding::new(method, target, digest, principal, fingerprint))
    }

    /// Runs one round, from the start or from `resume`, through its target's middleware (see
    /// [`middleware`](super::middleware): the server's, then the mounts' of a mounted component) when there
    /// is any.
    pub async fn run(&self, ctx: &Context, resume: Option<Resume>, points: TaskPoints) -> Outcome {
        let chain = match &self.target {
            Target::Tool { entry, .. } => &entry.chain,
            Target::Prompt { entry, .. } => &entry.chain,
            Target::Read { chain, .. } => chain,
            Target::List { .. } | Target::Complete(_) => &self.server.inner.middleware,
        };
        if chain.is_empty() {
            return self.dispatch(ctx, resume, points, Arguments::None).await;
        }
        let retry = resume.is_some();
        let resume = std::sync::Mutex::new(resume);
        let inner = innermost(|request: Request<'_>| {
            let resume = resume.lock().unwrap_or_else(|p| p.into_inner()).take();
            Box::pin(async move {
                let outcome = self.dispatch(request.context, resume, points, request.arguments).await;
                Response { outcome }
            })
        });
        match Next::new(chain, &inner).run(self.request(ctx, retry)).await.outcome {
            // A middleware's own failure becomes what any failure of this request becomes.
            Outcome::Error(e) => self.failed(e),
            other => other,
        }
    }

    /// This request as middleware sees it.
    fn request<'r>(&'r self, context: &'r Context, retry: bool) -> Request<'r> {
        let (method, name, arguments, cursor) = match &self.target {
            Target::List { list, cursor } => (list.method(), None, Arguments::None, *cursor),
            Target::Tool { entry, arguments } => {
                ("tools/call", Some(entry.name.as_str()), Arguments::Tool(*arguments), None)
            }
            Target::Prompt { name, arguments, .. } => ("prompts/get", Some(*name), Arguments::Prompt(*arguments), None),
            Target::Read { uri, .. } => ("resources/read", Some(*uri), Arguments::None, None),
            Target::Complete(_) => ("completion/complete", None, Arguments::None, None),
        };
        Request { method, name, context, retry, arguments, cursor }
    }

    /// One round of the request itself, its arguments as a middleware replaced them (if one did). A result
    /// is cacheable only when the request was a first round (retries that carried answers or state must
    /// not be cached).
    async fn dispatch(
        &self,
        ctx: &Context,
        resume: Option<Resume>,
        points: TaskPoints,
        changed: Arguments<'_>,
    ) -> Outcome {
        match &self.target {
            Target::List { list, cursor } => {
                let listing = self.registry.listing(*list);
                match listing.page(*cursor, self.caller) {
                    Ok(Some((page, next))) => Outcome::Complete(Reply::page(list.key(), page, next, listing.hint)),
                    Ok(None) => Outcome::Error(Error::invalid_params("Invalid cursor")),
                    Err(e) => Outcome::Error(e),
                }
            }
            Target::Complete(params) => match complete(self.registry, params).await {
                Ok(reply) => Outcome::Complete(reply),
                Err(e) => Outcome::Error(e),
            },
            Target::Tool { entry, arguments } => {
                let replaced = match changed {
                    Arguments::ToolReplaced(replaced) => Some(replaced),
                    _ => None,
                };
                let mut resume = resume;
                loop {
                    // One copy per run of the handler, which owns what it parses.
                    let arguments = replaced.clone().or_else(|| arguments.map(ToOwned::to_owned));
                    match run_tool(self.server, entry, arguments, ctx, resume.take()).await {
                        // `run_as_task()` where the rest can't be a task: on at once, in this round.
                        Ok(Step::Suspend(s)) if s.task && points == TaskPoints::PassThrough => {
                            resume = Some(Resume { step: s.step, locals: s.locals, responses: Default::default() });
                        }
                        Ok(step) => return outcome(step, None),
                        Err(e) => return self.failed(e),
                    }
                }
            }
            Target::Prompt { name, entry, arguments } => {
                let arguments = match changed {
                    Arguments::PromptReplaced(replaced) => replaced,
                    _ => arguments.cloned().unwrap_or_default(),
                };
                let mut get = PromptGet::new(*name, arguments, ctx.clone());
                if let Some(resume) = resume {
                    get = get.resuming(resume);
                }
                let result = guarded(|| format!("prompt `{name}`"), ctx.clone().scope(entry.handler.get(get))).await;
                result.map_or_else(Outcome::Error, |step| outcome(step, None))
            }
            Target::Read { uri, handler, variables, hint, .. } => {
                // A first-round read is cacheable (the modern wire requires cache hints on it); a retry that
                // carried answers or state is not.
                let cache = resume.is_none().then_some(*hint);
                let mut read = ResourceRead::new(*uri, variables.clone(), ctx.clone());
                if let Some(resume) = resume {
                    read = read.resuming(resume);
                }
                let result = guarded(|| format!("resource `{uri}`"), ctx.clone().scope(handler.read(read))).await;
                result.map_or_else(Outcome::Error, |step| outcome(step, cache))
            }
        }
    }

    /// What a failed round of this request becomes in its response: see [`tool_failure`]; a prompt's or a
    /// resource's failure stays an error (`-32603` unless it has a code of its own).
    pub fn failed(&self, error: Error) -> Outcome {
        match &self.target {
            Target::Tool { .. } => match tool_failure(error, Delivery::Response) {
                Ok(result) => outcome(Step::Complete(result), None),
                Err(e) => Outcome::Error(e),
            },
            _ => Outcome::Error(error),
        }
    }
}

/// Pins the innermost layer's lifetimes to one: the request's, its future's and what it borrows.
fn innermost<'r, F>(f: F) -> F
where
    F: Fn(Request<'r>) -> BoxFuture<'r, Response> + Send + Sync + 'r,
{
    f
}

fn outcome<T: Serialize>(step: Step<T>, cache: Option<CacheHint>) -> Outcome {
    match step {
        Step::Complete(value) => match Reply::new(value, cache) {
            Ok(reply) => Outcome::Complete(reply),
            Err(e) => Outcome::Error(e),
        },
        Step::Suspend(suspension) => Outcome::Suspended(suspension),
    }
}

/// Runs a handler's future, turning a panic into an error so one bad handler never takes the server down.
/// `what` names the handler; it is only built if the handler panics.
async fn guarded<T>(what: impl FnOnce() -> String, fut: impl Future<Output = HandlerResult<T>>) -> HandlerResult<T> {
    match AssertUnwindSafe(fut).catch_unwind().await {
        Ok(result) => result,
        Err(panic) => {
            let why = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "no message".into());
            let what = what();
            tracing::error!("{what} panicked: {why}");
            Err(Error::internal(format!("{what} failed unexpectedly")))
        }
    }
}

/// One round of a tool call: the handler guarded against panics and bounded by its timeout. What a failure
/// becomes is [`tool_failure`]'s decision, made by the caller.
pub(crate) async fn run_tool(
    server: &Server,
    tool: &ToolEntry,
    arguments: Option<Box<RawValue>>,
    ctx: &Context,
    resume: Option<Resume>,
) -> HandlerResult<CallToolResult> {
    let mut call = ToolCall::new(arguments, ctx.clone());
    if let Some(resume) = resume {
        call = call.resuming(resume);
    }
    let run = guarded(|| format!("tool `{}`", tool.name), ctx.clone().scope(tool.handler.call(call)));
    let timeout = tool.handler.timeout().or(server.options().tool_timeout);
    let finished = match timeout {
        Some(limit) => tokio::time::timeout(limit, run).await.map_err(|_| limit),
        None => Ok(run.await),
    };
    let finished = finished.unwrap_or_else(|limit| {
        // The handler's future is dropped; work it handed elsewhere sees the token.
        ctx.cancel();
        Err(Error::msg(format!("Tool `{}` timed out after {} ms", tool.name, limit.as_millis())))
    });
    finished.map(|step| step.map(|r| if tool.wrap_result { wrap_structured(r) } else { r }))
}

/// `{"result": value}`, the value moved into its box's new object (`json!` would serialize a copy of it).
fn wrap_structured(mut result: CallToolResult) -> CallToolResult {
    if let Some(value) = &mut result.structured_content {
        let inner = std::mem::take(&mut **value);
        **value = Value::Object(JsonObject::from_iter([("result".to_owned(), inner)]));
    }
    result
}

async fn complete(registry: &Registry, params: &CompleteParams) -> Result<Reply, Error> {
    let query = CompletionQuery {
        argument: params.argument.name.clone(),
        value: params.argument.value.clone(),
        context: params.context.as_ref().and_then(|c| c.arguments.clone()).unwrap_or_default(),
    };
    let completion = match &params.reference {
        CompletionReference::Prompt { name, .. } => match registry.prompts.get(name) {
            Some(prompt) => prompt.handler.complete(query).await?,
            None => return Err(Error::invalid_params(format!("Unknown prompt: {name}"))),
        },
        CompletionReference::Resource { uri } => {
            if let Some(t) = registry.templates.iter().find(|t| t.uri_template == *uri) {
                t.handler.complete(query).await?
            } else if registry.resources.contains_key(uri) {
                Default::default()
            } else {
                return Err(Error::invalid_params(format!("Unknown resource or template: {uri}")));
            }
        }
    };
    Reply::new(CompleteResult { completion }, None)
}
