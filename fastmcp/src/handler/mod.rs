//! The traits `#[tool]`, `#[prompt]` and `#[resource]` implement, and what each call hands a handler.
//!
//! A handler never sees a transport or an era: it gets its parsed request and a [`Context`], and returns a
//! [`Step`]. Definitions are read once, at registration.

mod completion;
mod output;
pub mod param;

pub use completion::{CompletionQuery, IntoCompletion, complete_from_list};
pub use output::{IntoPromptResult, IntoResourceContents, IntoToolResult, Json};
pub use param::{PromptParam, ResourceParam, Role, ToolParam};

use crate::auth::Access;
use crate::context::Context;
use crate::error::Error;
use crate::flow::{Resume, Step};
use crate::protocol::{
    CallToolResult, Completion, GetPromptResult, Prompt, ReadResourceResult, Resource, ResourceTemplate, Tool,
};
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::str::FromStr;

/// A component's own cache hint for the modern results that return it (`#[resource(ttl = "5m",
/// cache_scope = "public")]`); each part left out is the operation's (see
/// [`FastMcp::cache_hint`](crate::FastMcp::cache_hint)).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Caching {
    /// How long results carrying it stay fresh (`ttlMs`); `None` takes the operation's.
    pub ttl: Option<std::time::Duration>,
    /// Who may cache them (`cacheScope`); `None` takes the operation's.
    pub scope: Option<crate::protocol::CacheScope>,
}

/// A boxed, sendable future: what handler calls return, so the registry can hold handlers as trait objects.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// What a handler call yields: a step, or a protocol error (a JSON-RPC error response).
pub type HandlerResult<T> = Result<Step<T>, Error>;

/// A tool. `#[tool]` implements this for a unit struct named after the fn, so `.tool(name)` registers it.
pub trait ToolHandler: Send + Sync + 'static {
    /// The tool's `tools/list` entry, built once at registration.
    fn definition(&self) -> Tool;
    /// Runs one round of a call. Failures of the tool itself are `isError` results; an `Err` is a protocol
    /// error.
    fn call(&self, call: ToolCall) -> BoxFuture<HandlerResult<CallToolResult>>;
    /// Identifies this build of a handler that suspends, so request state minted by another build is refused.
    fn fingerprint(&self) -> u64 {
        0
    }
    /// How long one round of a call may run before it is stopped (overrides `FastMcp::tool_timeout`).
    fn timeout(&self) -> Option<std::time::Duration> {
        None
    }
    /// Whether a call may run as a task (`#[tool(task = "optional")]`, `"required"`); see [`TaskSupport`].
    fn task_support(&self) -> TaskSupport {
        TaskSupport::Forbidden
    }
    /// Whether the body decides itself where the call becomes a task, with
    /// [`run_as_task()`](crate::flow::run_as_task): then its first rounds run synchronously. Otherwise a
    /// task-supporting call becomes a task before the handler runs.
    fn has_task_step(&self) -> bool {
        false
    }
    /// Who may call it: `#[tool(scopes = […], auth = check)]`. Callers it refuses don't see it listed.
    fn access(&self) -> Access {
        Access::PUBLIC
    }
    /// Whether the final round of a flow that asked may run only once per token (`#[tool(once)]`; tools
    /// annotated `destructive` are one-time whatever this says): a replay of that round is refused with
    /// `-32602` `request_state_consumed` (the consumed ids live in the server's
    /// [`Store`](crate::store::Store), so replicas sharing one refuse it too).
    fn once(&self) -> bool {
        false
    }
    /// Its tags (`#[tool(tags = ["admin"])]`): a server may serve only some tags
    /// ([`FastMcp::include_tags`](crate::FastMcp::include_tags), `exclude_tags`). Read once, at registration.
    fn tags(&self) -> Vec<String> {
        Vec::new()
    }
    /// How long the modern results that return it stay fresh, and for whom (`ttl`, `cache_scope` on the
    /// macro); see [`Caching`].
    fn caching(&self) -> Caching {
        Caching::default()
    }
}

