//! Middleware around dispatch: the `layered` bin (a real process over stdio, in both eras) shows that a
//! middleware sees every round — a modern flow's retry and a legacy shim's re-entry alike — can change a
//! tool's arguments and can answer a call itself; the built-ins (rate limit per caller, size limit, error
//! normalisation, caching by the results' hints, logging) run in servers built here, over HTTP, driven by
//! the Rust client in both eras.

use fastmcp::FastMcp;
use fastmcp::client::{Client, ClientBuilder, EraChoice};
use fastmcp::middleware::{Caching, Logging, NormalizeErrors, RateLimit, SizeLimit};
use fastmcp::prelude::*;
use fastmcp::protocol::{CacheScope, ErrorObject};
use fastmcp_tests::{InProcess, StdioClient, first_text, modern_meta, serve_in_process};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

fn layered() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_layered"))
}

fn call(name: &str, arguments: Value) -> Value {
    json!({"name": name, "arguments": arguments})
}

const CONFIRMED: &str = r#"{"action": "accept", "content": {"confirm": true}}"#;

/// What the recorder saw since last asked.
async fn rounds(c: &mut StdioClient, modern: bool) -> Vec<String> {
    let response = if modern {
        c.modern("tools/call", call("rounds", json!({}))).await
    } else {
        c.request("tools/call", call("rounds", json!({}))).await
    };
    let text = first_text(&response["result"]).to_owned();
    text.lines().map(str::to_owned).collect()
}

#[tokio::test]
async fn every_round_goes_through_the_chain_in_both_eras() {
    let expected = ["tools/call confirm_deploy: suspended", "tools/call confirm_deploy (retry): answered"];

    // Modern: the retry is a request of its own.
    let mut c = StdioClient::spawn(layered());
    let meta = modern_meta(json!({"elicitation": {}}));
    let first = c.request("tools/call", json!({"name": "confirm_deploy", "arguments": {}, "_meta": meta})).await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let key = result["inputRequests"].as_object().unwrap().keys().next().unwrap().clone();
    let answers: Value = json!({ key: serde_json::from_str::<Value>(CONFIRMED).unwrap() });
    let retry = json!({"name": "confirm_deploy", "arguments": {}, "_meta": meta,
        "inputResponses": answers, "requestState": result["requestState"]});
    let done = c.request("tools/call", retry).await;
    assert_eq!(first_text(&done["result"]), "deployed", "{done}");
    assert_eq!(rounds(&mut c, true).await, expected);
    c.close().await;

    // Legacy: one request, the shim's second round inside it — seen the same way.
    let mut c = StdioClient::spawn(layered());
    c.initialize_declaring("2025-11-25", json!({"elicitation": {}})).await;
    let (done, asked) = c
        .request_answering("tools/call", call("confirm_deploy", json!({})), |_| {
            Ok(serde_json::from_str(CONFIRMED).unwrap())
        })
        .await;
    assert_eq!(asked.len(), 1, "one question: {asked:?}");
    assert_eq!(first_text(&done["result"]), "deployed", "{done}");
    assert_eq!(rounds(&mut c, false).await, expected);
    c.close().await;
}

#[tokio::test]
async fn a_middleware_changes_arguments_and_answers_calls_itself() {
    for modern in [true, false] {
        let mut c = StdioClient::spawn(layered());
        let ask = async |c: &mut StdioClient, name: &str, arguments: Value| {
            if modern {
                c.modern("tools/call", call(name, arguments)).await
            } else {
                c.request("tools/call", call(name, arguments)).await
            }
        };
        if !modern {
            c.initialize("2025-11-25").await;
        }
        let shouted = ask(&mut c, "shout", json!({"text": "hello"})).await;
        assert_eq!(first_text(&shouted["result"]), "HELLO", "modern {modern}: {shouted}");
        // The gate's own failure is what any runtime failure of a tool is: an `isError` result.
        let gated = ask(&mut c, "forbidden", json!({})).await;
        assert_eq!(gated["result"]["isError"], true, "modern {modern}: {gated}");
        assert_eq!(first_text(&gated["result"]), "forbidden by the gate");
        assert_eq!(
            rounds(&mut c, modern).await,
            ["tools/call shout: answered", "tools/call forbidden: answered"],
            "modern {modern}"
        );
        c.close().await;
    }
}

