//! The quickstart binary as a real child process, driven over stdin/stdout in both eras.

use fastmcp_tests::{StdioClient, example_bin, first_text};
use serde_json::{Value, json};

fn quickstart() -> StdioClient {
    StdioClient::spawn(example_bin("quickstart"))
}

#[tokio::test]
async fn legacy_initialize_list_and_call() {
    let mut c = quickstart();
    let init = c.initialize("2025-11-25").await;
    assert_eq!(init["protocolVersion"], "2025-11-25");
    assert_eq!(init["serverInfo"]["name"], "quickstart");
    assert_eq!(init["instructions"], "Greets people, adds numbers and reviews code.");
    for cap in ["tools", "prompts", "resources", "completions", "logging"] {
        assert!(init["capabilities"].get(cap).is_some(), "capability {cap} in {init}");
    }
    assert!(init.get("resultType").is_none(), "legacy results carry no resultType");

    let tools = c.request("tools/list", json!({})).await["result"].clone();
    assert!(tools.get("resultType").is_none());
    let names: Vec<&str> = tools["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["greet", "add"], "registration order is list order");
    let greet = &tools["tools"][0];
    assert_eq!(greet["description"], "Greet someone by name.");
    assert_eq!(greet["inputSchema"]["type"], "object");
    assert_eq!(greet["inputSchema"]["properties"]["name"]["type"], "string");
    assert_eq!(greet["inputSchema"]["properties"]["name"]["description"], "Who to greet.");
    assert_eq!(greet["inputSchema"]["required"], json!(["name"]));
    assert_eq!(greet["annotations"]["readOnlyHint"], true);
    let add = &tools["tools"][1];
    assert_eq!(add["outputSchema"]["type"], "object");
    assert_eq!(add["outputSchema"]["properties"]["sum"]["type"], "integer");

    let r = c.request("tools/call", json!({"name": "greet", "arguments": {"name": "Ada"}})).await;
    assert_eq!(first_text(&r["result"]), "Hello, Ada!");
    assert!(r["result"].get("isError").is_none());

    let r = c.request("tools/call", json!({"name": "add", "arguments": {"a": 2, "b": 40}})).await;
    assert_eq!(r["result"]["structuredContent"], json!({"sum": 42}));
    assert_eq!(serde_json::from_str::<Value>(first_text(&r["result"])).unwrap(), json!({"sum": 42}));

    assert_eq!(c.request("ping", json!({})).await["result"], json!({}));
    assert_eq!(c.request("logging/setLevel", json!({"level": "debug"})).await["result"], json!({}));

    let (status, stderr) = c.close().await;
    assert!(status.success(), "clean exit at EOF, got {status}");
    assert!(stderr.contains("serving MCP on stdio"), "startup notice on stderr: {stderr}");
}

#[tokio::test]
async fn legacy_version_negotiation() {
    for (asked, answered) in [
        ("2024-11-05", "2024-11-05"),
        ("2025-03-26", "2025-03-26"),
        ("2025-06-18", "2025-06-18"),
        ("2099-01-01", "2025-11-25"),
        // `initialize` is the legacy handshake even when it names the modern revision.
        ("2026-07-28", "2025-11-25"),
    ] {
        let mut c = quickstart();
        assert_eq!(c.initialize(asked).await["protocolVersion"], answered, "asked {asked}");
        c.close().await;
    }
}

#[tokio::test]
async fn legacy_resources_prompts_and_completion() {
    let mut c = quickstart();
    c.initialize("2025-06-18").await;

    let list = c.request("resources/list", json!({})).await["result"].clone();
    assert_eq!(list["resources"][0]["uri"], "quickstart://readme");
    assert_eq!(list["resources"][0]["name"], "readme");
    assert_eq!(list["resources"][0]["mimeType"], "text/markdown");
    let templates = c.request("resources/templates/list", json!({})).await["result"].clone();
    assert_eq!(templates["resourceTemplates"][0]["uriTemplate"], "quickstart://greeting/{name}");

    let read = c.request("resources/read", json!({"uri": "quickstart://readme"})).await["result"].clone();
    assert_eq!(read["contents"][0]["uri"], "quickstart://readme");
    assert_eq!(read["contents"][0]["mimeType"], "text/markdown");
    assert!(read["contents"][0]["text"].as_str().unwrap().starts_with("# quickstart"));
    let read =
        c.request("resources/read", json!({"uri": "quickstart://greeting/Grace%20Hopper"})).await["result"].clone();
    assert_eq!(read["contents"][0]["text"], "Hello, Grace Hopper! This greeting was read from a resource template.");
    assert_eq!(read["contents"][0]["uri"], "quickstart://greeting/Grace%20Hopper");

    let prompts = c.request("prompts/list", json!({})).await["result"].clone();
    let prompt = &prompts["prompts"][0];
    assert_eq!(prompt["name"], "review_code");
    assert_eq!(prompt["arguments"][0], json!({"name": "code", "description": "The code to review.", "required": true}));
    assert_eq!(prompt["arguments"][1]["name"], "language");
    assert_eq!(prompt["arguments"][1]["required"], false);

    let got = c
        .request(
            "prompts/get",
            json!({"name": "review_code", "arguments": {"code": "fn main() {}", "language": "rust"}}),
        )
        .await;
    let message = &got["result"]["messages"][0];
    assert_eq!(message["role"], "user");
    assert!(message["content"]["text"].as_str().unwrap().contains("```rust\nfn main() {}\n```"));
    let got = c.request("prompts/get", json!({"name": "review_code", "arguments": {"code": "x"}})).await;
    assert!(got["result"]["messages"][0]["content"]["text"].as_str().unwrap().contains("Please review this code"));

    let done = c
        .request(
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "review_code"}, "argument": {"name": "language", "value": "ja"}}),
        )
        .await;
    assert_eq!(done["result"]["completion"]["values"], json!(["java", "javascript"]));
    let done = c
        .request(
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": "quickstart://greeting/{name}"}, "argument": {"name": "name", "value": "a"}}),
        )
        .await;
    assert_eq!(done["result"]["completion"]["values"], json!(["Ada", "Alan"]));
    assert_eq!(done["result"]["completion"]["total"], 2);
    assert_eq!(done["result"]["completion"]["hasMore"], false);
    c.close().await;
}

