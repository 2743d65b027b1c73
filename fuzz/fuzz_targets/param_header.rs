//! `Mcp-Param-*` header values: the literal form and `=?base64?…?=`.
//!
//! Invariants: any bytes decode or are refused without a panic; a value without the full wrapper decodes to
//! itself, trimmed of HTTP's optional whitespace (spaces and tabs); whatever decodes re-encodes to visible
//! ASCII that decodes back to the same text; and any text encodes to a value that decodes back to it exactly.
#![no_main]

use fastmcp::__fuzz::{decode_param_header as decode, encode_param_header as encode};
use libfuzzer_sys::fuzz_target;

fn round_trip(text: &str) {
    let encoded = encode(text);
    assert!(encoded.bytes().all(|b| (b' '..=b'~').contains(&b)), "{encoded:?} is not visible ASCII");
    assert_eq!(decode(encoded.as_bytes()).as_deref(), Ok(text), "{encoded:?}");
}

fuzz_target!(|data: &[u8]| {
    let decoded = decode(data);
    if let Ok(text) = std::str::from_utf8(data) {
        let trimmed = text.trim_matches([' ', '\t']);
        let wrapped = trimmed.strip_prefix("=?base64?").and_then(|r| r.strip_suffix("?=")).is_some();
        if !wrapped {
            assert_eq!(decoded.as_deref(), Ok(trimmed), "a literal value decodes to itself");
        }
        round_trip(text);
    } else {
        assert!(decoded.is_err(), "bytes that are not UTF-8 decoded");
    }
    if let Ok(text) = decoded {
        round_trip(&text);
    }
});
