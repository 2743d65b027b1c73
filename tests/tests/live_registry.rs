//! The live registry: tools added, removed, enabled and disabled while the server serves — from a handler
//! through `Context::server` (the `live` bin, a real process over stdio, and over HTTP with the Rust
//! client) and from the `Server` handle (in this process) — each change announced on its own, in every
//! cell that hears list changes: a legacy session's own stream and a modern `subscriptions/listen`
//! stream, on stdio and HTTP. Readers racing a writer see one registry or the next, never half of one.
//! Tags filter what is served. Modern results carry the narrowest cache hint of what they return.

use fastmcp::FastMcp;
use fastmcp::client::{ClientBuilder, EraChoice, ServerNotification};
use fastmcp::protocol::{ListChanged, ListenNotifications};
use fastmcp_tests::{HttpServer, StdioClient, first_text, modern_meta, serve_in_process};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn live() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_live"))
}

const TOOLS_CHANGED: &str = "notifications/tools/list_changed";

fn call(name: &str, arguments: Value) -> Value {
    json!({"name": name, "arguments": arguments})
}

fn names(list: &Value) -> Vec<String> {
    list["result"]["tools"].as_array().expect("tools").iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn a_legacy_stdio_session_sees_each_change_and_is_told_of_it() {
    let mut c = StdioClient::spawn(live());
    c.initialize("2025-11-25").await;
    let before = names(&c.request("tools/list", json!({})).await);
    assert_eq!(before, ["echo", "unlock", "lock", "switch_echo", "admin_only", "beta"]);
    let unknown = c.request("tools/call", call("secret", json!({}))).await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");

    assert_eq!(first_text(&c.request("tools/call", call("unlock", json!({}))).await["result"]), "unlocked");
    c.notification(TOOLS_CHANGED).await;
    let after = names(&c.request("tools/list", json!({})).await);
    assert_eq!(after.last().map(String::as_str), Some("secret"), "added last: {after:?}");
    assert_eq!(first_text(&c.request("tools/call", call("secret", json!({}))).await["result"]), "the secret");

    // Adding it again is an error (a tool of that name is served), and changes nothing.
    let again = c.request("tools/call", call("unlock", json!({}))).await;
    assert_eq!(again["result"]["isError"], true, "{again}");
    assert!(first_text(&again["result"]).contains("a tool named `secret` is registered already"), "{again}");

    assert_eq!(
        first_text(&c.request("tools/call", call("switch_echo", json!({"on": false}))).await["result"]),
        "changed: true"
    );
    c.notification(TOOLS_CHANGED).await;
    assert!(!names(&c.request("tools/list", json!({})).await).contains(&"echo".to_owned()));
    let hidden = c.request("tools/call", call("echo", json!({"text": "x"}))).await;
    assert_eq!(hidden["error"]["code"], -32602, "a disabled tool is unknown: {hidden}");
    // Disabling it twice changes nothing, and says so without a notification.
    assert_eq!(
        first_text(&c.request("tools/call", call("switch_echo", json!({"on": false}))).await["result"]),
        "changed: false"
    );
    assert_eq!(
        first_text(&c.request("tools/call", call("switch_echo", json!({"on": true}))).await["result"]),
        "changed: true"
    );
    c.notification(TOOLS_CHANGED).await;
    assert_eq!(names(&c.request("tools/list", json!({})).await)[0], "echo", "back where it was");

    assert_eq!(first_text(&c.request("tools/call", call("lock", json!({}))).await["result"]), "removed: true");
    c.notification(TOOLS_CHANGED).await;
    assert_eq!(names(&c.request("tools/list", json!({})).await), before);
    // One notification per change: unlock, disable, enable, lock — and none for the two that changed nothing.
    let extra: Vec<Value> = c.drain_notifications().into_iter().filter(|n| n["method"] == TOOLS_CHANGED).collect();
    assert!(extra.is_empty(), "{extra:?}");
    assert!(c.close().await.0.success());
}

#[tokio::test]
async fn a_modern_stdio_listen_stream_is_told_of_a_change() {
    let mut c = StdioClient::spawn(live());
    let listen = json!({"jsonrpc": "2.0", "id": "sub", "method": "subscriptions/listen", "params": {
        "_meta": modern_meta(json!({})), "notifications": {"toolsListChanged": true}}});
    c.send(&listen).await;
    c.notification("notifications/subscriptions/acknowledged").await;
    c.modern("tools/call", call("unlock", json!({}))).await;
    let changed = c.notification(TOOLS_CHANGED).await;
    assert_eq!(changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "sub", "{changed}");
    assert_eq!(names(&c.modern("tools/list", json!({})).await).last().map(String::as_str), Some("secret"));
    assert!(c.close().await.0.success());
}

#[tokio::test]
async fn tags_filter_what_is_served() {
    for (env, served) in [
        (vec![], vec!["admin_only", "beta"]),
        (vec![("FASTMCP_TEST_INCLUDE", "public")], vec!["beta"]),
        (vec![("FASTMCP_TEST_EXCLUDE", "admin")], vec!["beta"]),
        (vec![("FASTMCP_TEST_INCLUDE", "public,admin"), ("FASTMCP_TEST_EXCLUDE", "beta")], vec!["admin_only"]),
    ] {
        let mut c = StdioClient::spawn_with_env(live(), &env);
        let listed = names(&c.modern("tools/list", json!({})).await);
        let tagged: Vec<&str> =
            listed.iter().map(String::as_str).filter(|n| ["admin_only", "beta"].contains(n)).collect();
        assert_eq!(tagged, served, "{env:?}");
        // With an include filter, untagged tools are not served either.
        let untagged_served = listed.contains(&"echo".to_owned());
        assert_eq!(untagged_served, !env.iter().any(|(k, _)| *k == "FASTMCP_TEST_INCLUDE"), "{env:?}: {listed:?}");
        if !served.contains(&"admin_only") {
            let refused = c.modern("tools/call", call("admin_only", json!({}))).await;
            assert_eq!(refused["error"]["code"], -32602, "{env:?}: {refused}");
        }
        c.close().await;
    }
}

/// Over HTTP, in both eras, with the Rust client: a legacy session hears of the change on its standalone
/// stream, a modern client on its listen stream; both then see the new tool.
#[tokio::test]
async fn over_http_both_eras_hear_of_a_change_and_see_it() {
    let server = HttpServer::spawn(live()).await;
    let url = server.url();

    let heard = Arc::new(Mutex::new(Vec::<ListChanged>::new()));
    let seen = heard.clone();
    let legacy = ClientBuilder::new("t", "0")
        .era(EraChoice::Legacy)
        .on_notification(move |n| {
            if let ServerNotification::ListChanged(list) = n {
                seen.lock().unwrap().push(list);
            }
        })
        .connect(&url)
        .await
        .unwrap();
    let modern = ClientBuilder::new("t", "0").era(EraChoice::Modern).connect(&url).await.unwrap();
    let asked = ListenNotifications { tools_list_changed: true, ..Default::default() };
    let mut listening = modern.listen(asked).await.unwrap();
    // The legacy session's standalone stream opens in the background: give it a moment.
    tokio::time::sleep(Duration::from_millis(300)).await;

    assert_eq!(first_text_of(&modern.call_tool("unlock", json!({})).await.unwrap()), "unlocked");
    let note = tokio::time::timeout(Duration::from_secs(5), listening.next()).await.expect("in time");
    assert!(matches!(note, Some(ServerNotification::ListChanged(ListChanged::Tools))), "{note:?}");
    for _ in 0..100 {
        if !heard.lock().unwrap().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(*heard.lock().unwrap(), [ListChanged::Tools]);
    for client in [&legacy, &modern] {
        let tools: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
        assert_eq!(tools.last().map(String::as_str), Some("secret"), "{:?}", client.era());
        assert_eq!(first_text_of(&client.call_tool("secret", json!({})).await.unwrap()), "the secret");
    }
    legacy.close().await;
    modern.close().await;
}

fn first_text_of(result: &fastmcp::protocol::CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text()).collect()
}

/// Numbered tools, for the race below.
struct Numbered(usize);

impl fastmcp::handler::ToolHandler for Numbered {
    fn definition(&self) -> fastmcp::protocol::Tool {
        serde_json::from_value(json!({"name": format!("t{}", self.0), "inputSchema": {"type": "object"}})).unwrap()
    }

    fn call(
        &self,
        _: fastmcp::handler::ToolCall,
    ) -> fastmcp::handler::BoxFuture<fastmcp::handler::HandlerResult<fastmcp::protocol::CallToolResult>> {
        let text = format!("t{}", self.0);
        Box::pin(async move { Ok(fastmcp::flow::Step::Complete(fastmcp::protocol::CallToolResult::text(text))) })
    }
}

/// A writer adds and removes tools from the `Server` handle while readers list (pages of 3) and call: each
/// whole list a reader pages through is one the writer made — a prefix `t0..tN` in order, never with a
/// gap — and a listed tool answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readers_racing_a_writer_see_whole_registries() {
    let server = FastMcp::new("race").tool(Numbered(0)).page_size(3).build().unwrap();
    let served = serve_in_process(server.clone()).await;
    let url = served.url.clone();
    let writer = tokio::spawn({
        let server = server.clone();
        async move {
            for round in 0..20 {
                for n in 1..=8 {
                    server.add_tool(Numbered(n)).unwrap();
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
                for n in (1..=8).rev() {
                    assert!(server.remove_tool(&format!("t{n}")), "round {round}: t{n} was served");
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
            }
        }
    });
    let client = ClientBuilder::new("t", "0").era(EraChoice::Modern).connect(&url).await.unwrap();
    let mut sizes = std::collections::BTreeSet::new();
    while !writer.is_finished() {
        // One page at a time: each page comes from the registry of its own request.
        let page = client.list_tools_page(None).await.unwrap();
        let listed: Vec<String> = page.tools.iter().map(|t| t.name.clone()).collect();
        let expected: Vec<String> = (0..listed.len()).map(|n| format!("t{n}")).collect();
        assert_eq!(listed, expected, "a page is a prefix of some registry, in order");
        sizes.insert(listed.len());
        if let Some(last) = listed.last() {
            match client.call_tool(last, json!({})).await {
                Ok(result) => assert_eq!(&first_text_of(&result), last),
                // Removed since it was listed: unknown, as if never registered.
                Err(e) => assert_eq!(e.rpc().map(|e| e.code), Some(-32602), "{e:?}"),
            }
        }
    }
    writer.await.unwrap();
    let tools: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
    assert_eq!(tools, ["t0"], "every added tool was removed again");
    assert!(sizes.len() > 1, "the readers saw the writer's changes: {sizes:?}");
    client.close().await;
}

/// `(ttlMs, cacheScope)` of a modern result.
fn hint(response: &Value) -> (u64, String) {
    let result = &response["result"];
    (result["ttlMs"].as_u64().expect("ttlMs"), result["cacheScope"].as_str().expect("cacheScope").to_owned())
}

#[tokio::test]
async fn modern_results_carry_the_narrowest_hint_of_what_they_return() {
    let mut c = StdioClient::spawn(live());
    let public = |ms| (ms, "public".to_owned());
    let read = |uri: &str| json!({"uri": uri});
    assert_eq!(hint(&c.modern("resources/read", read("live://fresh")).await), public(300_000), "its own");
    assert_eq!(hint(&c.modern("resources/read", read("live://mine")).await), (60_000, "private".to_owned()));
    // The list: the shorter time (mine's, the default) and private (mine's).
    assert_eq!(hint(&c.modern("resources/list", json!({})).await), (60_000, "private".to_owned()));
    assert_eq!(hint(&c.modern("tools/list", json!({})).await), public(30_000), "beta's 30 s");
    assert_eq!(hint(&c.modern("prompts/list", json!({})).await), public(60_000), "no prompts: the default");
    assert_eq!(hint(&c.modern("server/discover", json!({})).await), public(60_000));
    c.initialize("2025-11-25").await;
    let legacy = c.request("resources/read", read("live://fresh")).await;
    assert!(legacy["result"].get("ttlMs").is_none(), "legacy results carry no hints: {legacy}");
    c.close().await;

    // Without `beta` (excluded by its tag), the tool list is back to the default.
    let mut c = StdioClient::spawn_with_env(live(), &[("FASTMCP_TEST_EXCLUDE", "beta")]);
    assert_eq!(hint(&c.modern("tools/list", json!({})).await), public(60_000));
    c.close().await;
}
