//! What `#[tool]`, `#[prompt]` and `#[resource]` generate, driven through the handler traits directly:
//! definitions (schemas, descriptions, annotations, arguments) and calls (arguments in, results out, errors).

use fastmcp::auth::{AccessToken, Denied, Refusal};
use fastmcp::context::Scope;
use fastmcp::flow::Step;
use fastmcp::handler::{
    CompletionQuery, PromptGet, PromptHandler, ResourceDefinition, ResourceHandler, ResourceRead, ToolCall, ToolHandler,
};
use fastmcp::prelude::*;
use fastmcp::protocol::{CallToolResult, ClientCapabilities, Completion, Era, ProtocolVersion, RequestId};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use std::collections::BTreeMap;

// ---- helpers -------------------------------------------------------------------------------------------

fn ctx() -> Context {
    Context::new(Scope {
        request_id: RequestId::Number(7),
        protocol_version: ProtocolVersion::V2025_06_18,
        client_info: None,
        client_capabilities: ClientCapabilities::default(),
    })
}

async fn call(tool: impl ToolHandler, arguments: Option<Value>) -> CallToolResult {
    let raw = arguments.map(|v| RawValue::from_string(v.to_string()).expect("valid JSON"));
    match tool.call(ToolCall::new(raw, ctx())).await {
        Ok(Step::Complete(result)) => result,
        Ok(Step::Suspend(_)) => panic!("unexpected input_required"),
        Err(e) => panic!("protocol error: {e}"),
    }
}

fn text(result: &CallToolResult) -> String {
    let v = serde_json::to_value(result).expect("serializes");
    v["content"][0]["text"].as_str().unwrap_or_default().to_owned()
}

fn definition(tool: &impl ToolHandler) -> Value {
    serde_json::to_value(tool.definition()).expect("serializes")
}

fn args(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
}

async fn get(prompt: impl PromptHandler, pairs: &[(&str, &str)]) -> Result<GetPromptResult, Error> {
    match prompt.get(PromptGet::new("ignored", args(pairs), ctx())).await? {
        Step::Complete(r) => Ok(r),
        Step::Suspend(_) => panic!("unexpected input_required"),
    }
}

async fn read(resource: impl ResourceHandler, uri: &str, vars: &[(&str, &str)]) -> Result<Value, Error> {
    match resource.read(ResourceRead::new(uri, args(vars), ctx())).await? {
        Step::Complete(r) => Ok(serde_json::to_value(r).expect("serializes")),
        Step::Suspend(_) => panic!("unexpected input_required"),
    }
}

fn query(argument: &str, value: &str) -> CompletionQuery {
    CompletionQuery { argument: argument.into(), value: value.into(), context: BTreeMap::new() }
}

// ---- tools ---------------------------------------------------------------------------------------------

/// Greet someone.
///
/// Politely.
#[tool(read_only, idempotent = true, open_world = false)]
async fn greet(
    /// Who to greet.
    name: String,
    /// How many exclamation marks.
    /// At most ten.
    excitement: Option<u8>,
    ctx: Context,
) -> String {
    let era = match ctx.era() {
        Era::Legacy => "legacy",
        Era::Modern => "modern",
    };
    format!("Hello, {name}{} ({era})", "!".repeat(excitement.unwrap_or(1).into()))
}

#[tokio::test]
async fn tool_definition_from_signature_and_docs() {
    let def = definition(&greet);
    assert_eq!(def["name"], "greet");
    assert_eq!(def["description"], "Greet someone.\n\nPolitely.");
    assert_eq!(def["annotations"], json!({ "readOnlyHint": true, "idempotentHint": true, "openWorldHint": false }));
    assert!(def.get("title").is_none());
    assert!(def.get("outputSchema").is_none());

    let schema = &def["inputSchema"];
    assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
    assert!(schema.get("title").is_none(), "no root title: {schema}");
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["required"], json!(["name"]));
    let props = schema["properties"].as_object().expect("properties");
    assert_eq!(props.keys().collect::<Vec<_>>(), ["name", "excitement"], "context is not a property");
    assert_eq!(props["name"], json!({ "type": "string", "description": "Who to greet." }));
    assert_eq!(props["excitement"]["description"], "How many exclamation marks.\nAt most ten.");
    assert_eq!(props["excitement"]["type"], json!(["integer", "null"]));
}

