//! What handlers may return, and how each return becomes a wire result.

use crate::error::Error;
use crate::protocol::{
    CallToolResult, ContentBlock, GetPromptResult, JsonObject, PromptMessage, ReadResourceResult, ResourceContents,
};
use schemars::JsonSchema;
use serde::Serialize;
use std::fmt::Display;

/// Structured output: a tool returning `Json<T>` gets `structuredContent` (and the same JSON as text) and an
/// `outputSchema` generated from `T`. As a resource, `Json<T>` reads as `application/json` text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Json<T>(pub T);

/// A tool's return value.
pub trait IntoToolResult {
    /// The `outputSchema` this return type declares, if it is structured.
    fn output_schema() -> Option<JsonObject> {
        None
    }
    fn into_tool_result(self) -> CallToolResult;
}

impl IntoToolResult for CallToolResult {
    fn into_tool_result(self) -> CallToolResult {
        self
    }
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::text(self)
    }
}

impl IntoToolResult for &str {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::text(self)
    }
}

/// No output: an empty content list.
impl IntoToolResult for () {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::default()
    }
}

impl IntoToolResult for ContentBlock {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult { content: vec![self], ..CallToolResult::default() }
    }
}

impl IntoToolResult for Vec<ContentBlock> {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult { content: self, ..CallToolResult::default() }
    }
}

impl<T: Serialize + JsonSchema> IntoToolResult for Json<T> {
    fn output_schema() -> Option<JsonObject> {
        Some(crate::schema::output_schema::<T>())
    }

    fn into_tool_result(self) -> CallToolResult {
        match serde_json::to_value(&self.0) {
            Ok(value) => CallToolResult {
                content: vec![ContentBlock::text(value.to_string())],
                structured_content: Some(value),
                ..CallToolResult::default()
            },
            Err(e) => CallToolResult::error(format!("Tool output could not be serialized: {e}")),
        }
    }
}

/// `Err` becomes an `isError` result carrying the error's message, so the model can read it and retry.
impl<T: IntoToolResult, E: Display> IntoToolResult for Result<T, E> {
    fn output_schema() -> Option<JsonObject> {
        T::output_schema()
    }

    fn into_tool_result(self) -> CallToolResult {
        match self {
            Ok(v) => v.into_tool_result(),
            Err(e) => CallToolResult::error(e.to_string()),
        }
    }
}

/// A prompt's return value.
pub trait IntoPromptResult {
    fn into_prompt_result(self) -> Result<GetPromptResult, Error>;
}

impl IntoPromptResult for GetPromptResult {
    fn into_prompt_result(self) -> Result<GetPromptResult, Error> {
        Ok(self)
    }
}

/// One user message with this text.
impl IntoPromptResult for String {
    fn into_prompt_result(self) -> Result<GetPromptResult, Error> {
        PromptMessage::user(self).into_prompt_result()
    }
}

impl IntoPromptResult for &str {
    fn into_prompt_result(self) -> Result<GetPromptResult, Error> {
        PromptMessage::user(self).into_prompt_result()
    }
}

impl IntoPromptResult for PromptMessage {
    fn into_prompt_result(self) -> Result<GetPromptResult, Error> {
        vec![self].into_prompt_result()
    }
}

impl IntoPromptResult for Vec<PromptMessage> {
    fn into_prompt_result(self) -> Result<GetPromptResult, Error> {
        Ok(GetPromptResult { description: None, messages: self })
    }
}

/// `Err` becomes a JSON-RPC error: the error's own code, else `-32603`.
impl<T: IntoPromptResult, E: Into<Error>> IntoPromptResult for Result<T, E> {
    fn into_prompt_result(self) -> Result<GetPromptResult, Error> {
        self.map_err(Into::into)?.into_prompt_result()
    }
}

/// A resource's return value. `mime_type` is the one the resource declares, if any.
pub trait IntoResourceContents {
    fn into_contents(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceResult, Error>;
}

fn one(contents: ResourceContents) -> Result<ReadResourceResult, Error> {
    Ok(ReadResourceResult { contents: vec![contents] })
}

impl IntoResourceContents for ReadResourceResult {
    fn into_contents(self, _: &str, _: Option<&str>) -> Result<ReadResourceResult, Error> {
        Ok(self)
    }
}

impl IntoResourceContents for ResourceContents {
    fn into_contents(self, _: &str, _: Option<&str>) -> Result<ReadResourceResult, Error> {
        one(self)
    }
}

impl IntoResourceContents for Vec<ResourceContents> {
    fn into_contents(self, _: &str, _: Option<&str>) -> Result<ReadResourceResult, Error> {
        Ok(ReadResourceResult { contents: self })
    }
}

/// Text, `text/plain` unless the resource declares another type.
impl IntoResourceContents for String {
    fn into_contents(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceResult, Error> {
        one(ResourceContents::text(uri, Some(mime_type.unwrap_or("text/plain").to_owned()), self))
    }
}

impl IntoResourceContents for &str {
    fn into_contents(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceResult, Error> {
        self.to_owned().into_contents(uri, mime_type)
    }
}

/// Bytes, base64-encoded as a blob; `application/octet-stream` unless the resource declares another type.
impl IntoResourceContents for Vec<u8> {
    fn into_contents(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceResult, Error> {
        let mime = mime_type.unwrap_or("application/octet-stream").to_owned();
        one(ResourceContents::blob(uri, Some(mime), &self))
    }
}

impl<T: Serialize> IntoResourceContents for Json<T> {
    fn into_contents(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceResult, Error> {
        let text = serde_json::to_string(&self.0)?;
        one(ResourceContents::text(uri, Some(mime_type.unwrap_or("application/json").to_owned()), text))
    }
}

/// `Err` becomes a JSON-RPC error: the error's own code (e.g. [`Error::resource_not_found`]), else `-32603`.
impl<T: IntoResourceContents, E: Into<Error>> IntoResourceContents for Result<T, E> {
    fn into_contents(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceResult, Error> {
        self.map_err(Into::into)?.into_contents(uri, mime_type)
    }
}
