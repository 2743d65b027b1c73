//! The conformance fixture: every `test_*` tool, resource, prompt and completion the official MCP
//! conformance suite (`@modelcontextprotocol/conformance`) drives, written as plain handlers.
//!
//! The names, texts and base64 assets are the suite's. Handlers that need the client (elicitation,
//! sampling, roots) use `.ask()`, so the same code answers with `input_required` on the modern wire and
//! with real server-to-client requests on a legacy session.
//!
//! `handwritten_opinion` and `handwritten_topic` are not the suite's: flows built by hand, without `.ask()`,
//! for the tests of that API (a plain `ToolHandler`, and a `#[prompt]` returning `Flow`).
//!
//! Run it with `cargo run -p fastmcp-examples --bin everything` (stdio).

use fastmcp::flow::{InputResponse, Step};
use fastmcp::handler::{BoxFuture, HandlerResult, ToolCall, ToolHandler};
use fastmcp::prelude::*;
use fastmcp::protocol::{BlobResourceContents, Tool};
use fastmcp_examples::cli::{Help, LOG_ENV, RUN_ENV, RUN_TRANSPORTS};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::time::Duration;

mod tasks;

/// A 1x1 PNG, base64.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A minimal WAV, base64.
const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// The pause between the notifications of the progress and logging tools.
const STEP: Duration = Duration::from_millis(50);

// ---- content tools -------------------------------------------------------------------------------------

/// Tests simple text content response.
#[tool(read_only)]
async fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Tests image content response.
#[tool(read_only)]
async fn test_image_content() -> ContentBlock {
    ContentBlock::image(PNG, "image/png")
}

/// Tests audio content response.
#[tool(read_only)]
async fn test_audio_content() -> ContentBlock {
    ContentBlock::audio(WAV, "audio/wav")
}

/// Tests embedded resource content response.
#[tool(read_only)]
async fn test_embedded_resource() -> ContentBlock {
    ContentBlock::resource(ResourceContents::text(
        "test://embedded-resource",
        Some("text/plain".into()),
        "This is an embedded resource content.",
    ))
}

/// Tests response with multiple content types (text, image, resource).
#[tool(read_only)]
async fn test_multiple_content_types() -> Vec<ContentBlock> {
    vec![
        ContentBlock::text("Multiple content types test:"),
        ContentBlock::image(PNG, "image/png"),
        ContentBlock::resource(ResourceContents::text(
            "test://mixed-content-resource",
            Some("application/json".into()),
            r#"{"test":"data","value":123}"#,
        )),
    ]
}

/// Tests error response handling: always fails with a tool error.
#[tool(read_only)]
async fn test_error_handling() -> Result<String, String> {
    Err("This tool intentionally returns an error for testing".into())
}

// ---- notifications -------------------------------------------------------------------------------------

/// Tests tool that reports progress notifications (0, 50 and 100 of 100).
#[tool(read_only)]
async fn test_tool_with_progress(ctx: Context) -> String {
    for step in [0.0, 50.0, 100.0] {
        if step > 0.0 {
            tokio::time::sleep(STEP).await;
        }
        ctx.progress(step, Some(100.0), Some(format!("Completed step {step} of 100"))).await;
    }
    "Progress notifications test completed successfully.".into()
}

/// Tests tool that emits log messages during execution.
#[tool(read_only)]
async fn test_tool_with_logging(ctx: Context) -> String {
    ctx.info("Tool execution started").await;
    tokio::time::sleep(STEP).await;
    ctx.info("Tool processing data").await;
    tokio::time::sleep(STEP).await;
    ctx.info("Tool execution completed").await;
    "Tool with logging executed successfully".into()
}

/// Logs only when the request asked for logs (a modern `_meta` log level, or a legacy session's level).
#[tool(read_only)]
async fn test_logging_tool(ctx: Context) -> String {
    ctx.info("test_logging_tool: info message").await;
    ctx.debug("test_logging_tool: debug message").await;
    "Logging tool completed".into()
}

