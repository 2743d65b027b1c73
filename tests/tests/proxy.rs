//! `FastMcp::proxy`: a proxy server built in this process, serving an example (a real process, over stdio)
//! to a test client over Streamable HTTP on loopback, in each era of the outer client. The deploy flow's
//! input requests pass through: the inner (proxy → upstream) client has no handlers at all, so only the
//! outer client's handlers can answer them — in its modern retries, or asked by our legacy shim.

use fastmcp::client::{Client, ClientBuilder, ClientError, EraChoice, Round};
use fastmcp::protocol::{CreateMessageResult, ElicitResult, Era};
use fastmcp::proxy::Proxy;
use fastmcp::{FastMcp, HttpOptions};
use fastmcp_tests::example_bin;
use serde_json::json;
use std::sync::{Arc, Mutex};

const OUTER: [(EraChoice, Era); 2] = [(EraChoice::Modern, Era::Modern), (EraChoice::Legacy, Era::Legacy)];

fn text(result: &fastmcp::protocol::CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text()).collect::<Vec<_>>().join("")
}

/// A client of `example` over stdio: the proxy's way upstream. No handlers unless `builder` has some.
async fn upstream(example: &str, builder: ClientBuilder) -> Client {
    builder.stdio(tokio::process::Command::new(example_bin(example))).await.expect("the upstream connects")
}

fn inner(era: EraChoice) -> ClientBuilder {
    ClientBuilder::new("proxy-upstream", "0.0.0").era(era)
}

fn outer(era: EraChoice) -> ClientBuilder {
    ClientBuilder::new("fastmcp-tests", "0.0.0").era(era)
}

/// The proxy served over HTTP on a loopback port; its URL and the serving task.
struct Served {
    url: String,
    task: tokio::task::JoinHandle<fastmcp::Result<()>>,
}

