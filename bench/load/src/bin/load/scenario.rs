//! What the load sends and how it checks every answer, the same over HTTP and stdio.
//!
//! An [`Op`] is one unit of work: a request for every scenario but `mrtr`, whose op is a whole three-round
//! `deploy` flow. The transports ask an op for its current request ([`Op::request`]), deliver the answer
//! ([`Op::check`]) and learn whether the op is done or has another round; any answer but the expected one
//! is an error.

use fastmcp_bench_load::{LEGACY, MODERN, add_text, deploy};
use serde_json::Value;

use crate::reply::{InputRequest, Reply};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scenario {
    /// `tools/call add` with the 2026-07-28 `_meta` envelope and headers; no session.
    ModernCall,
    /// `tools/list` on 2026-07-28; no session.
    ModernList,
    /// A legacy session per connection (`initialize` at 2025-11-25, `notifications/initialized`), then
    /// `tools/call add` on it. Over HTTP the server must hand out a session id.
    LegacyCall,
    /// `legacy-call` against a server that serves legacy requests without sessions: over HTTP the server
    /// must not hand out a session id, and the calls go without one.
    LegacyStateless,
    /// `tools/list` on a legacy session.
    LegacyList,
    /// The `deploy` flow on 2026-07-28: three requests (input required, input required, complete).
    Mrtr,
}

impl Scenario {
    pub const NAMES: &str = "modern-call, modern-list, legacy-call, legacy-stateless, legacy-list, mrtr";

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "modern-call" => Self::ModernCall,
            "modern-list" => Self::ModernList,
            "legacy-call" => Self::LegacyCall,
            "legacy-stateless" => Self::LegacyStateless,
            "legacy-list" => Self::LegacyList,
            "mrtr" => Self::Mrtr,
            _ => return None,
        })
    }

    /// Whether a connection (or the stdio pipe) starts with the legacy handshake.
    pub fn legacy(self) -> bool {
        matches!(self, Self::LegacyCall | Self::LegacyStateless | Self::LegacyList)
    }

    /// Over HTTP, whether the legacy handshake must give a session id (true) or must not (false).
    pub fn wants_session(self) -> bool {
        matches!(self, Self::LegacyCall | Self::LegacyList)
    }

    /// Requests per op.
    pub fn rounds(self) -> u32 {
        if self == Self::Mrtr { 3 } else { 1 }
    }
}

/// One request to send: the JSON-RPC body and what the HTTP headers say about it.
pub struct Outgoing {
    pub id: i64,
    pub body: String,
    /// `MCP-Protocol-Version`.
    pub version: &'static str,
    /// Modern requests' `Mcp-Method` and `Mcp-Name` headers (none on legacy requests).
    pub method: Option<&'static str>,
    pub name: Option<&'static str>,
}

/// The modern `_meta` envelope of plain calls and lists: no client capabilities.
const META: &str = concat!(
    r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","#,
    r#""io.modelcontextprotocol/clientCapabilities":{},"#,
    r#""io.modelcontextprotocol/clientInfo":{"name":"load","version":"0.0.0"}}"#
);

/// The `deploy` flow's envelope: a client that can answer elicitation forms and sampling requests.
const META_ASK: &str = concat!(
    r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","#,
    r#""io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}},"sampling":{}},"#,
    r#""io.modelcontextprotocol/clientInfo":{"name":"load","version":"0.0.0"}}"#
);

/// The legacy handshake's first request (id 0).
pub fn initialize() -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{LEGACY}","capabilities":{{}},"clientInfo":{{"name":"load","version":"0.0.0"}}}}}}"#
    )
}

pub const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// Checks the answer to `initialize`.
pub fn check_initialize(reply: &Reply) -> Result<(), String> {
    match &reply.result {
        Some(result) if result.protocol_version.is_some() => Ok(()),
        _ => Err(format!("initialize failed: {reply:?}")),
    }
}

