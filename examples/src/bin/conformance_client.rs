//! fastmcp's client as the official conformance suite's client mode runs it: `conformance client --command
//! "conformance-client"` starts a mock server per scenario and runs `conformance-client <server-url>` with
//! `MCP_CONFORMANCE_SCENARIO` (and `MCP_CONFORMANCE_PROTOCOL_VERSION`, `MCP_CONFORMANCE_CONTEXT`) set.
//!
//! Every scenario goes through the ordinary client: the era from the protocol version the suite names,
//! handlers for forms (accepted with the schema's defaults), sampling and roots, and for `auth/*` the
//! OAuth client — its authorization step "opens" the URL by fetching it and reading the redirect, as the
//! suite's authorization server approves at once.

use fastmcp::client::{
    Algorithm, Assertion, AuthorizationCode, Client, ClientBuilder, ClientError, ClientMetadata, EraChoice,
    IdentityProvider, OAuth, OAuthConfig, SigningKey,
};
use fastmcp::protocol::{CreateMessageResult, ElicitResult, JsonObject, Tool};
use fastmcp_examples::cli::{Help, LOG_ENV};
use serde_json::{Value, json};

/// A client ID metadata document the suite's authorization servers accept (they do not fetch it).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";
const REDIRECT_URI: &str = "http://localhost:3000/callback";

/// `conformance-client --help`.
const HELP: Help = Help {
    usage: "conformance-client <server-url>, or conformance-client --help",
    serves: "Not a server: fastmcp's client, as the conformance suite's client mode runs it\n\
             (`conformance client --command conformance-client`). It connects to <server-url>, the suite's mock\n\
             server, and plays the scenario MCP_CONFORMANCE_SCENARIO names.",
    transports: "Streamable HTTP, as a client",
    env: &[
        &[
            ("MCP_CONFORMANCE_SCENARIO", "the scenario to play (set by the suite)"),
            ("MCP_CONFORMANCE_PROTOCOL_VERSION", "the protocol revision to speak (default 2025-11-25)"),
            ("MCP_CONFORMANCE_CONTEXT", "JSON: the credentials an auth/* scenario hands over"),
        ],
        LOG_ENV,
    ],
};

