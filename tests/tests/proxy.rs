//! `FastMcp::proxy`: a proxy server built in this process, serving an example (a real process, over stdio
//! or HTTP, in either era) to a test client over Streamable HTTP on loopback, in each era of the outer
//! client. The deploy flow's input requests pass through: the inner (proxy → upstream) client has no
//! handlers at all, so only the outer client's handlers can answer them — in its modern retries, or asked
//! by our legacy shim.

use fastmcp::FastMcp;
use fastmcp::client::{Client, ClientBuilder, ClientError, EraChoice, Round};
use fastmcp::protocol::{CreateMessageResult, ElicitResult, Era};
use fastmcp::proxy::Proxy;
use fastmcp_tests::{HttpServer, InProcess, example_bin, serve_in_process};
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

/// The outer client that answers the deploy flow — it confirms, and samples `notes` — and what it was asked,
/// in order.
fn answering(era: EraChoice, notes: &'static str) -> (ClientBuilder, Arc<Mutex<Vec<String>>>) {
    let asked = Arc::new(Mutex::new(Vec::<String>::new()));
    let (elicited, sampled) = (asked.clone(), asked.clone());
    let builder = outer(era)
        .on_elicit(move |form| {
            elicited.lock().unwrap().push(form.message.clone());
            async move { Ok(ElicitResult::accept(json!({"confirm": true}).as_object().cloned().unwrap())) }
        })
        .on_sample(move |request| {
            sampled.lock().unwrap().push(format!("sample {}", request.max_tokens));
            async move { Ok(CreateMessageResult::text("test-model", notes)) }
        });
    (builder, asked)
}

/// The proxy served over HTTP on a loopback port.
async fn serve(proxy: Proxy) -> InProcess {
    serve_in_process(FastMcp::new("proxy").proxy(proxy).build().expect("the proxy builds")).await
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
        let (builder, asked) = answering(choice, "shiny notes");
        let client = builder.connect(&served.url).await.unwrap();
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
    let responses = [(key, serde_json::value::to_raw_value(&ElicitResult::decline()).unwrap())].into_iter().collect();
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
    let quickstart = HttpServer::spawn(example_bin("quickstart")).await;
    let url = quickstart.url();
    let proxy = Proxy::connect(inner(EraChoice::Modern).connect(&url).await.unwrap()).await.unwrap();
    let served = serve(proxy).await;
    drop(quickstart); // killed: the upstream is gone
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
    let up = serve_in_process(FastMcp::new("counter").tool(count).build().unwrap()).await;
    let proxy = Proxy::connect(inner(EraChoice::Modern).connect(&up.url).await.unwrap()).await.unwrap();
    let served = serve(proxy).await;
    for (choice, _) in OUTER {
        let client = outer(choice).connect(&served.url).await.unwrap();
        let result = client.call_tool("count", json!({"to": 3})).await.unwrap();
        assert_eq!(result.structured_content.as_deref(), Some(&json!({"result": [1, 2, 3]})), "{choice:?}: {result:?}");
        let counted: Vec<u32> = client.call_tool_as("count", json!({"to": 2})).await.unwrap();
        assert_eq!(counted, [1, 2], "{choice:?}");
        client.close().await;
    }
}

/// The proxy's way to a legacy upstream: no handlers, only the capabilities its callers may answer
/// declared at `initialize` (a legacy session declares them once).
fn legacy_inner() -> ClientBuilder {
    let capabilities = serde_json::from_value(json!({"elicitation": {}, "sampling": {}})).unwrap();
    inner(EraChoice::Legacy).declare(capabilities)
}

/// A legacy upstream asks with server-to-client requests, mid-call: each becomes a round of ours, so the
/// outer client's handlers answer them in both of its eras, with the upstream over stdio and over HTTP.
#[tokio::test]
async fn a_legacy_upstreams_questions_pass_through_to_the_outer_client() {
    // Over HTTP, a legacy session asks on the call's own SSE stream, which tells the proxy's client which
    // call a question belongs to.
    let deploy = HttpServer::spawn(example_bin("deploy")).await;
    let ups = [
        ("stdio", upstream("deploy", legacy_inner()).await),
        ("http", legacy_inner().connect(&deploy.url()).await.expect("the HTTP upstream connects")),
    ];
    for (way, up) in ups {
        assert_eq!(up.era(), Era::Legacy);
        let served = serve(Proxy::connect(up).await.unwrap()).await;
        for (choice, era) in OUTER {
            let (builder, asked) = answering(choice, "outer notes");
            let client = builder.connect(&served.url).await.unwrap();
            assert_eq!(client.era(), era);
            let result = client.call_tool("deploy", json!({"service": "api", "replicas": 2})).await.unwrap();
            assert_eq!(text(&result), "Deployed api x2: outer notes", "{way} {choice:?}: {result:?}");
            assert_eq!(*asked.lock().unwrap(), ["Deploy api x2?", "sample 200"], "{way} {choice:?}");
            client.close().await;
        }
    }
}