// ---- the built-ins, in servers built here -----------------------------------------------------------

static READS: AtomicUsize = AtomicUsize::new(0);

/// Read once a minute at most, by anyone.
#[resource("counter://reads", ttl = "60s", cache_scope = "public")]
async fn reads() -> String {
    format!("read {} times", READS.fetch_add(1, Ordering::SeqCst) + 1)
}

/// A lot of text.
#[tool]
async fn big(bytes: usize) -> String {
    "x".repeat(bytes)
}

/// Says hi.
#[tool]
async fn hi() -> String {
    "hi".into()
}

/// Fails with an application's own code.
#[prompt]
async fn broken() -> Result<String, Error> {
    Err(Error::rpc(ErrorObject::new(-32099, "the prompt store is down")))
}

async fn serve(server: FastMcp) -> InProcess {
    serve_in_process(server.build().expect("the server builds")).await
}

async fn clients(served: &InProcess) -> [Client; 2] {
    let connect = |era| ClientBuilder::new("t", "0").era(era).connect(&served.url);
    [connect(EraChoice::Modern).await.unwrap(), connect(EraChoice::Legacy).await.unwrap()]
}

#[tokio::test]
async fn a_rate_limit_refuses_the_round_over_it_with_when_to_come_back() {
    let served =
        serve(FastMcp::new("limited").tool(hi).middleware(RateLimit::per_principal(3, Duration::from_secs(60)))).await;
    let [modern, legacy] = clients(&served).await;
    // Every unauthenticated caller shares one window: three rounds in all, whichever era.
    assert!(modern.call_tool("hi", json!({})).await.is_ok());
    assert!(legacy.call_tool("hi", json!({})).await.is_ok());
    assert!(modern.list_tools().await.is_ok());
    for client in [&modern, &legacy] {
        let refused = client.call_tool("hi", json!({})).await.unwrap_err();
        let e = refused.rpc().unwrap_or_else(|| panic!("a JSON-RPC error: {refused:?}"));
        assert_eq!((e.code, e.message.as_str()), (-32600, "Rate limit exceeded"), "{:?}", client.era());
        let wait = e.data.as_ref().and_then(|d| d["retryAfterMs"].as_u64()).expect("retryAfterMs");
        assert!(wait > 0 && wait <= 60_000, "{wait}");
    }
}

#[tokio::test]
async fn a_size_limit_and_error_normalisation() {
    let server = FastMcp::new("bounded")
        .tool(big)
        .prompt(broken)
        .middleware(Logging)
        .middleware(NormalizeErrors)
        .middleware(SizeLimit { max_bytes: 1_000 });
    let served = serve(server).await;
    for client in clients(&served).await {
        let era = client.era();
        assert!(client.call_tool("big", json!({"bytes": 100})).await.is_ok(), "{era:?}");
        let refused = client.call_tool("big", json!({"bytes": 5_000})).await.unwrap_or_else(|e| panic!("{era:?}: {e}"));
        // NormalizeErrors (outside SizeLimit) makes the tool's error a result the model can read.
        assert_eq!(refused.is_error, Some(true), "{era:?}: {refused:?}");
        let text: String = refused.content.iter().filter_map(|c| c.as_text()).collect();
        assert!(text.starts_with("Response size (") && text.ends_with("exceeds limit (1000 bytes)"), "{text}");
        let no_args: [(&str, &str); 0] = [];
        let failed = client.get_prompt("broken", no_args).await.unwrap_err();
        let e = failed.rpc().unwrap_or_else(|| panic!("{era:?}: a JSON-RPC error: {failed:?}"));
        assert_eq!((e.code, e.message.as_str()), (-32603, "the prompt store is down"), "{era:?}");
    }
}

