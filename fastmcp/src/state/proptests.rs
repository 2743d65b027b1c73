//! Properties of the token over arbitrary inputs, in both forms (signed, and sealed with `sealed-state`):
//! what is sealed opens as exactly that; any one changed byte, another key, or a key removed from the ring
//! is refused; rotation keeps tokens of a key still in the ring.

use super::*;
use proptest::prelude::*;
use serde_json::{Value, json};

fn t0() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_750_000_000)
}

fn codec(keys: &[[u8; 32]], sealed: bool, ttl: Duration) -> StateCodec {
    let config = RequestStateConfig::new(StateKeys::from_keys(keys).unwrap()).ttl(ttl);
    #[cfg(feature = "sealed-state")]
    let config = config.sealed(sealed);
    #[cfg(not(feature = "sealed-state"))]
    let _ = sealed;
    StateCodec::new(config).unwrap()
}

/// The forms this build seals in.
fn form() -> impl Strategy<Value = bool> {
    if cfg!(feature = "sealed-state") { any::<bool>().boxed() } else { Just(false).boxed() }
}

/// Carried locals: any JSON a flow might carry (strings with any characters, numbers, nesting).
fn locals() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        any::<String>().prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map(any::<String>(), inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn method() -> impl Strategy<Value = Method> {
    prop_oneof![Just(Method::ToolsCall), Just(Method::PromptsGet), Just(Method::ResourcesRead)]
}

/// Everything a binding is made of: method, target, arguments, principal, fingerprint.
#[derive(Debug, Clone)]
struct Bound {
    method: Method,
    target: String,
    arguments: Value,
    principal: Option<String>,
    fingerprint: u64,
}

impl Bound {
    fn binding(&self) -> Binding<'_> {
        let args = ArgumentsDigest::of_json(&self.arguments);
        Binding::new(self.method, &self.target, args, self.principal.as_deref(), self.fingerprint)
    }
}

fn bound() -> impl Strategy<Value = Bound> {
    (method(), any::<String>(), locals(), any::<Option<String>>(), any::<u64>()).prop_map(
        |(method, target, arguments, principal, fingerprint)| Bound {
            method,
            target,
            arguments,
            principal,
            fingerprint,
        },
    )
}

/// Two distinct ring keys.
fn two_keys() -> impl Strategy<Value = ([u8; 32], [u8; 32])> {
    (any::<[u8; 32]>(), any::<[u8; 32]>()).prop_filter("distinct", |(a, b)| a != b)
}

proptest! {
    #[test]
    fn what_is_sealed_opens_as_exactly_that(
        sealed in form(),
        key in any::<[u8; 32]>(),
        bound in bound(),
        step in any::<u32>(),
        locals in locals(),
        ttl_ms in 1u64..=86_400_000,
        // How far into its lifetime the token is opened, in thousandths of the TTL.
        age in 0u64..1000,
    ) {
        let ttl = Duration::from_millis(ttl_ms);
        let codec = codec(&[key], sealed, ttl);
        let token = codec.seal_at(t0(), &bound.binding(), step, &locals).unwrap();
        let opened_at = t0() + Duration::from_millis(ttl_ms * age / 1000);
        let resumed = codec.open_at(opened_at, &token, &bound.binding()).unwrap();
        prop_assert_eq!(resumed.step(), step);
        prop_assert_eq!(resumed.locals_json(), serde_json::to_string(&locals).unwrap());
        // Restored exactly, floats included (serde_json's `float_roundtrip`: without it an f64 may come back
        // one ULP off, -3.0667398293333476e231 as …472e231).
        prop_assert_eq!(resumed.restore::<Value>().unwrap(), locals);
        // And at the end of its lifetime it is refused.
        prop_assert!(matches!(codec.open_at(t0() + ttl, &token, &bound.binding()), Err(StateError::Expired)));
    }

    #[test]
    fn any_single_byte_changed_is_refused(
        sealed in form(),
        key in any::<[u8; 32]>(),
        step in any::<u32>(),
        locals in locals(),
        at in any::<prop::sample::Index>(),
        byte in 0x20u8..0x7f,
    ) {
        let codec = codec(&[key], sealed, DEFAULT_TTL);
        let bound = Bound { method: Method::ToolsCall, target: "deploy".into(), arguments: json!({"n": 1}), principal: None, fingerprint: 7 };
        let token = codec.seal_at(t0(), &bound.binding(), step, &locals).unwrap();
        let i = at.index(token.len());
        prop_assume!(token.as_bytes()[i] != byte);
        let mut changed = token.clone().into_bytes();
        changed[i] = byte;
        let changed = String::from_utf8(changed).unwrap();
        prop_assert!(codec.open_at(t0(), &changed, &bound.binding()).is_err(), "{} opened", changed);
    }

    #[test]
    fn a_token_of_another_key_or_binding_is_refused(
        sealed in form(),
        (ours, theirs) in two_keys(),
        bound in bound(),
        other in bound(),
        locals in locals(),
    ) {
        let token = codec(&[theirs], sealed, DEFAULT_TTL).seal_at(t0(), &bound.binding(), 1, &locals).unwrap();
        prop_assert!(matches!(
            codec(&[ours], sealed, DEFAULT_TTL).open_at(t0(), &token, &bound.binding()),
            Err(StateError::UnknownKey)
        ));
        let mine = codec(&[ours], sealed, DEFAULT_TTL);
        let token = mine.seal_at(t0(), &bound.binding(), 1, &locals).unwrap();
        let same = other.binding().request_digest() == bound.binding().request_digest()
            && other.fingerprint == bound.fingerprint;
        prop_assert_eq!(mine.open_at(t0(), &token, &other.binding()).is_ok(), same);
    }

    #[test]
    fn rotation_keeps_old_tokens_until_their_key_is_removed(
        sealed in form(),
        (old, new) in two_keys(),
        bound in bound(),
        step in any::<u32>(),
        locals in locals(),
    ) {
        let before = codec(&[old], sealed, DEFAULT_TTL);
        let during = codec(&[new, old], sealed, DEFAULT_TTL);
        let after = codec(&[new], sealed, DEFAULT_TTL);
        let binding = bound.binding();
        let minted_before = before.seal_at(t0(), &binding, step, &locals).unwrap();
        let minted_during = during.seal_at(t0(), &binding, step, &locals).unwrap();
        // During rotation the old key's tokens still open, and new tokens are signed by the new key.
        prop_assert_eq!(during.open_at(t0(), &minted_before, &binding).unwrap().step(), step);
        prop_assert_eq!(after.open_at(t0(), &minted_during, &binding).unwrap().step(), step);
        prop_assert!(before.open_at(t0(), &minted_during, &binding).is_err());
        // Once the old key is removed its tokens are refused.
        prop_assert!(matches!(after.open_at(t0(), &minted_before, &binding), Err(StateError::UnknownKey)));
    }
}
