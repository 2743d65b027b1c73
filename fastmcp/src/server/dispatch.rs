//! Method dispatch, shared by both eras and every transport.
//!
//! Dispatch takes a parsed request and a [`Context`] and returns an [`Outcome`]; it never writes to a
//! transport and knows nothing of eras beyond what the context says. The era adapters turn outcomes into
//! wire results.

use super::Server;
use crate::context::Context;
use crate::error::Error;
use crate::flow::Step;
use crate::flow::{Resume, Suspension};
use crate::handler::{CompletionQuery, HandlerResult, PromptGet, ResourceRead, ToolCall};
use crate::protocol::{
    CallToolParams, CallToolResult, CompleteParams, CompleteResult, CompletionReference, Era, GetPromptParams,
    InputRequests, InputRequiredResult, InputResponses, JsonObject, PaginatedParams, ReadResourceParams,
    TASKS_EXTENSION,
};
use crate::server::registry::ToolEntry;
use crate::state::{ArgumentsDigest, Binding, Method};
use crate::tasks::TaskSupport;
use futures_util::FutureExt as _;
use serde::de::DeserializeOwned;
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, OnceLock};

/// What one request came to.
pub(crate) enum Outcome {
    Complete(Reply),
    /// The handler stopped at an `.ask()`; the era adapter decides what that becomes on the wire.
    Suspend(Box<Suspended>),
    /// A ready-made `input_required` result: a retry that did not answer everything is asked again.
    InputRequired(InputRequiredResult),
    /// The call goes on as a task (only where the request negotiated tasks); the modern adapter makes it.
    Task(Box<TaskStart>),
    /// A `CreateTaskResult`'s body (`resultType: "task"`).
    Created(Reply),
    Error(Error),
}

/// Where a task's machine starts: the tool, its arguments, and the point reached (none: the beginning).
pub(crate) struct TaskStart {
    pub tool: String,
    pub arguments: Option<Box<RawValue>>,
    pub resume: Option<Resume>,
}

/// A suspended round and the flow it belongs to, so its state can be sealed for exactly that request.
pub(crate) struct Suspended {
    pub suspension: Suspension,
    pub flow: Flow,
}

/// What request state is bound to: the method, its target, the arguments and the handler's build.
pub(crate) struct Flow {
    method: Method,
    target: String,
    /// The arguments as received; digested only if the round opens or seals state, so calls that never
    /// suspend pay a copy, not a parse and a hash.
    arguments: Option<Box<RawValue>>,
    digest: OnceLock<ArgumentsDigest>,
    fingerprint: u64,
}

impl Flow {
    fn new(method: Method, target: &str, arguments: Option<&RawValue>, fingerprint: u64) -> Self {
        let arguments = arguments.map(ToOwned::to_owned);
        Self { method, target: target.to_owned(), arguments, digest: OnceLock::new(), fingerprint }
    }

    pub fn binding(&self) -> Binding<'_> {
        let digest = *self.digest.get_or_init(|| {
            // Absent arguments and `{}` are one request to a client, and hash alike here.
            match self.arguments.as_deref().map(RawValue::get) {
                None | Some("null") => ArgumentsDigest::of_json(&Value::Object(JsonObject::new())),
                Some(raw) => {
                    ArgumentsDigest::of_raw_json(raw).unwrap_or_else(|_| ArgumentsDigest::of_bytes(raw.as_bytes()))
                }
            }
        });
        Binding::new(self.method, &self.target, digest, None, self.fingerprint)
    }
}

/// What travels in the request state besides the step: the carried locals and the round's input requests
/// (so a retry that leaves some unanswered is asked the same again without re-running anything).
#[derive(serde::Serialize)]
pub(crate) struct CarryRef<'a> {
    #[serde(rename = "l")]
    pub locals: &'a RawValue,
    #[serde(rename = "a")]
    pub asked: &'a InputRequests,
}

#[derive(serde::Deserialize)]
struct Carry {
    #[serde(rename = "l")]
    locals: Box<RawValue>,
    #[serde(rename = "a")]
    asked: InputRequests,
}