/// Echoes the region it runs in; `region` is mirrored into the `Mcp-Param-Region` HTTP header (SEP-2243), so
/// a gateway can route on it without reading the body.
#[tool(read_only)]
async fn test_custom_header(
    /// The region to run in.
    #[schemars(extend("x-mcp-header" = "Region"))]
    region: String,
) -> String {
    format!("Ran in region {region}")
}

/// Tests SSE stream disconnection and client reconnection (SEP-1699): closes its response stream mid-call;
/// the client reconnects with `Last-Event-ID` and receives the result on the resumed stream.
#[tool(read_only)]
async fn test_reconnection(ctx: Context) -> &'static str {
    tokio::time::sleep(Duration::from_millis(100)).await;
    if !ctx.close_sse_stream() {
        return "Reconnection test completed (no resumable stream to close on this transport)";
    }
    // Finish while the client is away: the result waits in the session's event log.
    tokio::time::sleep(Duration::from_millis(200)).await;
    "Reconnection test completed: the stream was closed mid-call and the result delivered after reconnecting"
}

/// Announces that the tool list changed: `notifications/tools/list_changed` to legacy sessions and to the
/// `subscriptions/listen` streams that asked for it.
#[tool]
async fn test_trigger_tool_change(ctx: Context) -> &'static str {
    ctx.notify_list_changed(ListChanged::Tools);
    "Tool list change notification sent"
}

/// Announces that the prompt list changed, like `test_trigger_tool_change`.
#[tool]
async fn test_trigger_prompt_change(ctx: Context) -> &'static str {
    ctx.notify_list_changed(ListChanged::Prompts);
    "Prompt list change notification sent"
}

// ---- asking the client -----------------------------------------------------------------------------------

/// "Action and content" of an elicitation, as the suite's fixture reports it.
fn outcome<T: Serialize>(answer: Elicitation<T>) -> String {
    let (action, content) = match answer {
        Elicitation::Accepted(form) => ("accept", serde_json::to_value(form).unwrap_or(Value::Null)),
        Elicitation::Declined => ("decline", json!({})),
        Elicitation::Cancelled => ("cancel", json!({})),
    };
    format!("action={action}, content={content}")
}

/// Tests server-initiated sampling (LLM completion request).
#[tool]
async fn test_sampling(
    /// The prompt to send to the LLM.
    prompt: String,
) -> Result<String> {
    let reply = Sample::prompt(prompt).max_tokens(100).ask().await?;
    Ok(format!("LLM response: {}", reply.text()))
}

/// Who the user is.
#[elicit]
#[derive(Serialize)]
struct UserResponse {
    /// User's response
    username: String,
    /// User's email address
    email: String,
}

/// Tests server-initiated elicitation (user input request).
#[tool]
async fn test_elicitation(
    /// The message to show the user.
    message: String,
) -> Result<String> {
    let answer = UserResponse::elicit(message).ask().await?;
    Ok(format!("User response: {}", outcome(answer)))
}

/// A status to pick.
#[elicit(rename_all = "lowercase")]
#[derive(Serialize)]
#[serde(rename_all = "lowercase")]
enum Status {
    Active,
    Inactive,
    Pending,
}

/// A form whose every field has a default (SEP-1034).
#[elicit]
#[derive(Serialize)]
struct Defaults {
    /// User name
    #[elicit(default = "John Doe")]
    name: Option<String>,
    /// User age
    #[elicit(default = 30)]
    age: Option<i64>,
    /// User score
    #[elicit(default = 95.5)]
    score: Option<f64>,
    /// User status
    #[elicit(default = "active")]
    status: Option<Status>,
    /// Verification status
    #[elicit(default = true)]
    verified: Option<bool>,
}

