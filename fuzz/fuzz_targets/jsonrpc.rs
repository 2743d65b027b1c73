//! Stdio framing and JSON-RPC classification: the bytes a client writes, split into lines under a bound and
//! each line read as a message.
//!
//! Invariants: the line reader yields exactly the lines a plain split gives, wherever reads break the
//! stream (a line over the bound is reported as too long and the next one is read whole); a line that is
//! not JSON is `-32700` and JSON that is not a JSON-RPC message `-32600`, never anything else; a message that
//! is accepted says what its JSON says (id, method, params).
#![no_main]

use fastmcp::__fuzz::{Inbound, read_lines};
use fastmcp::protocol::RequestId;
use fastmcp_fuzz::{Chunked, ready};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// The lines of `data` as `LineReader` documents them: split at `\n`; a `\r` before the `\n` dropped; a line
/// longer than `max` (counting that `\r`) reported as `None`; a last line without `\n` kept as it is.
fn model(data: &[u8], max: usize) -> Vec<Option<Vec<u8>>> {
    let mut out = Vec::new();
    let mut pieces: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    let last = pieces.pop().unwrap_or_default();
    for piece in pieces {
        out.push((piece.len() <= max).then(|| piece.strip_suffix(b"\r").unwrap_or(piece).to_vec()));
    }
    if !last.is_empty() {
        out.push((last.len() <= max).then(|| last.to_vec()));
    }
    out
}

fn check_message(text: &str) {
    // JSON's grammar, read by a reader that builds nothing; and JSON a `Value` can hold (it refuses what the
    // grammar allows but no reader can keep: escapes of lone surrogates, numbers past f64's range).
    let grammatical = serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok();
    let holdable = serde_json::from_str::<Value>(text).is_ok();
    match Inbound::parse(text) {
        Err(rejected) => {
            let code = rejected.error.code;
            if holdable {
                assert_eq!(code, -32600, "JSON, yet {code}: {text:?}");
            } else if !grammatical {
                assert_eq!(code, -32700, "not JSON, yet {code}: {text:?}");
            } else {
                assert!(matches!(code, -32600 | -32700), "{code}: {text:?}");
            }
        }
        Ok(inbound) => {
            assert!(grammatical, "accepted text that is not JSON: {text:?}");
            let Ok(json) = serde_json::from_str::<Value>(text) else { return };
            let object = json.as_object().unwrap_or_else(|| panic!("accepted a non-object: {text:?}"));
            assert_eq!(object.get("jsonrpc"), Some(&Value::from("2.0")));
            let id = || object.get("id").map(|id| serde_json::from_value::<RequestId>(id.clone()).expect("a valid id"));
            match inbound {
                Inbound::Request(req) => {
                    assert_eq!(id(), Some(req.id));
                    assert_eq!(object.get("method"), Some(&Value::from(req.method)));
                    let params = req.params.map(|p| serde_json::from_str::<Value>(p.get()).expect("params are JSON"));
                    assert!(params.as_ref().is_none_or(|p| p.is_object() || p.is_array()), "{text:?}");
                    assert_eq!(params.as_ref(), object.get("params"));
                }
                Inbound::Notification(note) => {
                    assert!(!object.contains_key("id"), "a notification with an id: {text:?}");
                    assert_eq!(object.get("method"), Some(&Value::from(note.method)));
                }
                Inbound::Response { id: got, outcome } => {
                    assert_eq!(id(), Some(got));
                    assert!(!object.contains_key("method"));
                    match outcome {
                        Ok(result) => {
                            assert!(!object.contains_key("error"));
                            let result = serde_json::from_str::<Value>(result.get()).expect("result is JSON");
                            assert_eq!(Some(&result), object.get("result"));
                        }
                        Err(error) => {
                            assert!(!object.contains_key("result"));
                            assert_eq!(Some(&Value::from(error.code)), object["error"].get("code"));
                        }
                    }
                }
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    // The first two bytes choose the bound and how reads split the stream.
    let [bound, chunk, stream @ ..] = data else { return };
    let max = usize::from(*bound) * 4;
    let chunk = usize::from(*chunk % 64) + 1;
    let lines = ready(read_lines(Chunked { data: stream, chunk }, max)).expect("reading a slice cannot fail");
    assert_eq!(lines, model(stream, max), "max {max}, chunk {chunk}");
    // Each line as the stdio transport reads it (there, a line that is not UTF-8 is -32700 as a whole).
    for line in lines.into_iter().flatten() {
        if let Ok(text) = std::str::from_utf8(&line) {
            check_message(text);
        }
    }
    // And the whole input as one message (HTTP bodies are not split into lines).
    if let Ok(text) = std::str::from_utf8(stream) {
        check_message(text);
    }
});