#[tokio::test]
async fn tool_call_parses_arguments_and_passes_context() {
    let out = call(greet, Some(json!({ "name": "Ada", "excitement": 3 }))).await;
    assert_eq!(text(&out), "Hello, Ada!!! (legacy)");
    assert_eq!(out.is_error, None);
    let out = call(greet, Some(json!({ "name": "Bo" }))).await;
    assert_eq!(text(&out), "Hello, Bo! (legacy)", "an absent Option is None");
}

#[tokio::test]
async fn invoke_is_the_fn_itself() {
    assert_eq!(greet::invoke("Cy".into(), Some(2), ctx()).await, "Hello, Cy!! (legacy)");
}

#[tokio::test]
async fn bad_arguments_are_an_is_error_result_naming_the_tool() {
    for arguments in [None, Some(json!({})), Some(json!({ "name": 5 })), Some(json!({ "name": "x", "excitement": -1 }))]
    {
        let out = call(greet, arguments.clone()).await;
        assert_eq!(out.is_error, Some(true), "{arguments:?}");
        assert!(text(&out).starts_with("Invalid arguments for tool `greet`: "), "{}", text(&out));
    }
    assert!(text(&call(greet, Some(json!({}))).await).contains("missing field `name`"));
}

// ---- parameters are what their types say, not their names -------------------------------------------

mod own {
    use schemars::JsonSchema;
    use serde::Deserialize;

    /// The user's own type, named like the runtime's.
    #[derive(Debug, Deserialize, JsonSchema)]
    pub struct Context {
        pub tenant: String,
    }

    /// Greet within a tenant.
    #[fastmcp::tool]
    pub async fn tenant_greeting(ctx: Context, name: String) -> String {
        format!("{}: hello {name}", ctx.tenant)
    }
}

#[tokio::test]
async fn a_type_of_the_users_named_context_is_an_argument() {
    let def = definition(&own::tenant_greeting);
    let schema = &def["inputSchema"];
    assert_eq!(schema["required"], json!(["ctx", "name"]));
    assert_eq!(schema["properties"]["ctx"], json!({ "$ref": "#/$defs/Context" }));
    assert_eq!(schema["$defs"]["Context"]["properties"]["tenant"], json!({ "type": "string" }));
    let out = call(own::tenant_greeting, Some(json!({ "ctx": { "tenant": "acme" }, "name": "Bo" }))).await;
    assert_eq!(text(&out), "acme: hello Bo");
    let out = call(own::tenant_greeting, Some(json!({ "name": "Bo" }))).await;
    assert!(text(&out).contains("missing field `ctx`"), "{}", text(&out));
}

fn three() -> u32 {
    3
}

/// A parameter's own attributes may name functions of its type.
#[tool]
async fn with_default(#[serde(default = "three")] n: u32, _ctx: &Context) -> String {
    n.to_string()
}

#[tokio::test]
async fn a_parameters_serde_attributes_keep_its_type() {
    assert_eq!(definition(&with_default)["inputSchema"]["properties"]["n"]["default"], 3);
    assert_eq!(text(&call(with_default, Some(json!({}))).await), "3");
    assert_eq!(text(&call(with_default, Some(json!({ "n": 5 }))).await), "5");
}

mod renamed {
    use fastmcp::Context as Ctx;

    /// Greet, with the request's context under another name.
    #[fastmcp::tool]
    pub async fn who(ctx: Ctx, again: &Ctx, name: String) -> String {
        format!("{name} {:?} {:?}", ctx.request_id(), again.request_id())
    }
}