/// Tests elicitation with default values per SEP-1034.
#[tool]
async fn test_elicitation_sep1034_defaults() -> Result<String> {
    let answer = Defaults::elicit("Please review and update the form fields with defaults").ask().await?;
    Ok(format!("Elicitation completed: {}", outcome(answer)))
}

/// Untitled choices: a plain `enum`.
#[elicit(rename_all = "lowercase")]
#[derive(Serialize)]
#[serde(rename_all = "lowercase")]
enum Untitled {
    Option1,
    Option2,
    Option3,
}

/// Titled single-select choices: `oneOf` of `{const, title}`.
#[elicit(rename_all = "lowercase")]
#[derive(Serialize)]
#[serde(rename_all = "lowercase")]
enum TitledSingle {
    #[elicit(title = "First Option")]
    Value1,
    #[elicit(title = "Second Option")]
    Value2,
    #[elicit(title = "Third Option")]
    Value3,
}

/// The suite's "legacy" titled enum (`enum` + `enumNames`). `#[elicit]` writes titled selects as `oneOf`;
/// the runtime rewrites them as `enum` + `enumNames` only for sessions before 2025-11-25.
#[elicit(rename_all = "lowercase")]
#[derive(Serialize)]
#[serde(rename_all = "lowercase")]
enum Legacy {
    #[elicit(title = "Option One")]
    Opt1,
    #[elicit(title = "Option Two")]
    Opt2,
    #[elicit(title = "Option Three")]
    Opt3,
}

/// Titled multi-select choices: `items.anyOf` of `{const, title}`.
#[elicit(rename_all = "lowercase")]
#[derive(Serialize)]
#[serde(rename_all = "lowercase")]
enum TitledMulti {
    #[elicit(title = "First Choice")]
    Value1,
    #[elicit(title = "Second Choice")]
    Value2,
    #[elicit(title = "Third Choice")]
    Value3,
}

/// The enum shapes of SEP-1330.
#[elicit(rename_all = "camelCase")]
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Enums {
    /// Select one option
    untitled_single: Option<Untitled>,
    /// Select one option with titles
    titled_single: Option<TitledSingle>,
    /// Select one option (legacy)
    #[elicit(enum_names)]
    legacy_enum: Option<Legacy>,
    /// Select multiple options
    #[elicit(min_items = 1, max_items = 3)]
    untitled_multi: Option<Vec<Untitled>>,
    /// Select multiple options with titles
    #[elicit(min_items = 1, max_items = 3)]
    titled_multi: Option<Vec<TitledMulti>>,
}

/// Tests elicitation with enum schema improvements per SEP-1330.
#[tool]
async fn test_elicitation_sep1330_enums() -> Result<String> {
    let answer = Enums::elicit("Please select options from the enum fields").ask().await?;
    Ok(format!("Elicitation completed: {}", outcome(answer)))
}

/// A name.
#[elicit]
struct Name {
    /// Your name.
    name: String,
}

/// A favourite colour.
#[elicit]
struct Color {
    /// Your favourite color.
    color: String,
}

/// A yes/no answer.
#[elicit]
struct Proceed {
    /// Go on?
    ok: bool,
}

/// Some context for a prompt.
#[elicit]
struct PromptContext {
    /// The context the prompt should use.
    context: String,
}

/// Fails with -32021 unless the client declares sampling.
#[tool]
async fn test_missing_capability() -> Result<String> {
    let reply = Sample::prompt("Reply with any short text.").max_tokens(50).ask().await?;
    Ok(format!("Sampling result: {}", reply.text()))
}

/// Elicits through input_required (never a server-to-client request on the response stream).
#[tool]
async fn test_streaming_elicitation() -> Result<String> {
    let answer = Name::elicit("What is your name?").ask().await?;
    Ok(match answer.accepted() {
        Some(Name { name }) => format!("Streaming elicitation complete: Hello, {name}!"),
        None => "Streaming elicitation complete: no name given".into(),
    })
}

