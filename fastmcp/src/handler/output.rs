//! What handlers may return, and how each return becomes a wire result.

use super::HandlerResult;
use crate::context::Context;
use crate::error::Error;
use crate::flow::{Flow, Step};
use crate::protocol::{
    CallToolResult, ContentBlock, GetPromptResult, JsonObject, PromptMessage, ReadResourceResult, ResourceContents,
};
use schemars::JsonSchema;
use serde::Serialize;
use std::fmt::Display;

/// Structured output: a tool returning `Json<T>` gets `structuredContent` (and the same JSON as text) and an
/// `outputSchema` generated from `T`. As a resource, `Json<T>` reads as `application/json` text.
///
/// `T` derives `Serialize` and `JsonSchema`, through fastmcp's re-exports if you like (no dependency of your
/// own). A `T` that is not an object (a `Vec`, a number) travels as `{"result": …}`, since the wire wants an
/// object at the root of `structuredContent`. In a `Result`, an `Err` is still an `isError` result.
///
/// ```
/// use fastmcp::prelude::*;
/// use fastmcp::handler::IntoToolResult;
///
/// /// The weather at one place.
/// #[derive(fastmcp::serde::Serialize, fastmcp::schemars::JsonSchema)]
/// #[serde(crate = "fastmcp::serde")]
/// #[schemars(crate = "fastmcp::schemars")]
/// struct Forecast {
///     /// Degrees Celsius.
///     celsius: f64,
///     /// `clear`, `cloudy`, `rain`, ….
///     sky: String,
/// }
///
/// /// Tomorrow's weather in a city.
/// #[tool(read_only)]
/// async fn forecast(city: String) -> Result<Json<Forecast>> {
///     if city.is_empty() {
///         return Err(Error::msg("name a city"));
///     }
///     Ok(Json(Forecast { celsius: 21.5, sky: "clear".into() }))
/// }
/// # let _ = FastMcp::new("weather").tool(forecast);
///
/// // What a `Json` return becomes:
/// let result = Json(Forecast { celsius: 21.5, sky: "clear".into() }).into_tool_result();
/// assert_eq!(result.structured_content.as_deref(), Some(&fastmcp::serde_json::json!({"celsius": 21.5, "sky": "clear"})));
/// let schema = <Json<Forecast> as IntoToolResult>::output_schema().expect("structured");
/// assert_eq!(schema["type"], "object");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Json<T>(pub T);

/// What a hand-written flow returns where the round cannot end with it: in a handler whose body uses
/// `.ask()`, the compiled rounds are the flow.
const MIXED: &str = "a handler returned Flow::InputRequired from a body that also uses `.ask()`: build the \
     whole flow by hand (Flow, InputRequired, ctx.state()), or use `.ask()` alone";

/// A tool's return value.
pub trait IntoToolResult {
    /// The `outputSchema` this return type declares, if it is structured.
    fn output_schema() -> Option<JsonObject> {
        None
    }
    /// The `tools/call` result of a completed call: content blocks, `structuredContent` for [`Json`], and
    /// `isError` for an `Err`.
    fn into_tool_result(self) -> CallToolResult;

    /// The round's step: complete with [`into_tool_result`](Self::into_tool_result), or, for a
    /// [`Flow::InputRequired`], a suspension. What a `#[tool]` fn without `.ask()` returns becomes this.
    fn into_tool_step(self) -> HandlerResult<CallToolResult>
    where
        Self: Sized,
    {
        Ok(Step::Complete(self.into_tool_result()))
    }
}

/// A hand-written flow's round (see [`crate::flow::Flow`]).
impl<T: IntoToolResult> IntoToolResult for Flow<T> {
    fn output_schema() -> Option<JsonObject> {
        T::output_schema()
    }

    fn into_tool_result(self) -> CallToolResult {
        match self {
            Flow::Complete(t) => t.into_tool_result(),
            Flow::InputRequired(_) => CallToolResult::error(MIXED),
        }
    }

    fn into_tool_step(self) -> HandlerResult<CallToolResult> {
        match self {
            Flow::Complete(t) => t.into_tool_step(),
            Flow::InputRequired(input) => input.into_step(),
        }
    }
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
                structured_content: Some(Box::new(value)),
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

    /// A refused request state ([`Context::state`]) stays the protocol error it is, whatever the error type
    /// made of it.
    fn into_tool_step(self) -> HandlerResult<CallToolResult> {
        match self {
            Ok(v) => v.into_tool_step(),
            Err(e) => match Context::current().and_then(|ctx| ctx.take_refusal()) {
                Some(refused) => Err(refused),
                None => Ok(Step::Complete(CallToolResult::error(e.to_string()))),
            },
        }
    }
}

/// A prompt's return value.
pub trait IntoPromptResult {
    /// The `prompts/get` result: its messages, or the JSON-RPC error an `Err` becomes.
    fn into_prompt_result(self) -> Result<GetPromptResult, Error>;

    /// The round's step: complete, or, for a [`Flow::InputRequired`], a suspension. What a `#[prompt]` fn
    /// without `.ask()` returns becomes this.
    fn into_prompt_step(self) -> HandlerResult<GetPromptResult>
    where
        Self: Sized,
    {
        self.into_prompt_result().map(Step::Complete)
    }
}

/// A hand-written flow's round (see [`crate::flow::Flow`]).
impl<T: IntoPromptResult> IntoPromptResult for Flow<T> {
    fn into_prompt_result(self) -> Result<GetPromptResult, Error> {
        match self {
            Flow::Complete(t) => t.into_prompt_result(),
            Flow::InputRequired(_) => Err(Error::internal(MIXED)),
        }
    }

