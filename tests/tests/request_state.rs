//! Request state through the public API, as the runtime and the generated machines use it: mint a token at
//! a suspension point, open it on the retry, restore the carried locals, and turn every refusal into the one
//! JSON-RPC error the client sees. (The codec's own tests, in both signed and sealed form, are unit tests in
//! `fastmcp/src/state/tests.rs`.)

use fastmcp::protocol::Era;
use fastmcp::state::{
    ArgumentsDigest, Binding, KeyError, Method, RequestStateConfig, StateCodec, StateError, StateKeys,
};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use std::time::{Duration, SystemTime};

const NEW_KEY: &[u8] = b"0123456789abcdef0123456789abcdef-new";
const OLD_KEY: &[u8] = b"0123456789abcdef0123456789abcdef-old";

fn codec(keys: &[&[u8]]) -> StateCodec {
    StateCodec::new(RequestStateConfig::new(StateKeys::from_keys(keys).unwrap())).unwrap()
}

/// What the runtime has for one `tools/call` request: its method, name, raw arguments and principal.
struct Request<'a> {
    method: &'a str,
    name: &'a str,
    arguments: &'a str,
    principal: Option<&'a str>,
}

const FINGERPRINT: u64 = 0xDE9_10F;

impl Request<'_> {
    fn binding(&self) -> Binding<'_> {
        let method = Method::from_name(self.method).expect("a method that may carry state");
        let args = ArgumentsDigest::of_raw_json(self.arguments).unwrap();
        Binding::new(method, self.name, args, self.principal, FINGERPRINT)
    }
}

const DEPLOY: Request<'static> = Request {
    method: "tools/call",
    name: "deploy",
    arguments: r#"{"service":"api","replicas":3}"#,
    principal: Some("https://issuer.example|alice"),
};

/// The lowering's type witness: the resuming arm restores the tuple whose type the suspending arm fixed.
fn restore_as<T: DeserializeOwned>(_witness: &Option<T>, resumed: &fastmcp::state::Resumed) -> fastmcp::Result<T> {
    Ok(resumed.restore()?)
}

fn wire(e: impl Into<fastmcp::Error>) -> Value {
    serde_json::to_value(e.into().to_error_object(Era::Modern)).unwrap()
}

