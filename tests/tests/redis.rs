//! The shared store on a real `redis-server`: the store's contract, and replicas — real server processes
//! sharing one Redis (`FASTMCP_REDIS_URL`) and one key ring (`FASTMCP_STATE_KEYS`) — serving one client's
//! flows between them: rounds moving between replicas, one-time final rounds refused on every replica, a
//! replica killed between rounds, changes made on one reaching listeners on another, and Redis killed and
//! restarted mid-flow.

use fastmcp::store::{Event, RedisConfig, RedisStore, Store};
use fastmcp_tests::redis::RedisServer;
use fastmcp_tests::{HttpServer, SseStream, example_bin, first_text, modern_meta};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// One 32-byte key (7s), base64url: every replica signs and verifies with it.
const KEYS: &str = "BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc";
const WAIT: Duration = Duration::from_secs(30);
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

async fn replica(bin: &str, redis: &RedisServer) -> HttpServer {
    let url = redis.url();
    HttpServer::spawn_with_env(example_bin(bin), &[("FASTMCP_REDIS_URL", &url), ("FASTMCP_STATE_KEYS", KEYS)]).await
}

fn store(redis: &RedisServer, namespace: &str) -> RedisStore {
    let config = RedisConfig { namespace: namespace.into(), ..RedisConfig::default() };
    RedisStore::with_config(&redis.url(), config).expect("a Redis URL")
}

/// A `deploy` round: the call, with the previous round's answers and state if any.
async fn deploy(s: &HttpServer, id: i64, retry: Option<(Value, &str)>) -> Value {
    let mut params = json!({"name": "deploy", "arguments": {"service": "api", "replicas": 2}});
    if let Some((responses, state)) = retry {
        params["inputResponses"] = responses;
        params["requestState"] = json!(state);
    }
    s.modern(id, "tools/call", params).await.response()
}

/// The `input_required` result's only request key and its state.
fn asked(response: &Value) -> (String, String) {
    let result = &response["result"];
    assert_eq!(result["resultType"], "input_required", "{response}");
    let requests = result["inputRequests"].as_object().expect("inputRequests");
    assert_eq!(requests.len(), 1, "{response}");
    (requests.keys().next().unwrap().clone(), result["requestState"].as_str().unwrap().to_owned())
}

fn confirm(key: &str) -> Value {
    json!({ key: {"action": "accept", "content": {"confirm": true}} })
}

fn notes(key: &str) -> Value {
    json!({ key: {"role": "assistant", "content": {"type": "text", "text": "notes"}, "model": "m", "stopReason": "endTurn"} })
}

/// Rounds 1 and 2 of a deploy on `a` and `b`: the state of the final round and its answers.
async fn to_final_round(a: &HttpServer, b: &HttpServer) -> (Value, String) {
    let (key, state) = asked(&deploy(a, 1, None).await);
    let (key, state) = asked(&deploy(b, 2, Some((confirm(&key), &state))).await);
    (notes(&key), state)
}

fn assert_consumed(response: &Value) {
    assert_eq!(response["error"]["code"], -32602, "{response}");
    assert_eq!(response["error"]["data"]["reason"], "request_state_consumed", "{response}");
}

fn assert_store_unavailable(response: &Value) {
    assert_eq!(response["error"]["code"], -32603, "{response}");
    let message = response["error"]["message"].as_str().unwrap_or_default();
    assert!(message.starts_with("shared store unavailable: "), "{response}");
}

