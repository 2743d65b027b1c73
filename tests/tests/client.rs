//! The Rust client against the examples, as real processes: every call in each era (modern, legacy, and
//! `auto`, which probes), with the handlers answering the server's requests for input — modern
//! `input_required` rounds and legacy server-to-client requests alike.

use fastmcp::client::{Client, ClientBuilder, ClientError, EraChoice, ServerNotification};
use fastmcp::protocol::{CompletionReference, CreateMessageResult, ElicitResult, Era, ProtocolVersion};
use fastmcp_tests::example_bin;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};

const ERAS: [(EraChoice, Era); 3] =
    [(EraChoice::Modern, Era::Modern), (EraChoice::Legacy, Era::Legacy), (EraChoice::Auto, Era::Modern)];

fn accept(content: Value) -> ElicitResult {
    ElicitResult::accept(content.as_object().cloned().expect("an object"))
}

fn builder(era: EraChoice) -> ClientBuilder {
    ClientBuilder::new("fastmcp-tests", "0.0.0").era(era)
}

async fn stdio(example: &str, builder: ClientBuilder) -> Client {
    builder.stdio(tokio::process::Command::new(example_bin(example))).await.expect("connects")
}

fn text(result: &fastmcp::protocol::CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text()).collect::<Vec<_>>().join("")
}

#[tokio::test]
async fn lists_and_calls_the_quickstart_in_each_era() {
    for (choice, era) in ERAS {
        let client = stdio("quickstart", builder(choice)).await;
        assert_eq!(client.era(), era, "{choice:?}");
        assert_eq!(client.server_info().map(|i| i.name.as_str()), Some("quickstart"), "{choice:?}");
        let tools: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
        assert_eq!(tools, ["greet", "add"], "{choice:?}");
        let greeting = client.call_tool("greet", json!({"name": "Ada"})).await.unwrap();
        assert_eq!(text(&greeting), "Hello, Ada!", "{choice:?}");
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
        let prompt = client.get_prompt("review_code", [("code", "fn main() {}")]).await.unwrap();
        assert!(!prompt.messages.is_empty(), "{choice:?}");
        let reference = CompletionReference::Resource { uri: "quickstart://greeting/{name}".into() };
        let completed = client.complete(reference, "name", "A").await.unwrap();
        assert_eq!(completed.completion.values, ["Ada", "Alan"], "{choice:?}");
        client.ping().await.unwrap();
        let unknown = client.call_tool("nope", json!({})).await.unwrap_err();
        assert_eq!(unknown.rpc().map(|e| e.code), Some(-32602), "{choice:?}: {unknown:?}");
        client.close().await;
    }
}

#[tokio::test]
async fn handlers_answer_the_deploy_flow_in_each_era() {
    for (choice, era) in ERAS {
        let asked = Arc::new(Mutex::new(Vec::<String>::new()));
        let seen = asked.clone();
        let b = builder(choice)
            .on_elicit(move |form| {
                seen.lock().unwrap().push(form.message.clone());
                async move { Ok(accept(json!({"confirm": true}))) }
            })
            .on_sample(|request| async move {
                assert_eq!(request.max_tokens, 200);
                Ok(CreateMessageResult::text("test-model", "shiny notes"))
            });
        let client = stdio("deploy", b).await;
        assert_eq!(client.era(), era);
        let result = client.call_tool("deploy", json!({"service": "api", "replicas": 3})).await.unwrap();
        assert_eq!(text(&result), "Deployed api x3: shiny notes", "{choice:?}");
        assert_eq!(*asked.lock().unwrap(), ["Deploy api x3?"], "asked once, in either era: {choice:?}");
        client.close().await;
    }
}

#[tokio::test]
async fn a_declined_form_and_a_missing_handler() {
    for (choice, _) in ERAS {
        let decline = builder(choice).on_elicit(|_| async { Ok(ElicitResult::decline()) });
        let client = stdio("deploy", decline).await;
        let result = client.call_tool("deploy", json!({"service": "api", "replicas": 1})).await.unwrap();
        assert_eq!(text(&result), "Deployment of api cancelled.", "{choice:?}");
        client.close().await;

        // Without an elicitation handler the client declares no elicitation, and the server says so.
        let client = stdio("deploy", builder(choice)).await;
        let refused = client.call_tool("deploy", json!({"service": "api", "replicas": 1})).await;
        match refused {
            Ok(result) => assert_eq!(result.is_error, Some(true), "{choice:?}: {result:?}"),
            Err(ClientError::Rpc(e)) => assert_eq!(e.code, -32021, "{choice:?}: {e:?}"),
            Err(other) => panic!("{choice:?}: {other:?}"),
        }
        client.close().await;
    }
}