/// Two outer calls at once through one HTTP legacy upstream: each question reaches the caller whose call
/// asked it (the upstream asks on each call's own stream), never the other.
#[tokio::test]
async fn concurrent_calls_through_a_legacy_upstream_get_their_own_questions() {
    let deploy = HttpServer::spawn(example_bin("deploy")).await;
    let served = serve(Proxy::connect(legacy_inner().connect(&deploy.url()).await.unwrap()).await.unwrap()).await;
    let caller = |service: &'static str| {
        let url = served.url.clone();
        async move {
            let asked = Arc::new(Mutex::new(Vec::<String>::new()));
            let elicited = asked.clone();
            let client = outer(EraChoice::Modern)
                .on_elicit(move |form| {
                    elicited.lock().unwrap().push(form.message.clone());
                    async move { Ok(ElicitResult::accept(json!({"confirm": true}).as_object().cloned().unwrap())) }
                })
                .on_sample(move |_| async move { Ok(CreateMessageResult::text("m", service)) })
                .connect(&url)
                .await
                .unwrap();
            let result = client.call_tool("deploy", json!({"service": service, "replicas": 1})).await.unwrap();
            client.close().await;
            (text(&result), asked.lock().unwrap().clone())
        }
    };
    let (a, b) = tokio::join!(caller("alpha"), caller("beta"));
    assert_eq!(a, ("Deployed alpha x1: alpha".to_owned(), vec!["Deploy alpha x1?".to_owned()]));
    assert_eq!(b, ("Deployed beta x1: beta".to_owned(), vec!["Deploy beta x1?".to_owned()]));
}

/// The rounds a legacy call makes, seen on the client itself: the first ends with the server's question
/// and a ticket; the answer resumes the same call (nothing runs twice upstream); a ticket kept past
/// `legacy_round_timeout` is gone, and the call with it.
#[tokio::test]
async fn a_legacy_call_in_rounds_and_its_ticket_expiring() {
    let client = upstream("deploy", legacy_inner().legacy_round_timeout(std::time::Duration::from_millis(300))).await;
    let args = json!({"service": "db", "replicas": 1});
    let Round::InputRequired(asked) = client.call_tool_round("deploy", &args, None, None).await.unwrap() else {
        panic!("the first round asks");
    };
    let requests = asked.input_requests.expect("the server's question");
    let (key, request) = requests.iter().next().unwrap();
    assert_eq!(request.method(), "elicitation/create", "{requests:?}");
    let state = asked.request_state.expect("a ticket");
    let responses =
        [(key.clone(), serde_json::value::to_raw_value(&ElicitResult::decline()).unwrap())].into_iter().collect();
    let Round::Complete(done) =
        client.call_tool_round("deploy", &args, Some(responses), Some(state.clone())).await.unwrap()
    else {
        panic!("a declined form ends the flow");
    };
    assert_eq!(text(&done), "Deployment of db cancelled.");
    // The ticket was used: it names nothing now.
    let again = client.call_tool_round("deploy", &args, Some(Default::default()), Some(state)).await.unwrap_err();
    assert!(again.to_string().contains("no legacy call is waiting"), "{again}");

    let Round::InputRequired(asked) = client.call_tool_round("deploy", &args, None, None).await.unwrap() else {
        panic!("the first round asks");
    };
    tokio::time::sleep(std::time::Duration::from_millis(600)).await;
    let late = client.call_tool_round("deploy", &args, Some(Default::default()), asked.request_state).await;
    assert!(late.unwrap_err().to_string().contains("no legacy call is waiting"));
    // The session goes on: the expired call was cancelled, not left hanging.
    assert!(client.list_tools().await.is_ok());
    client.close().await;
}