/// Round 1 elicits a name; round 2 greets.
#[tool]
async fn test_input_required_result_elicitation() -> Result<String> {
    let answer = Name::elicit("What is your name?").ask_as("user_name").await?;
    Ok(match answer.accepted() {
        Some(Name { name }) => format!("Hello, {name}!"),
        None => "No name given.".into(),
    })
}

/// Round 1 asks the client's model; round 2 reports its answer.
#[tool]
async fn test_input_required_result_sampling() -> Result<String> {
    let reply = Sample::prompt("What is the capital of France?").max_tokens(100).ask().await?;
    Ok(format!("Sampling result: {}", reply.text()))
}

/// Round 1 asks for the client's roots; round 2 counts them.
#[tool]
async fn test_input_required_result_list_roots() -> Result<String> {
    let roots = ListRoots.ask().await?;
    Ok(format!("Found {} root(s)", roots.len()))
}

/// A value made in round 1 travels in the signed request state to round 2.
#[tool]
async fn test_input_required_result_request_state() -> Result<String> {
    let marker = String::from("state-ok"); // carried in the request state
    let answer = Proceed::elicit("Continue?").ask().await?;
    let ok = answer.accepted().is_some_and(|a| a.ok);
    Ok(format!("{marker}: ok={ok}"))
}

/// Elicitation, sampling and roots in one round.
#[tool]
async fn test_input_required_result_multiple_inputs() -> Result<String> {
    let (name, reply, roots) = (
        Name::elicit("What is your name?"),
        Sample::prompt("What is the capital of France?").max_tokens(100),
        ListRoots,
    )
        .ask()
        .await?;
    let name = name.accepted().map(|n| n.name).unwrap_or_default();
    Ok(format!("Multiple inputs complete: name={name}, sampling={}, roots={}", reply.text(), roots.len()))
}

/// Step 1 asks a name, step 2 a colour (with an updated request state).
#[tool]
async fn test_input_required_result_multi_round() -> Result<String> {
    let name = Name::elicit("Step 1: what is your name?").ask().await?.accepted().map(|n| n.name);
    let name = name.unwrap_or_else(|| "someone".into());
    let color = Color::elicit(format!("Step 2: what is your favourite color, {name}?")).ask().await?;
    let color = color.accepted().map(|c| c.color).unwrap_or_else(|| "nothing".into());
    Ok(format!("Multi-round complete for {name} who likes {color}"))
}

/// Its request state is signed: a tampered retry is refused.
#[tool]
async fn test_input_required_result_tampered_state() -> Result<String> {
    let answer = Name::elicit("What is your name?").ask().await?;
    Ok(format!("State verified for {}", answer.accepted().map(|n| n.name).unwrap_or_default()))
}

/// Asks only for what the client declared it can answer.
#[tool]
async fn test_input_required_result_capabilities(ctx: Context) -> Result<String> {
    let (can_elicit, can_sample) = {
        let caps = ctx.client_capabilities();
        (caps.elicitation.is_some(), caps.sampling.is_some())
    };
    if can_elicit && can_sample {
        let (name, reply) =
            (Name::elicit("What is your name?"), Sample::prompt("Reply with any short text.").max_tokens(50))
                .ask()
                .await?;
        let name = name.accepted().map(|n| n.name).unwrap_or_default();
        Ok(format!("Capabilities respected: name={name}, sampling={}", reply.text()))
    } else if can_sample {
        let reply = Sample::prompt("Reply with any short text.").max_tokens(50).ask().await?;
        Ok(format!("Capabilities respected: sampling={}", reply.text()))
    } else if can_elicit {
        let name = Name::elicit("What is your name?").ask().await?;
        Ok(format!("Capabilities respected: name={}", name.accepted().map(|n| n.name).unwrap_or_default()))
    } else {
        Ok("Capabilities respected: nothing to ask".into())
    }
}