/// One op: its arguments (distinct for every op, so a server that mixed answers up is caught), and for the
/// `deploy` flow the round it is at and what the next round sends back.
pub struct Op {
    scenario: Scenario,
    a: i64,
    b: i64,
    service: String,
    replicas: u32,
    /// 1-based; only `mrtr` goes past 1.
    round: u32,
    /// The next round's `inputResponses` and `requestState` (JSON, ready to splice into params).
    resume: Option<String>,
}

impl Op {
    /// The `seq`-th op of client `slot`.
    pub fn new(scenario: Scenario, slot: u64, seq: u64) -> Self {
        let (slot, seq) = (slot as i64, seq as i64);
        let (service, replicas) = if scenario == Scenario::Mrtr {
            (format!("svc-{slot}-{seq}"), (seq % 9 + 1) as u32)
        } else {
            (String::new(), 0)
        };
        Self { scenario, a: slot * 1_000_000 + seq, b: seq * 7 - slot, service, replicas, round: 1, resume: None }
    }

    /// The current round's request, with JSON-RPC id `id` (every round has a new one).
    pub fn request(&self, id: i64) -> Outgoing {
        let (a, b) = (self.a, self.b);
        let modern = |body: String, method, name| Outgoing { id, body, version: MODERN, method: Some(method), name };
        let legacy = |body: String| Outgoing { id, body, version: LEGACY, method: None, name: None };
        match self.scenario {
            Scenario::ModernCall => modern(
                format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":{a},"b":{b}}},{META}}}}}"#
                ),
                "tools/call",
                Some("add"),
            ),
            Scenario::ModernList => modern(
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{{META}}}}}"#),
                "tools/list",
                None,
            ),
            Scenario::LegacyCall | Scenario::LegacyStateless => legacy(format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":{a},"b":{b}}}}}}}"#
            )),
            Scenario::LegacyList => legacy(format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#)),
            Scenario::Mrtr => {
                let resume = self.resume.as_deref().unwrap_or("");
                modern(
                    format!(
                        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"deploy","arguments":{{"service":"{}","replicas":{}}}{resume},{META_ASK}}}}}"#,
                        self.service, self.replicas
                    ),
                    "tools/call",
                    Some("deploy"),
                )
            }
        }
    }

    /// Checks the answer to the current round's request: `Ok(true)` when the op is done, `Ok(false)` when
    /// it has another round (then [`request`](Self::request) gives it).
    pub fn check(&mut self, reply: Reply) -> Result<bool, String> {
        if let Some(error) = &reply.error {
            return Err(format!("an error: {error}"));
        }
        let Some(result) = reply.result else { return Err("a response with neither result nor error".into()) };
        let modern = matches!(self.scenario, Scenario::ModernCall | Scenario::ModernList | Scenario::Mrtr);
        let kind = result.result_type.as_deref();
        if self.scenario == Scenario::Mrtr && self.round < 3 {
            if kind != Some("input_required") {
                return Err(format!("round {}: expected input_required, got resultType {kind:?}", self.round));
            }
            let requests = result.input_requests.unwrap_or_default();
            let [(key, request)] = <[_; 1]>::try_from(requests.into_iter().collect::<Vec<_>>())
                .map_err(|r| format!("round {}: expected one input request, got {}", self.round, r.len()))?;
            let Some(state) = result.request_state.filter(|s| !s.is_empty()) else {
                return Err(format!("round {}: no requestState", self.round));
            };
            let plan = deploy::plan(&self.service, self.replicas);
            let answer = if self.round == 1 { confirm(&request, &plan)? } else { notes(&request, &plan)? };
            let key = serde_json::to_string(&key).expect("a string serializes");
            let state = serde_json::to_string(&state).expect("a string serializes");
            self.resume = Some(format!(r#","inputResponses":{{{key}:{answer}}},"requestState":{state}"#));
            self.round += 1;
            return Ok(false);
        }
        if modern && kind != Some("complete") {
            return Err(format!("expected resultType complete, got {kind:?}"));
        }
        if result.is_error == Some(true) {
            return Err(format!("an error result: {:?}", result.content));
        }
        let expected = match self.scenario {
            Scenario::ModernList | Scenario::LegacyList => return check_list(&result.tools).map(|()| true),
            Scenario::Mrtr => deploy::deployed(&deploy::plan(&self.service, self.replicas), deploy::NOTES),
            _ => add_text(self.a, self.b),
        };
        match &result.content[..] {
            [c] if c.kind == "text" && c.text.as_deref() == Some(&expected) => Ok(true),
            other => Err(format!("expected the text {expected:?}, got {other:?}")),
        }
    }
}

/// Round 1 must ask to confirm `plan` with a form holding a boolean `confirm`; the user accepts.
fn confirm(request: &InputRequest, plan: &str) -> Result<String, String> {
    let schema = request.params.requested_schema.as_ref();
    let field = schema.and_then(|s| s.pointer("/properties/confirm/type")).and_then(Value::as_str);
    if request.method != "elicitation/create"
        || request.params.message.as_deref() != Some(&deploy::confirm_message(plan))
        || field != Some("boolean")
    {
        return Err(format!("round 1: expected the confirm form for {plan:?}, got {request:?}"));
    }
    Ok(r#"{"action":"accept","content":{"confirm":true}}"#.to_owned())
}

/// Round 2 must ask the model for release notes of `plan`; the "model" answers [`deploy::NOTES`].
fn notes(request: &InputRequest, plan: &str) -> Result<String, String> {
    let prompt = deploy::notes_prompt(plan);
    let asked = match &request.params.messages[..] {
        [m] if m.role == "user" => {
            let block = m.content.as_array().and_then(|a| a.first()).unwrap_or(&m.content);
            block.get("text").and_then(Value::as_str) == Some(&prompt)
        }
        _ => false,
    };
    if request.method != "sampling/createMessage" || !asked {
        return Err(format!("round 2: expected the release-notes prompt for {plan:?}, got {request:?}"));
    }
    Ok(format!(
        r#"{{"role":"assistant","content":{{"type":"text","text":{}}},"model":"bench","stopReason":"endTurn"}}"#,
        serde_json::to_string(deploy::NOTES).expect("a string serializes")
    ))
}

/// The servers list `add` (with its integer arguments) and `deploy`, nothing else.
fn check_list(tools: &[crate::reply::Tool]) -> Result<(), String> {
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    names.sort_unstable();
    if names != ["add", "deploy"] {
        return Err(format!("expected the tools add and deploy, got {names:?}"));
    }
    let add = tools.iter().find(|t| t.name == "add").and_then(|t| t.input_schema.as_ref());
    let add: Option<Value> = add.and_then(|raw| serde_json::from_str(raw.get()).ok());
    let add = add.as_ref();
    let integer = |p: &str| add.and_then(|s| s.pointer(&format!("/properties/{p}/type"))).and_then(Value::as_str);
    if integer("a") != Some("integer") || integer("b") != Some("integer") {
        return Err(format!("add's inputSchema lacks integer a and b: {add:?}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reply::parse;

    fn reply(json: &str) -> Reply {
        parse(json.as_bytes()).unwrap()
    }

    #[test]
    fn a_call_needs_its_own_text() {
        let mut op = Op::new(Scenario::ModernCall, 2, 5);
        let text = add_text(2_000_005, 33);
        let ok = format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[{{"type":"text","text":"{text}"}}],"resultType":"complete"}}}}"#
        );
        assert_eq!(op.check(reply(&ok)), Ok(true));
        let other = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"1 + 2 = 3"}],"resultType":"complete"}}"#;
        assert!(Op::new(Scenario::ModernCall, 2, 5).check(reply(other)).is_err());
        // A modern answer must say it is complete; a legacy one need not.
        let legacy =
            format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[{{"type":"text","text":"{text}"}}]}}}}"#);
        assert!(Op::new(Scenario::ModernCall, 2, 5).check(reply(&legacy)).is_err());
        assert_eq!(Op::new(Scenario::LegacyCall, 2, 5).check(reply(&legacy)), Ok(true));
        let error = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no"}}"#;
        assert!(Op::new(Scenario::LegacyCall, 2, 5).check(reply(error)).is_err());
    }

    #[test]
    fn the_deploy_flow_takes_three_rounds() {
        let mut op = Op::new(Scenario::Mrtr, 1, 3); // svc-1-3 x4
        assert!(!op.request(1).body.contains("requestState"));
        let round1 = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s\"1","inputRequests":{"k1":{"method":"elicitation/create","params":{"mode":"form","message":"Deploy svc-1-3 x4?","requestedSchema":{"type":"object","properties":{"confirm":{"type":"boolean"}}}}}}}}"#;
        assert_eq!(op.check(reply(round1)), Ok(false));
        let body: Value = serde_json::from_str(&op.request(2).body).unwrap();
        assert_eq!(body["id"], 2);
        assert_eq!(body["params"]["requestState"], "s\"1");
        assert_eq!(body["params"]["inputResponses"]["k1"]["content"]["confirm"], true);
        assert_eq!(body["params"]["arguments"]["service"], "svc-1-3");
        assert_eq!(
            body["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]["sampling"],
            serde_json::json!({})
        );
        let round2 = r#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","requestState":"s2","inputRequests":{"k2":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Write release notes for svc-1-3 x4"}}],"maxTokens":200}}}}}"#;
        assert_eq!(op.check(reply(round2)), Ok(false));
        let body: Value = serde_json::from_str(&op.request(3).body).unwrap();
        assert_eq!(body["params"]["requestState"], "s2");
        assert_eq!(body["params"]["inputResponses"]["k2"]["content"]["text"], deploy::NOTES);
        assert!(body["params"]["inputResponses"].get("k1").is_none(), "answers are per round");
        let done = format!(
            r#"{{"jsonrpc":"2.0","id":3,"result":{{"resultType":"complete","content":[{{"type":"text","text":"Deployed svc-1-3 x4: {}"}}]}}}}"#,
            deploy::NOTES
        );
        assert_eq!(op.check(reply(&done)), Ok(true));
    }

    #[test]
    fn a_flow_that_lost_its_plan_is_an_error() {
        let mut op = Op::new(Scenario::Mrtr, 1, 3);
        let wrong = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s","inputRequests":{"k":{"method":"elicitation/create","params":{"message":"Deploy svc-9-9 x1?","requestedSchema":{"properties":{"confirm":{"type":"boolean"}}}}}}}}"#;
        assert!(op.check(reply(wrong)).is_err());
        let complete_too_early = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}"#;
        assert!(Op::new(Scenario::Mrtr, 1, 3).check(reply(complete_too_early)).is_err());
    }

    #[test]
    fn lists_need_add_and_deploy() {
        let list = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[{"name":"deploy"},{"name":"add","inputSchema":{"properties":{"a":{"type":"integer"},"b":{"type":"integer"}}}}]}}"#;
        assert_eq!(Op::new(Scenario::ModernList, 0, 1).check(reply(list)), Ok(true));
        let short = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[{"name":"add"}]}}"#;
        assert!(Op::new(Scenario::ModernList, 0, 1).check(reply(short)).is_err());
    }

    #[test]
    fn sse_answers_are_found_by_id() {
        let body = "id: 1\nretry: 1000\ndata:\n\nid: 2\ndata: {\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}\n\n";
        assert_eq!(crate::reply::from_http(Some("text/event-stream"), body.as_bytes(), 9).unwrap().id(), Some(9));
        assert!(crate::reply::from_http(Some("text/event-stream"), body.as_bytes(), 8).is_err());
        assert!(crate::reply::from_http(Some("application/json"), br#"{"jsonrpc":"2.0","id":8}"#, 9).is_err());
    }
}