/// The round a request starts from. The legacy shim resumes in-process and hands its `Resume` in. On the
/// modern wire a retry brings `requestState`: it is verified before the handler runs, and a retry that
/// leaves an input request unanswered gets the same `input_required` back.
fn resume(
    server: &Server,
    ctx: &Context,
    flow: &Flow,
    round: Round,
    state: Option<String>,
    responses: Option<InputResponses>,
) -> Result<Option<Resume>, Outcome> {
    if let Round::Resume(resume) = round {
        return Ok(Some(resume));
    }
    let Some(token) = state.filter(|_| ctx.era() == Era::Modern) else {
        return Ok(None);
    };
    let codec = server.state_codec().map_err(Outcome::Error)?;
    let opened = codec.open(&token, &flow.binding()).map_err(|e| Outcome::Error(e.into()))?;
    let carry: Carry = opened.restore().map_err(|e| Outcome::Error(e.into()))?;
    let responses = responses.unwrap_or_default();
    if carry.asked.keys().any(|key| !responses.contains_key(key)) {
        return Err(Outcome::InputRequired(InputRequiredResult {
            input_requests: Some(carry.asked),
            request_state: Some(token),
        }));
    }
    Ok(Some(Resume { step: opened.step(), locals: carry.locals, responses }))
}

/// A complete result's body, before the era adapter adds its own fields.
pub(crate) struct Reply {
    /// A field whose JSON was serialized once at start-up (a `*/list` page).
    pub raw: Option<(&'static str, Arc<RawValue>)>,
    pub fields: JsonObject,
    /// List, read and discover results carry cache hints on the modern wire.
    pub cacheable: bool,
}

impl Reply {
    pub fn new(result: impl Serialize, cacheable: bool) -> Result<Self, Error> {
        let fields = match serde_json::to_value(result)? {
            Value::Object(fields) => fields,
            other => return Err(Error::internal(format!("a result must be a JSON object, not {other}"))),
        };
        Ok(Self { raw: None, fields, cacheable })
    }

