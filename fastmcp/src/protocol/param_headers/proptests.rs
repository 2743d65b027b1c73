//! Properties of `Mcp-Param-*` values: any text travels as a header value and decodes back exactly, and an
//! argument rendered into its header reads back as the argument.

use super::*;
use proptest::prelude::*;
use serde_json::json;

fn visible(s: &str) -> bool {
    s.bytes().all(|b| (b' '..=b'~').contains(&b))
}

proptest! {
    #[test]
    fn any_text_encodes_to_visible_ascii_and_decodes_back(text in any::<String>()) {
        let encoded = encode(&text);
        prop_assert!(visible(&encoded), "{:?}", encoded);
        prop_assert_eq!(decode(encoded.as_bytes()), Ok(text));
    }

    #[test]
    fn plain_text_travels_as_itself(text in "[!-~]([ -~]{0,30}[!-~])?") {
        prop_assume!(!text.starts_with("=?base64?"));
        prop_assert_eq!(&encode(&text), &text);
        // Optional whitespace around a literal value is not part of it.
        prop_assert_eq!(decode(format!(" \t{text} ").as_bytes()), Ok(text));
    }

    #[test]
    fn rendered_arguments_read_back(text in any::<String>(), n in any::<i64>(), b in any::<bool>()) {
        let header = |name: &str, kind| ParamHeader { name: name.into(), path: vec!["opts".into(), name.into()], kind };
        let arguments = json!({"opts": {"s": text, "n": n, "b": b}});
        let (name, value) = header("s", ParamKind::String).render(&arguments).unwrap();
        prop_assert_eq!(name, "Mcp-Param-s");
        prop_assert_eq!(decode(value.as_bytes()), Ok(text));
        let (_, value) = header("n", ParamKind::Integer).render(&arguments).unwrap();
        prop_assert_eq!(decode(value.as_bytes()).unwrap().parse::<i64>(), Ok(n));
        let (_, value) = header("b", ParamKind::Boolean).render(&arguments).unwrap();
        prop_assert_eq!(decode(value.as_bytes()), Ok(b.to_string()));
    }

    #[test]
    fn any_bytes_decode_or_are_refused(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        if let Ok(text) = decode(&bytes) {
            prop_assert_eq!(decode(encode(&text).as_bytes()), Ok(text));
        }
    }
}
