//! Opening request-state tokens with a fixed key ring: the token is the one field of a request an attacker
//! fully controls.
//!
//! Inputs are raw token text, or a token this ring sealed (signed or sealed form, any key of the ring or a
//! key outside it) with fuzzed edits. Invariants: opening never panics; a token opens only if it is, byte
//! for byte, one this ring sealed for this binding, and then gives back exactly the step and locals sealed;
//! a token sealed by a key outside the ring, or for another binding, never opens.
#![no_main]

use fastmcp::__fuzz::{ArgumentsDigest, Binding, Method, RequestStateConfig, StateCodec, StateKeys};
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use std::sync::LazyLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const NEW: [u8; 32] = [0x11; 32];
const OLD: [u8; 32] = [0x22; 32];
const OUTSIDE: [u8; 32] = [0x33; 32];

struct Codecs {
    /// The ring under test: `NEW` signs, `OLD` still verifies.
    ring: StateCodec,
    /// Sealers with one key each (signed, then sealed form): how tokens of each key are minted.
    by_key: Vec<(bool, StateCodec, StateCodec)>,
}

fn codec(keys: &[[u8; 32]], sealed: bool) -> StateCodec {
    let config = RequestStateConfig::new(StateKeys::from_keys(keys).expect("valid keys")).sealed(sealed);
    StateCodec::new(config.max_token_bytes(4096)).expect("a codec")
}

static CODECS: LazyLock<Codecs> = LazyLock::new(|| Codecs {
    ring: codec(&[NEW, OLD], false),
    by_key: [(true, NEW), (true, OLD), (false, OUTSIDE)]
        .into_iter()
        .map(|(in_ring, key)| (in_ring, codec(&[key], false), codec(&[key], true)))
        .collect(),
});

fn now() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_750_000_000)
}

fn binding(tool: &str) -> Binding<'_> {
    let args = ArgumentsDigest::of_raw_json(r#"{"service":"api"}"#).expect("JSON");
    Binding::new(Method::ToolsCall, tool, args, Some("alice"), 0xF00D)
}

#[derive(Debug, Arbitrary)]
enum Input {
    Raw(String),
    Sealed {
        key: u8,
        sealed: bool,
        step: u32,
        locals: String,
        /// Seal for another tool than the one opened.
        other_tool: bool,
        /// (position, byte): overwrite, or insert where the position's top bit is set.
        edits: Vec<(u16, u8)>,
        truncate: Option<u16>,
    },
}

fuzz_target!(|data: &[u8]| {
    // A leading 0xFF selects typed input; anything else is a token's text (the seed corpus's form).
    let input = match data.split_first() {
        Some((0xFF, rest)) => match Input::arbitrary_take_rest(arbitrary::Unstructured::new(rest)) {
            Ok(input) => input,
            Err(_) => return,
        },
        _ => match std::str::from_utf8(data) {
            Ok(text) => Input::Raw(text.to_owned()),
            Err(_) => return,
        },
    };
    let codecs = &*CODECS;
    let opening = binding("deploy");
    match input {
        Input::Raw(token) => {
            // Nothing but our own keys' MACs opens, and the fuzzer has none.
            assert!(codecs.ring.open_at(now(), &token, &opening).is_err(), "a forged token opened: {token:?}");
        }
        Input::Sealed { key, sealed, step, locals, other_tool, edits, truncate } => {
            let (in_ring, signed_codec, sealed_codec) = &codecs.by_key[usize::from(key) % codecs.by_key.len()];
            let sealer = if sealed { sealed_codec } else { signed_codec };
            let locals = serde_json::Value::String(locals);
            let sealed_for = binding(if other_tool { "other" } else { "deploy" });
            let Ok(token) = sealer.seal_at(now(), &sealed_for, step, &locals) else { return };
            let mut bytes = token.clone().into_bytes();
            for (at, byte) in edits {
                let i = usize::from(at & 0x7fff);
                if at & 0x8000 != 0 {
                    bytes.insert(i.min(bytes.len()), byte);
                } else if !bytes.is_empty() {
                    let len = bytes.len();
                    bytes[i % len] = byte;
                }
            }
            if let Some(n) = truncate {
                bytes.truncate(usize::from(n));
            }
            let Ok(edited) = String::from_utf8(bytes) else { return };
            let opened = codecs.ring.open_at(now(), &edited, &opening);
            match opened {
                Ok(resumed) => {
                    assert_eq!(edited, token, "an edited token opened");
                    assert!(*in_ring, "a token from a key outside the ring opened");
                    assert!(!other_tool, "a token sealed for another request opened");
                    assert_eq!(resumed.step(), step);
                    assert_eq!(resumed.locals_json(), serde_json::to_string(&locals).unwrap());
                }
                Err(_) => {
                    assert!(edited != token || !*in_ring || other_tool, "a genuine token was refused");
                }
            }
            // Expired: a minute past the default TTL nothing opens.
            assert!(codecs.ring.open_at(now() + Duration::from_secs(660), &edited, &opening).is_err());
        }
    }
});
