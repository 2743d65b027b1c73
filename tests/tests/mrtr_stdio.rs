//! Multi-round-trip requests on the modern wire, over real processes: the deploy, survey and sum examples
//! driven round by round, and every way a retry can be wrong.

use fastmcp_tests::{StdioClient, example_bin, first_text, modern_meta};
use serde_json::{Value, json};

const CAPS: &str = r#"{"elicitation": {}, "sampling": {}}"#;

fn caps() -> Value {
    serde_json::from_str(CAPS).unwrap()
}

/// One `tools/call` with the modern envelope, optionally answering the previous round.
async fn call(c: &mut StdioClient, caps: Value, name: &str, arguments: Value, retry: Option<(Value, &str)>) -> Value {
    let mut params = json!({ "_meta": modern_meta(caps), "name": name, "arguments": arguments });
    if let Some((responses, state)) = retry {
        params["inputResponses"] = responses;
        params["requestState"] = json!(state);
    }
    c.request("tools/call", params).await
}

fn input_required(response: &Value) -> (&serde_json::Map<String, Value>, String) {
    let result = &response["result"];
    assert_eq!(result["resultType"], "input_required", "{response}");
    let state = result["requestState"].as_str().expect("requestState").to_owned();
    let requests = result["inputRequests"].as_object().expect("inputRequests");
    (requests, state)
}

fn only_key(requests: &serde_json::Map<String, Value>) -> String {
    assert_eq!(requests.len(), 1, "one input request: {requests:?}");
    requests.keys().next().unwrap().clone()
}

fn sampled(text: &str) -> Value {
    json!({"role": "assistant", "content": {"type": "text", "text": text}, "model": "test-model", "stopReason": "endTurn"})
}

