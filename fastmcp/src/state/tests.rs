//! The codec's behaviour in both forms (signed, and sealed when the feature is on).

use super::*;
// The base64 crate's engine, not the codec's: the tests read and forge tokens with an independent decoder.
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::json;

const KEY_A: [u8; 32] = [0xA1; 32];
const KEY_B: [u8; 32] = [0xB2; 32];

#[derive(Debug, Clone, Copy, PartialEq)]
enum Form {
    Signed,
    #[cfg(feature = "sealed-state")]
    Sealed,
}

fn forms() -> Vec<Form> {
    vec![
        Form::Signed,
        #[cfg(feature = "sealed-state")]
        Form::Sealed,
    ]
}

fn config(form: Form, keys: StateKeys) -> RequestStateConfig {
    let config = RequestStateConfig::new(keys);
    match form {
        Form::Signed => config,
        #[cfg(feature = "sealed-state")]
        Form::Sealed => config.sealed(true),
    }
}

fn codec_with(form: Form, keys: &[[u8; 32]]) -> StateCodec {
    StateCodec::new(config(form, StateKeys::from_keys(keys).unwrap())).unwrap()
}

fn codec(form: Form) -> StateCodec {
    codec_with(form, &[KEY_A])
}

fn t0() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_750_000_000)
}

const ARGS: &str = r#"{"service":"api","replicas":3}"#;

fn binding() -> Binding<'static> {
    Binding::new(Method::ToolsCall, "deploy", ArgumentsDigest::of_raw_json(ARGS).unwrap(), Some("alice"), 0xF1F0)
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Plan {
    service: String,
    replicas: u32,
    notes: Vec<String>,
}

fn plan() -> Plan {
    Plan { service: "api".into(), replicas: 3, notes: vec!["MARKER-secret-plan-text".into()] }
}

fn mint(form: Form) -> String {
    codec(form).seal_at(t0(), &binding(), 2, &(plan(), 41u64)).unwrap()
}

fn open(form: Form, token: &str) -> Result<Resumed, StateError> {
    codec(form).open_at(t0() + Duration::from_secs(1), token, &binding())
}

#[test]
fn round_trip_restores_typed_locals() {
    for form in forms() {
        let token = mint(form);
        let resumed = open(form, &token).unwrap();
        assert_eq!(resumed.step(), 2);
        let (p, n): (Plan, u64) = resumed.restore().unwrap();
        assert_eq!((p, n), (plan(), 41));
        let prefix = match form {
            Form::Signed => "v1.",
            #[cfg(feature = "sealed-state")]
            Form::Sealed => "v1s.",
        };
        assert!(token.starts_with(prefix), "{token}");
        assert_eq!(token.split('.').count(), 4);
        assert!(token.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)), "{token}");
    }
}

