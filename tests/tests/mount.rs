//! Composition with `FastMcp::mount`: the `composed` example (a real process, over stdio and HTTP, in both
//! eras, driven by the Rust client) serves its children's tools and prompts under their prefixes and their
//! resources under their own URIs, and a mounted tool's `.ask()` flow resumes in the parent; servers built
//! here show the child's middleware running inside the parent's (and only for the child's components),
//! the child's tag filter, nested prefixes and a collision refused at build.

use fastmcp::FastMcp;
use fastmcp::client::{Client, ClientBuilder, EraChoice};
use fastmcp::middleware::{BoxFuture, Middleware, Next, Request, Response};
use fastmcp::prelude::*;
use fastmcp::protocol::ElicitResult;
use fastmcp_tests::{HttpServer, example_bin, serve_in_process};
use serde_json::json;
use std::sync::{Arc, Mutex};

fn text(result: &fastmcp::protocol::CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text()).collect()
}

fn confirming(era: EraChoice) -> ClientBuilder {
    ClientBuilder::new("t", "0")
        .era(era)
        .on_elicit(|_| async { Ok(ElicitResult::accept(json!({"confirm": true}).as_object().cloned().unwrap())) })
}

async fn check_composed(client: &Client, way: &str) {
    let era = client.era();
    let tools: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
    assert_eq!(tools, ["ops_deploy", "docs_search"], "{way} {era:?}");
    let prompts: Vec<String> = client.list_prompts().await.unwrap().into_iter().map(|p| p.name).collect();
    assert_eq!(prompts, ["docs_summarize"], "{way} {era:?}");
    let resources: Vec<String> = client.list_resources().await.unwrap().into_iter().map(|r| r.uri).collect();
    assert_eq!(resources, ["ops://status"], "URIs are not prefixed: {way} {era:?}");
    // The mounted tool asks, and its flow resumes in the parent (a modern retry, or the legacy shim).
    let deployed = client.call_tool("ops_deploy", json!({"service": "api", "replicas": 2})).await.unwrap();
    assert_eq!(text(&deployed), "Deployed api x2.", "{way} {era:?}: {deployed:?}");
    let found = client.call_tool("docs_search", json!({"query": "mount"})).await.unwrap();
    assert_eq!(text(&found), r#"3 pages mention "mount""#);
    let prompt = client.get_prompt("docs_summarize", [("page", "intro")]).await.unwrap();
    assert!(serde_json::to_string(&prompt).unwrap().contains("docs page intro"), "{way} {era:?}");
    let status = client.read_resource("ops://status").await.unwrap();
    assert!(serde_json::to_string(&status).unwrap().contains("all green"));
    let unknown = client.call_tool("deploy", json!({"service": "api", "replicas": 2})).await.unwrap_err();
    assert_eq!(unknown.rpc().map(|e| e.code), Some(-32602), "only the prefixed name: {unknown:?}");
}

#[tokio::test]
async fn the_composed_example_over_stdio_and_http_in_both_eras() {
    let http = HttpServer::spawn(example_bin("composed")).await;
    for era in [EraChoice::Modern, EraChoice::Legacy] {
        let command = tokio::process::Command::new(example_bin("composed"));
        let client = confirming(era).stdio(command).await.unwrap();
        check_composed(&client, "stdio").await;
        client.close().await;
        let client = confirming(era).connect(&http.url()).await.unwrap();
        check_composed(&client, "http").await;
        client.close().await;
    }
}

/// Writes its name on each round it sees.
struct Mark(&'static str, Arc<Mutex<Vec<String>>>);

impl Middleware for Mark {
    fn on_request<'a>(&'a self, request: Request<'a>, next: Next<'a>) -> BoxFuture<'a, Response> {
        let seen = format!("{} {}", self.0, request.name().unwrap_or(request.method()));
        self.1.lock().unwrap().push(seen);
        next.run(request)
    }
}

#[tool]
async fn own() -> String {
    "own".into()
}

#[tool(tags = ["internal"])]
async fn hidden() -> String {
    "hidden".into()
}

#[tool]
async fn leaf() -> String {
    "leaf".into()
}

#[resource("child://note")]
async fn note() -> String {
    "note".into()
}

#[tokio::test]
async fn the_childs_middleware_runs_inside_the_parents_for_its_components_only() {
    let marks = Arc::new(Mutex::new(Vec::new()));
    let grandchild = FastMcp::new("g").tool(leaf).middleware(Mark("grandchild", marks.clone()));
    let child = FastMcp::new("c")
        .tool(hidden)
        .resource(note)
        .mount("g", grandchild)
        .exclude_tags(["internal"])
        .middleware(Mark("child", marks.clone()));
    let parent = FastMcp::new("p").tool(own).mount("c", child).middleware(Mark("parent", marks.clone()));
    let served = serve_in_process(parent.build().expect("builds")).await;
    let client = ClientBuilder::new("t", "0").era(EraChoice::Modern).connect(&served.url).await.unwrap();
    let tools: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
    assert_eq!(tools, ["own", "c_g_leaf"], "the child's filter left `hidden` out; mounts nest");
    marks.lock().unwrap().clear();

    assert_eq!(text(&client.call_tool("c_g_leaf", json!({})).await.unwrap()), "leaf");
    assert_eq!(text(&client.call_tool("own", json!({})).await.unwrap()), "own");
    client.read_resource("child://note").await.unwrap();
    client.list_tools().await.unwrap();
    assert_eq!(
        *marks.lock().unwrap(),
        [
            "parent c_g_leaf",
            "child c_g_leaf",
            "grandchild c_g_leaf",
            "parent own",
            "parent child://note",
            "child child://note",
            "parent tools/list",
        ]
    );
    client.close().await;
}

#[test]
fn a_name_collision_is_refused_at_build() {
    let a = FastMcp::new("a").tool(own);
    let b = FastMcp::new("b").tool(own);
    let error = FastMcp::new("p").mount("x", a).mount("x", b).build().err().expect("refused");
    assert!(error.to_string().contains("two tools are named `x_own`"), "{error}");
    // Nothing collides without a prefix clash.
    let ok = FastMcp::new("p").mount("a", FastMcp::new("a").tool(own)).mount("b", FastMcp::new("b").tool(own));
    assert!(ok.build().is_ok());
}