#[tokio::test]
async fn the_redis_store_keeps_the_store_contract() {
    let redis = RedisServer::start().await;
    let (one, two) = (store(&redis, "contract:"), store(&redis, "contract:"));
    assert!(one.insert_if_absent("k", b"first", Duration::from_secs(60)).await.unwrap());
    assert!(!two.insert_if_absent("k", b"second", Duration::from_secs(60)).await.unwrap(), "one store sees the other");
    assert_eq!(two.get("k").await.unwrap().as_deref(), Some(&b"first"[..]));
    two.put("k", b"replaced", Duration::from_secs(60)).await.unwrap();
    assert_eq!(one.get("k").await.unwrap().as_deref(), Some(&b"replaced"[..]));
    one.delete("k").await.unwrap();
    assert_eq!(two.get("k").await.unwrap(), None);
    // Namespaces keep servers apart.
    assert!(store(&redis, "other:").insert_if_absent("k", b"", Duration::from_secs(60)).await.unwrap());

    // Expiry is Redis's own: the key goes once its ttl has passed.
    one.put("short", b"", Duration::from_millis(100)).await.unwrap();
    let gone = async {
        while one.get("short").await.unwrap().is_some() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(WAIT, gone).await.expect("the key expired");
    // A touch gives a live key a new expiry, and finds an absent one absent.
    one.put("touched", b"kept", Duration::from_millis(300)).await.unwrap();
    assert!(two.touch("touched", Duration::from_secs(60)).await.unwrap());
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(one.get("touched").await.unwrap().as_deref(), Some(&b"kept"[..]), "the touch outlived the first ttl");
    assert!(!two.touch("short", Duration::from_secs(60)).await.unwrap(), "an expired key is not revived");

    let mut subscription = two.subscribe("channel");
    assert_eq!(tokio::time::timeout(WAIT, subscription.next()).await.unwrap(), Some(Event::Ready));
    one.publish("channel", b"hello").await.unwrap();
    assert_eq!(tokio::time::timeout(WAIT, subscription.next()).await.unwrap(), Some(Event::Message(b"hello".to_vec())));
}

#[tokio::test]
async fn of_concurrent_inserts_through_two_connections_exactly_one_wins() {
    let redis = RedisServer::start().await;
    let stores = [Arc::new(store(&redis, "race:")), Arc::new(store(&redis, "race:"))];
    let tries = (0..32).map(|i| {
        let store = stores[i % 2].clone();
        tokio::spawn(async move { store.insert_if_absent("once", b"", Duration::from_secs(60)).await.unwrap() })
    });
    let won = futures_util_join(tries).await;
    assert_eq!(won.iter().filter(|w| **w).count(), 1, "{won:?}");
}

async fn futures_util_join<T: Send + 'static>(tasks: impl Iterator<Item = tokio::task::JoinHandle<T>>) -> Vec<T> {
    let mut out = Vec::new();
    for task in tasks.collect::<Vec<_>>() {
        out.push(task.await.expect("the task ran"));
    }
    out
}

#[tokio::test]
async fn rounds_move_between_replicas_and_a_replayed_final_round_is_refused_on_every_one() {
    let redis = RedisServer::start().await;
    let (a, b) = (replica("deploy", &redis).await, replica("deploy", &redis).await);
    let (answers, state) = to_final_round(&a, &b).await;
    let done = deploy(&a, 3, Some((answers.clone(), &state))).await;
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
    assert_eq!(first_text(&done["result"]), "Deployed api x2: notes");
    assert_consumed(&deploy(&b, 4, Some((answers.clone(), &state))).await);
    assert_consumed(&deploy(&a, 5, Some((answers, &state))).await);
}

#[tokio::test]
async fn a_replica_killed_between_rounds_loses_nothing() {
    let redis = RedisServer::start().await;
    let (a, b) = (replica("deploy", &redis).await, replica("deploy", &redis).await);
    let (key, state) = asked(&deploy(&a, 1, None).await);
    assert!(a.terminate().await.success());
    let (key, state) = asked(&deploy(&b, 2, Some((confirm(&key), &state))).await);
    let done = deploy(&b, 3, Some((notes(&key), &state))).await;
    assert_eq!(first_text(&done["result"]), "Deployed api x2: notes", "{done}");
}

#[tokio::test]
async fn of_concurrent_replays_on_two_replicas_exactly_one_completes() {
    let redis = RedisServer::start().await;
    let (a, b) = (Arc::new(replica("deploy", &redis).await), Arc::new(replica("deploy", &redis).await));
    let (answers, state) = to_final_round(&a, &b).await;
    let sends = (0..8).map(|i| {
        let server = if i % 2 == 0 { a.clone() } else { b.clone() };
        let (answers, state) = (answers.clone(), state.clone());
        tokio::spawn(async move { deploy(&server, 10 + i, Some((answers, &state))).await })
    });
    let answers = futures_util_join(sends).await;
    let complete = answers.iter().filter(|r| r["result"]["resultType"] == "complete").count();
    assert_eq!(complete, 1, "{answers:#?}");
    for refused in answers.iter().filter(|r| r.get("error").is_some()) {
        assert_consumed(refused);
    }
}

