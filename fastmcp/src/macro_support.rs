//! Helpers that only macro expansions call (re-exported from `__private`).
//!
//! The macros build definitions through these constructors rather than struct literals, so a field added to
//! a wire type needs no change in the macro crate.

use crate::error::Error;
use crate::flow::Step;
use crate::handler::{
    BoxFuture, HandlerResult, IntoPromptResult, IntoResourceContents, PromptGet, PromptHandler, ResourceDefinition,
    ResourceHandler, ResourceRead, ToolCall, ToolHandler,
};
use crate::protocol::{
    CallToolResult, GetPromptResult, JsonObject, Prompt, PromptArgument, ReadResourceResult, Resource,
    ResourceTemplate, Tool, ToolAnnotations,
};
use std::str::FromStr;

/// The `isError` result for arguments that do not match a tool's input schema.
pub fn invalid_arguments(tool: &str, error: serde_json::Error) -> HandlerResult<CallToolResult> {
    Ok(Step::Complete(CallToolResult::error(format!("Invalid arguments for tool `{tool}`: {error}"))))
}

/// A `#[tool]`'s `tools/list` entry.
pub fn tool_definition(
    name: &str,
    title: Option<&str>,
    description: Option<&str>,
    input_schema: JsonObject,
    output_schema: Option<JsonObject>,
    annotations: Option<ToolAnnotations>,
) -> Tool {
    Tool {
        name: name.to_owned(),
        title: title.map(str::to_owned),
        description: description.map(str::to_owned),
        icons: None,
        input_schema,
        output_schema,
        annotations,
        execution: None,
        meta: None,
    }
}

/// A `#[prompt]`'s `prompts/list` entry; no arguments is `arguments: None`.
pub fn prompt_definition(
    name: &str,
    title: Option<&str>,
    description: Option<&str>,
    arguments: Vec<PromptArgument>,
) -> Prompt {
    Prompt {
        name: name.to_owned(),
        title: title.map(str::to_owned),
        description: description.map(str::to_owned),
        arguments: if arguments.is_empty() { None } else { Some(arguments) },
        icons: None,
        meta: None,
    }
}

/// One of a `#[prompt]`'s arguments in its `prompts/list` entry.
pub fn prompt_argument(name: &str, description: Option<&str>, required: bool) -> PromptArgument {
    PromptArgument {
        name: name.to_owned(),
        title: None,
        description: description.map(str::to_owned),
        required: Some(required),
    }
}

/// A `#[prompt]`'s result; the prompt's own description fills in when the handler gave none.
pub fn prompt_result<R: IntoPromptResult>(out: R, description: Option<&str>) -> HandlerResult<GetPromptResult> {
    let result = out.into_prompt_result()?;
    Ok(Step::Complete(described(result, description)))
}

/// The round of a `#[prompt]` without `.ask()`: its result as [`prompt_result`] makes it, or the suspension
/// of a hand-written flow.
pub fn prompt_step<R: IntoPromptResult>(out: R, description: Option<&str>) -> HandlerResult<GetPromptResult> {
    Ok(out.into_prompt_step()?.map(|result| described(result, description)))
}

fn described(mut result: GetPromptResult, description: Option<&str>) -> GetPromptResult {
    if result.description.is_none() {
        result.description = description.map(str::to_owned);
    }
    result
}

/// A `#[resource("fixed://uri")]`'s definition.
pub fn static_resource(
    uri: &str,
    name: &str,
    title: Option<&str>,
    description: Option<&str>,
    mime_type: Option<&str>,
) -> ResourceDefinition {
    ResourceDefinition::Static(Resource {
        uri: uri.to_owned(),
        name: name.to_owned(),
        title: title.map(str::to_owned),
        description: description.map(str::to_owned),
        mime_type: mime_type.map(str::to_owned),
        size: None,
        annotations: None,
        icons: None,
        meta: None,
    })
}

/// A `#[resource("scheme://{var}")]`'s definition.
pub fn resource_template(
    uri_template: &str,
    name: &str,
    title: Option<&str>,
    description: Option<&str>,
    mime_type: Option<&str>,
) -> ResourceDefinition {
    ResourceDefinition::Template(ResourceTemplate {
        uri_template: uri_template.to_owned(),
        name: name.to_owned(),
        title: title.map(str::to_owned),
        description: description.map(str::to_owned),
        mime_type: mime_type.map(str::to_owned),
        annotations: None,
        icons: None,
        meta: None,
    })
}

/// An optional template variable (`{?page}`): absent is `None`; present but unparsable means no resource
/// has this URI.
pub fn optional_variable<T: FromStr>(read: &ResourceRead, name: &str) -> Result<Option<T>, Error> {
    match read.variables().get(name) {
        None => Ok(None),
        Some(raw) => raw.parse().map(Some).map_err(|_| Error::resource_not_found(read.uri())),
    }
}

/// A `#[resource]`'s result, converted with the resource's declared MIME type.
pub fn resource_result<R: IntoResourceContents>(
    out: R,
    uri: &str,
    mime_type: Option<&str>,
) -> HandlerResult<ReadResourceResult> {
    Ok(Step::Complete(out.into_contents(uri, mime_type)?))
}

/// The round of a `#[resource]` without `.ask()`: its contents as [`resource_result`] makes them, or the
/// suspension of a hand-written flow.
pub fn resource_step<R: IntoResourceContents>(
    out: R,
    uri: &str,
    mime_type: Option<&str>,
) -> HandlerResult<ReadResourceResult> {
    out.into_contents_step(uri, mime_type)
}

/// What a `#[tool]`, `#[prompt]` or `#[resource]` whose macro reported an error stands in for, so that
/// `.tool(name)` still type-checks and the macro's error is the only one. It never runs: a crate with a
/// macro error doesn't build.
pub struct Unexpanded;

impl Unexpanded {
    fn never() -> ! {
        unreachable!("a handler whose macro reported an error is never built into a program")
    }
}

impl ToolHandler for Unexpanded {
    fn definition(&self) -> Tool {
        Self::never()
    }
    fn call(&self, _: ToolCall) -> BoxFuture<HandlerResult<CallToolResult>> {
        Self::never()
    }
}

impl PromptHandler for Unexpanded {
    fn definition(&self) -> Prompt {
        Self::never()
    }
    fn get(&self, _: PromptGet) -> BoxFuture<HandlerResult<GetPromptResult>> {
        Self::never()
    }
}

impl ResourceHandler for Unexpanded {
    fn definition(&self) -> ResourceDefinition {
        Self::never()
    }
    fn read(&self, _: ResourceRead) -> BoxFuture<HandlerResult<ReadResourceResult>> {
        Self::never()
    }
}