// ---- JSON Schema 2020-12 -------------------------------------------------------------------------------

/// `json_schema_2020_12_tool`, written by hand: its input schema is served exactly as written (`$schema`,
/// `$defs` with `$anchor`, `allOf`/`anyOf`, `if`/`then`/`else`, `additionalProperties: false`).
struct JsonSchema2020Tool;

/// The tool's input schema.
fn json_schema_2020_12() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": { "street": { "type": "string" }, "city": { "type": "string" } }
            }
        },
        "properties": {
            "name": { "type": "string" },
            "address": { "$ref": "#/$defs/address" },
            "contactMethod": { "type": "string", "enum": ["phone", "email"] },
            "phone": { "type": "string" },
            "email": { "type": "string" }
        },
        "allOf": [{ "anyOf": [{ "required": ["phone"] }, { "required": ["email"] }] }],
        "if": { "properties": { "contactMethod": { "const": "phone" } }, "required": ["contactMethod"] },
        "then": { "required": ["phone"] },
        "else": { "required": ["email"] },
        "additionalProperties": false
    })
}

impl ToolHandler for JsonSchema2020Tool {
    fn definition(&self) -> Tool {
        let Value::Object(input_schema) = json_schema_2020_12() else { unreachable!("the schema is an object") };
        Tool {
            name: "json_schema_2020_12_tool".into(),
            title: None,
            description: Some("Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)".into()),
            icons: None,
            input_schema,
            output_schema: None,
            annotations: None,
            execution: None,
            meta: None,
        }
    }

    fn call(&self, call: ToolCall) -> BoxFuture<HandlerResult<CallToolResult>> {
        let result = match call.parse_arguments::<Value>() {
            Ok(args) => CallToolResult::text(format!("JSON Schema 2020-12 tool called with: {args}")),
            Err(e) => CallToolResult::error(format!("invalid arguments: {e}")),
        };
        Box::pin(async move { Ok(Step::Complete(result)) })
    }
}

// ---- a hand-written flow -------------------------------------------------------------------------------

/// `handwritten_opinion`, a flow built by hand, without the macro: it asks the user's opinion of a topic with
/// a form it builds at run time, has the client's model summarise the answer, and keeps what it needs between
/// rounds in request state it mints itself. The same handler serves both eras: `input_required` rounds on the
/// modern wire (its state sealed into `requestState`), the shim's server-to-client requests on a legacy
/// session.
struct HandwrittenOpinion;

/// Where the flow is, carried from round to round in its request state.
#[derive(Serialize, Deserialize)]
enum Phase {
    Asked { topic: String },
    Summarising { topic: String, opinion: String },
}

#[derive(Deserialize)]
struct TopicArgs {
    topic: String,
}

/// The form's content.
#[derive(Deserialize)]
struct Opinion {
    answer: String,
}

impl ToolHandler for HandwrittenOpinion {
    fn definition(&self) -> Tool {
        let schema = json!({
            "type": "object",
            "properties": { "topic": { "type": "string", "description": "What to ask about." } },
            "required": ["topic"],
        });
        let Value::Object(input_schema) = schema else { unreachable!("the schema is an object") };
        Tool {
            name: "handwritten_opinion".into(),
            title: None,
            description: Some("Asks the user's opinion and has it summarised: a flow built by hand.".into()),
            icons: None,
            input_schema,
            output_schema: None,
            annotations: None,
            execution: None,
            meta: None,
        }
    }