/// Whether a tool's calls may run as tasks (the `io.modelcontextprotocol/tasks` extension of protocol
/// 2026-07-28, SEP-2663): `#[tool(task = "optional")]` or `#[tool(task = "required")]`.
///
/// A client opts in per request, with the extension in `_meta`'s client capabilities. Its call then answers
/// at once with a task id and runs in the background; the client polls `tasks/get`, answers the handler's
/// `.ask()`s with `tasks/update` and stops it with `tasks/cancel`. The call becomes a task before the
/// handler runs, unless the body places the switch itself with [`run_as_task()`](crate::flow::run_as_task)
/// after gathering input in ordinary rounds. A tool error settles the task `completed` with `isError`; a
/// protocol error or a panic settles it `failed`. Tasks live in the serving process for their ttl
/// ([`FastMcp::task_ttl`](crate::FastMcp::task_ttl)); a task id is a bearer handle. Legacy sessions
/// (2024-11-05 … 2025-11-25) get no tasks: their calls run synchronously.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TaskSupport {
    /// Never a task (the default).
    #[default]
    Forbidden,
    /// A task for clients that negotiated the extension; a plain call for the others.
    Optional,
    /// Only as a task: clients that did not negotiate the extension get `-32021`.
    Required,
}

/// A prompt. `#[prompt]` implements this.
pub trait PromptHandler: Send + Sync + 'static {
    /// The prompt's `prompts/list` entry (name, description, arguments), built once at registration.
    fn definition(&self) -> Prompt;
    /// Runs one round of a `prompts/get`. An `Err` is a JSON-RPC error response.
    fn get(&self, get: PromptGet) -> BoxFuture<HandlerResult<GetPromptResult>>;
    /// See [`ToolHandler::fingerprint`].
    fn fingerprint(&self) -> u64 {
        0
    }
    /// Completions for one argument; none unless the prompt declares a completer.
    fn complete(&self, query: CompletionQuery) -> BoxFuture<Result<Completion, Error>> {
        let _ = query;
        Box::pin(async { Ok(Completion::default()) })
    }
    /// Who may get it: `#[prompt(scopes = […], auth = check)]` (see [`ToolHandler::access`]).
    fn access(&self) -> Access {
        Access::PUBLIC
    }
    /// Its tags (`tags = [..]` on the macro), read once at registration; see [`ToolHandler::tags`].
    fn tags(&self) -> Vec<String> {
        Vec::new()
    }
    /// How long the modern results that return it stay fresh, and for whom (`ttl`, `cache_scope` on the
    /// macro); see [`Caching`].
    fn caching(&self) -> Caching {
        Caching::default()
    }
}

/// A resource with a fixed URI, or a template of URIs. `#[resource("…")]` implements this.
pub trait ResourceHandler: Send + Sync + 'static {
    /// Its `resources/list` or `resources/templates/list` entry, built once at registration.
    fn definition(&self) -> ResourceDefinition;
    /// Runs one round of a `resources/read` of a URI this resource serves. An `Err` is a JSON-RPC error
    /// response (`Error::resource_not_found` for a URI it has nothing at).
    fn read(&self, read: ResourceRead) -> BoxFuture<HandlerResult<ReadResourceResult>>;
    /// See [`ToolHandler::fingerprint`].
    fn fingerprint(&self) -> u64 {
        0
    }
    /// Completions for one template variable; none unless the resource declares a completer.
    fn complete(&self, query: CompletionQuery) -> BoxFuture<Result<Completion, Error>> {
        let _ = query;
        Box::pin(async { Ok(Completion::default()) })
    }
    /// Who may read it: `#[resource("…", scopes = […], auth = check)]` (see [`ToolHandler::access`]).
    fn access(&self) -> Access {
        Access::PUBLIC
    }
    /// Its tags (`tags = [..]` on the macro), read once at registration; see [`ToolHandler::tags`].
    fn tags(&self) -> Vec<String> {
        Vec::new()
    }
    /// How long the modern results that return it stay fresh, and for whom (`ttl`, `cache_scope` on the
    /// macro); see [`Caching`].
    fn caching(&self) -> Caching {
        Caching::default()
    }
}