#[tokio::test]
async fn the_runtimes_context_under_another_name_is_supplied() {
    let schema = &definition(&renamed::who)["inputSchema"];
    assert_eq!(schema["properties"], json!({ "name": { "type": "string" } }), "the context is not a property");
    assert_eq!(schema["required"], json!(["name"]));
    let out = call(renamed::who, Some(json!({ "name": "Bo", "ctx": "ignored, as any unknown key" }))).await;
    assert_eq!(text(&out), "Bo Number(7) Number(7)");
}

#[derive(Debug, Deserialize, JsonSchema)]
struct SearchQuery {
    /// Text to look for.
    text: String,
    #[serde(default = "ten")]
    limit: u32,
}

fn ten() -> u32 {
    10
}

#[derive(Debug, Serialize, JsonSchema)]
struct Hits {
    total: u32,
    first: Option<String>,
}

/// Search the index.
#[tool(name = "index.search", title = "Search")]
async fn search(Args(query): Args<SearchQuery>, _ctx: &Context) -> Json<Hits> {
    Json(Hits { total: query.limit, first: Some(query.text) })
}

#[tokio::test]
async fn args_struct_is_the_input_schema_and_json_is_structured() {
    let def = definition(&search);
    assert_eq!(def["name"], "index.search");
    assert_eq!(def["title"], "Search");
    assert_eq!(def["inputSchema"]["required"], json!(["text"]));
    assert_eq!(def["inputSchema"]["properties"]["text"]["description"], "Text to look for.");
    assert!(def["inputSchema"].get("title").is_none());
    let output = &def["outputSchema"];
    assert_eq!(output["type"], "object");
    assert_eq!(output["properties"]["total"]["type"], "integer");
    assert!(def.get("annotations").is_none(), "no annotation was set");

    let out = call(search, Some(json!({ "text": "rust" }))).await;
    assert_eq!(out.structured_content.as_deref(), Some(&json!({ "total": 10, "first": "rust" })));
    assert_eq!(serde_json::from_str::<Value>(&text(&out)).ok().as_ref(), out.structured_content.as_deref());

    let out = call(search, Some(json!({ "limit": 1 }))).await;
    assert_eq!(out.is_error, Some(true));
    assert!(text(&out).contains("Invalid arguments for tool `index.search`"));
}

/// Divide two numbers.
#[tool(destructive = false)]
async fn divide(a: f64, b: f64) -> Result<Json<f64>, String> {
    if b == 0.0 { Err("division by zero".into()) } else { Ok(Json(a / b)) }
}

#[tokio::test]
async fn err_is_an_is_error_result_with_the_message() {
    let def = definition(&divide);
    assert_eq!(def["annotations"], json!({ "destructiveHint": false }));
    assert_eq!(def["outputSchema"]["properties"]["result"]["type"], "number", "a number is wrapped");
    let out = call(divide, Some(json!({ "a": 1.0, "b": 0.0 }))).await;
    assert_eq!(out.is_error, Some(true));
    assert_eq!(text(&out), "division by zero");
    let out = call(divide, Some(json!({ "a": 1.0, "b": 4.0 }))).await;
    assert_eq!(out.is_error, None);
    assert_eq!(text(&out), "0.25");
}

#[tool]
async fn nothing() {}

#[tool(description = "Overrides the docs.")]
/// Not this.
async fn r#type(
    #[serde(default)]
    #[schemars(range(max = 3))]
    count: u8,
    mut r#loop: Vec<String>,
) -> String {
    r#loop.push(count.to_string());
    r#loop.join(",")
}