#[test]
fn a_flow_resumes_with_its_locals_across_rounds() -> fastmcp::Result<()> {
    let codec = codec(&[NEW_KEY]);
    let binding = DEPLOY.binding();

    // Round 1 suspends carrying `plan` and `attempt` (the suspending arm fills the witness).
    let plan = String::from("roll api to 3 replicas");
    let attempt = 1u32;
    let witness = Some((plan, attempt));
    let token = codec.seal(&binding, 1, witness.as_ref().unwrap())?;

    // Round 2: the client retries with the token byte-exact, arguments re-serialized in another order.
    let retry = Request { arguments: r#"{ "replicas": 3, "service": "api" }"#, ..DEPLOY };
    let resumed = codec.open(&token, &retry.binding())?;
    assert_eq!(resumed.step(), 1);
    let (plan, attempt) = restore_as(&witness, &resumed)?;
    assert_eq!((plan.as_str(), attempt), ("roll api to 3 replicas", 1));
    Ok(())
}

#[test]
fn refusals_become_one_json_rpc_error() {
    let codec = codec(&[NEW_KEY]);
    let binding = DEPLOY.binding();
    let token = codec.seal(&binding, 1, &("plan",)).unwrap();

    let invalid = json!({"code": -32602, "message": "Invalid or expired requestState", "data": {"reason": "invalid_request_state"}});
    let tampered = token.replacen("v1.", "v2.", 1);
    assert_eq!(wire(codec.open(&tampered, &binding).unwrap_err()), invalid);
    assert_eq!(wire(codec.open("not a token", &binding).unwrap_err()), invalid);
    let elsewhere = Request { name: "undeploy", ..DEPLOY };
    assert_eq!(wire(codec.open(&token, &elsewhere.binding()).unwrap_err()), invalid);
    assert_eq!(wire(self::codec(&[OLD_KEY]).open(&token, &binding).unwrap_err()), invalid);

    let later = SystemTime::now() + Duration::from_secs(601);
    assert_eq!(wire(codec.open_at(later, &token, &binding).unwrap_err()), invalid, "expired reads the same");
}

#[test]
fn a_refusal_propagates_with_the_question_mark() {
    fn resume(codec: &StateCodec, token: &str) -> fastmcp::Result<u32> {
        let resumed = codec.open(token, &DEPLOY.binding())?;
        Ok(resumed.step())
    }
    let err = resume(&codec(&[NEW_KEY]), "v1.AAAAAAAA.AAAA.AAAA").unwrap_err();
    assert_eq!(err.code(), Some(-32602));
    assert_eq!(err.to_string(), "Invalid or expired requestState");
}

#[test]
fn the_client_never_learns_which_check_failed() {
    let codec = codec(&[NEW_KEY, OLD_KEY]);
    let binding = DEPLOY.binding();
    let token = codec.seal(&binding, 1, &()).unwrap();
    let kids: Vec<String> = codec.keys().key_ids().map(str::to_owned).collect();
    let stale = Binding::new(Method::ToolsCall, "deploy", *binding.arguments_digest(), DEPLOY.principal, 7);
    let refusals = [
        codec.open(&token[..token.len() - 1], &binding).unwrap_err(),
        codec.open(&"x".repeat(70_000), &binding).unwrap_err(),
        codec.open(&token, &Request { principal: Some("mallory"), ..DEPLOY }.binding()).unwrap_err(),
        codec.open(&token, &stale).unwrap_err(),
        codec.open_at(SystemTime::now() + Duration::from_secs(601), &token, &binding).unwrap_err(),
    ];
    let kinds: Vec<&str> = refusals.iter().map(StateError::kind).collect();
    assert_eq!(kinds, ["malformed", "too_large", "wrong_binding", "stale_fingerprint", "expired"]);
    for e in refusals {
        let text = wire(e).to_string();
        assert!(kids.iter().all(|kid| !text.contains(kid.as_str())), "{text}");
        assert!(!text.contains("signature") && !text.contains("key") && !text.contains("binding"), "{text}");
    }
}

#[test]
fn rotating_keys_keeps_flows_in_flight() {
    let before = codec(&[OLD_KEY]);
    let during = codec(&[NEW_KEY, OLD_KEY]);
    let after = codec(&[NEW_KEY]);
    let binding = DEPLOY.binding();

    let in_flight = before.seal(&binding, 2, &["a", "b"]).unwrap();
    assert_eq!(during.open(&in_flight, &binding).unwrap().restore::<Vec<String>>().unwrap(), ["a", "b"]);
    assert_eq!(after.open(&in_flight, &binding).unwrap_err(), StateError::UnknownKey);

    let minted_during = during.seal(&binding, 2, &["c"]).unwrap();
    assert!(after.open(&minted_during, &binding).is_ok(), "the first key signs");
}

#[test]
fn short_keys_are_refused_at_start_up() {
    let err = StateKeys::from_keys([NEW_KEY, b"too short".as_slice()]).unwrap_err();
    assert_eq!(err, KeyError::TooShort { index: 1, len: 9 });
    assert!(err.to_string().contains("at least 32 bytes"), "{err}");
    // It converts into the runtime's error for a server's start-up path.
    let err: fastmcp::Error = err.into();
    assert!(err.to_string().contains("#1"), "{err}");
}

#[test]
fn an_oversized_token_is_refused_before_decoding() {
    let codec =
        StateCodec::new(RequestStateConfig::new(StateKeys::single(NEW_KEY).unwrap()).max_token_bytes(1024)).unwrap();
    let binding = DEPLOY.binding();
    let err = codec.open(&"*".repeat(1025), &binding).unwrap_err();
    assert_eq!(err, StateError::TooLarge { len: 1025, max: 1024 });
    // Minting past the cap is the server's problem, not the client's.
    let err = codec.seal(&binding, 1, &"x".repeat(1024)).unwrap_err();
    assert!(err.is_minting());
    assert_eq!(wire(err)["code"], -32603);
}