impl Drop for Served {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn serve(proxy: Proxy) -> Served {
    let server = FastMcp::new("proxy").proxy(proxy).build().expect("the proxy builds");
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let options = HttpOptions { addr: ([127, 0, 0, 1], port).into(), ..HttpOptions::default() };
    let task = tokio::spawn(async move { server.serve_http(options).await });
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    Served { url: format!("http://127.0.0.1:{port}/mcp"), task }
}

#[tokio::test]
async fn lists_and_calls_a_proxied_quickstart() {
    let proxy = Proxy::connect(upstream("quickstart", inner(EraChoice::Modern)).await).await.unwrap();
    let served = serve(proxy).await;
    for (choice, era) in OUTER {
        let client = outer(choice).connect(&served.url).await.unwrap_or_else(|e| panic!("{choice:?}: {e}"));
        assert_eq!(client.era(), era);
        let tools: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
        assert_eq!(tools, ["greet", "add"], "{choice:?}");
        assert_eq!(text(&client.call_tool("greet", json!({"name": "Ada"})).await.unwrap()), "Hello, Ada!");
        #[derive(serde::Deserialize)]
        struct Sum {
            sum: i64,
        }
        let sum: Sum = client.call_tool_as("add", json!({"a": 2, "b": 40})).await.unwrap();
        assert_eq!(sum.sum, 42, "{choice:?}");
        let readme = client.read_resource("quickstart://readme").await.unwrap();
        assert!(serde_json::to_string(&readme).unwrap().contains("# quickstart"), "{choice:?}");
        let templates = client.list_resource_templates().await.unwrap();
        assert_eq!(templates[0].uri_template, "quickstart://greeting/{name}", "{choice:?}");
        let greeting = client.read_resource("quickstart://greeting/Ada").await.unwrap();
        assert!(serde_json::to_string(&greeting).unwrap().contains("Ada"), "{choice:?}: {greeting:?}");
        let prompt = client.get_prompt("review_code", [("code", "fn main() {}")]).await.unwrap();
        assert!(serde_json::to_string(&prompt).unwrap().contains("fn main() {}"), "{choice:?}");
        client.close().await;
    }
}

#[tokio::test]
async fn a_prefix_renames_tools_and_prompts_but_not_uris() {
    let proxy = Proxy::connect(upstream("quickstart", inner(EraChoice::Modern)).await).await.unwrap();
    let served = serve(proxy.prefix("remote_")).await;
    let client = outer(EraChoice::Modern).connect(&served.url).await.unwrap();
    let tools: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
    assert_eq!(tools, ["remote_greet", "remote_add"]);
    assert_eq!(text(&client.call_tool("remote_greet", json!({"name": "Ada"})).await.unwrap()), "Hello, Ada!");
    let prompts: Vec<String> = client.list_prompts().await.unwrap().into_iter().map(|p| p.name).collect();
    assert!(prompts.iter().all(|p| p.starts_with("remote_")), "{prompts:?}");
    assert!(client.read_resource("quickstart://readme").await.is_ok());
    let unknown = client.call_tool("greet", json!({"name": "Ada"})).await.unwrap_err();
    assert_eq!(unknown.rpc().map(|e| e.code), Some(-32602), "{unknown:?}");
    client.close().await;
}

/// The point of the feature: the upstream's elicitation and sampling reach the outer client, whose handlers
/// answer them; the proxy's own client could not (it has no handlers).
#[tokio::test]
async fn the_deploy_flow_passes_through_to_the_outer_clients_handlers() {
    let proxy = Proxy::connect(upstream("deploy", inner(EraChoice::Modern)).await).await.unwrap();
    let served = serve(proxy).await;
    for (choice, era) in OUTER {
        let asked = Arc::new(Mutex::new(Vec::<String>::new()));
        let (elicited, sampled) = (asked.clone(), asked.clone());
        let client = outer(choice)
            .on_elicit(move |form| {
                elicited.lock().unwrap().push(form.message.clone());
                async move { Ok(ElicitResult::accept(json!({"confirm": true}).as_object().cloned().unwrap())) }
            })
            .on_sample(move |request| {
                sampled.lock().unwrap().push(format!("sample {}", request.max_tokens));
                async move { Ok(CreateMessageResult::text("test-model", "shiny notes")) }
            })
            .connect(&served.url)
            .await
            .unwrap();
        assert_eq!(client.era(), era);
        let result = client.call_tool("deploy", json!({"service": "api", "replicas": 3})).await.unwrap();
        assert_eq!(text(&result), "Deployed api x3: shiny notes", "{choice:?}: {result:?}");
        assert_eq!(*asked.lock().unwrap(), ["Deploy api x3?", "sample 200"], "{choice:?}");
        client.close().await;
    }
}

/// One round at a time, as the proxy sees it: the outer modern client's rounds end `input_required`
/// with the upstream's questions, under our own request state.
#[tokio::test]
async fn one_round_at_a_time_through_the_proxy() {
    let proxy = Proxy::connect(upstream("deploy", inner(EraChoice::Modern)).await).await.unwrap();
    let served = serve(proxy).await;
    let client = outer(EraChoice::Modern)
        .on_elicit(|_| async { Ok(ElicitResult::decline()) })
        .connect(&served.url)
        .await
        .unwrap();
    let args = json!({"service": "db", "replicas": 1});
    let Round::InputRequired(asked) = client.call_tool_round("deploy", &args, None, None).await.unwrap() else {
        panic!("the first round asks");
    };
    let requests = asked.input_requests.expect("the upstream's input requests");
    assert_eq!(requests.len(), 1, "{requests:?}");
    let state = asked.request_state.expect("our request state");
    let key = requests.keys().next().unwrap().clone();
    let responses = [(key, serde_json::to_value(ElicitResult::decline()).unwrap())].into_iter().collect();
    let Round::Complete(done) = client.call_tool_round("deploy", &args, Some(responses), Some(state)).await.unwrap()
    else {
        panic!("a declined form ends the flow");
    };
    assert_eq!(text(&done), "Deployment of db cancelled.");
    client.close().await;
}

/// An outer client that can't answer: the proxy declares its caller's capabilities upstream, so the
/// upstream refuses as it would refuse the caller itself.
#[tokio::test]
async fn an_outer_client_without_handlers_is_refused_as_upstream_refuses_it() {
    let proxy = Proxy::connect(upstream("deploy", inner(EraChoice::Modern)).await).await.unwrap();
    let served = serve(proxy).await;
    for (choice, _) in OUTER {
        let client = outer(choice).connect(&served.url).await.unwrap();
        match client.call_tool("deploy", json!({"service": "api", "replicas": 1})).await {
            Ok(result) => assert_eq!(result.is_error, Some(true), "{choice:?}: {result:?}"),
            Err(ClientError::Rpc(e)) => assert_eq!(e.code, -32021, "{choice:?}: {e:?}"),
            Err(other) => panic!("{choice:?}: {other:?}"),
        }
        client.close().await;
    }
}

/// The upstream's JSON-RPC error comes back with its code and message. The prefix tells whose it is: our
/// own server would name the prompt `remote_review_code`, the upstream names `review_code`.
#[tokio::test]
async fn an_upstream_error_passes_through_with_its_code_and_message() {
    let direct = upstream("quickstart", inner(EraChoice::Modern)).await;
    let no_args: [(&str, &str); 0] = [];
    let expected = direct.get_prompt("review_code", no_args).await.unwrap_err();
    let expected = expected.rpc().cloned().unwrap_or_else(|| panic!("a JSON-RPC error: {expected:?}"));
    assert!(expected.message.contains("`review_code`"), "{expected:?}");
    direct.close().await;

    let proxy = Proxy::connect(upstream("quickstart", inner(EraChoice::Modern)).await).await.unwrap();
    let served = serve(proxy.prefix("remote_")).await;
    for (choice, _) in OUTER {
        let client = outer(choice).connect(&served.url).await.unwrap();
        let got = client.get_prompt("remote_review_code", no_args).await.unwrap_err();
        let got = got.rpc().cloned().unwrap_or_else(|| panic!("{choice:?}: a JSON-RPC error: {got:?}"));
        assert_eq!((got.code, &got.message), (expected.code, &expected.message), "{choice:?}");
        client.close().await;
    }
}

/// A transport failure upstream is a tool error, not a protocol error: the upstream (the quickstart over
/// HTTP, a process of its own) is gone by the time of the call.
#[tokio::test]
async fn an_unreachable_upstream_is_a_tool_error() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut process = tokio::process::Command::new(example_bin("quickstart"))
        .env("FASTMCP_TRANSPORT", "http")
        .env("FASTMCP_PORT", port.to_string())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("the quickstart starts");
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let url = format!("http://127.0.0.1:{port}/mcp");
    let proxy = Proxy::connect(inner(EraChoice::Modern).connect(&url).await.unwrap()).await.unwrap();
    let served = serve(proxy).await;
    process.kill().await.unwrap();
    let client = outer(EraChoice::Modern).connect(&served.url).await.unwrap();
    let result = client.call_tool("greet", json!({"name": "Ada"})).await.unwrap();
    assert_eq!(result.is_error, Some(true), "{result:?}");
    assert!(text(&result).starts_with("the upstream server's tool `greet` failed: "), "{result:?}");
    client.close().await;
}