    fn page(key: &'static str, page: Arc<RawValue>, next_cursor: Option<String>) -> Self {
        let mut fields = JsonObject::new();
        if let Some(next) = next_cursor {
            fields.insert("nextCursor".into(), Value::String(next));
        }
        Self { raw: Some((key, page)), fields, cacheable: true }
    }
}

impl Serialize for Reply {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.fields.len() + usize::from(self.raw.is_some())))?;
        if let Some((key, raw)) = &self.raw {
            map.serialize_entry(key, &**raw)?;
        }
        for (k, v) in &self.fields {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// True for the methods dispatch serves (the era adapters serve the rest).
pub(crate) fn serves(method: &str) -> bool {
    matches!(
        method,
        "tools/list"
            | "tools/call"
            | "prompts/list"
            | "prompts/get"
            | "resources/list"
            | "resources/templates/list"
            | "resources/read"
            | "completion/complete"
    )
}

/// Which round of a request dispatch runs: the first (or a modern retry, whose state is in the params), or
/// an in-process resumption by the legacy shim.
pub(crate) enum Round {
    Wire,
    Resume(Resume),
}

pub(crate) async fn dispatch(
    server: &Server,
    method: &str,
    params: Option<&RawValue>,
    ctx: Context,
    round: Round,
) -> Outcome {
    let registry = &server.inner.registry;
    let result = match method {
        "tools/list" => list(params, &registry.tool_pages, "tools"),
        "prompts/list" => list(params, &registry.prompt_pages, "prompts"),
        "resources/list" => list(params, &registry.resource_pages, "resources"),
        "resources/templates/list" => list(params, &registry.template_pages, "resourceTemplates"),
        "tools/call" => return call_tool(server, params, ctx, round).await,
        "prompts/get" => return get_prompt(server, params, ctx, round).await,
        "resources/read" => return read_resource(server, params, ctx, round).await,
        "completion/complete" => complete(server, params).await,
        other => Err(Error::rpc(crate::protocol::ErrorObject::method_not_found(other))),
    };
    match result {
        Ok(reply) => Outcome::Complete(reply),
        Err(e) => Outcome::Error(e),
    }
}

/// Parses a method's params; absent params read as `{}`. Failures are `-32602` naming the method.
pub(crate) fn parse_params<T: DeserializeOwned>(method: &str, params: Option<&RawValue>) -> Result<T, Error> {
    let text = params.map_or("{}", RawValue::get);
    serde_json::from_str(text).map_err(|e| Error::invalid_params(format!("Invalid params for {method}: {e}")))
}

fn list(params: Option<&RawValue>, pages: &super::registry::Pages, key: &'static str) -> Result<Reply, Error> {
    let params: PaginatedParams = parse_params("list", params)?;
    let (page, next) = pages.page(params.cursor.as_deref()).ok_or_else(|| Error::invalid_params("Invalid cursor"))?;
    Ok(Reply::page(key, page, next))
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

/// A complete result is cacheable only when `cacheable` and the request was a first round: results of
/// retries that carried answers or state must not be cached.
fn outcome<T: Serialize>(result: HandlerResult<T>, flow: Flow, cacheable: bool) -> Outcome {
    match result {
        Ok(Step::Complete(value)) => match Reply::new(value, cacheable) {
            Ok(reply) => Outcome::Complete(reply),
            Err(e) => Outcome::Error(e),
        },
        Ok(Step::Suspend(suspension)) => Outcome::Suspend(Box::new(Suspended { suspension, flow })),
        Err(e) => Outcome::Error(e),
    }
}

async fn call_tool(server: &Server, params: Option<&RawValue>, ctx: Context, round: Round) -> Outcome {
    let params: CallToolParams = match parse_params("tools/call", params) {
        Ok(p) => p,
        Err(e) => return Outcome::Error(e),
    };
    let Some(tool) = server.inner.registry.tools.get(&params.name) else {
        return Outcome::Error(Error::invalid_params(format!("Unknown tool: {}", params.name)));
    };
    // A legacy `task` param is ignored: whether a call becomes a task is the server's decision.
    let support = tool.task_support;
    let negotiated = crate::tasks::negotiated(&ctx);
    if support == TaskSupport::Required && ctx.era() == Era::Modern && !negotiated {
        return Outcome::Error(crate::tasks::missing_extension(format!(
            "Tool `{}` runs only as a task: declare the {TASKS_EXTENSION} extension in the request's client \
             capabilities",
            tool.name
        )));
    }
    let as_task = negotiated && support != TaskSupport::Forbidden;
    let task = |arguments, resume| Outcome::Task(Box::new(TaskStart { tool: tool.name.clone(), arguments, resume }));
    if as_task && params.request_state.is_none() && !tool.task_step {
        return task(params.arguments, None);
    }
    let flow = Flow::new(Method::ToolsCall, &tool.name, params.arguments.as_deref(), tool.handler.fingerprint());
    let mut resume = match resume(server, &ctx, &flow, round, params.request_state, params.input_responses) {
        Ok(resume) => resume,
        Err(outcome) => return outcome,
    };
    // The first round takes the arguments; a later one (past a task step) the flow's copy of them.
    let mut arguments = params.arguments;
    loop {
        let result = run_tool(server, tool, arguments.take(), ctx.clone(), resume.take()).await;
        match result {
            // `run_as_task()`: the rest runs as a task where it may, else on at once in this round.
            Ok(Step::Suspend(s)) if s.task => {
                let next = Resume { step: s.step, locals: s.locals, responses: InputResponses::new() };
                if as_task {
                    return task(flow.arguments.clone(), Some(next));
                }
                arguments = flow.arguments.clone();
                resume = Some(next);
            }
            // A failing tool is a tool result the model can read, not a protocol error.
            Err(e) if e.code().is_none_or(|c| c == crate::protocol::codes::INTERNAL_ERROR) => {
                return outcome(Ok(Step::Complete(CallToolResult::error(e.to_string()))), flow, false);
            }
            other => return outcome(other, flow, false),
        }
    }
}

/// One round of a tool call: the handler guarded against panics and bounded by its timeout. What a failure
/// becomes (an `isError` result, a protocol error, a failed task) is the caller's decision.
pub(crate) async fn run_tool(
    server: &Server,
    tool: &ToolEntry,
    arguments: Option<Box<RawValue>>,
    ctx: Context,
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
        ctx.cancellation().cancel();
        Err(Error::msg(format!("Tool `{}` timed out after {} ms", tool.name, limit.as_millis())))
    });
    finished.map(|step| step.map(|r| if tool.wrap_result { wrap_structured(r) } else { r }))
}