/// What a resource handler serves: one URI, or every URI its template matches.
#[derive(Debug, Clone, PartialEq)]
pub enum ResourceDefinition {
    /// A resource at one fixed URI, listed by `resources/list`.
    Static(Resource),
    /// A URI template (`{var}`, `{+var}`, `{var*}`, `{?a,b}`), listed by `resources/templates/list`; the
    /// variables it matched reach the handler in [`ResourceRead::variables`].
    Template(ResourceTemplate),
}

/// All of a tool's arguments as one struct: `async fn search(Args(query): Args<Query>)`, where `Query`
/// derives `Deserialize` and `JsonSchema`. Its schema is the tool's input schema.
///
/// Use it for arguments you already have a type for, or that share serde attributes (defaults, renames,
/// validation in `Deserialize`). A plain struct parameter (`query: Query`) is one argument named `query`
/// instead; with `Args`, the struct's fields are the arguments. Runtime-supplied parameters such as
/// [`Context`] may stand beside it, other arguments may not (the macro says so).
///
/// ```
/// use fastmcp::prelude::*;
///
/// /// A search of the archive.
/// #[derive(fastmcp::serde::Deserialize, fastmcp::schemars::JsonSchema)]
/// #[serde(crate = "fastmcp::serde")]
/// #[schemars(crate = "fastmcp::schemars")]
/// struct Query {
///     /// What to look for.
///     text: String,
///     /// At most this many hits (default 10).
///     #[serde(default = "ten")]
///     limit: u32,
/// }
/// fn ten() -> u32 {
///     10
/// }
///
/// /// Search the archive. The client sends `{"text": "…", "limit": 5}`.
/// #[tool(read_only)]
/// async fn search(Args(query): Args<Query>, ctx: Context) -> String {
///     ctx.debug(format!("searching for {:?}", query.text)).await;
///     format!("the first {} hits for {:?}", query.limit, query.text)
/// }
/// # let _ = FastMcp::new("archive").tool(search);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Args<T>(pub T);

/// One `tools/call`, as the handler sees it.
pub struct ToolCall {
    pub(crate) arguments: Option<Box<RawValue>>,
    pub(crate) context: Context,
    pub(crate) resume: Option<Resume>,
}

impl ToolCall {
    /// A call as dispatch makes it; public so handlers can be tested without a server.
    pub fn new(arguments: Option<Box<RawValue>>, context: Context) -> Self {
        Self { arguments, context, resume: None }
    }

    /// This call resumes a suspended round (its answers and state are the context's from here on).
    pub fn resuming(mut self, resume: Resume) -> Self {
        self.context.enter_round(&resume);
        self.resume = Some(resume);
        self
    }

    /// Where a resumed round starts (taken once, by the handler's body).
    pub fn take_resume(&mut self) -> Option<Resume> {
        self.resume.take()
    }

    /// The raw `arguments` object, if the client sent one.
    pub fn arguments(&self) -> Option<&RawValue> {
        self.arguments.as_deref()
    }

    /// Deserializes the arguments straight from the request bytes; absent or `null` reads as `{}`.
    pub fn parse_arguments<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        match self.arguments.as_deref().map(RawValue::get) {
            None | Some("null") => serde_json::from_str("{}"),
            Some(raw) => serde_json::from_str(raw),
        }
    }

    /// The request's [`Context`]: its id, era, client, logging and progress.
    pub fn context(&self) -> &Context {
        &self.context
    }
}

/// One `prompts/get`, as the handler sees it.
pub struct PromptGet {
    pub(crate) name: String,
    pub(crate) arguments: BTreeMap<String, String>,
    pub(crate) context: Context,
    pub(crate) resume: Option<Resume>,
}

