//! Middleware at the MCP level: an onion around dispatch. Each [`Middleware`] sees one round of a request
//! — its method, target, arguments and [`Context`] — and may inspect or change it, answer it itself, or
//! pass it on with [`Next::run`] and look at (or replace) what comes back. Registered with
//! [`FastMcp::middleware`](crate::FastMcp::middleware); the first registered is the outermost.
//!
//! One round, in every era: a modern flow's retries are rounds, each its own request; on a legacy session
//! the shim's re-entries are rounds of the one request; each goes through the chain, so a limit or a timer
//! counts the same either way. A task's background rounds run outside it. Request state is bound to the
//! request as the client sent it, so a middleware that changes arguments must change them the same way in
//! every round.
//!
//! ```
//! use fastmcp::middleware::{BoxFuture, Middleware, Next, Request, Response};
//!
//! /// Refuses `deploy` on Fridays.
//! struct NoFridayDeploys;
//!
//! impl Middleware for NoFridayDeploys {
//!     fn on_call_tool<'a>(&'a self, request: Request<'a>, next: Next<'a>) -> BoxFuture<'a, Response> {
//!         Box::pin(async move {
//!             if request.name() == Some("deploy") && is_friday() {
//!                 return Response::error(fastmcp::Error::msg("no deploys on Fridays"));
//!             }
//!             next.run(request).await
//!         })
//!     }
//! }
//! # fn is_friday() -> bool { false }
//! ```

mod builtin;

pub use builtin::{Caching, Logging, NormalizeErrors, RateLimit, SizeLimit};

use super::dispatch::Outcome;
use crate::context::Context;
use crate::error::Error;
use crate::protocol::{CacheHint, JsonObject};
use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use std::sync::Arc;

/// What a middleware's hooks return: a boxed future borrowing the request (`Box::pin(async move { … })`).
pub type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

/// One layer of the onion. Every hook's default passes the request on unchanged; [`on_request`] sees
/// every request, and its default hands each to the hook of its method.
///
/// [`on_request`]: Middleware::on_request
pub trait Middleware: Send + Sync + 'static {
    /// Every request that reaches the chain: tool calls, prompt gets, resource reads, lists and
    /// completions. Override it to treat them all alike (a timer, a log line); the default calls the
    /// method's own hook below.
    fn on_request<'a>(&'a self, request: Request<'a>, next: Next<'a>) -> BoxFuture<'a, Response> {
        match request.method() {
            "tools/call" => self.on_call_tool(request, next),
            "tools/list" => self.on_list_tools(request, next),
            "prompts/get" => self.on_get_prompt(request, next),
            "prompts/list" => self.on_list_prompts(request, next),
            "resources/read" => self.on_read_resource(request, next),
            "resources/list" => self.on_list_resources(request, next),
            "resources/templates/list" => self.on_list_resource_templates(request, next),
            "completion/complete" => self.on_complete(request, next),
            _ => next.run(request),
        }
    }

    /// `tools/call`, one round at a time; [`Request::name`] is the tool's name. The default passes it on.
    fn on_call_tool<'a>(&'a self, request: Request<'a>, next: Next<'a>) -> BoxFuture<'a, Response> {
        next.run(request)
    }

    /// `tools/list`, one page at a time. The default passes it on.
    fn on_list_tools<'a>(&'a self, request: Request<'a>, next: Next<'a>) -> BoxFuture<'a, Response> {
        next.run(request)
    }

    /// `prompts/get`, one round at a time; [`Request::name`] is the prompt's name. The default passes it on.
    fn on_get_prompt<'a>(&'a self, request: Request<'a>, next: Next<'a>) -> BoxFuture<'a, Response> {
        next.run(request)
    }

    /// `prompts/list`, one page at a time. The default passes it on.
    fn on_list_prompts<'a>(&'a self, request: Request<'a>, next: Next<'a>) -> BoxFuture<'a, Response> {
        next.run(request)
    }

    /// `resources/read`, one round at a time; [`Request::name`] is the URI read. The default passes it on.
    fn on_read_resource<'a>(&'a self, request: Request<'a>, next: Next<'a>) -> BoxFuture<'a, Response> {
        next.run(request)
    }

    /// `resources/list`, one page at a time. The default passes it on.
    fn on_list_resources<'a>(&'a self, request: Request<'a>, next: Next<'a>) -> BoxFuture<'a, Response> {
        next.run(request)
    }

    /// `resources/templates/list`, one page at a time. The default passes it on.
    fn on_list_resource_templates<'a>(&'a self, request: Request<'a>, next: Next<'a>) -> BoxFuture<'a, Response> {
        next.run(request)
    }

    /// `completion/complete`. The default passes it on.
    fn on_complete<'a>(&'a self, request: Request<'a>, next: Next<'a>) -> BoxFuture<'a, Response> {
        next.run(request)
    }
}

/// The chain as registered, outermost first.
pub(crate) type Chain = Arc<[Arc<dyn Middleware>]>;

/// What runs once the chain is through: dispatch itself.
pub(crate) type Inner<'a> = dyn Fn(Request<'a>) -> BoxFuture<'a, Response> + Send + Sync + 'a;

/// The rest of the onion, for a middleware to pass the request to.
pub struct Next<'a> {
    rest: &'a [Arc<dyn Middleware>],
    inner: &'a Inner<'a>,
}

impl<'a> Next<'a> {
    pub(crate) fn new(chain: &'a [Arc<dyn Middleware>], inner: &'a Inner<'a>) -> Self {
        Self { rest: chain, inner }
    }