#[tokio::test]
async fn no_params_no_return_raw_idents_and_forwarded_attributes() {
    let def = definition(&nothing);
    assert_eq!(def["inputSchema"]["type"], "object");
    assert_eq!(def["inputSchema"]["properties"], json!({}));
    assert!(def.get("description").is_none());
    let out = call(nothing, None).await;
    assert!(out.content.is_empty());
    assert_eq!(out.is_error, None);

    let def = definition(&r#type);
    assert_eq!(def["name"], "type");
    assert_eq!(def["description"], "Overrides the docs.");
    assert_eq!(def["inputSchema"]["required"], json!(["loop"]), "#[serde(default)] made `count` optional");
    assert_eq!(def["inputSchema"]["properties"]["count"]["maximum"], 3);
    let out = call(r#type, Some(json!({ "loop": ["a"] }))).await;
    assert_eq!(text(&out), "a,0");
}

// ---- prompts -------------------------------------------------------------------------------------------

/// Explain some code.
#[prompt(title = "Explain")]
async fn explain(
    /// The code's language.
    #[complete(["Rust", "Go", "Python", "Ruby"])]
    language: String,
    /// How detailed, 1 to 5.
    #[complete(complete_level)]
    level: Option<u8>,
    ctx: &Context,
) -> String {
    let _ = ctx.request_id();
    format!("Explain this {language} code at level {}.", level.unwrap_or(3))
}

async fn complete_level(query: CompletionQuery) -> Vec<String> {
    (1..=5).map(|n| n.to_string()).filter(|n| n.starts_with(&query.value)).collect()
}

#[tokio::test]
async fn prompt_definition_lists_arguments() {
    let def = serde_json::to_value(explain.definition()).expect("serializes");
    assert_eq!(
        def,
        json!({
            "name": "explain",
            "title": "Explain",
            "description": "Explain some code.",
            "arguments": [
                { "name": "language", "description": "The code's language.", "required": true },
                { "name": "level", "description": "How detailed, 1 to 5.", "required": false },
            ],
        })
    );
}

#[tokio::test]
async fn prompt_get_reads_required_and_optional_arguments() {
    let r = get(explain, &[("language", "Rust"), ("level", "5")]).await.expect("ok");
    assert_eq!(r.description.as_deref(), Some("Explain some code."), "filled from the prompt's docs");
    let v = serde_json::to_value(&r.messages).expect("serializes");
    assert_eq!(
        v,
        json!([{ "role": "user", "content": { "type": "text", "text": "Explain this Rust code at level 5." } }])
    );
    let r = get(explain, &[("language", "Go")]).await.expect("ok");
    assert!(serde_json::to_string(&r).unwrap_or_default().contains("at level 3"));

    let missing = get(explain, &[("level", "1")]).await.expect_err("language is required");
    assert_eq!(missing.code(), Some(-32602));
    assert!(missing.to_string().contains("language"), "{missing}");
    let unparsable = get(explain, &[("language", "Go"), ("level", "high")]).await.expect_err("level is a u8");
    assert_eq!(unparsable.code(), Some(-32602));
}

#[tokio::test]
async fn prompt_completion() {
    let c = explain.complete(query("language", "r")).await.expect("ok");
    assert_eq!(c.values, ["Rust", "Ruby"]);
    let c = explain.complete(query("level", "")).await.expect("ok");
    assert_eq!(c.values, ["1", "2", "3", "4", "5"]);
    let c = explain.complete(query("nope", "")).await.expect("ok");
    assert_eq!(c, Completion::default());
}

/// A fixed greeting.
#[prompt(name = "hello-prompt")]
async fn hello() -> Result<Vec<PromptMessage>> {
    Ok(vec![PromptMessage::user("Hi"), PromptMessage::assistant("Hello!")])
}

#[tokio::test]
async fn prompt_without_arguments_and_with_a_result() {
    let def = serde_json::to_value(hello.definition()).expect("serializes");
    assert_eq!(def["name"], "hello-prompt");
    assert!(def.get("arguments").is_none(), "no arguments: omitted");
    let r = get(hello, &[]).await.expect("ok");
    assert_eq!(r.messages.len(), 2);
    let c = hello.complete(query("x", "")).await.expect("ok");
    assert_eq!(c, Completion::default(), "no completers: the trait's default");
}

// ---- resources -----------------------------------------------------------------------------------------

/// The app's settings.
#[resource("config://app", title = "Settings")]
async fn settings() -> String {
    "debug = true".into()
}

#[derive(Serialize)]
struct User {
    id: u64,
    name: String,
}

/// One user.
#[resource("users://{id}/profile{?verbose}", name = "user-profile", mime_type = "application/vnd.user+json")]
async fn user(#[complete(["1", "2", "10"])] id: u64, verbose: Option<bool>, _ctx: Context) -> Result<Json<User>> {
    if id == 0 {
        return Err(Error::resource_not_found(format!("users://{id}/profile")));
    }
    let name = if verbose == Some(true) { format!("User number {id}") } else { format!("u{id}") };
    Ok(Json(User { id, name }))
}

/// Raw bytes of a file.
#[resource("file:///{+path}")]
async fn file(path: String) -> Vec<u8> {
    path.into_bytes()
}

#[tokio::test]
async fn resource_definitions() {
    let ResourceDefinition::Static(r) = settings.definition() else { panic!("static") };
    assert_eq!(
        serde_json::to_value(r).ok(),
        Some(
            json!({ "uri": "config://app", "name": "settings", "title": "Settings", "description": "The app's settings." })
        )
    );
    let ResourceDefinition::Template(t) = user.definition() else { panic!("template") };
    assert_eq!(
        serde_json::to_value(t).ok(),
        Some(json!({
            "uriTemplate": "users://{id}/profile{?verbose}",
            "name": "user-profile",
            "description": "One user.",
            "mimeType": "application/vnd.user+json",
        }))
    );
    assert!(matches!(file.definition(), ResourceDefinition::Template(t) if t.uri_template == "file:///{+path}"));
}

#[tokio::test]
async fn resource_reads() {
    let v = read(settings, "config://app", &[]).await.expect("ok");
    assert_eq!(v, json!({ "contents": [{ "uri": "config://app", "mimeType": "text/plain", "text": "debug = true" }] }));

    let v = read(user, "users://2/profile", &[("id", "2")]).await.expect("ok");
    assert_eq!(v["contents"][0]["mimeType"], "application/vnd.user+json", "the declared type wins");
    assert_eq!(v["contents"][0]["text"], r#"{"id":2,"name":"u2"}"#);
    let v = read(user, "users://2/profile?verbose=true", &[("id", "2"), ("verbose", "true")]).await.expect("ok");
    assert_eq!(v["contents"][0]["text"], r#"{"id":2,"name":"User number 2"}"#);

    let v = read(file, "file:///a/b.txt", &[("path", "a/b.txt")]).await.expect("ok");
    assert_eq!(
        v,
        json!({ "contents": [{ "uri": "file:///a/b.txt", "mimeType": "application/octet-stream", "blob": "YS9iLnR4dA==" }] })
    );
}

#[tokio::test]
async fn unparsable_template_variables_are_resource_not_found() {
    for vars in [&[("id", "abc")][..], &[("id", "2"), ("verbose", "maybe")], &[]] {
        let e = read(user, "users://abc/profile", vars).await.expect_err("not found");
        let wire = e.to_error_object(Era::Legacy);
        assert_eq!(wire.code, -32002, "{vars:?}");
        assert_eq!(wire.data, Some(json!({ "uri": "users://abc/profile" })));
    }
    let e = read(user, "users://0/profile", &[("id", "0")]).await.expect_err("the handler's own error");
    assert_eq!(e.to_error_object(Era::Modern).code, -32602);
}

#[tokio::test]
async fn resource_completion() {
    let c = user.complete(query("id", "1")).await.expect("ok");
    assert_eq!(c.values, ["1", "10"]);
    let c = user.complete(query("verbose", "")).await.expect("ok");
    assert!(c.values.is_empty());
}

// ---- access ---------------------------------------------------------------------------------------------

mod checks {
    use fastmcp::auth::{AccessToken, Denied};

    /// Only the subject `root`.
    pub fn is_root(token: &AccessToken) -> Result<(), Denied> {
        match token.subject.as_deref() {
            Some("root") => Ok(()),
            _ => Err(Denied::new("only root")),
        }
    }
}

/// Tokens issued by the `ops` client only.
fn from_ops(token: &AccessToken) -> Result<(), Denied> {
    if token.client_id.as_deref() == Some("ops") { Ok(()) } else { Err(Denied::new("not the ops client")) }
}

#[tool(scopes = ["deploy:write", "deploy:read"], auth = checks::is_root)]
async fn guarded_deploy(service: String) -> String {
    service
}

#[prompt(auth = from_ops)]
async fn guarded_prompt() -> String {
    "hi".into()
}

#[resource("vault://{key}", scopes = ["vault:read"], auth = self::checks::is_root)]
async fn guarded_secret(key: String) -> String {
    key
}

#[resource("status://now", scopes = ["status:read"])]
async fn guarded_status() -> String {
    "up".into()
}

#[test]
fn scopes_and_auth_become_the_handlers_access() {
    let tool = ToolHandler::access(&guarded_deploy);
    assert_eq!(tool.scopes(), ["deploy:write", "deploy:read"]);
    let root = AccessToken::new().subject("root");
    let alice = AccessToken::new().subject("alice").scopes(["deploy:read", "deploy:write"]);
    assert_eq!(tool.permits(None), Err(Refusal::Unauthenticated));
    let Err(Refusal::Denied(denied)) = tool.permits(Some(&root)) else { panic!("scopes are checked first") };
    assert_eq!(denied.scopes(), ["deploy:write", "deploy:read"]);
    assert_eq!(tool.permits(Some(&alice)), Err(Refusal::Denied(Denied::new("only root"))), "then the check fn");
    assert_eq!(tool.permits(Some(&root.clone().scopes(["deploy:write", "deploy:read"]))), Ok(()));

    let prompt = PromptHandler::access(&guarded_prompt);
    assert!(prompt.scopes().is_empty() && !prompt.is_public());
    assert_eq!(prompt.permits(None), Err(Refusal::Unauthenticated));
    assert_eq!(prompt.permits(Some(&alice)), Err(Refusal::Denied(Denied::new("not the ops client"))));
    assert_eq!(prompt.permits(Some(&AccessToken::new().client_id("ops"))), Ok(()));

    let template = ResourceHandler::access(&guarded_secret);
    assert_eq!(template.scopes(), ["vault:read"]);
    assert!(template.permits(Some(&alice.clone().scopes(["vault:read"]))).is_err());
    assert_eq!(template.permits(Some(&root.clone().scopes(["vault:read"]))), Ok(()));

    let status = ResourceHandler::access(&guarded_status);
    assert_eq!(status.scopes(), ["status:read"]);
    assert_eq!(status.permits(Some(&alice.clone().scopes(["status:read"]))), Ok(()), "no check fn");
    assert!(status.permits(Some(&alice)).is_err());

    // Without the options, the traits' default.
    assert!(ToolHandler::access(&greet).is_public());
    assert!(PromptHandler::access(&hello).is_public());
    assert!(ResourceHandler::access(&user).is_public());
}

#[tokio::test]
async fn access_options_leave_the_call_alone() {
    // The macro only declares who may call; enforcing it is the server's (the call itself still runs).
    assert_eq!(text(&call(guarded_deploy, Some(json!({ "service": "api" }))).await), "api");
    let v = read(guarded_secret, "vault://k", &[("key", "k")]).await.expect("ok");
    assert_eq!(v["contents"][0]["text"], "k");
}

// ---- registration ---------------------------------------------------------------------------------------

#[test]
fn every_generated_handler_registers() {
    let server = FastMcp::new("macros")
        .tool(greet)
        .tool(search)
        .tool(divide)
        .tool(nothing)
        .tool(r#type)
        .prompt(explain)
        .prompt(hello)
        .resource(settings)
        .resource(user)
        .resource(file)
        .tool(guarded_deploy)
        .prompt(guarded_prompt)
        .resource(guarded_secret)
        .resource(guarded_status)
        .build();
    assert!(server.is_ok(), "{:?}", server.err());
}