#[tokio::main]
async fn main() {
    // The suite passes a URL first, never a flag: `--help` there cannot collide with a scenario.
    if matches!(std::env::args().nth(1).as_deref(), Some("--help" | "-h")) {
        HELP.exit_with_help();
    }
    fastmcp::init_tracing();
    let Some(url) = std::env::args().nth(1) else {
        eprintln!("usage: conformance-client <server-url> (with MCP_CONFORMANCE_SCENARIO set); see --help");
        std::process::exit(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    if let Err(e) = run(&scenario, &url).await {
        eprintln!("conformance-client: {scenario}: {e}");
        std::process::exit(1);
    }
}

async fn run(scenario: &str, url: &str) -> Result<(), ClientError> {
    let client = connect(scenario, url).await?;
    let tools = client.list_tools().await?;
    match scenario {
        // Listing is the whole scenario: nothing in the schema (its network `$ref`) may be fetched.
        "json-schema-ref-no-deref" | "request-metadata" => {}
        "tools_call" | "tools-call" | "initialize" => {
            if let Some(tool) = tools.first() {
                client.call_tool(&tool.name, json!({"a": 2, "b": 3})).await?;
            }
        }
        "sep-2322-client-request-state" => {
            // The unrelated call runs while the first is between rounds: its params must carry nothing of it.
            let (echo, unrelated) = tokio::join!(
                client.call_tool("test_mrtr_echo_state", json!({})),
                client.call_tool("test_mrtr_unrelated", json!({})),
            );
            echo?;
            unrelated?;
            client.call_tool("test_mrtr_no_state", json!({})).await?;
            if tools.iter().any(|t| t.name == "test_mrtr_no_result_type") {
                client.call_tool("test_mrtr_no_result_type", json!({})).await?;
            }
        }
        "sse-retry" => {
            client.call_tool("test_reconnection", json!({})).await?;
        }
        "http-custom-headers" => {
            // Values of every kind a header carries, plain or Base64; and a null argument, which gets no header.
            let arguments = json!({
                "region": "us-west-1", "priority": 5, "verbose": true, "debug": false, "empty_val": "",
                "method_val": "POST", "non_ascii_val": "日本語", "whitespace_val": " padded ",
                "leading_space_val": " leading", "trailing_space_val": "trailing ", "internal_space_val": "a b c",
                "control_char_val": "bell\u{7}", "crlf_val": "line\r\nbreak", "tab_val": "\ttab", "query": "q",
            });
            client.call_tool("test_custom_headers", arguments).await?;
            let nulls = json!({"region": "eu-west-1", "priority": 1, "verbose": null, "query": "q"});
            client.call_tool("test_custom_headers_null", nulls).await?;
        }
        "json-schema-2020-12-preservation" => {
            // The schema goes back as it was listed: nothing of 2020-12 lost on the way through the client.
            let focal = tools.iter().find(|t| t.name == "json_schema_2020_12_tool");
            let schema = focal.map(|t| Value::Object(t.input_schema.clone())).unwrap_or_default();
            client.call_tool("json_schema_echo", json!({ "schema": schema })).await?;
        }
        _ if scenario.starts_with("auth/") => {
            if let Some(tool) = tools.iter().find(|t| t.name == "test-tool").or(tools.first()) {
                client.call_tool(&tool.name, arguments_for(tool)).await?;
            }
        }
        // The rest (elicitation defaults, standard and custom headers, invalid tool headers…): every tool
        // the client kept, with arguments made from its schema.
        _ => {
            for tool in &tools {
                client.call_tool(&tool.name, arguments_for(tool)).await?;
            }
        }
    }
    client.close().await;
    Ok(())
}

async fn connect(scenario: &str, url: &str) -> Result<Client, ClientError> {
    let version = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").unwrap_or_else(|_| "2025-11-25".into());
    let era = if version == "2026-07-28" { EraChoice::Modern } else { EraChoice::Legacy };
    let mut builder = ClientBuilder::new("fastmcp-conformance-client", env!("CARGO_PKG_VERSION"))
        .era(era)
        // Accept with nothing filled in: the client fills each field from the schema's default (SEP-1034).
        .on_elicit(|_| async { Ok(ElicitResult::accept(JsonObject::new())) })
        .on_sample(|_| async { Ok(CreateMessageResult::text("conformance-model", "sampled")) })
        .roots([]);
    if scenario.starts_with("auth/") {
        builder = builder.authorizer(OAuth::new(oauth_config(scenario)?));
    }
    builder.http(url).await
}

/// The OAuth client for an `auth/*` scenario: the credentials the suite hands over in its context (a
/// pre-registered client, client credentials with a secret or a private key, a workload's JWT, an
/// enterprise IdP and the user's ID token there), else a client ID metadata document where the server
/// supports one and dynamic registration where it doesn't.
fn oauth_config(scenario: &str) -> Result<OAuthConfig, ClientError> {
    let context: Value =
        std::env::var("MCP_CONFORMANCE_CONTEXT").ok().and_then(|c| serde_json::from_str(&c).ok()).unwrap_or_default();
    let field = |name: &str| context.get(name).and_then(Value::as_str).map(str::to_owned);
    let required =
        |name: &str| field(name).ok_or_else(|| ClientError::Auth(format!("MCP_CONFORMANCE_CONTEXT has no `{name}`")));
    match scenario {
        // private_key_jwt: the key as PKCS#8 PEM, and the algorithm it signs with.
        "auth/client-credentials-jwt" => {
            let algorithm: Algorithm = required("signing_algorithm")?
                .parse()
                .map_err(|e| ClientError::Auth(format!("signing_algorithm: {e}")))?;
            let key = SigningKey::from_pem(algorithm, &required("private_key_pem")?)?;
            return Ok(OAuthConfig::client_credentials_jwt(required("client_id")?, key));
        }
        // Workload identity federation: the platform's JWT is the grant, no registration needed.
        "auth/wif-jwt-bearer" => return Ok(OAuthConfig::jwt_bearer(Assertion::fixed(required("valid_jwt")?))),
        // SEP-990: the ID token exchanged at the IdP for an ID-JAG; the client pre-registered with the MCP
        // server's authorization server.
        "auth/enterprise-managed-authorization" => {
            let id_token = Assertion::fixed(required("idp_id_token")?);
            let idp = IdentityProvider::new(required("idp_issuer")?, required("idp_client_id")?, id_token);
            let config = OAuthConfig::enterprise(idp).client_id(required("client_id")?);
            return Ok(config.client_secret(required("client_secret")?));
        }
        _ => {}
    }
    if scenario.starts_with("auth/client-credentials")
        && let (Some(id), Some(secret)) = (field("client_id"), field("client_secret"))
    {
        return Ok(OAuthConfig::client_credentials(id, secret));
    }
    let mut config = OAuthConfig::authorization_code(AuthorizationCode::headless(REDIRECT_URI));
    match (field("client_id"), field("client_secret")) {
        (Some(id), secret) => {
            config = config.client_id(id);
            if let Some(secret) = secret {
                config = config.client_secret(secret);
            }
        }
        (None, _) => {
            config = config
                .client_metadata_document(CLIENT_METADATA_URL)
                .dynamic_registration(ClientMetadata::new("fastmcp-conformance-client"));
        }
    }
    Ok(config)
}

/// Arguments for a tool from its input schema: each property's default, else a value of its type.
fn arguments_for(tool: &Tool) -> Value {
    let properties = tool.input_schema.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
    let arguments: JsonObject = properties
        .into_iter()
        .map(|(name, schema)| {
            let value = schema.get("default").cloned().unwrap_or_else(|| example(&schema));
            (name, value)
        })
        .collect();
    Value::Object(arguments)
}

fn example(schema: &Value) -> Value {
    if let Some(first) = schema.get("enum").and_then(Value::as_array).and_then(|e| e.first()) {
        return first.clone();
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("integer") => json!(42),
        Some("number") => json!(3.5),
        Some("boolean") => json!(true),
        Some("array") => json!([]),
        Some("object") => json!({}),
        Some("null") => Value::Null,
        _ => json!("conformance"),
    }
}