/// Opens `subscriptions/listen` for tool list changes on `s` and reads its acknowledgement.
async fn listen_for_tools(s: &HttpServer, id: &str) -> SseStream {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
        "params": {"_meta": modern_meta(json!({})), "notifications": {"toolsListChanged": true}}});
    let mut stream =
        s.open(&[("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "subscriptions/listen")], &body).await;
    assert_eq!(stream.status, 200);
    let ack = tokio::time::timeout(WAIT, stream.next()).await.expect("acknowledged in time").expect("an ack");
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "{ack}");
    stream
}

async fn trigger_tool_change(s: &HttpServer, id: i64) {
    let r = s.modern(id, "tools/call", json!({"name": "test_trigger_tool_change", "arguments": {}})).await;
    assert_eq!(first_text(&r.response()["result"]), "Tool list change notification sent");
}

/// The next message on `stream` that is a notification of `method`, within [`WAIT`].
async fn next_notification(stream: &mut SseStream, method: &str) -> Value {
    tokio::time::timeout(WAIT, async {
        loop {
            let message = stream.next().await.unwrap_or_else(|| panic!("the stream ended before {method}"));
            if message["method"] == method {
                return message;
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("no {method} in time"))
}

#[tokio::test]
async fn a_list_change_on_one_replica_reaches_listeners_and_sessions_on_another() {
    let redis = RedisServer::start().await;
    let (a, b) = (replica("everything", &redis).await, replica("everything", &redis).await);
    let mut listener = listen_for_tools(&b, "sub-b").await;
    // A legacy session on B, with its standalone stream open.
    let session = b.legacy_session("2025-06-18", json!({})).await;
    let mut legacy = b.get(&[("Mcp-Session-Id", &session), ("MCP-Protocol-Version", "2025-06-18")]).await;
    assert_eq!(legacy.status, 200);

    trigger_tool_change(&a, 1).await;
    let note = next_notification(&mut listener, "notifications/tools/list_changed").await;
    assert_eq!(note["params"]["_meta"][SUBSCRIPTION_ID], "sub-b", "{note}");
    next_notification(&mut legacy, "notifications/tools/list_changed").await;
}

#[tokio::test]
async fn with_redis_down_what_needs_it_fails_clearly_and_it_recovers_when_redis_is_back() {
    let mut redis = RedisServer::start().await;
    let (a, b) = (replica("deploy", &redis).await, replica("deploy", &redis).await);
    let (answers, state) = to_final_round(&a, &b).await;

    redis.kill().await;
    assert_store_unavailable(&deploy(&a, 3, Some((answers.clone(), &state))).await);
    // The server lives: what needs no store is served, a flow's first rounds too.
    let listed = a.modern(4, "tools/list", json!({})).await.response();
    assert_eq!(listed["result"]["tools"][0]["name"], "deploy", "{listed}");
    asked(&deploy(&b, 5, None).await);

    redis.restart().await;
    // The replicas reconnect by themselves; the refused final round was never consumed, so it runs now.
    let done = tokio::time::timeout(WAIT, async {
        loop {
            let r = deploy(&b, 6, Some((answers.clone(), &state))).await;
            if r.get("error").is_none() {
                return r;
            }
            assert_store_unavailable(&r);
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await
    .expect("the replica reconnected in time");
    assert_eq!(first_text(&done["result"]), "Deployed api x2: notes", "{done}");
    assert_consumed(&deploy(&a, 7, Some((answers, &state))).await);
}

#[tokio::test]
async fn listeners_are_refused_while_redis_is_down_and_hear_changes_again_once_it_is_back() {
    let mut redis = RedisServer::start().await;
    let (a, b) = (replica("everything", &redis).await, replica("everything", &redis).await);
    let mut before = listen_for_tools(&b, "before").await;

    redis.kill().await;
    let body = json!({"jsonrpc": "2.0", "id": "down", "method": "subscriptions/listen",
        "params": {"_meta": modern_meta(json!({})), "notifications": {"toolsListChanged": true}}});
    let refused =
        b.post(&[("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "subscriptions/listen")], &body).await;
    assert_store_unavailable(&refused.response());

    redis.restart().await;
    // The listener that stayed is resynced ("every list changed") once the channel is back.
    next_notification(&mut before, "notifications/tools/list_changed").await;
    // And a change on A reaches a new listener on B.
    let mut after = listen_for_tools(&b, "after").await;
    let reached = tokio::time::timeout(WAIT, async {
        let mut id = 10;
        loop {
            // A's publisher may still be reconnecting: a change it could not send is lost, so send again.
            trigger_tool_change(&a, id).await;
            id += 1;
            while let Ok(Some(event)) = after.next_event_within(Duration::from_millis(500)).await {
                if event.is_message() {
                    return event.json();
                }
            }
        }
    })
    .await
    .expect("a change reached the listener after the restart");
    assert_eq!(reached["method"], "notifications/tools/list_changed", "{reached}");
}

const TASKS: &str = "io.modelcontextprotocol/tasks";

/// A modern request to `s` from a client that opted into tasks; the whole response.
async fn task_request(s: &HttpServer, id: i64, method: &str, params: Value) -> Value {
    let capabilities = json!({"elicitation": {}, "extensions": { TASKS: {} }});
    s.modern_declaring(id, method, params, capabilities).await.response()
}

/// Polls `tasks/get` on `s` until the task's status is `status`.
async fn until_status(s: &HttpServer, task_id: &Value, status: &str) -> Value {
    tokio::time::timeout(WAIT, async {
        loop {
            let r = task_request(s, 99, "tasks/get", json!({"taskId": task_id})).await;
            assert!(r.get("error").is_none(), "{r}");
            if r["result"]["status"] == status {
                return r["result"].clone();
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("the task never became {status}"))
}

#[tokio::test]
async fn a_task_made_on_one_replica_is_polled_answered_and_cancelled_on_another() {
    let redis = RedisServer::start().await;
    let (a, b) = (replica("everything", &redis).await, replica("everything", &redis).await);

    // Made on A (its runner runs there), waiting for input: B shows the request and takes the answer.
    let created =
        task_request(&a, 1, "tools/call", json!({"name": "confirm_delete", "arguments": {"filename": "f"}})).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let task_id = created["result"]["taskId"].clone();
    let waiting = until_status(&b, &task_id, "input_required").await;
    let key = waiting["inputRequests"].as_object().expect("input requests").keys().next().unwrap().clone();
    let answer = json!({ key: {"action": "accept", "content": {"confirm": true}} });
    let updated = task_request(&b, 2, "tasks/update", json!({"taskId": task_id, "inputResponses": answer})).await;
    assert!(updated.get("error").is_none(), "{updated}");
    let done = until_status(&b, &task_id, "completed").await;
    assert_eq!(first_text(&done["result"]), "Deleted f", "{done}");

    // A long one made on A, cancelled on B: both see it cancelled, and it stays so.
    let slow = task_request(&a, 3, "tools/call", json!({"name": "slow_compute", "arguments": {"seconds": 600}})).await;
    let slow_id = slow["result"]["taskId"].clone();
    let cancelled = task_request(&b, 4, "tasks/cancel", json!({"taskId": slow_id})).await;
    assert!(cancelled.get("error").is_none(), "{cancelled}");
    until_status(&a, &slow_id, "cancelled").await;

    // A task id another replica never heard of is unknown there too.
    let unknown = task_request(&b, 5, "tasks/get", json!({"taskId": "0123456789abcdef0123456789abcdef"})).await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
}

/// A legacy request in `session` (its id and version headers), answered whole.
async fn in_session(s: &HttpServer, session: &str, id: i64, method: &str, params: Value) -> Value {
    let headers = [("Mcp-Session-Id", session), ("MCP-Protocol-Version", "2025-06-18")];
    let reply = s.post(&headers, &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
    assert_eq!(reply.status, 200, "{method}: {reply:?}");
    reply.response()
}

fn soak_server(redis: &RedisServer) -> impl Future<Output = HttpServer> {
    let url = redis.url();
    async move {
        let bin = std::path::PathBuf::from(env!("CARGO_BIN_EXE_soak_server"));
        HttpServer::spawn_with_env(bin, &[("FASTMCP_REDIS_URL", &url), ("FASTMCP_STATE_KEYS", KEYS)]).await
    }
}

async fn tally(s: &HttpServer, session: &str, id: i64, add: i64) -> i64 {
    let r = in_session(s, session, id, "tools/call", json!({"name": "tally", "arguments": {"add": add}})).await;
    assert!(r.get("error").is_none(), "{r}");
    first_text(&r["result"]).parse().unwrap_or_else(|_| panic!("a total: {r}"))
}

#[tokio::test]
async fn a_legacy_session_opened_on_one_replica_is_continued_on_another() {
    let redis = RedisServer::start().await;
    let (a, b) = (replica("everything", &redis).await, replica("everything", &redis).await);
    let session = a.legacy_session("2025-06-18", json!({"elicitation": {}})).await;
    let headers = [("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", "2025-06-18")];

    // B serves the session A opened.
    let text = in_session(&b, &session, 1, "tools/call", json!({"name": "test_simple_text", "arguments": {}})).await;
    assert_eq!(first_text(&text["result"]), "This is a simple text response for testing.", "{text}");

    // The shim on A asks the client; the client's answer reaches B, which hands it to A's request.
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "test_elicitation", "arguments": {"message": "Who are you?"}}});
    let mut stream = a.open(&headers, &call).await;
    assert_eq!(stream.status, 200);
    let ask = next_notification(&mut stream, "elicitation/create").await;
    let answer = json!({"jsonrpc": "2.0", "id": ask["id"],
        "result": {"action": "accept", "content": {"username": "ada", "email": "ada@example.com"}}});
    assert_eq!(b.post(&headers, &answer).await.status, 202);
    let done = tokio::time::timeout(WAIT, async {
        loop {
            let message = stream.next().await.expect("the stream ends with the response");
            if message["id"] == 2 {
                return message;
            }
        }
    })
    .await
    .expect("the call completed");
    assert!(first_text(&done["result"]).contains("ada"), "{done}");

    // Ended on B: gone on A too.
    assert_eq!(b.send("DELETE", &headers, "").await.status, 200);
    let ping = json!({"jsonrpc": "2.0", "id": 3, "method": "ping"});
    let gone = tokio::time::timeout(WAIT, async {
        loop {
            let reply = a.post(&headers, &ping).await;
            if reply.status == 404 {
                return reply;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("A heard the session end");
    assert_eq!(gone.json()["error"]["code"], -32001, "{gone:?}");
    assert_eq!(b.post(&headers, &ping).await.status, 404, "and B has no copy left either");
}

#[tokio::test]
async fn a_legacy_sessions_state_outlives_the_replica_that_opened_it() {
    let mut redis = RedisServer::start().await;
    let (a, b) = (soak_server(&redis).await, soak_server(&redis).await);
    let session = a.legacy_session("2025-06-18", json!({})).await;
    assert_eq!(tally(&a, &session, 1, 2).await, 2);
    assert_eq!(tally(&b, &session, 2, 3).await, 5, "B goes on from A's total");
    assert_eq!(tally(&a, &session, 3, 4).await, 9, "and A from B's");
    a.terminate().await;
    assert_eq!(tally(&b, &session, 4, 1).await, 10, "A gone: the session lives on B");
    let c = soak_server(&redis).await;
    assert_eq!(tally(&c, &session, 5, 1).await, 11, "a replica started since knows it too");

    // Redis down: the session cannot be read, so its requests are refused (503) rather than served from a
    // copy that may be stale.
    redis.kill().await;
    let headers = [("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", "2025-06-18")];
    let call = json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call",
        "params": {"name": "tally", "arguments": {"add": 100}}});
    let refused = b.post(&headers, &call).await;
    assert_eq!(refused.status, 503, "{refused:?}");
    assert_store_unavailable(&refused.json());
    assert_eq!(refused.header("retry-after"), Some("1"));
    // This Redis comes back empty (nothing persisted): the replicas holding copies put the session back,
    // and it goes on where it was — the refused call never ran.
    redis.restart().await;
    assert_eq!(once_reconnected(&b, &headers, &call).await, "111");
    // Each replica finds its connection broken on its first command after the restart (503 again), then
    // reconnects: C's turn comes after B's.
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "tally", "arguments": {"add": 1}}});
    assert_eq!(once_reconnected(&c, &headers, &call).await, "112", "on every replica");

    // Ended, it stays ended: a copy that finds no record then does not put it back.
    assert_eq!(c.send("DELETE", &headers, "").await.status, 200);
    assert_eq!(b.post(&headers, &call).await.status, 404);
}

/// Redis restarted empty, and the first copy to put a session's record back had missed the last change
/// (its note lost with the connection): the copy that made it must not step back to the older record, but
/// put its own back. The soak found this as a running total that forgot two additions.
#[tokio::test]
async fn a_session_put_back_from_a_stale_copy_is_replaced_by_the_newest_copy() {
    let redis = RedisServer::start().await;
    let (a, b) = (soak_server(&redis).await, soak_server(&redis).await);
    let session = a.legacy_session("2025-06-18", json!({})).await;
    let (store, record) = (store(&redis, "fastmcp:"), format!("session:{session}"));
    assert_eq!(tally(&a, &session, 1, 2).await, 2);
    let stale = store.get(&record).await.unwrap().expect("the session's record");
    assert_eq!(tally(&b, &session, 2, 3).await, 5);

    store.put(&record, &stale, Duration::from_secs(60)).await.unwrap();
    assert_eq!(tally(&b, &session, 3, 4).await, 9, "B keeps what it has, and puts it back");
    assert_eq!(tally(&a, &session, 4, 1).await, 10, "A goes on from B's total");
    store.put(&record, &stale, Duration::from_secs(60)).await.unwrap();
    assert_eq!(tally(&a, &session, 5, 1).await, 11, "and so does A, the copy that made the last change");
    assert_eq!(tally(&b, &session, 6, 1).await, 12);
}

/// The text `call` answers on `s` once `s` is back on Redis: until then each try must be refused with 503.
async fn once_reconnected(s: &HttpServer, headers: &[(&str, &str)], call: &Value) -> String {
    tokio::time::timeout(WAIT, async {
        loop {
            let reply = s.post(headers, call).await;
            if reply.status == 200 {
                return first_text(&reply.response()["result"]).to_owned();
            }
            assert_eq!(reply.status, 503, "{reply:?}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await
    .expect("reconnected in time")
}

/// Reads `stream` to its end; the id of its last event.
async fn last_event_id(stream: &mut SseStream) -> String {
    let mut last = None;
    while let Some(event) = stream.next_event().await {
        if event.id.is_some() {
            last = event.id;
        }
    }
    last.expect("the stream had events with ids")
}

#[tokio::test]
async fn a_stream_one_replica_closed_is_resumed_on_another_and_on_a_replica_that_lost_it() {
    let redis = RedisServer::start().await;
    let (a, b) = (replica("everything", &redis).await, replica("everything", &redis).await);
    // 2025-11-25 sessions get priming events: the client has an id to resume from before any message.
    let session = a.legacy_session("2025-11-25", json!({})).await;
    let headers = [("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "test_reconnection", "arguments": {}}});
    let mut stream = a.open(&headers, &call).await;
    // The handler closes the stream mid-call: all the client has is the priming event's id.
    let last = last_event_id(&mut stream).await;

    let mut resumed = b.get(&[headers[0], headers[1], ("Last-Event-ID", &last)]).await;
    assert_eq!(resumed.status, 200, "B resumes A's stream");
    let result = tokio::time::timeout(WAIT, resumed.next()).await.expect("in time").expect("the result");
    assert_eq!(result["id"], 7, "{result}");
    assert!(first_text(&result["result"]).contains("delivered after reconnecting"), "{result}");
    assert!(resumed.next().await.is_none(), "and the stream ends with it");

    // Asked again from the same point, a replica that never served the session replays it too.
    let c = replica("everything", &redis).await;
    let mut again = c.get(&[headers[0], headers[1], ("Last-Event-ID", &last)]).await;
    assert_eq!(again.status, 200);
    assert_eq!(again.next().await.expect("replayed")["id"], 7);

    // An id past the stream's end, or of a stream that never was, is refused as before.
    let past = format!("{}-99", last.split('-').next().unwrap());
    assert_eq!(b.get(&[headers[0], headers[1], ("Last-Event-ID", &past)]).await.status, 400);
    assert_eq!(b.get(&[headers[0], headers[1], ("Last-Event-ID", "123456-0")]).await.status, 400);
}

#[tokio::test]
async fn a_stream_whose_replica_died_mid_request_is_answered_with_an_error_on_another() {
    let redis = RedisServer::start().await;
    let (a, b) = (replica("everything", &redis).await, replica("everything", &redis).await);
    let session = a.legacy_session("2025-11-25", json!({"elicitation": {}})).await;
    let headers = [("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    let call = json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call",
        "params": {"name": "test_elicitation", "arguments": {"message": "Who are you?"}}});
    let mut stream = a.open(&headers, &call).await;
    let priming = stream.next_event().await.expect("the priming event");
    let ask = stream.next_message().await.expect("the elicitation");
    assert_eq!(ask.json()["method"], "elicitation/create", "{ask:?}");

    // A dies with the request waiting on the client.
    a.terminate().await;
    let mut resumed = b.get(&[headers[0], headers[1], ("Last-Event-ID", priming.id.as_deref().unwrap())]).await;
    assert_eq!(resumed.status, 200);
    let replayed = resumed.next_message().await.expect("the elicitation, replayed");
    assert_eq!(replayed.id, ask.id, "the same event, under its id");
    let lost = tokio::time::timeout(WAIT, resumed.next()).await.expect("in time").expect("an error for the request");
    assert_eq!(lost["id"], 8, "{lost}");
    assert_eq!(lost["error"]["code"], -32603, "{lost}");
    assert!(lost["error"]["message"].as_str().unwrap().contains("send the request again"), "{lost}");
    assert!(resumed.next().await.is_none());
}

// Tasks across replicas: a task whose replica died fails instead of keeping its last status, and the
// per-principal task limit counts every replica's tasks.

const RUNNER_LOST: &str = "the server replica running this task stopped before it finished; create the task again";

#[tokio::test]
async fn a_task_whose_replica_died_fails_on_another_instead_of_keeping_its_last_status() {
    let redis = RedisServer::start().await;
    let (a, b) = (replica("everything", &redis).await, replica("everything", &redis).await);
    let start = async |id: i64, name: &str, arguments: Value| {
        let created = task_request(&a, id, "tools/call", json!({"name": name, "arguments": arguments})).await;
        assert_eq!(created["result"]["resultType"], "task", "{created}");
        created["result"]["taskId"].clone()
    };
    let waiting = start(1, "confirm_delete", json!({"filename": "f"})).await;
    let working = start(2, "slow_compute", json!({"seconds": 600})).await;
    let finished = start(3, "slow_compute", json!({"seconds": 0})).await;
    // While A lives, B shows its tasks as they are.
    until_status(&b, &waiting, "input_required").await;
    until_status(&b, &working, "working").await;
    let completed = until_status(&b, &finished, "completed").await;

    assert!(a.terminate().await.success());
    let stopped = tokio::time::Instant::now();
    for id in [&waiting, &working] {
        let failed = until_status(&b, id, "failed").await;
        assert_eq!(failed["statusMessage"], RUNNER_LOST, "{failed}");
        assert_eq!(failed["error"], json!({"code": -32603, "message": RUNNER_LOST}), "{failed}");
        assert!(failed.get("inputRequests").is_none() && failed.get("result").is_none(), "{failed}");
    }
    // A's lease is 5 s: the tasks fail soon after it ends, not when they expire (an hour).
    assert!(stopped.elapsed() < Duration::from_secs(12), "failed after {:?}", stopped.elapsed());
    // A task that finished before its replica died keeps its result; a failed one stays failed.
    assert_eq!(until_status(&b, &finished, "completed").await, completed);
    let again = task_request(&b, 4, "tasks/get", json!({"taskId": working})).await;
    assert_eq!(again["result"]["status"], "failed", "{again}");
    // B's own tasks are B's to run: alive, they stay working.
    let own = task_request(&b, 5, "tools/call", json!({"name": "slow_compute", "arguments": {"seconds": 600}})).await;
    until_status(&b, &own["result"]["taskId"], "working").await;
}

/// A replica of the `task_replica` test bin: two principals (`alice-token`, `bob-token`), at most
/// `per_principal` tasks each, tasks that expire after `ttl`.
async fn task_replica(redis: &RedisServer, per_principal: usize, ttl: Duration) -> HttpServer {
    let bin = std::path::PathBuf::from(env!("CARGO_BIN_EXE_task_replica"));
    let (url, cap, ttl) = (redis.url(), per_principal.to_string(), ttl.as_millis().to_string());
    let env = [("FASTMCP_REDIS_URL", url.as_str()), ("FASTMCP_STATE_KEYS", KEYS)];
    HttpServer::spawn_with_env(bin, &[env[0], env[1], ("TASKS_PER_PRINCIPAL", &cap), ("TASK_TTL_MS", &ttl)]).await
}

/// `hold` as a task, as `token`'s holder: the whole response.
async fn hold_as(s: &HttpServer, token: &str, id: i64) -> Value {
    let bearer = format!("Bearer {token}");
    let params = json!({"name": "hold", "arguments": {"seconds": 600}});
    let capabilities = json!({"extensions": { TASKS: {} }});
    s.modern_with(id, "tools/call", params, capabilities, &[("Authorization", &bearer)]).await.response()
}

fn assert_made(response: &Value) {
    assert_eq!(response["result"]["resultType"], "task", "{response}");
}

fn assert_over_the_limit(response: &Value, limit: usize) {
    assert_eq!(response["error"]["code"], -32603, "{response}");
    let message = response["error"]["message"].as_str().unwrap_or_default();
    let named = message.contains(&format!("at most {limit} tasks")) && message.contains("max_tasks_per_principal");
    assert!(named, "{response}");
}

#[tokio::test]
async fn the_per_principal_task_limit_counts_the_tasks_on_every_replica() {
    let redis = RedisServer::start().await;
    let ttl = Duration::from_secs(8);
    let (a, b) = (Arc::new(task_replica(&redis, 3, ttl).await), Arc::new(task_replica(&redis, 3, ttl).await));

    // Alice's three tasks, on both replicas, fill her share on each.
    let made = tokio::time::Instant::now();
    assert_made(&hold_as(&a, "alice-token", 1).await);
    assert_made(&hold_as(&b, "alice-token", 2).await);
    assert_made(&hold_as(&a, "alice-token", 3).await);
    assert_over_the_limit(&hold_as(&b, "alice-token", 4).await, 3);
    assert_over_the_limit(&hold_as(&a, "alice-token", 5).await, 3);

    // Bob is not held to Alice's count; of his concurrent creations on both replicas, three get in.
    let tries = (0..8).map(|i| {
        let server = if i % 2 == 0 { a.clone() } else { b.clone() };
        tokio::spawn(async move { hold_as(&server, "bob-token", 10 + i).await })
    });
    let answers = futures_util_join(tries).await;
    let bobs = answers.iter().filter(|r| r["result"]["resultType"] == "task").count();
    assert_eq!(bobs, 3, "{answers:#?}");
    for refused in answers.iter().filter(|r| r.get("error").is_some()) {
        assert_over_the_limit(refused, 3);
    }
    assert!(made.elapsed() < ttl, "the test outran the tasks' ttl: {:?}", made.elapsed());

    // Once her tasks expire, Alice has room again, on either replica.
    let room = tokio::time::timeout(WAIT, async {
        let mut id = 20;
        loop {
            let r = hold_as(&b, "alice-token", id).await;
            if r.get("error").is_none() {
                return r;
            }
            assert_over_the_limit(&r, 3);
            id += 1;
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    })
    .await
    .expect("alice's tasks expired");
    assert_made(&room);
    // (Less a margin: the replicas count by their wall clocks.)
    let expired = ttl - Duration::from_millis(500);
    assert!(made.elapsed() >= expired, "room before her tasks expired: {:?}", made.elapsed());
}