#[tokio::test]
async fn modern_discover_then_call() {
    let mut c = quickstart();
    let d = c.modern("server/discover", json!({})).await["result"].clone();
    assert_eq!(d["resultType"], "complete");
    assert_eq!(d["supportedVersions"], json!(["2026-07-28"]));
    assert!(d["capabilities"]["tools"].is_object());
    assert_eq!(d["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "quickstart");
    assert!(d["ttlMs"].as_u64().is_some());
    assert!(d["cacheScope"] == "private" || d["cacheScope"] == "public");

    let r = c.modern("tools/call", json!({"name": "greet", "arguments": {"name": "Alan"}})).await["result"].clone();
    assert_eq!(r["resultType"], "complete");
    assert_eq!(first_text(&r), "Hello, Alan!");
    assert_eq!(r["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "quickstart");
    assert!(r.get("ttlMs").is_none(), "tool results are not cacheable");

    let r = c.modern("tools/call", json!({"name": "add", "arguments": {"a": -1, "b": 1}})).await["result"].clone();
    assert_eq!(r["structuredContent"], json!({"sum": 0}));

    for method in ["tools/list", "prompts/list", "resources/list", "resources/templates/list"] {
        let r = c.modern(method, json!({})).await["result"].clone();
        assert_eq!(r["resultType"], "complete", "{method}");
        assert!(r["ttlMs"].is_u64() && r["cacheScope"].is_string(), "{method} carries cache hints: {r}");
    }
    let r = c.modern("resources/read", json!({"uri": "quickstart://readme"})).await["result"].clone();
    assert!(r["ttlMs"].is_u64(), "resources/read carries cache hints: {r}");
    let r = c.modern("prompts/get", json!({"name": "review_code", "arguments": {"code": "x"}})).await["result"].clone();
    assert_eq!(r["resultType"], "complete");
    let r = c
        .modern("completion/complete", json!({"ref": {"type": "ref/prompt", "name": "review_code"}, "argument": {"name": "language", "value": "r"}}))
        .await["result"]
        .clone();
    assert_eq!(r["completion"]["values"], json!(["rust"]));
    assert_eq!(r["resultType"], "complete");
    assert!(c.close().await.0.success());
}

#[tokio::test]
async fn discover_is_answered_without_an_envelope_and_both_eras_share_a_connection() {
    let mut c = quickstart();
    let d = c.request("server/discover", json!({})).await;
    assert_eq!(d["result"]["supportedVersions"], json!(["2026-07-28"]));
    c.initialize("2025-11-25").await;
    let legacy = c.request("tools/call", json!({"name": "greet", "arguments": {"name": "L"}})).await["result"].clone();
    assert!(legacy.get("resultType").is_none());
    let modern = c.modern("tools/call", json!({"name": "greet", "arguments": {"name": "M"}})).await["result"].clone();
    assert_eq!(modern["resultType"], "complete");
    assert_eq!(first_text(&modern), "Hello, M!");
    c.close().await;
}