#[tokio::test]
async fn deploy_runs_three_rounds_and_carries_the_plan() {
    let mut c = StdioClient::spawn(example_bin("deploy"));
    let args = json!({"service": "api", "replicas": 3});
    let r1 = call(&mut c, caps(), "deploy", args.clone(), None).await;
    let (requests, state1) = input_required(&r1);
    let key = only_key(requests);
    let ask = &requests[&key];
    assert_eq!(ask["method"], "elicitation/create");
    assert!(ask["params"]["message"].as_str().unwrap().contains("api"), "names the service: {ask}");
    assert_eq!(ask["params"]["requestedSchema"]["properties"]["confirm"]["type"], "boolean");
    assert_eq!(r1["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "deploy");

    let yes = json!({ key.clone(): {"action": "accept", "content": {"confirm": true}} });
    let r2 = call(&mut c, caps(), "deploy", args.clone(), Some((yes, &state1))).await;
    let (requests, state2) = input_required(&r2);
    assert_ne!(state1, state2, "each round mints its own state");
    let key2 = only_key(requests);
    assert_eq!(requests[&key2]["method"], "sampling/createMessage");
    assert_eq!(requests[&key2]["params"]["maxTokens"], 200);

    let notes = json!({ key2: sampled("faster and safer") });
    let r3 = call(&mut c, caps(), "deploy", args, Some((notes, &state2))).await;
    assert_eq!(r3["result"]["resultType"], "complete", "{r3}");
    assert_eq!(first_text(&r3["result"]), "Deployed api x3: faster and safer");
    assert!(r3["result"].get("ttlMs").is_none());
    assert!(c.close().await.0.success());
}

#[tokio::test]
async fn deploy_declined_cancelled_or_false_is_cancelled() {
    let mut c = StdioClient::spawn(example_bin("deploy"));
    let args = json!({"service": "web", "replicas": 1});
    for answer in [
        json!({"action": "decline"}),
        json!({"action": "cancel"}),
        json!({"action": "accept", "content": {"confirm": false}}),
    ] {
        let r1 = call(&mut c, caps(), "deploy", args.clone(), None).await;
        let (requests, state) = input_required(&r1);
        let key = only_key(requests);
        let r2 = call(&mut c, caps(), "deploy", args.clone(), Some((json!({ key: answer }), &state))).await;
        assert_eq!(first_text(&r2["result"]), "Deployment of web cancelled.", "for {answer}");
    }
    c.close().await;
}

#[tokio::test]
async fn retries_that_are_wrong_are_refused_precisely() {
    let mut c = StdioClient::spawn(example_bin("deploy"));
    let args = json!({"service": "db", "replicas": 2});
    let r1 = call(&mut c, caps(), "deploy", args.clone(), None).await;
    let (requests, state) = input_required(&r1);
    let key = only_key(requests);
    let yes = json!({ key.clone(): {"action": "accept", "content": {"confirm": true}} });

    // Missing answers: the same input_required again, with the same state.
    let again = call(&mut c, caps(), "deploy", args.clone(), Some((json!({}), &state))).await;
    let (requests_again, state_again) = input_required(&again);
    assert_eq!(state_again, state);
    assert_eq!(requests_again, requests);
    let wrong_key =
        call(&mut c, caps(), "deploy", args.clone(), Some((json!({"other": {"action": "accept"}}), &state))).await;
    assert_eq!(input_required(&wrong_key).1, state);

    // Extra keys are ignored.
    let mut extra = yes.clone();
    extra["unrelated"] = json!({"action": "decline"});
    let ok = call(&mut c, caps(), "deploy", args.clone(), Some((extra, &state))).await;
    assert_eq!(ok["result"]["resultType"], "input_required", "went on to the next round: {ok}");

    // A malformed answer is -32602, never a wrong result.
    let bad = json!({ key.clone(): {"action": "accept", "content": {"confirm": "yes"}} });
    let e = call(&mut c, caps(), "deploy", args.clone(), Some((bad, &state))).await;
    assert_eq!(e["error"]["code"], -32602, "{e}");

    // A tampered token, another set of arguments: refused before the handler runs.
    let mut tampered = state.clone().into_bytes();
    let i = tampered.len() / 2;
    tampered[i] = if tampered[i] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(tampered).unwrap();
    let refused = json!({"code": -32602, "message": "Invalid or expired requestState",
        "data": {"reason": "invalid_request_state"}});
    let e = call(&mut c, caps(), "deploy", args.clone(), Some((yes.clone(), &tampered))).await;
    assert_eq!(e["error"], refused, "a bad signature");
    let e = call(&mut c, caps(), "deploy", json!({"service": "db", "replicas": 9}), Some((yes.clone(), &state))).await;
    assert_eq!(e["error"], refused, "bound to the arguments: {e}");
    let e = call(&mut c, caps(), "deploy", args.clone(), Some((yes, "v1.garbage"))).await;
    assert_eq!(e["error"], refused, "malformed");
    c.close().await;
}

#[tokio::test]
async fn an_input_request_the_client_cannot_answer_is_never_embedded() {
    let mut c = StdioClient::spawn(example_bin("deploy"));
    let e = call(&mut c, json!({"sampling": {}}), "deploy", json!({"service": "s", "replicas": 1}), None).await;
    assert_eq!(e["error"]["code"], -32021, "{e}");
    assert_eq!(e["error"]["data"]["requiredCapabilities"], json!({"elicitation": {}}));
    c.close().await;
}

#[tokio::test]
async fn survey_asks_in_a_loop_and_keeps_every_answer_in_order() {
    let mut c = StdioClient::spawn(example_bin("survey"));
    let args = json!({"questions": ["name", "color", "pet"]});
    let mut retry: Option<(Value, String)> = None;
    let mut rounds = 0;
    let text = loop {
        rounds += 1;
        let r =
            call(&mut c, caps(), "survey", args.clone(), retry.as_ref().map(|(a, s)| (a.clone(), s.as_str()))).await;
        if r["result"]["resultType"] == "complete" {
            break first_text(&r["result"]).to_owned();
        }
        let (requests, state) = input_required(&r);
        let key = only_key(requests);
        let question = requests[&key]["params"]["message"].as_str().unwrap().to_owned();
        let answer = json!({ key: {"action": "accept", "content": {"answer": format!("my {question}")}} });
        retry = Some((answer, state));
    };
    assert_eq!(text, "name=my name; color=my color; pet=my pet");
    assert_eq!(rounds, 4, "three questions, then the result");
    c.close().await;
}

#[tokio::test]
async fn sum_works_a_slice_per_state_only_round() {
    let mut c = StdioClient::spawn(example_bin("sum"));
    let args = json!({"numbers": (1..=10).collect::<Vec<i64>>(), "chunk": 3});
    let mut state: Option<String> = None;
    let text = loop {
        let r = call(&mut c, json!({}), "sum", args.clone(), state.as_deref().map(|s| (json!({}), s))).await;
        let result = &r["result"];
        if result["resultType"] == "complete" {
            break first_text(result).to_owned();
        }
        assert_eq!(result["resultType"], "input_required", "{r}");
        assert!(result.get("inputRequests").is_none(), "a state-only round asks nothing: {r}");
        state = Some(result["requestState"].as_str().unwrap().to_owned());
    };
    assert_eq!(text, "sum=55 in 4 rounds");
    c.close().await;
}

fn fixture() -> StdioClient {
    StdioClient::spawn(env!("CARGO_BIN_EXE_fixture").into())
}

#[tokio::test]
async fn a_tuple_of_asks_is_one_round_with_several_keys() {
    let mut c = fixture();
    let caps = json!({"elicitation": {}, "sampling": {}, "roots": {}});
    let r1 = call(&mut c, caps.clone(), "multi", json!({}), None).await;
    let (requests, state) = input_required(&r1);
    assert_eq!(requests.len(), 3, "{requests:?}");
    let mut answers = serde_json::Map::new();
    for (key, request) in requests {
        let answer = match request["method"].as_str().unwrap() {
            "elicitation/create" => json!({"action": "accept", "content": {"name": "Grace"}}),
            "sampling/createMessage" => sampled("Paris"),
            "roots/list" => json!({"roots": [{"uri": "file:///srv", "name": "srv"}]}),
            other => panic!("{other}"),
        };
        answers.insert(key.clone(), answer);
    }
    let r2 = call(&mut c, caps.clone(), "multi", json!({}), Some((Value::Object(answers.clone()), &state))).await;
    assert_eq!(first_text(&r2["result"]), "Grace|Paris|1");
    // Answering only some of the keys asks the same again: the same requests (carried in the state), the
    // same state.
    let first = answers.keys().next().unwrap().clone();
    let partial = json!({ first.clone(): answers[&first] });
    let again = call(&mut c, caps, "multi", json!({}), Some((partial, &state))).await;
    assert_eq!(input_required(&again), (requests, state));
    c.close().await;
}

#[tokio::test]
async fn url_elicitation_has_no_id_on_the_modern_wire() {
    let mut c = fixture();
    let caps = json!({"elicitation": {"url": {}}});
    let r1 = call(&mut c, caps.clone(), "visit", json!({"url": "https://example.com/pay"}), None).await;
    let (requests, state) = input_required(&r1);
    let key = only_key(requests);
    assert_eq!(requests[&key]["params"]["mode"], "url");
    assert!(requests[&key]["params"].get("elicitationId").is_none());
    let r2 = call(
        &mut c,
        caps,
        "visit",
        json!({"url": "https://example.com/pay"}),
        Some((json!({ key: {"action": "decline"} }), &state)),
    )
    .await;
    assert_eq!(first_text(&r2["result"]), "Declined");
    let form_only = call(&mut c, json!({"elicitation": {}}), "visit", json!({"url": "https://x"}), None).await;
    assert_eq!(form_only["error"]["code"], -32021);
    assert_eq!(form_only["error"]["data"]["requiredCapabilities"], json!({"elicitation": {"url": {}}}));
    c.close().await;
}