    fn call(&self, call: ToolCall) -> BoxFuture<HandlerResult<CallToolResult>> {
        Box::pin(async move {
            let ctx = call.context();
            let TopicArgs { topic } = match call.parse_arguments() {
                Ok(args) => args,
                Err(e) => return Ok(Step::Complete(CallToolResult::error(format!("invalid arguments: {e}")))),
            };
            match ctx.state::<Phase>()? {
                // The first round: ask, and remember what was asked.
                None => {
                    let question = format!("What do you think of {topic}?");
                    let form = json!({
                        "type": "object",
                        "properties": { "answer": { "type": "string", "description": question } },
                        "required": ["answer"],
                    });
                    let state = ctx.mint_state(&Phase::Asked { topic })?;
                    InputRequired::new().elicit("opinion", question, form)?.state(state).into_step()
                }
                Some(Phase::Asked { topic }) => {
                    let Some(Opinion { answer }) = ctx.accepted::<Opinion>("opinion") else {
                        return Ok(Step::Complete(CallToolResult::text(format!("{topic}: no opinion"))));
                    };
                    let summary = Sample::prompt(format!("Summarise: {answer}")).max_tokens(50);
                    let state = ctx.mint_state(&Phase::Summarising { topic, opinion: answer })?;
                    InputRequired::new().ask("summary", summary).state(state).into_step()
                }
                Some(Phase::Summarising { topic, opinion }) => {
                    let summary = ctx.answer::<Sample>("summary")?;
                    Ok(Step::Complete(CallToolResult::text(format!("{topic}: {opinion} ({})", summary.text()))))
                }
            }
        })
    }
}

// ---- resources -----------------------------------------------------------------------------------------

/// A static text resource for testing.
#[resource("test://static-text", name = "static-text", title = "Static Text Resource", mime_type = "text/plain")]
async fn static_text() -> &'static str {
    "This is the content of the static text resource."
}

/// A static binary resource (image) for testing.
#[resource("test://static-binary", name = "static-binary", title = "Static Binary Resource", mime_type = "image/png")]
async fn static_binary() -> ResourceContents {
    ResourceContents::Blob(BlobResourceContents {
        uri: "test://static-binary".into(),
        mime_type: Some("image/png".into()),
        blob: PNG.into(),
        meta: None,
    })
}

/// A resource template with parameter substitution.
#[resource("test://template/{id}/data", name = "template", title = "Resource Template", mime_type = "application/json")]
async fn template_data(id: String) -> String {
    json!({ "id": id, "templateTest": true, "data": format!("Data for ID: {id}") }).to_string()
}

/// A resource clients may subscribe to.
#[resource("test://watched-resource", name = "watched-resource", title = "Watched Resource", mime_type = "text/plain")]
async fn watched_resource() -> &'static str {
    "Watched resource content"
}

// ---- prompts -------------------------------------------------------------------------------------------

/// A simple prompt without arguments.
#[prompt(title = "Simple Test Prompt")]
async fn test_simple_prompt() -> &'static str {
    "This is a simple prompt for testing."
}

/// A prompt with required arguments.
#[prompt(title = "Prompt With Arguments")]
async fn test_prompt_with_arguments(
    /// First test argument.
    #[complete(["test", "test-value", "testing", "another"])]
    arg1: String,
    /// Second test argument.
    arg2: String,
) -> String {
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

/// A prompt that includes an embedded resource.
#[prompt(title = "Prompt With Embedded Resource")]
async fn test_prompt_with_embedded_resource(
    /// URI of the resource to embed.
    #[allow(non_snake_case)]
    resourceUri: String,
) -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(ContentBlock::resource(ResourceContents::text(
            resourceUri,
            Some("text/plain".into()),
            "Embedded resource content for testing.",
        ))),
        PromptMessage::user(ContentBlock::text("Please process the embedded resource above.")),
    ]
}

/// A prompt that includes image content.
#[prompt(title = "Prompt With Image")]
async fn test_prompt_with_image() -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(ContentBlock::image(PNG, "image/png")),
        PromptMessage::user(ContentBlock::text("Please analyze the image above.")),
    ]
}

