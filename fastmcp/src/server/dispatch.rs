//! Method dispatch, shared by both eras and every transport.
//!
//! Dispatch takes a parsed request and a [`Context`] and returns an [`Outcome`]; it never writes to a
//! transport and knows nothing of eras beyond what the context says. The era adapters turn outcomes into
//! wire results.

use super::Server;
use crate::context::Context;
use crate::error::Error;
use crate::flow::Step;
use crate::handler::{CompletionQuery, HandlerResult, PromptGet, ResourceRead, ToolCall};
use crate::protocol::{
    CallToolParams, CallToolResult, CompleteParams, CompleteResult, CompletionReference, GetPromptParams,
    InputRequiredResult, JsonObject, PaginatedParams, ReadResourceParams,
};
use futures_util::FutureExt as _;
use serde::de::DeserializeOwned;
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

/// What one request came to.
pub(crate) enum Outcome {
    Complete(Reply),
    InputRequired(InputRequiredResult),
    Error(Error),
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

pub(crate) async fn dispatch(server: &Server, method: &str, params: Option<&RawValue>, ctx: Context) -> Outcome {
    let registry = &server.inner.registry;
    let result = match method {
        "tools/list" => list(params, &registry.tool_pages, "tools"),
        "prompts/list" => list(params, &registry.prompt_pages, "prompts"),
        "resources/list" => list(params, &registry.resource_pages, "resources"),
        "resources/templates/list" => list(params, &registry.template_pages, "resourceTemplates"),
        "tools/call" => return call_tool(server, params, ctx).await,
        "prompts/get" => return get_prompt(server, params, ctx).await,
        "resources/read" => return read_resource(server, params, ctx).await,
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
async fn guarded<T>(what: &str, fut: impl Future<Output = HandlerResult<T>>) -> HandlerResult<T> {
    match AssertUnwindSafe(fut).catch_unwind().await {
        Ok(result) => result,
        Err(panic) => {
            let why = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "no message".into());
            tracing::error!("{what} panicked: {why}");
            Err(Error::internal(format!("{what} failed unexpectedly")))
        }
    }
}

fn outcome<T: Serialize>(result: HandlerResult<T>, cacheable: bool) -> Outcome {
    match result {
        Ok(Step::Complete(value)) => match Reply::new(value, cacheable) {
            Ok(reply) => Outcome::Complete(reply),
            Err(e) => Outcome::Error(e),
        },
        Ok(Step::InputRequired(input)) => Outcome::InputRequired(input),
        Err(e) => Outcome::Error(e),
    }
}

async fn call_tool(server: &Server, params: Option<&RawValue>, ctx: Context) -> Outcome {
    let params: CallToolParams = match parse_params("tools/call", params) {
        Ok(p) => p,
        Err(e) => return Outcome::Error(e),
    };
    let Some(tool) = server.inner.registry.tools.get(&params.name) else {
        return Outcome::Error(Error::invalid_params(format!("Unknown tool: {}", params.name)));
    };
    let call = ToolCall::new(params.arguments, ctx);
    let what = format!("tool `{}`", tool.name);
    let result = match guarded(&what, tool.handler.call(call)).await {
        // A failing tool is a tool result the model can read, not a protocol error.
        Err(e) if e.code().is_none_or(|c| c == crate::protocol::codes::INTERNAL_ERROR) => {
            Ok(Step::Complete(CallToolResult::error(e.to_string())))
        }
        other => other,
    };
    outcome(result.map(|step| step.map(|r| if tool.wrap_result { wrap_structured(r) } else { r })), false)
}

fn wrap_structured(mut result: CallToolResult) -> CallToolResult {
    if let Some(value) = result.structured_content.take() {
        result.structured_content = Some(serde_json::json!({ "result": value }));
    }
    result
}

async fn get_prompt(server: &Server, params: Option<&RawValue>, ctx: Context) -> Outcome {
    let params: GetPromptParams = match parse_params("prompts/get", params) {
        Ok(p) => p,
        Err(e) => return Outcome::Error(e),
    };
    let Some(prompt) = server.inner.registry.prompts.get(&params.name) else {
        return Outcome::Error(Error::invalid_params(format!("Unknown prompt: {}", params.name)));
    };
    let what = format!("prompt `{}`", params.name);
    let get = PromptGet::new(params.name, params.arguments.unwrap_or_default(), ctx);
    outcome(guarded(&what, prompt.handler.get(get)).await, false)
}

async fn read_resource(server: &Server, params: Option<&RawValue>, ctx: Context) -> Outcome {
    let params: ReadResourceParams = match parse_params("resources/read", params) {
        Ok(p) => p,
        Err(e) => return Outcome::Error(e),
    };
    let Some((handler, variables)) = server.inner.registry.resolve(&params.uri) else {
        return Outcome::Error(Error::resource_not_found(params.uri));
    };
    let what = format!("resource `{}`", params.uri);
    // A read is cacheable (the modern wire requires cache hints on it).
    outcome(guarded(&what, handler.read(ResourceRead::new(params.uri, variables, ctx))).await, true)
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