fn wrap_structured(mut result: CallToolResult) -> CallToolResult {
    if let Some(value) = result.structured_content.take() {
        result.structured_content = Some(serde_json::json!({ "result": value }));
    }
    result
}

async fn get_prompt(server: &Server, params: Option<&RawValue>, ctx: Context, round: Round) -> Outcome {
    let params: GetPromptParams = match parse_params("prompts/get", params) {
        Ok(p) => p,
        Err(e) => return Outcome::Error(e),
    };
    let Some(prompt) = server.inner.registry.prompts.get(&params.name) else {
        return Outcome::Error(Error::invalid_params(format!("Unknown prompt: {}", params.name)));
    };
    let arguments = serde_json::value::to_raw_value(&params.arguments).ok();
    let flow = Flow::new(Method::PromptsGet, &params.name, arguments.as_deref(), prompt.handler.fingerprint());
    let mut get = PromptGet::new(params.name, params.arguments.unwrap_or_default(), ctx.clone());
    match resume(server, get.context(), &flow, round, params.request_state, params.input_responses) {
        Ok(Some(resume)) => get = get.resuming(resume),
        Ok(None) => {}
        Err(outcome) => return outcome,
    }
    let result = guarded(|| format!("prompt `{}`", flow.target), ctx.scope(prompt.handler.get(get))).await;
    outcome(result, flow, false)
}

async fn read_resource(server: &Server, params: Option<&RawValue>, ctx: Context, round: Round) -> Outcome {
    let params: ReadResourceParams = match parse_params("resources/read", params) {
        Ok(p) => p,
        Err(e) => return Outcome::Error(e),
    };
    let Some((handler, variables)) = server.inner.registry.resolve(&params.uri) else {
        return Outcome::Error(Error::resource_not_found(params.uri));
    };
    let flow = Flow::new(Method::ResourcesRead, &params.uri, None, handler.fingerprint());
    let first_round = params.request_state.is_none() && matches!(round, Round::Wire);
    let mut read = ResourceRead::new(params.uri, variables, ctx.clone());
    match resume(server, read.context(), &flow, round, params.request_state, params.input_responses) {
        Ok(Some(resume)) => read = read.resuming(resume),
        Ok(None) => {}
        Err(outcome) => return outcome,
    }
    // A first-round read is cacheable (the modern wire requires cache hints on it).
    let result = guarded(|| format!("resource `{}`", flow.target), ctx.scope(handler.read(read))).await;
    outcome(result, flow, first_round)
}

async fn complete(server: &Server, params: Option<&RawValue>) -> Result<Reply, Error> {
    let params: CompleteParams = parse_params("completion/complete", params)?;
    let registry = &server.inner.registry;
    let query = CompletionQuery {
        argument: params.argument.name,
        value: params.argument.value,
        context: params.context.and_then(|c| c.arguments).unwrap_or_default(),
    };
    let completion = match params.reference {
        CompletionReference::Prompt { name, .. } => match registry.prompts.get(&name) {
            Some(prompt) => prompt.handler.complete(query).await?,
            None => return Err(Error::invalid_params(format!("Unknown prompt: {name}"))),
        },
        CompletionReference::Resource { uri, .. } => {
            if let Some(t) = registry.templates.iter().find(|t| t.uri_template == uri) {
                t.handler.complete(query).await?
            } else if registry.resources.contains_key(&uri) {
                Default::default()
            } else {
                return Err(Error::invalid_params(format!("Unknown resource or template: {uri}")));
            }
        }
    };
    Reply::new(CompleteResult { completion }, false)
}