#[tokio::test]
async fn legacy_sessions_settle_the_newest_legacy_revision_and_pass_notifications_on() {
    let notes = Arc::new(Mutex::new(Vec::<ServerNotification>::new()));
    let sink = notes.clone();
    let b = builder(EraChoice::Legacy).on_notification(move |n| sink.lock().unwrap().push(n));
    let client = stdio("quickstart", b).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    assert_eq!(client.server_info().map(|i| i.name.as_str()), Some("quickstart"));
    assert!(client.server_capabilities().tools.is_some());
    client.close().await;
}

/// A server fastmcp did not write: Python `mcp` 2.3.0's MCPServer (`tests/interop/python_server.py`), over
/// stdio, in each era — its `Elicit` resolver becomes an `input_required` round (modern) or a mid-call
/// `elicitation/create` (legacy), and the same handler answers both.
#[tokio::test]
async fn drives_a_python_server_in_each_era() {
    let python = fastmcp_tests::python::python();
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("interop/python_server.py");
    for (choice, era) in ERAS {
        let mut command = tokio::process::Command::new(&python);
        command.arg(&script);
        let b = builder(choice).on_elicit(|form| async move {
            assert_eq!(form.message, "Ship api?");
            Ok(accept(json!({"confirm": true})))
        });
        let client = b.stdio(command).await.expect("connects");
        assert_eq!(client.era(), era, "{choice:?}");
        let mut tools: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
        tools.sort();
        assert_eq!(tools, ["add", "ship"], "{choice:?}");
        let sum = client.call_tool("add", json!({"a": 2, "b": 3})).await.unwrap();
        assert_eq!(text(&sum), "5", "{choice:?}: {sum:?}");
        let shipped = client.call_tool("ship", json!({"service": "api"})).await.unwrap();
        assert_eq!(text(&shipped), "shipped api", "{choice:?}: {shipped:?}");
        let motto = client.read_resource("python://motto").await.unwrap();
        assert!(serde_json::to_string(&motto).unwrap().contains("batteries included"), "{choice:?}");
        let prompt = client.get_prompt("haiku", [("topic", "rust")]).await.unwrap();
        assert!(serde_json::to_string(&prompt).unwrap().contains("Write a haiku about rust."), "{choice:?}");
        client.close().await;
    }
}

/// A modern listen stream hears list changes another call triggers, over stdio and HTTP; dropping it ends
/// the subscription.
#[tokio::test]
async fn a_listen_stream_hears_list_changes() {
    let http = fastmcp_tests::HttpServer::spawn(example_bin("everything")).await;
    for over_http in [false, true] {
        let client = if over_http {
            builder(EraChoice::Modern).connect(&format!("http://{}/mcp", http.addr)).await.unwrap()
        } else {
            stdio("everything", builder(EraChoice::Modern)).await
        };
        let asked = fastmcp::protocol::ListenNotifications { tools_list_changed: true, ..Default::default() };
        let mut subscription = client.listen(asked).await.expect("acknowledged");
        assert!(subscription.acknowledged().is_some_and(|a| a.tools_list_changed), "{:?}", subscription.acknowledged());
        client.call_tool("test_trigger_tool_change", json!({})).await.unwrap();
        let heard =
            tokio::time::timeout(std::time::Duration::from_secs(10), subscription.next()).await.expect("in time");
        assert!(matches!(heard, Some(ServerNotification::ListChanged(fastmcp::ListChanged::Tools))), "{heard:?}");
        drop(subscription);
        client.close().await;
    }
}

