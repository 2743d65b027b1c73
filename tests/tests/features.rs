//! fastmcp without its default features: a stdio-only server (`tests/stdio-only`, `default-features = false`)
//! builds without hyper or any HTTP crate, and serves both eras on stdio.

use fastmcp_tests::{StdioClient, first_text};
use serde_json::json;
use std::process::Command;

fn cargo(args: &[&str]) -> std::process::Output {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo).args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().expect("cargo runs");
    assert!(output.status.success(), "cargo {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    output
}

#[tokio::test]
async fn without_default_features_a_stdio_server_builds_without_hyper_and_serves() {
    // Built on its own, so no other workspace member turns the features back on.
    let tree = cargo(&["tree", "-p", "fastmcp-stdio-only", "-e", "normal", "--prefix", "none"]);
    let tree = String::from_utf8(tree.stdout).expect("UTF-8");
    let crates: Vec<&str> = tree.lines().filter_map(|l| l.split_whitespace().next()).collect();
    assert!(crates.contains(&"fast-mcp"), "{tree}");
    for absent in ["hyper", "hyper-util", "http", "http-body", "http-body-util", "tower-service", "tracing-subscriber"]
    {
        assert!(!crates.contains(&absent), "{absent} is in the stdio-only build:\n{tree}");
    }

    cargo(&["build", "--quiet", "-p", "fastmcp-stdio-only"]);
    let exe = std::env::current_exe().expect("test binary path");
    let profile_dir = exe.parent().and_then(|deps| deps.parent()).expect("target/<profile>/deps");
    let mut c = StdioClient::spawn(profile_dir.join(format!("fastmcp-stdio-only{}", std::env::consts::EXE_SUFFIX)));
    c.initialize("2025-11-25").await;
    let r = c.request("tools/call", json!({"name": "echo", "arguments": {"message": "legacy"}})).await;
    assert_eq!(first_text(&r["result"]), "legacy", "{r}");
    let r = c.modern("tools/call", json!({"name": "echo", "arguments": {"message": "modern"}})).await;
    assert_eq!(first_text(&r["result"]), "modern", "{r}");
    assert_eq!(r["result"]["resultType"], "complete");
    // An argument type derived through `fastmcp::serde` / `fastmcp::schemars`: read, and described in full.
    let r = c.modern("tools/call", json!({"name": "greet", "arguments": {"to": {"name": "Ada", "times": 2}}})).await;
    assert_eq!(first_text(&r["result"]), "Hello, Ada! Hello, Ada!", "{r}");
    let r = c.modern("tools/list", json!({})).await;
    let greet = r["result"]["tools"].as_array().and_then(|t| t.iter().find(|t| t["name"] == "greet")).expect("greet");
    let schema = greet["inputSchema"].to_string();
    assert!(schema.contains("How many times.") && schema.contains("\"times\""), "{schema}");
    let (status, _) = c.close().await;
    assert!(status.success(), "{status:?}");
}