#[test]
fn value_and_raw_json_locals_round_trip() {
    let c = codec(Form::Signed);
    let value = json!({"b": [1, 2], "a": "x"});
    let token = c.seal(&binding(), 0, &value).unwrap();
    assert_eq!(c.open(&token, &binding()).unwrap().restore::<serde_json::Value>().unwrap(), value);
    let raw = serde_json::value::RawValue::from_string(r#"{"z": 1,  "a": [true]}"#.into()).unwrap();
    let token = c.seal(&binding(), 0, &raw).unwrap();
    let resumed = c.open(&token, &binding()).unwrap();
    assert_eq!(resumed.locals_json(), r#"{"z": 1,  "a": [true]}"#, "raw JSON is carried byte-exact");
    let borrowed: std::collections::BTreeMap<&str, serde_json::Value> = resumed.restore().unwrap();
    assert_eq!(borrowed.len(), 2);
}

/// Minting and opening share one buffer per thread: tokens opened while others are held, minted in between,
/// and refused (a changed body) each keep their own locals, whatever the buffer held before.
#[test]
fn opened_tokens_keep_their_own_locals_while_the_thread_mints_and_opens_more() {
    for form in forms() {
        let c = codec(form);
        let seal = |n: u64| c.seal_at(t0(), &binding(), 1, &(plan(), n)).unwrap();
        let open = |token: &str| c.open_at(t0(), token, &binding());
        let long = Plan { notes: vec!["x".repeat(900)], ..plan() };
        let first = open(&c.seal_at(t0(), &binding(), 1, &(&long, 1u64)).unwrap()).unwrap();
        let second = open(&seal(2)).unwrap();
        let mut forged = seal(3).into_bytes();
        let at = forged.len() / 2;
        forged[at] = if forged[at] == b'A' { b'B' } else { b'A' };
        assert!(open(std::str::from_utf8(&forged).unwrap()).is_err(), "{form:?}");
        drop(first);
        let third = open(&seal(4)).unwrap();
        assert_eq!(second.restore::<(Plan, u64)>().unwrap(), (plan(), 2), "{form:?}");
        assert_eq!(third.restore::<(Plan, u64)>().unwrap(), (plan(), 4), "{form:?}");
        assert_eq!(third.locals_json(), serde_json::to_string(&(plan(), 4u64)).unwrap(), "{form:?}");
    }
}

/// An attachment rides beside the locals as text: restoring never reads it, it comes back byte-exact, and a
/// token without one is the token `seal` mints (so tokens from before attachments open as they did).
#[test]
fn an_attachment_comes_back_as_text_beside_the_locals() {
    for form in forms() {
        let c = codec(form);
        let attachment = r#"{"confirm":{"method":"elicitation/create","params":{"message":"Go?\u0000"}}} not JSON"#;
        let token = c.seal_with_attachment(&binding(), 2, &(plan(), 41u64), attachment).unwrap();
        let resumed = c.open(&token, &binding()).unwrap();
        assert_eq!(resumed.attachment(), attachment, "{form:?}");
        assert_eq!(resumed.restore::<(Plan, u64)>().unwrap(), (plan(), 41), "{form:?}");
        assert_eq!(resumed.locals_json(), serde_json::to_string(&(plan(), 41u64)).unwrap(), "{form:?}");

        let plain = c.seal_with_attachment(&binding(), 2, &(plan(), 41u64), "").unwrap();
        let resumed = c.open(&plain, &binding()).unwrap();
        assert_eq!(resumed.attachment(), "", "{form:?}");
        assert_eq!(resumed.restore::<(Plan, u64)>().unwrap(), (plan(), 41), "{form:?}");
        // The same body as `seal`'s: a signed token (no random nonce) is the same text.
        if form == Form::Signed {
            let now = c.open(&plain, &binding()).unwrap().expires_at() - Duration::from_secs(600);
            assert_eq!(plain, c.seal_at(now, &binding(), 2, &(plan(), 41u64)).unwrap());
        }
    }
}

/// The attachment is authenticated with the rest: a token whose attachment was changed is refused.
#[test]
fn a_changed_attachment_is_refused() {
    let c = codec(Form::Signed);
    let token = c.seal_with_attachment(&binding(), 1, &("x",), "asked").unwrap();
    let [version, kid, payload, mac]: [&str; 4] = token.split('.').collect::<Vec<_>>().try_into().unwrap();
    let mut body = URL_SAFE_NO_PAD.decode(payload).unwrap();
    *body.last_mut().unwrap() = b'X';
    let forged = format!("{version}.{kid}.{}.{mac}", URL_SAFE_NO_PAD.encode(&body));
    assert!(matches!(c.open(&forged, &binding()), Err(StateError::BadSignature)));
}

/// Each character of a token, replaced by every other printable ASCII character (which covers every
/// single-bit flip that leaves the text a string), removed, or doubled: never accepted.
#[test]
fn every_single_byte_change_is_refused() {
    for form in forms() {
        let token = mint(form);
        let mut tried = 0;
        let mut refuse = |candidate: &str| {
            tried += 1;
            match open(form, candidate) {
                Ok(_) => panic!("{form:?}: altered token accepted: {candidate}"),
                Err(e) => assert!(
                    matches!(
                        e,
                        StateError::Malformed(_)
                            | StateError::UnknownVersion
                            | StateError::UnknownKey
                            | StateError::BadSignature
                    ),
                    "{form:?}: an altered token must fail authentication, not {e:?}"
                ),
            }
        };
        let bytes = token.as_bytes();
        for i in 0..bytes.len() {
            for bit in 0..8 {
                let mut b = bytes.to_vec();
                b[i] ^= 1 << bit;
                if let Ok(s) = std::str::from_utf8(&b) {
                    refuse(s);
                }
            }
            for c in 0x20u8..0x7f {
                if c != bytes[i] {
                    let mut b = bytes.to_vec();
                    b[i] = c;
                    refuse(std::str::from_utf8(&b).unwrap());
                }
            }
            let mut removed = bytes.to_vec();
            removed.remove(i);
            refuse(std::str::from_utf8(&removed).unwrap());
            let mut doubled = bytes.to_vec();
            doubled.insert(i, bytes[i]);
            refuse(std::str::from_utf8(&doubled).unwrap());
        }
        refuse(&format!("{token}A"));
        assert!(tried > 95 * token.len(), "{tried}");
        // The original still opens: the refusals above were about the changes.
        open(form, &token).unwrap();
    }
}

#[test]
fn expiry_is_checked_to_the_millisecond() {
    for form in forms() {
        let c = StateCodec::new(config(form, StateKeys::single(KEY_A).unwrap()).ttl(Duration::from_secs(60))).unwrap();
        let token = c.seal_at(t0(), &binding(), 1, &()).unwrap();
        let just_before = t0() + Duration::from_millis(59_999);
        assert_eq!(c.open_at(just_before, &token, &binding()).unwrap().step(), 1);
        let at = t0() + Duration::from_secs(60);
        assert_eq!(c.open_at(at, &token, &binding()).unwrap_err(), StateError::Expired);
        assert_eq!(c.open_at(at + Duration::from_secs(3600), &token, &binding()).unwrap_err(), StateError::Expired);
        // A server whose TTL was lowered holds tokens minted under the longer one to the new TTL.
        let strict =
            StateCodec::new(config(form, StateKeys::single(KEY_A).unwrap()).ttl(Duration::from_secs(10))).unwrap();
        assert!(strict.open_at(t0() + Duration::from_millis(9_999), &token, &binding()).is_ok());
        assert_eq!(
            strict.open_at(t0() + Duration::from_secs(10), &token, &binding()).unwrap_err(),
            StateError::Expired
        );
    }
}

#[test]
fn default_ttl_is_ten_minutes() {
    let c = codec(Form::Signed);
    let token = c.seal_at(t0(), &binding(), 1, &()).unwrap();
    assert!(c.open_at(t0() + Duration::from_millis(599_999), &token, &binding()).is_ok());
    assert_eq!(c.open_at(t0() + Duration::from_secs(600), &token, &binding()).unwrap_err(), StateError::Expired);
}

#[test]
fn rotation_keeps_flows_in_flight() {
    for form in forms() {
        let old = codec_with(form, &[KEY_A]);
        let rotated = codec_with(form, &[KEY_B, KEY_A]);
        let retired = codec_with(form, &[KEY_B]);
        let now = SystemTime::now();

        let in_flight = old.seal_at(now, &binding(), 1, &plan()).unwrap();
        assert_eq!(rotated.open_at(now, &in_flight, &binding()).unwrap().restore::<Plan>().unwrap(), plan());

        let fresh = rotated.seal_at(now, &binding(), 1, &plan()).unwrap();
        assert_eq!(fresh.split('.').nth(1), rotated.keys().key_ids().next(), "the first key signs");
        assert!(rotated.open_at(now, &fresh, &binding()).is_ok());
        assert!(retired.open_at(now, &fresh, &binding()).is_ok());
        assert_eq!(old.open_at(now, &fresh, &binding()).unwrap_err(), StateError::UnknownKey);

        assert_eq!(retired.open_at(now, &in_flight, &binding()).unwrap_err(), StateError::UnknownKey);
    }
}

#[test]
fn a_token_with_a_forged_key_id_does_not_verify() {
    for form in forms() {
        // Another deployment's key, with the key id of ours: still refused (the id selects, the MAC decides).
        let ours = codec_with(form, &[KEY_A]);
        let theirs = codec_with(form, &[KEY_B]);
        let token = theirs.seal_at(t0(), &binding(), 1, &()).unwrap();
        let our_kid = ours.keys().key_ids().next().unwrap();
        let their_kid = theirs.keys().key_ids().next().unwrap();
        let forged = token.replacen(their_kid, our_kid, 1);
        assert_eq!(ours.open_at(t0(), &forged, &binding()).unwrap_err(), StateError::BadSignature);
    }
}

#[test]
fn a_token_is_bound_to_its_request() {
    for form in forms() {
        let token = mint(form);
        let b = binding();
        let (m, t, a, p, f) = (b.method(), b.target(), *b.arguments_digest(), b.principal(), b.fingerprint());
        let other_args = ArgumentsDigest::of_json(&json!({"service": "api", "replicas": 4}));
        let wrong = [
            ("another tool", Binding::new(m, "undeploy", a, p, f)),
            ("another method", Binding::new(Method::PromptsGet, t, a, p, f)),
            ("changed arguments", Binding::new(m, t, other_args, p, f)),
            ("another principal", Binding::new(m, t, a, Some("mallory"), f)),
            ("no principal", Binding::new(m, t, a, None, f)),
        ];
        for (what, binding) in wrong {
            let e = codec(form).open_at(t0(), &token, &binding).unwrap_err();
            assert_eq!(e, StateError::WrongBinding, "{form:?}: {what}");
        }
        let stale = Binding::new(m, t, a, p, f + 1);
        assert_eq!(codec(form).open_at(t0(), &token, &stale).unwrap_err(), StateError::StaleFingerprint);
        // The same arguments sent again with other whitespace and key order are the same request.
        let reordered_args = ArgumentsDigest::of_raw_json(r#"{ "replicas": 3, "service": "api" }"#).unwrap();
        let reordered = Binding::new(m, t, reordered_args, p, f);
        assert!(codec(form).open_at(t0(), &token, &reordered).is_ok());
    }
}

#[test]
fn an_oversized_token_is_refused_before_decoding() {
    for form in forms() {
        let c = codec(form);
        // Not even base64: anything decoded would be Malformed, so TooLarge shows nothing was.
        let huge = "!".repeat(DEFAULT_MAX_TOKEN_BYTES + 1);
        assert_eq!(
            c.open_at(t0(), &huge, &binding()).unwrap_err(),
            StateError::TooLarge { len: DEFAULT_MAX_TOKEN_BYTES + 1, max: DEFAULT_MAX_TOKEN_BYTES }
        );
        let token = mint(form);
        let small =
            StateCodec::new(config(form, StateKeys::single(KEY_A).unwrap()).max_token_bytes(token.len() - 1)).unwrap();
        assert!(matches!(small.open_at(t0(), &token, &binding()), Err(StateError::TooLarge { .. })));
        let exact =
            StateCodec::new(config(form, StateKeys::single(KEY_A).unwrap()).max_token_bytes(token.len())).unwrap();
        assert!(exact.open_at(t0(), &token, &binding()).is_ok());
    }
}

#[test]
fn minting_past_the_cap_fails_on_the_server_side() {
    for form in forms() {
        let c = StateCodec::new(config(form, StateKeys::single(KEY_A).unwrap()).max_token_bytes(200)).unwrap();
        let e = c.seal(&binding(), 1, &"x".repeat(200)).unwrap_err();
        assert!(matches!(e, StateError::LocalsTooLarge { max: 200, .. }), "{e:?}");
        assert!(e.is_minting());
        assert_eq!(e.to_error_object().code, -32603);
        assert!(c.seal(&binding(), 1, &"x".repeat(10)).unwrap().len() <= 200);
    }
}

#[test]
fn an_unknown_version_is_refused() {
    for form in forms() {
        let token = mint(form);
        let (_, rest) = token.split_once('.').unwrap();
        for version in ["v2", "v0", "V1", "", "v1s2", "v11"] {
            let e = open(form, &format!("{version}.{rest}")).unwrap_err();
            assert_eq!(e, StateError::UnknownVersion, "{version}");
        }
    }
    #[cfg(not(feature = "sealed-state"))]
    {
        let token = mint(Form::Signed);
        let (_, rest) = token.split_once('.').unwrap();
        assert_eq!(open(Form::Signed, &format!("v1s.{rest}")).unwrap_err(), StateError::UnknownVersion);
    }
}

#[test]
fn garbage_is_refused_without_panicking() {
    let long_dots = ".".repeat(10_000);
    let garbage = [
        "",
        ".",
        "...",
        "....",
        "v1",
        "v1.",
        "v1..",
        "v1...",
        "v1s...",
        "v1.x.y.z",
        "v1.AAAAAAAA.AAAA.AAAA",
        "v1s.AAAAAAAA.AAAA.AAAAAAAAAAAAAAAAAAAAAA",
        "eyJzdGVwIjoxfQ",
        "null",
        "\u{0}\u{1}\u{2}",
        "v1.ñ.ñ.ñ",
        "v1.🦀🦀.🦀.🦀",
        &long_dots,
    ];
    for form in forms() {
        let kid = codec(form).keys().key_ids().next().unwrap().to_owned();
        let with_kid = [
            format!("v1.{kid}.."),
            format!("v1.{kid}.AAAA.{}", "A".repeat(43)),
            format!("v1.{kid}.AAAA.{}", "A".repeat(44)),
            format!("v1.{kid}.AAAA.{}=", "A".repeat(42)),
            format!("v1.{kid}.{}.{}", "A".repeat(100), "_".repeat(43)),
        ];
        for g in garbage.iter().copied().chain(with_kid.iter().map(String::as_str)) {
            let e = open(form, g).unwrap_err();
            assert!(!matches!(e, StateError::Expired | StateError::WrongBinding), "{g:?}: {e:?}");
        }
    }
}

#[test]
fn sealed_tokens_hide_the_locals_and_signed_ones_do_not() {
    let signed = mint(Form::Signed);
    let payload = URL_SAFE_NO_PAD.decode(signed.split('.').nth(2).unwrap()).unwrap();
    assert!(contains(&payload, b"MARKER-secret-plan-text"), "signed tokens are authentic, not confidential");
    #[cfg(feature = "sealed-state")]
    {
        let sealed = mint(Form::Sealed);
        assert!(!sealed.contains("MARKER"));
        let payload = URL_SAFE_NO_PAD.decode(sealed.split('.').nth(2).unwrap()).unwrap();
        for needle in [&b"MARKER"[..], b"secret", b"api", b"notes", b"service"] {
            assert!(!contains(&payload, needle), "{}", String::from_utf8_lossy(needle));
        }
        // A fresh nonce per token: the same state sealed twice differs.
        assert_ne!(sealed, mint(Form::Sealed));
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Turning sealing on must not drop flows in flight, and a server that stops sealing still reads sealed
/// tokens it minted.
#[cfg(feature = "sealed-state")]
#[test]
fn either_form_opens_with_the_same_ring() {
    let signed = mint(Form::Signed);
    let sealed = mint(Form::Sealed);
    assert!(open(Form::Sealed, &signed).is_ok());
    assert!(open(Form::Signed, &sealed).is_ok());
    // The two forms are not interchangeable: a signed token relabelled as sealed is refused.
    let relabelled = format!("v1s.{}", signed.split_once('.').unwrap().1);
    assert!(matches!(open(Form::Sealed, &relabelled), Err(StateError::Malformed(_) | StateError::BadSignature)));
}

#[test]
fn short_keys_are_refused() {
    for len in [0, 1, 16, 31] {
        let e = StateKeys::single(vec![7u8; len]).unwrap_err();
        assert_eq!(e, KeyError::TooShort { index: 0, len });
    }
    assert!(StateKeys::single([7u8; 32]).is_ok());
    assert!(StateKeys::single([7u8; 100]).is_ok());
}

#[test]
fn with_no_key_configured_the_process_key_signs() {
    let a = StateCodec::new(RequestStateConfig::default()).unwrap();
    let b = StateCodec::new(RequestStateConfig::default()).unwrap();
    assert!(a.keys().is_ephemeral());
    let token = a.seal(&binding(), 3, &plan()).unwrap();
    assert_eq!(b.open(&token, &binding()).unwrap().step(), 3, "one key per process");
    assert_eq!(codec(Form::Signed).open(&token, &binding()).unwrap_err(), StateError::UnknownKey);
}

#[test]
fn refusals_reach_the_client_as_one_coarse_error() {
    use crate::protocol::Era;
    let token = mint(Form::Signed);
    let kid = codec(Form::Signed).keys().key_ids().next().unwrap().to_owned();
    let other = Binding::new(Method::ToolsCall, "other", ArgumentsDigest::of_json(&json!({})), None, 0);
    let cases = [
        open(Form::Signed, &token.replace("v1.", "v9.")).unwrap_err(),
        open(Form::Signed, &format!("{token}x")).unwrap_err(),
        open(Form::Signed, "v1.garbage").unwrap_err(),
        codec_with(Form::Signed, &[KEY_B]).open_at(t0(), &token, &binding()).unwrap_err(),
        codec(Form::Signed).open_at(t0() + DEFAULT_TTL, &token, &binding()).unwrap_err(),
        codec(Form::Signed).open_at(t0(), &token, &other).unwrap_err(),
    ];
    for e in cases {
        let err: crate::Error = e.clone().into();
        let obj = err.to_error_object(Era::Modern);
        assert_eq!(obj.code, -32602);
        assert_eq!(obj.message, "Invalid or expired requestState");
        assert_eq!(obj.data, Some(json!({ "reason": "invalid_request_state" })), "{e:?}");
        let wire = serde_json::to_string(&obj).unwrap();
        assert!(!wire.contains(&kid), "{wire}");
    }
}

// Internals.

#[test]
fn b64_len_matches_the_engine() {
    for n in 0..100 {
        assert_eq!(b64_len(n), URL_SAFE_NO_PAD.encode(vec![0u8; n]).len());
    }
}

/// The codec's base64url (SIMD) writes what the base64 crate writes and is as strict reading it: no padding,
/// no stray bits in a final partial group, nothing outside the URL-safe alphabet.
#[test]
fn the_codec_base64_matches_the_base64_crate_and_is_strict() {
    for n in 0..200usize {
        let bytes: Vec<u8> = (0..n).map(|i| (i * 151 + n * 7) as u8).collect();
        let text = URL_SAFE_NO_PAD.encode(&bytes);
        let mut ours = String::new();
        B64.encode_append(&bytes, &mut ours);
        assert_eq!(ours, text, "{n} bytes");
        assert_eq!(B64.decode_to_vec(&text).unwrap(), bytes, "{n} bytes");
        let refused = |bad: &str| B64.decode_to_vec(bad).is_err() && URL_SAFE_NO_PAD.decode(bad).is_err();
        if n % 3 != 0 {
            // The last character of a partial group carries 2 or 4 unused bits; any set is refused.
            let last = text.as_bytes()[text.len() - 1];
            let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
            let index = alphabet.iter().position(|&c| c == last).unwrap();
            let unused = if n % 3 == 1 { 0b1111 } else { 0b11 };
            for stray in 1..=unused {
                let mut bad = text.clone().into_bytes();
                *bad.last_mut().unwrap() = alphabet[index | stray];
                assert!(refused(std::str::from_utf8(&bad).unwrap()), "{n} bytes, stray bits {stray}");
            }
            assert!(refused(&format!("{text}=")), "{n} bytes, padded");
        }
        assert!(refused(&format!("{text}A")) || (text.len() + 1) % 4 != 1, "{n} bytes, a lone character");
        for c in ["+", "/", "=", " ", "."] {
            assert!(refused(&format!("{c}{text}")), "{n} bytes, {c:?}");
        }
    }
}

#[test]
fn header_round_trips() {
    let h = Header { step: 7, fingerprint: u64::MAX - 3, issued_ms: 1, expires_ms: 2, request: [5; 16] };
    let mut buf = [0u8; HEADER];
    h.write(&mut buf);
    let r = Header::read(&buf).unwrap();
    assert_eq!((r.step, r.fingerprint, r.issued_ms, r.expires_ms, r.request), (7, u64::MAX - 3, 1, 2, [5; 16]));
    assert!(Header::read(&buf[..HEADER - 1]).is_none());
}

/// A correctly signed body shorter than a header (which this codec never mints) is malformed, not a panic.
#[test]
fn a_signed_short_body_is_malformed() {
    let c = codec(Form::Signed);
    let key = c.keys.signing();
    let prefix = format!("{SIGNED}.{}.", key.kid());
    let mac = key.mac.clone().chain_update(prefix.as_bytes()).chain_update(b"short").finalize().into_bytes();
    let mut token = format!("{prefix}{}", URL_SAFE_NO_PAD.encode(b"short"));
    token.push('.');
    token.push_str(&URL_SAFE_NO_PAD.encode(mac));
    assert_eq!(c.open(&token, &binding()).unwrap_err(), StateError::Malformed("payload too short"));
}

/// Locals of every length around the header (so every final partial base64 group, in both forms) open to
/// exactly what was sealed, and a change to any character of the payload is refused.
#[test]
fn locals_of_every_length_around_the_header_round_trip() {
    for form in forms() {
        let c = codec(form);
        for n in 0..=80 {
            let locals = "x".repeat(n);
            let token = c.seal_at(t0(), &binding(), 1, &locals).unwrap();
            let resumed = c.open_at(t0(), &token, &binding()).unwrap();
            assert_eq!(resumed.locals_json(), format!("\"{locals}\""), "{form:?}, {n}");
            assert_eq!(resumed.restore::<String>().unwrap(), locals);
            let payload_at = token.match_indices('.').nth(1).unwrap().0 + 1;
            let payload_end = token.rfind('.').unwrap();
            for i in payload_at..payload_end {
                let mut changed = token.clone().into_bytes();
                changed[i] = if changed[i] == b'A' { b'B' } else { b'A' };
                let changed = String::from_utf8(changed).unwrap();
                assert!(c.open_at(t0(), &changed, &binding()).is_err(), "{form:?}, {n}, at {i}");
                let removed = format!("{}{}", &token[..i], &token[i + 1..]);
                assert!(c.open_at(t0(), &removed, &binding()).is_err(), "{form:?}, {n}, without {i}");
            }
        }
    }
}

/// Correctly signed bodies of every length up to a header and some locals: shorter than a header is
/// malformed (after the MAC verified), a header with no locals opens to empty locals.
#[test]
fn signed_bodies_of_every_short_length() {
    let c = codec(Form::Signed);
    let key = c.keys.signing();
    let prefix = format!("{SIGNED}.{}.", key.kid());
    let header = Header {
        step: 3,
        fingerprint: binding().fingerprint(),
        issued_ms: unix_ms(t0()),
        expires_ms: unix_ms(t0()) + 1000,
        request: *binding().request_digest(),
    };
    let mut full = vec![0u8; HEADER];
    header.write(&mut full);
    full.extend_from_slice(br#""0123456789abcdefghijklmnopqrstuvwxyz""#);
    for len in 0..=full.len() {
        let body = &full[..len];
        let mac = key.mac.clone().chain_update(prefix.as_bytes()).chain_update(body).finalize().into_bytes();
        let token = format!("{prefix}{}.{}", URL_SAFE_NO_PAD.encode(body), URL_SAFE_NO_PAD.encode(mac));
        let opened = c.open_at(t0(), &token, &binding());
        if len < HEADER {
            assert_eq!(opened.unwrap_err(), StateError::Malformed("payload too short"), "{len}");
        } else {
            let resumed = opened.unwrap();
            assert_eq!(resumed.step(), 3);
            assert_eq!(resumed.locals_json().as_bytes(), &full[HEADER..len], "{len}");
        }
    }
}

#[test]
fn locals_that_do_not_fit_are_undecodable() {
    for form in forms() {
        let c = codec(form);
        let token = c.seal(&binding(), 1, &("text",)).unwrap();
        let resumed = c.open(&token, &binding()).unwrap();
        assert!(matches!(resumed.restore::<(u32,)>(), Err(StateError::Undecodable { line: 1, .. })));
        assert_eq!(resumed.locals_json(), r#"["text"]"#);
        assert!(!format!("{resumed:?}").contains("text"), "Debug must not show the locals");
    }
}

#[test]
fn unserializable_locals_fail_minting() {
    use std::collections::HashMap;
    let locals: HashMap<(u8, u8), u8> = [((1, 2), 3)].into();
    let e = codec(Form::Signed).seal(&binding(), 1, &locals).unwrap_err();
    assert!(matches!(e, StateError::Unserializable(_)) && e.is_minting());
}