#[tokio::test]
async fn caching_answers_repeats_for_as_long_as_the_hint_allows() {
    let server = FastMcp::new("cached").resource(reads).middleware(Caching::new(100)).build().unwrap();
    let served = serve_in_process(server.clone()).await;
    let [modern, legacy] = clients(&served).await;
    let read = async |client: &Client| {
        let result = client.read_resource("counter://reads").await.unwrap();
        serde_json::to_value(&result).unwrap()["contents"][0]["text"].as_str().unwrap().to_owned()
    };
    assert_eq!(read(&modern).await, "read 1 times");
    // Public: kept for every caller and era, the handler not run again.
    assert_eq!(read(&modern).await, "read 1 times");
    assert_eq!(read(&legacy).await, "read 1 times");
    assert_eq!(READS.load(Ordering::SeqCst), 1);
    // What the cached answer says: the time it has left, and its scope.
    let raw = fastmcp_tests::send_http(
        served.addr,
        "POST",
        "/mcp",
        &[
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "resources/read"),
            ("Mcp-Name", "counter://reads"),
        ],
        &json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read",
            "params": {"uri": "counter://reads", "_meta": modern_meta(json!({}))}})
        .to_string(),
    )
    .await;
    let result = raw.json()["result"].clone();
    assert_eq!(result["cacheScope"], json!(CacheScope::Public), "{result}");
    let ttl = result["ttlMs"].as_u64().expect("ttlMs");
    assert!(ttl > 0 && ttl <= 60_000, "{ttl}");
    // The server says the resource changed: what was kept is stale, for the cache as for its clients.
    server.notify_resource_updated("counter://reads");
    assert_eq!(read(&modern).await, "read 2 times");
    assert_eq!(read(&legacy).await, "read 2 times");
}

static PRIVATE_READS: AtomicUsize = AtomicUsize::new(0);

/// Whose read this is (a protected server makes every result private).
#[resource("whoami://me", ttl = "60s")]
async fn me(ctx: Context) -> String {
    let n = PRIVATE_READS.fetch_add(1, Ordering::SeqCst) + 1;
    let who = ctx.auth().and_then(|t| t.subject.clone()).unwrap_or_default();
    format!("{who} (read {n})")
}

#[tokio::test]
async fn caching_keeps_a_private_answer_per_caller() {
    use fastmcp::auth::{AccessToken, ProtectedResource, StaticTokens};
    use fastmcp::client::BearerToken;
    let tokens = StaticTokens::new()
        .token("alice-token", AccessToken::new().issuer("test").subject("alice"))
        .token("bob-token", AccessToken::new().issuer("test").subject("bob"));
    let server = FastMcp::new("private")
        .resource(me)
        .auth(ProtectedResource::new(tokens).authorization_server("https://as.example"))
        .middleware(Caching::new(100));
    let served = serve(server).await;
    let as_caller = async |token: &str| {
        let client = ClientBuilder::new("t", "0")
            .era(EraChoice::Modern)
            .authorizer(BearerToken(token.to_owned()))
            .connect(&served.url)
            .await
            .unwrap();
        let result = client.read_resource("whoami://me").await.unwrap();
        client.close().await;
        serde_json::to_value(&result).unwrap()["contents"][0]["text"].as_str().unwrap().to_owned()
    };
    assert_eq!(as_caller("alice-token").await, "alice (read 1)");
    assert_eq!(as_caller("alice-token").await, "alice (read 1)", "alice's own answer, kept");
    assert_eq!(as_caller("bob-token").await, "bob (read 2)", "never another caller's");
    assert_eq!(as_caller("bob-token").await, "bob (read 2)");
}