/// Counts up to `to`: a structured result that is not an object, so fastmcp wraps it as `{"result": …}`.
#[fastmcp::tool]
async fn count(to: u32) -> fastmcp::Json<Vec<u32>> {
    fastmcp::Json((1..=to).collect())
}

/// An upstream served in this process over HTTP, its tool's structured result wrapped once upstream: the
/// proxy passes it on as it came, not wrapped a second time.
#[tokio::test]
async fn a_wrapped_structured_result_is_not_wrapped_twice() {
    let upstream_server = FastMcp::new("counter").tool(count).build().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let options = HttpOptions { addr: ([127, 0, 0, 1], port).into(), ..HttpOptions::default() };
    let task = tokio::spawn(async move { upstream_server.serve_http(options).await });
    let up = Served { url: format!("http://127.0.0.1:{port}/mcp"), task };
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let proxy = Proxy::connect(inner(EraChoice::Modern).connect(&up.url).await.unwrap()).await.unwrap();
    let served = serve(proxy).await;
    for (choice, _) in OUTER {
        let client = outer(choice).connect(&served.url).await.unwrap();
        let result = client.call_tool("count", json!({"to": 3})).await.unwrap();
        assert_eq!(result.structured_content, Some(json!({"result": [1, 2, 3]})), "{choice:?}: {result:?}");
        let counted: Vec<u32> = client.call_tool_as("count", json!({"to": 2})).await.unwrap();
        assert_eq!(counted, [1, 2], "{choice:?}");
        client.close().await;
    }
}

/// A legacy upstream asks on its own session, mid-call: the proxy's client answers with its handlers (the
/// documented limit), and the outer client is never asked.
#[tokio::test]
async fn a_legacy_upstream_is_answered_by_the_proxys_own_handlers() {
    let b = inner(EraChoice::Legacy)
        .on_elicit(|_| async { Ok(ElicitResult::accept(json!({"confirm": true}).as_object().cloned().unwrap())) })
        .on_sample(|_| async { Ok(CreateMessageResult::text("proxy-model", "proxy notes")) });
    let proxy = Proxy::connect(upstream("deploy", b).await).await.unwrap();
    assert_eq!(proxy.client().era(), Era::Legacy);
    let served = serve(proxy).await;
    let client = outer(EraChoice::Modern).connect(&served.url).await.unwrap();
    let result = client.call_tool("deploy", json!({"service": "api", "replicas": 2})).await.unwrap();
    assert_eq!(text(&result), "Deployed api x2: proxy notes", "{result:?}");
    client.close().await;
}