    /// Runs the rest of the chain, then dispatch, on `request`.
    pub fn run(self, request: Request<'a>) -> BoxFuture<'a, Response> {
        match self.rest.split_first() {
            Some((first, rest)) => first.on_request(request, Next { rest, inner: self.inner }),
            None => (self.inner)(request),
        }
    }
}

/// One round of a request, as middleware sees it.
pub struct Request<'a> {
    pub(crate) method: &'static str,
    pub(crate) name: Option<&'a str>,
    pub(crate) context: &'a Context,
    pub(crate) retry: bool,
    pub(crate) arguments: Arguments<'a>,
    pub(crate) cursor: Option<&'a str>,
}

/// A request's arguments: as they came, or as a middleware replaced them.
pub(crate) enum Arguments<'a> {
    None,
    Tool(Option<&'a RawValue>),
    ToolReplaced(Box<RawValue>),
    Prompt(Option<&'a BTreeMap<String, String>>),
    PromptReplaced(BTreeMap<String, String>),
}

impl<'a> Request<'a> {
    /// The JSON-RPC method: `tools/call`, `tools/list`, `prompts/get`, `resources/read`, ….
    pub fn method(&self) -> &str {
        self.method
    }

    /// The tool or prompt name, or the resource URI; `None` for lists and completions.
    pub fn name(&self) -> Option<&str> {
        self.name
    }

    /// The request's [`Context`]: its id, era, client capabilities, caller (`auth()`) and HTTP request.
    pub fn context(&self) -> &Context {
        self.context
    }

    /// A list request's cursor.
    pub fn cursor(&self) -> Option<&str> {
        self.cursor
    }

    /// Whether this round resumes an earlier one (a modern retry with answers or state, or a legacy shim
    /// round): such results are never cached.
    pub fn is_retry(&self) -> bool {
        self.retry
    }

    /// A tool's arguments (an object), or a prompt's (an object of strings); `None` for other requests or
    /// a call without arguments.
    pub fn arguments(&self) -> Option<Value> {
        match &self.arguments {
            Arguments::None | Arguments::Tool(None) | Arguments::Prompt(None) => None,
            Arguments::Tool(Some(raw)) => serde_json::from_str(raw.get()).ok(),
            Arguments::ToolReplaced(raw) => serde_json::from_str(raw.get()).ok(),
            Arguments::Prompt(Some(map)) => serde_json::to_value(map).ok(),
            Arguments::PromptReplaced(map) => serde_json::to_value(map).ok(),
        }
    }

    /// Replaces a tool's or a prompt's arguments (a prompt's must be an object of strings).
    pub fn set_arguments(&mut self, arguments: Value) -> Result<(), Error> {
        self.arguments = match &self.arguments {
            Arguments::Tool(_) | Arguments::ToolReplaced(_) => {
                Arguments::ToolReplaced(serde_json::value::to_raw_value(&arguments)?)
            }
            Arguments::Prompt(_) | Arguments::PromptReplaced(_) => Arguments::PromptReplaced(
                serde_json::from_value(arguments)
                    .map_err(|e| Error::invalid_params(format!("prompt arguments are strings: {e}")))?,
            ),
            Arguments::None => return Err(Error::msg(format!("{} takes no arguments", self.method))),
        };
        Ok(())
    }
}

/// What one round came to, as middleware sees it: a result, a suspension (`input_required`, a legacy
/// shim round, a task), or an error.
pub struct Response {
    pub(crate) outcome: Outcome,
}

impl Response {
    /// A JSON-RPC error as the answer. (A tool's own failure is a result with `isError`; see
    /// [`Response::result`] with [`CallToolResult::error`](crate::protocol::CallToolResult::error).)
    pub fn error(error: Error) -> Self {
        Self { outcome: Outcome::Error(error) }
    }

    /// A complete result as the answer; it must serialize to a JSON object.
    pub fn result(result: impl Serialize) -> Self {
        match super::reply::Reply::new(result, None) {
            Ok(reply) => Self { outcome: Outcome::Complete(reply) },
            Err(e) => Self::error(e),
        }
    }

    /// The error, when the answer is one.
    pub fn as_error(&self) -> Option<&Error> {
        match &self.outcome {
            Outcome::Error(e) => Some(e),
            _ => None,
        }
    }

    /// Whether the handler stopped to ask the client (or to become a task) rather than answer.
    pub fn is_suspended(&self) -> bool {
        matches!(self.outcome, Outcome::Suspended(_))
    }

    /// Whether the answer is a tool's `isError` result.
    pub fn is_tool_error(&self) -> bool {
        matches!(&self.outcome, Outcome::Complete(reply) if reply.is_tool_error())
    }

    /// The complete result's JSON (before the era adds `resultType` and the like).
    pub fn json(&self) -> Option<Value> {
        match &self.outcome {
            Outcome::Complete(reply) => serde_json::from_str(&reply.text()).ok(),
            _ => None,
        }
    }

    /// The complete result's size in bytes, as JSON.
    pub fn json_len(&self) -> Option<usize> {
        match &self.outcome {
            Outcome::Complete(reply) => Some(reply.text().len()),
            _ => None,
        }
    }

    /// What the complete result says about caching it (lists and first-round reads; see
    /// [`crate::server::CacheHints`]).
    pub fn cache_hint(&self) -> Option<CacheHint> {
        match &self.outcome {
            Outcome::Complete(reply) => reply.cache,
            _ => None,
        }
    }

    /// A copy of a complete result, for a middleware that keeps answers (the fields, and the cache hint).
    pub(crate) fn complete_parts(&self) -> Option<(JsonObject, Option<CacheHint>)> {
        match &self.outcome {
            Outcome::Complete(reply) => Some((reply.fields(), reply.cache)),
            _ => None,
        }
    }
}