/// Tasks, over stdio and HTTP: a tool that asks inside its task is answered through `tasks/update` by the
/// same handler; a tool without tasks answers at once; a legacy session runs the call synchronously.
#[tokio::test]
async fn task_calls_are_polled_and_fed_by_the_handlers() {
    use fastmcp::client::TaskOrResult;
    let http = fastmcp_tests::HttpServer::spawn(example_bin("everything")).await;
    for ((choice, _), over_http) in ERAS.into_iter().flat_map(|era| [(era, false), (era, true)]) {
        let b = builder(choice).on_elicit(|_| async { Ok(accept(json!({"confirm": true}))) });
        let client = match over_http {
            true => b.connect(&format!("http://{}/mcp", http.addr)).await.unwrap(),
            false => stdio("everything", b).await,
        };
        match client.call_tool_as_task("confirm_delete", json!({"filename": "a.txt"})).await.unwrap() {
            TaskOrResult::Task(task) => {
                assert_eq!(client.era(), Era::Modern, "{choice:?}");
                assert_eq!(text(&task.result().await.unwrap()), "Deleted a.txt", "{choice:?}");
            }
            TaskOrResult::Result(result) => {
                assert_eq!(client.era(), Era::Legacy, "legacy sessions have no tasks: {choice:?}");
                assert_eq!(text(&result), "Deleted a.txt", "{choice:?}");
            }
        }
        if client.era() == Era::Modern {
            let TaskOrResult::Task(slow) =
                client.call_tool_as_task("slow_compute", json!({"seconds": 60})).await.unwrap()
            else {
                panic!("slow_compute is a task")
            };
            slow.cancel().await.unwrap();
            assert_eq!(slow.status().await.unwrap().task.status, fastmcp::protocol::TaskStatus::Cancelled);
            let greeting = client.call_tool_as_task("greet", json!({"name": "Ada"})).await.unwrap();
            assert!(matches!(greeting, TaskOrResult::Result(_)), "a tool without tasks answers at once");
        }
        client.close().await;
    }
}

/// The same calls over Streamable HTTP: modern requests statelessly, legacy ones in a session whose
/// streams carry the shim's requests (answered with POSTs by the same handlers).
#[tokio::test]
async fn over_http_in_each_era() {
    let quickstart = fastmcp_tests::HttpServer::spawn(example_bin("quickstart")).await;
    let deploy = fastmcp_tests::HttpServer::spawn(example_bin("deploy")).await;
    for (choice, era) in ERAS {
        let client = builder(choice).connect(&format!("http://{}/mcp", quickstart.addr)).await.expect("connects");
        assert_eq!(client.era(), era, "{choice:?}");
        let greeting = client.call_tool("greet", json!({"name": "Ada"})).await.unwrap();
        assert_eq!(text(&greeting), "Hello, Ada!", "{choice:?}");
        assert_eq!(client.list_prompts().await.unwrap()[0].name, "review_code", "{choice:?}");
        client.close().await;

        let b = builder(choice)
            .on_elicit(|_| async { Ok(accept(json!({"confirm": true}))) })
            .on_sample(|_| async { Ok(CreateMessageResult::text("m", "notes")) });
        let client = b.connect(&format!("http://{}/mcp", deploy.addr)).await.expect("connects");
        let result = client.call_tool("deploy", json!({"service": "web", "replicas": 2})).await.unwrap();
        assert_eq!(text(&result), "Deployed web x2: notes", "{choice:?}");
        client.close().await;
    }
}

/// A Python `mcp` 2.3.0 server over Streamable HTTP, in each era.
#[tokio::test]
async fn drives_a_python_server_over_http() {
    let python = fastmcp_tests::python::python();
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("interop/python_server.py");
    let mut server = tokio::process::Command::new(&python)
        .arg(&script)
        .arg("http")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("the Python server starts");
    // It prints its port once it listens. Its stdout stays open (`out`) for as long as it runs.
    let mut out = tokio::io::BufReader::new(server.stdout.take().expect("piped"));
    let mut first = String::new();
    let read = tokio::io::AsyncBufReadExt::read_line(&mut out, &mut first);
    tokio::time::timeout(fastmcp_tests::TIMEOUT, read)
        .await
        .expect("the Python server listens in time")
        .expect("its stdout");
    let port: u16 = first.trim().parse().unwrap_or_else(|_| panic!("a port on its first line, not {first:?}"));
    let url = format!("http://127.0.0.1:{port}/mcp");
    for (choice, era) in ERAS {
        let b = builder(choice).on_elicit(|_| async { Ok(accept(json!({"confirm": true}))) });
        let client = b.connect(&url).await.unwrap_or_else(|e| panic!("{choice:?}: {e}"));
        assert_eq!(client.era(), era, "{choice:?}");
        assert_eq!(text(&client.call_tool("add", json!({"a": 20, "b": 22})).await.unwrap()), "42", "{choice:?}");
        let shipped = client.call_tool("ship", json!({"service": "db"})).await.unwrap();
        assert_eq!(text(&shipped), "shipped db", "{choice:?}: {shipped:?}");
        client.close().await;
    }
    let _ = server.kill().await;
}