/// A prompt that asks the user for context before it is built.
#[prompt]
async fn test_input_required_result_prompt() -> Result<String> {
    let answer = PromptContext::elicit("What context should the prompt use?").ask().await?;
    let context = answer.accepted().map(|c| c.context).unwrap_or_else(|| "none".into());
    Ok(format!("Prompt with context: {context}"))
}

/// A topic, read back from the hand-written prompt's form by deserializing it.
#[derive(Deserialize)]
struct Topic {
    topic: String,
}

/// A prompt built by hand (`Flow`, not `.ask()`): asks for a topic, without request state, then writes the
/// prompt.
#[prompt]
async fn handwritten_topic(ctx: Context) -> Result<Flow<String>> {
    if let InputResponse::Missing = ctx.input_response("topic") {
        let form = json!({"type": "object", "properties": {"topic": {"type": "string"}}, "required": ["topic"]});
        return Ok(InputRequired::new().elicit("topic", "Which topic?", form)?.into());
    }
    let topic = ctx.accepted::<Topic>("topic").map_or_else(|| "anything".to_owned(), |t| t.topic);
    Ok(Flow::Complete(format!("Write about {topic}")))
}

/// `everything --help`.
const HELP: Help = Help {
    usage: "everything [--help]",
    serves: "The MCP conformance suite's fixture server: every test_* tool, resource and prompt the suite drives\n\
             (content kinds, errors, progress, logging, sampling, elicitation, input-required rounds, list\n\
             changes, JSON Schema 2020-12), the tasks tools (greet, slow_compute, failing_job, confirm_delete,\n\
             ...), the resources test://static-text, test://static-binary, test://template/{id}/data and\n\
             test://watched-resource, and the hand-built flows handwritten_opinion and handwritten_topic.",
    transports: RUN_TRANSPORTS,
    env: &[RUN_ENV, LOG_ENV],
};

#[tokio::main]
async fn main() -> fastmcp::Result<()> {
    HELP.check_args();
    FastMcp::new("everything")
        .version(env!("CARGO_PKG_VERSION"))
        .instructions("The MCP conformance suite's fixture server: every test_* tool, resource and prompt.")
        .tool(test_simple_text)
        .tool(test_image_content)
        .tool(test_audio_content)
        .tool(test_embedded_resource)
        .tool(test_multiple_content_types)
        .tool(test_error_handling)
        .tool(test_tool_with_progress)
        .tool(test_tool_with_logging)
        .tool(test_logging_tool)
        .tool(test_custom_header)
        .tool(test_reconnection)
        .tool(test_trigger_tool_change)
        .tool(test_trigger_prompt_change)
        .tool(test_sampling)
        .tool(test_elicitation)
        .tool(test_elicitation_sep1034_defaults)
        .tool(test_elicitation_sep1330_enums)
        .tool(test_missing_capability)
        .tool(test_streaming_elicitation)
        .tool(test_input_required_result_elicitation)
        .tool(test_input_required_result_sampling)
        .tool(test_input_required_result_list_roots)
        .tool(test_input_required_result_request_state)
        .tool(test_input_required_result_multiple_inputs)
        .tool(test_input_required_result_multi_round)
        .tool(test_input_required_result_tampered_state)
        .tool(test_input_required_result_capabilities)
        .tool(JsonSchema2020Tool)
        .tool(HandwrittenOpinion)
        .tool(tasks::greet)
        .tool(tasks::slow_compute)
        .tool(tasks::failing_job)
        .tool(tasks::protocol_error_job)
        .tool(tasks::confirm_delete)
        .tool(tasks::multi_input)
        .tool(tasks::test_tool_with_task)
        .resource(static_text)
        .resource(static_binary)
        .resource(template_data)
        .resource(watched_resource)
        .prompt(test_simple_prompt)
        .prompt(test_prompt_with_arguments)
        .prompt(test_prompt_with_embedded_resource)
        .prompt(test_prompt_with_image)
        .prompt(test_input_required_result_prompt)
        .prompt(handwritten_topic)
        .run()
        .await
}