    fn into_prompt_step(self) -> HandlerResult<GetPromptResult> {
        match self {
            Flow::Complete(t) => t.into_prompt_step(),
            Flow::InputRequired(input) => input.into_step(),
        }
    }
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

/// `Err` becomes a JSON-RPC error: an [`Error`] keeps its code, any other error that displays (a `String`,
/// an `anyhow::Error`) is `-32603` with its text.
impl<T: IntoPromptResult, E: Display + 'static> IntoPromptResult for Result<T, E> {
    fn into_prompt_result(self) -> Result<GetPromptResult, Error> {
        self.map_err(handler_error)?.into_prompt_result()
    }

    fn into_prompt_step(self) -> HandlerResult<GetPromptResult> {
        self.map_err(handler_error)?.into_prompt_step()
    }
}

/// What a prompt's or resource's `Err` becomes: an [`Error`] keeps its code ([`Error::resource_not_found`],
/// [`Error::invalid_params`], …); any other error that displays (a `String`, an `io::Error`, an
/// `anyhow::Error`) is `-32603` with its text. (A tool's `Err` is an `isError` result instead, for the
/// model to read.)
fn handler_error<E: Display + 'static>(e: E) -> Error {
    let mut e = Some(e);
    match (&mut e as &mut dyn std::any::Any).downcast_mut::<Option<Error>>() {
        Some(own) => own.take().expect("set above"),
        None => Error::msg(e.expect("set above")),
    }
}

/// A resource's return value. `mime_type` is the one the resource declares, if any.
pub trait IntoResourceContents {
    /// The `resources/read` result for `uri`, contents tagged with `mime_type` where the resource declares
    /// one (otherwise a default for the return type), or the JSON-RPC error an `Err` becomes.
    fn into_contents(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceResult, Error>;

    /// The round's step: complete, or, for a [`Flow::InputRequired`], a suspension. What a `#[resource]` fn
    /// without `.ask()` returns becomes this.
    fn into_contents_step(self, uri: &str, mime_type: Option<&str>) -> HandlerResult<ReadResourceResult>
    where
        Self: Sized,
    {
        self.into_contents(uri, mime_type).map(Step::Complete)
    }
}

/// A hand-written flow's round (see [`crate::flow::Flow`]).
impl<T: IntoResourceContents> IntoResourceContents for Flow<T> {
    fn into_contents(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceResult, Error> {
        match self {
            Flow::Complete(t) => t.into_contents(uri, mime_type),
            Flow::InputRequired(_) => Err(Error::internal(MIXED)),
        }
    }

    fn into_contents_step(self, uri: &str, mime_type: Option<&str>) -> HandlerResult<ReadResourceResult> {
        match self {
            Flow::Complete(t) => t.into_contents_step(uri, mime_type),
            Flow::InputRequired(input) => input.into_step(),
        }
    }
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

/// `Err` becomes a JSON-RPC error: an [`Error`] keeps its code, any other error that displays (a `String`,
/// an `anyhow::Error`) is `-32603` with its text.
impl<T: IntoResourceContents, E: Display + 'static> IntoResourceContents for Result<T, E> {
    fn into_contents(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceResult, Error> {
        self.map_err(handler_error)?.into_contents(uri, mime_type)
    }

    fn into_contents_step(self, uri: &str, mime_type: Option<&str>) -> HandlerResult<ReadResourceResult> {
        self.map_err(handler_error)?.into_contents_step(uri, mime_type)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Era;

    /// A handler's result is moved through every layer to the response: small enough that a move is a few
    /// register copies, not a `memcpy` (it was 176 bytes with the structured result and `_meta` inline and
    /// `Error`'s details unboxed).
    #[cfg(target_pointer_width = "64")]
    #[test]
    fn a_handler_result_stays_small() {
        assert_eq!(std::mem::size_of::<Error>(), 8);
        assert_eq!(std::mem::size_of::<CallToolResult>(), 48);
        assert_eq!(std::mem::size_of::<HandlerResult<CallToolResult>>(), 56);
    }

    fn rpc(error: Error) -> (i32, String) {
        let e = error.to_error_object(Era::Modern);
        (e.code, e.message)
    }

    /// An error type that displays and is no `std::error::Error` (as `anyhow::Error` is not).
    struct Offline;

    impl Display for Offline {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("the archive is offline")
        }
    }

    #[test]
    fn a_prompts_or_resources_error_that_displays_is_an_internal_error_with_its_text() {
        let prompt: Result<String, String> = Err("say what to recap".into());
        let e = prompt.into_prompt_result().expect_err("an error");
        assert_eq!(rpc(e), (-32603, "say what to recap".to_owned()));
        let resource: Result<String, Offline> = Err(Offline);
        let e = resource.into_contents("x://a", None).expect_err("an error");
        assert_eq!(rpc(e), (-32603, "the archive is offline".to_owned()));
        let io: Result<String, std::io::Error> = Err(std::io::Error::other("disk gone"));
        assert_eq!(rpc(io.into_contents("x://a", None).expect_err("an error")), (-32603, "disk gone".to_owned()));
    }

    #[test]
    fn fastmcps_own_error_keeps_its_code() {
        let prompt: Result<String, Error> = Err(Error::invalid_params("no such topic"));
        assert_eq!(rpc(prompt.into_prompt_result().expect_err("an error")), (-32602, "no such topic".to_owned()));
        let gone: crate::Result<String> = Err(Error::resource_not_found("x://gone"));
        let e = gone.into_contents("x://gone", None).expect_err("an error");
        assert_eq!(e.to_error_object(Era::Legacy).code, -32002, "the era's own code, as before");
    }
}
