//! The server driven by fastmcp's Rust client (feature `client`, a dev-dependency), served in-process
//! over Streamable HTTP, in both protocol eras: modern (stateless, `input_required` rounds) and legacy
//! (an `initialize`d session, the server asking over it). Run with `cargo test`.

use fastmcp::HttpOptions;
use fastmcp::client::{Client, ClientBuilder, EraChoice};
use fastmcp::protocol::{CallToolResult, ElicitResult, ResourceContents};
use fastmcp::serde_json::json;

const ERAS: [EraChoice; 2] = [EraChoice::Modern, EraChoice::Legacy];

/// Serves `server()` on a free loopback port, in this process; returns its URL. The port is bound before
/// the server task runs, so the client's connection waits in the listen queue until it is accepted.
async fn serve() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let url = format!("http://{}/mcp", listener.local_addr().expect("a bound address"));
    let server = my_mcp_server::server().build().expect("the server builds");
    tokio::spawn(async move { server.serve_http_on(listener, HttpOptions::default()).await });
    url
}

async fn connect(builder: ClientBuilder, era: EraChoice) -> Client {
    builder.era(era).connect(&serve().await).await.expect("connects")
}

fn builder() -> ClientBuilder {
    ClientBuilder::new("my-mcp-server-tests", "0.0.0")
}

fn text(result: &CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text()).collect()
}

#[tokio::test]
async fn lists_and_calls_add() {
    for era in ERAS {
        let client = connect(builder(), era).await;
        let tools: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
        assert_eq!(tools, ["add", "delete_note"], "{era:?}");
        let result = client.call_tool("add", json!({"a": 2, "b": 40})).await.unwrap();
        assert_eq!(result.structured_content.as_deref(), Some(&json!({"sum": 42})), "{era:?}: {result:?}");
        let overflow = client.call_tool("add", json!({"a": i64::MAX, "b": 1})).await.unwrap();
        assert_eq!(overflow.is_error, Some(true), "{era:?}: {overflow:?}");
        client.close().await;
    }
}

#[tokio::test]
async fn reads_the_about_resource() {
    for era in ERAS {
        let client = connect(builder(), era).await;
        let read = client.read_resource("my-mcp-server://about").await.unwrap();
        let [ResourceContents::Text(about)] = read.contents.as_slice() else { panic!("{era:?}: {read:?}") };
        assert_eq!(about.text, "my-mcp-server: a fastmcp server made from its template.", "{era:?}");
        client.close().await;
    }
}

#[tokio::test]
async fn delete_note_asks_first() {
    for era in ERAS {
        // The client's elicitation handler answers the form: here, as a user who ticks "confirm".
        let accepting = builder().on_elicit(|form| async move {
            assert_eq!(form.message, r#"Delete the note "groceries"?"#);
            Ok(ElicitResult::accept(json!({"confirm": true}).as_object().cloned().unwrap()))
        });
        let client = connect(accepting, era).await;
        let result = client.call_tool("delete_note", json!({"title": "groceries"})).await.unwrap();
        assert_eq!(text(&result), r#"Deleted "groceries"."#, "{era:?}");
        client.close().await;

        let declining = builder().on_elicit(|_| async { Ok(ElicitResult::decline()) });
        let client = connect(declining, era).await;
        let result = client.call_tool("delete_note", json!({"title": "groceries"})).await.unwrap();
        assert_eq!(text(&result), r#"Kept "groceries": deletion cancelled."#, "{era:?}");
        client.close().await;
    }
}