/// Dropping a call's future cancels it on the server: `notifications/cancelled` on stdio (either era) and
/// on a legacy HTTP session, the closed response stream on modern HTTP. The fixture's `slow_marker` records
/// whether it ran to its end; cancelled, it never does.
#[tokio::test]
async fn a_dropped_call_is_cancelled_on_the_server() {
    let fixture: std::path::PathBuf = env!("CARGO_BIN_EXE_fixture").into();
    let http = fastmcp_tests::HttpServer::spawn(fixture.clone()).await;
    for (choice, _) in ERAS {
        for over_http in [false, true] {
            let client = if over_http {
                builder(choice).connect(&format!("http://{}/mcp", http.addr)).await.unwrap()
            } else {
                stdio_path(&fixture, builder(choice)).await
            };
            let slow = client.call_tool("slow_marker", json!({"ms": 800}));
            assert!(tokio::time::timeout(std::time::Duration::from_millis(200), slow).await.is_err());
            tokio::time::sleep(std::time::Duration::from_millis(1200)).await;
            let marker = client.call_tool("marker", json!({})).await.unwrap();
            assert_eq!(
                text(&marker),
                "false",
                "{choice:?} over {}: the call ran on",
                if over_http { "HTTP" } else { "stdio" }
            );
            client.close().await;
        }
    }
}

async fn stdio_path(path: &std::path::Path, builder: ClientBuilder) -> Client {
    builder.stdio(tokio::process::Command::new(path)).await.expect("connects")
}

/// The TypeScript SDK v2 server (`tests/interop/ts/server.mjs`) over stdio, in each era: its
/// `inputRequired` round (modern) and its legacy shim's `elicitation/create` (legacy) answered by the same
/// handler.
#[tokio::test]
async fn drives_a_typescript_server_in_each_era() {
    let home = fastmcp_tests::target_dir().join("ts-server");
    fastmcp_tests::npm::check_node((20, 19), "the TypeScript SDK server");
    let modules = fastmcp_tests::npm::install(&home, "@modelcontextprotocol/server", "2.4.0");
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("interop/ts/server.mjs");
    for (choice, era) in ERAS {
        let mut command = tokio::process::Command::new("node");
        command.arg(&script).arg(&modules);
        let b = builder(choice).on_elicit(|form| async move {
            assert_eq!(form.message, "Ship api?");
            Ok(accept(json!({"confirm": true})))
        });
        let client = b.stdio(command).await.unwrap_or_else(|e| panic!("{choice:?}: {e}"));
        assert_eq!(client.era(), era, "{choice:?}");
        assert_eq!(text(&client.call_tool("add", json!({"a": 40, "b": 2})).await.unwrap()), "42", "{choice:?}");
        let shipped = client.call_tool("ship", json!({"service": "api"})).await.unwrap();
        assert_eq!(text(&shipped), "shipped api", "{choice:?}: {shipped:?}");
        client.close().await;
    }
}

/// Closing a client stops its handlers still answering the server (a user who never answers a form): they
/// would otherwise keep the session, its transport and its connections alive for good. Over stdio and HTTP.
#[tokio::test]
async fn closing_stops_handlers_still_answering() {
    struct Dropped(Arc<std::sync::atomic::AtomicBool>);
    impl Drop for Dropped {
        fn drop(&mut self) {
            self.0.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }
    let http = fastmcp_tests::HttpServer::spawn(example_bin("deploy")).await;
    for over_http in [false, true] {
        let dropped = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (asked_tx, mut asked) = tokio::sync::mpsc::channel::<()>(1);
        let flag = dropped.clone();
        let b = builder(EraChoice::Legacy).on_elicit(move |_| {
            let (asked, guard) = (asked_tx.clone(), Dropped(flag.clone()));
            async move {
                let _guard = guard;
                let _ = asked.send(()).await;
                std::future::pending::<()>().await;
                Ok(accept(json!({"confirm": true})))
            }
        });
        let client = if over_http { b.http(&http.url()).await.unwrap() } else { stdio("deploy", b).await };
        let call = client.call_tool("deploy", json!({"service": "api", "replicas": 1}));
        tokio::select! {
            _ = call => panic!("the call ended before the form was asked"),
            _ = asked.recv() => {}
        }
        assert!(!dropped.load(std::sync::atomic::Ordering::SeqCst), "the handler still waits for its user");
        client.close().await;
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
        while !dropped.load(std::sync::atomic::Ordering::SeqCst) {
            assert!(tokio::time::Instant::now() < deadline, "closing stopped the handler (http: {over_http})");
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }
}