impl PromptGet {
    /// A get of the prompt `name` as dispatch makes it; public so handlers can be tested without a server.
    pub fn new(name: impl Into<String>, arguments: BTreeMap<String, String>, context: Context) -> Self {
        Self { name: name.into(), arguments, context, resume: None }
    }

    /// This get resumes a suspended round.
    pub fn resuming(mut self, resume: Resume) -> Self {
        self.context.enter_round(&resume);
        self.resume = Some(resume);
        self
    }

    /// Where a resumed round starts (taken once, by the handler's body).
    pub fn take_resume(&mut self) -> Option<Resume> {
        self.resume.take()
    }

    /// Every argument the client sent, unparsed (prompt arguments are strings on the wire).
    pub fn arguments(&self) -> &BTreeMap<String, String> {
        &self.arguments
    }

    /// A required argument, parsed with `FromStr`. Missing or unparsable is `-32602` naming the argument.
    pub fn required<T: FromStr>(&self, name: &str) -> Result<T, Error>
    where
        T::Err: std::fmt::Display,
    {
        match self.optional(name)? {
            Some(v) => Ok(v),
            None => {
                Err(Error::invalid_params(format!("Missing required argument `{name}` for prompt `{}`", self.name)))
            }
        }
    }

    /// An optional argument, parsed with `FromStr`.
    pub fn optional<T: FromStr>(&self, name: &str) -> Result<Option<T>, Error>
    where
        T::Err: std::fmt::Display,
    {
        parse_named(&self.arguments, name, || format!("prompt `{}`", self.name))
    }

    /// The request's [`Context`]: its id, era, client, logging and progress.
    pub fn context(&self) -> &Context {
        &self.context
    }
}

/// One `resources/read`, as the handler sees it: the URI and, for templates, the variables it matched.
pub struct ResourceRead {
    pub(crate) uri: String,
    pub(crate) variables: BTreeMap<String, String>,
    pub(crate) context: Context,
    pub(crate) resume: Option<Resume>,
}

impl ResourceRead {
    /// A read of `uri` as dispatch makes it, with the variables a template matched (empty for a static
    /// resource); public so handlers can be tested without a server.
    pub fn new(uri: impl Into<String>, variables: BTreeMap<String, String>, context: Context) -> Self {
        Self { uri: uri.into(), variables, context, resume: None }
    }

    /// This read resumes a suspended round.
    pub fn resuming(mut self, resume: Resume) -> Self {
        self.context.enter_round(&resume);
        self.resume = Some(resume);
        self
    }

    /// Where a resumed round starts (taken once, by the handler's body).
    pub fn take_resume(&mut self) -> Option<Resume> {
        self.resume.take()
    }

    /// The URI the client asked to read.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// The template variables the URI matched, unparsed; empty for a static resource.
    pub fn variables(&self) -> &BTreeMap<String, String> {
        &self.variables
    }

    /// A template variable parsed with `FromStr`. A value that does not parse means no resource has this
    /// URI, so it reads as "resource not found".
    pub fn variable<T: FromStr>(&self, name: &str) -> Result<T, Error> {
        self.variables
            .get(name)
            .and_then(|raw| raw.parse().ok())
            .ok_or_else(|| Error::resource_not_found(self.uri.clone()))
    }

    /// The request's [`Context`]: its id, era, client, logging and progress.
    pub fn context(&self) -> &Context {
        &self.context
    }
}

fn parse_named<T: FromStr>(
    args: &BTreeMap<String, String>,
    name: &str,
    owner: impl FnOnce() -> String,
) -> Result<Option<T>, Error>
where
    T::Err: std::fmt::Display,
{
    match args.get(name) {
        None => Ok(None),
        Some(raw) => raw
            .parse()
            .map(Some)
            .map_err(|e| Error::invalid_params(format!("Invalid argument `{name}` for {}: {e}", owner()))),
    }
}
