//! What a token is bound to: the request that started the flow and the build of the flow that minted it.

use serde::Deserialize;
use serde::de::{Deserializer, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::{Number, Value};
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::fmt;
use std::io;

/// The three requests that may end a round with `input_required` (MRTR's supported methods).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// `tools/call`: the target is the tool name.
    ToolsCall,
    /// `prompts/get`: the target is the prompt name.
    PromptsGet,
    /// `resources/read`: the target is the resource URI.
    ResourcesRead,
}

impl Method {
    /// The method for a JSON-RPC method name, if it is one that may carry request state.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "tools/call" => Some(Self::ToolsCall),
            "prompts/get" => Some(Self::PromptsGet),
            "resources/read" => Some(Self::ResourcesRead),
            _ => None,
        }
    }

    /// The JSON-RPC method name.
    pub fn name(self) -> &'static str {
        match self {
            Self::ToolsCall => "tools/call",
            Self::PromptsGet => "prompts/get",
            Self::ResourcesRead => "resources/read",
        }
    }

    fn tag(self) -> u8 {
        match self {
            Self::ToolsCall => 1,
            Self::PromptsGet => 2,
            Self::ResourcesRead => 3,
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// SHA-256 of a request's arguments.
///
/// A client retries "the same request", but nothing promises the same bytes: it may re-serialize the
/// arguments with other whitespace or key order. [`ArgumentsDigest::of_json`] hashes a canonical form that
/// ignores both; [`ArgumentsDigest::of_bytes`] hashes bytes the caller has already made canonical.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ArgumentsDigest([u8; 32]);

impl ArgumentsDigest {
    /// SHA-256 of canonical bytes the caller produced.
    pub fn of_bytes(canonical: &[u8]) -> Self {
        Self(Sha256::digest(canonical).into())
    }

    /// SHA-256 of the canonical JSON text of `arguments`: object keys sorted by their UTF-8 bytes, no
    /// whitespace, strings escaped as serde_json escapes them, and integral floats below 2^53 written as
    /// integers (`1.0` and `1` hash alike, as they are the same number to a JavaScript client).
    ///
    /// Absent arguments and `{}` are different values here; callers that treat them alike should pass `{}`.
    pub fn of_json(arguments: &Value) -> Self {
        Self::of_canon(&Canon::of_value(arguments))
    }

    /// [`ArgumentsDigest::of_json`] of raw JSON text (for example a request's `arguments` as received),
    /// read into a tree that borrows the text's strings rather than into a [`Value`] (a round of a flow
    /// digests its arguments: the `Value`'s maps and strings were a tenth of that round's allocations).
    pub fn of_raw_json(arguments: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str::<Canon<'_>>(arguments).map(|canon| Self::of_canon(&canon))
    }

    fn of_canon(canon: &Canon<'_>) -> Self {
        let mut hasher = HashWriter(Sha256::new());
        canonical(&mut hasher, canon);
        Self(hasher.0.finalize().into())
    }

    /// The 32 digest bytes.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

impl From<[u8; 32]> for ArgumentsDigest {
    fn from(bytes: [u8; 32]) -> Self {
        Self(bytes)
    }
}

impl fmt::Debug for ArgumentsDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ArgumentsDigest(")?;
        for b in &self.0[..8] {
            write!(f, "{b:02x}")?;
        }
        f.write_str("…)")
    }
}

/// Feeds `io::Write` output into SHA-256, so canonical JSON is hashed without building a string.
struct HashWriter(Sha256);

impl io::Write for HashWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A JSON value as the digest reads it: strings borrowed from the text where they have no escapes, and an
/// object's members sorted by key, a repeated key keeping its last value (as a [`Value`] read keeps it).
enum Canon<'a> {
    Null,
    Bool(bool),
    Number(Number),
    String(Cow<'a, str>),
    Array(Vec<Canon<'a>>),
    Object(Vec<(Cow<'a, str>, Canon<'a>)>),
}

impl<'a> Canon<'a> {
    fn of_value(value: &'a Value) -> Self {
        match value {
            Value::Null => Self::Null,
            Value::Bool(b) => Self::Bool(*b),
            Value::Number(n) => Self::Number(n.clone()),
            Value::String(s) => Self::String(Cow::Borrowed(s)),
            Value::Array(items) => Self::Array(items.iter().map(Self::of_value).collect()),
            Value::Object(map) => {
                Self::object(map.iter().map(|(k, v)| (Cow::Borrowed(k.as_str()), Self::of_value(v))).collect())
            }
        }
    }

    /// Members in the order they were read, sorted; the last of a repeated key wins.
    fn object(mut members: Vec<(Cow<'a, str>, Canon<'a>)>) -> Self {
        members.reverse(); // the stable sort then puts the last-read of equal keys first, which dedup keeps
        members.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        members.dedup_by(|later, kept| later.0 == kept.0);
        Self::Object(members)
    }
}

impl<'de> Deserialize<'de> for Canon<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(CanonVisitor)
    }
}

struct CanonVisitor;

impl<'de> Visitor<'de> for CanonVisitor {
    type Value = Canon<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Canon<'de>, E> {
        Ok(Canon::Null)
    }
    fn visit_none<E>(self) -> Result<Canon<'de>, E> {
        Ok(Canon::Null)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Canon<'de>, E> {
        Ok(Canon::Bool(b))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Canon<'de>, E> {
        Ok(Canon::Number(n.into()))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Canon<'de>, E> {
        Ok(Canon::Number(n.into()))
    }
    fn visit_f64<E>(self, f: f64) -> Result<Canon<'de>, E> {
        // As a `Value` reads it (JSON text has no NaN or infinity; were one to come, it reads as null).
        Ok(Number::from_f64(f).map_or(Canon::Null, Canon::Number))
    }
    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Canon<'de>, E> {
        Ok(Canon::String(Cow::Borrowed(s)))
    }
    fn visit_str<E>(self, s: &str) -> Result<Canon<'de>, E> {
        Ok(Canon::String(Cow::Owned(s.to_owned())))
    }
    fn visit_string<E>(self, s: String) -> Result<Canon<'de>, E> {
        Ok(Canon::String(Cow::Owned(s)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Canon<'de>, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Canon::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Canon<'de>, A::Error> {
        let mut members = Vec::new();
        while let Some(Key(key)) = map.next_key()? {
            members.push((key, map.next_value()?));
        }
        Ok(Canon::object(members))
    }
}

/// An object key, borrowed from the text where it has no escapes (`Cow<str>` itself always copies).
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match deserializer.deserialize_str(CanonVisitor)? {
            Canon::String(s) => Ok(Key(s)),
            _ => Err(D::Error::custom("an object key that is not a string")),
        }
    }
}

fn canonical(out: &mut HashWriter, value: &Canon<'_>) {
    use std::io::Write as _;
    // Writing into a HashWriter cannot fail, so the results below are ignored on purpose.
    match value {
        Canon::Null => out.0.update(b"null"),
        Canon::Bool(true) => out.0.update(b"true"),
        Canon::Bool(false) => out.0.update(b"false"),
        Canon::Number(n) => {
            const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
            match n.as_f64() {
                Some(f) if !n.is_i64() && !n.is_u64() && f.fract() == 0.0 && f.abs() < EXACT => {
                    let _ = write!(out, "{}", f as i64);
                }
                _ => {
                    let _ = write!(out, "{n}");
                }
            }
        }
        Canon::String(s) => {
            let _ = serde_json::to_writer(&mut *out, s);
        }
        Canon::Array(items) => {
            out.0.update(b"[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.0.update(b",");
                }
                canonical(out, item);
            }
            out.0.update(b"]");
        }
        Canon::Object(members) => {
            out.0.update(b"{");
            for (i, (key, item)) in members.iter().enumerate() {
                if i > 0 {
                    out.0.update(b",");
                }
                let _ = serde_json::to_writer(&mut *out, key);
                out.0.update(b":");
                canonical(out, item);
            }
            out.0.update(b"}");
        }
    }
}

/// Everything a request-state token is bound to besides the step and the carried locals.
///
/// The codec checks each of these on [`open`](super::StateCodec::open): a token minted for one tool, one set
/// of arguments or one principal is refused for any other, and a token minted by another build of the flow
/// (another `fingerprint`) is refused rather than misread. Build one per request and use it both to open
/// the state the request brought and to seal the state of its next round; the digest of the request is
/// computed once, here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Binding<'a> {
    method: Method,
    target: &'a str,
    arguments_digest: ArgumentsDigest,
    principal: Option<&'a str>,
    fingerprint: u64,
    request_digest: [u8; 16],
}

impl<'a> Binding<'a> {
    /// The binding of a request:
    ///
    /// - `method` and `target`: the tool or prompt name, or the resource URI;
    /// - `arguments_digest`: the digest of the request's arguments (for `resources/read`, of whatever the
    ///   caller deems its arguments; `ArgumentsDigest::of_bytes(b"")` when there are none);
    /// - `principal`: the authenticated principal when auth is on (for example issuer, subject and client id,
    ///   joined unambiguously by the caller);
    /// - `fingerprint`: the flow's fingerprint, a hash of its code computed by the macro.
    pub fn new(
        method: Method,
        target: &'a str,
        arguments_digest: ArgumentsDigest,
        principal: Option<&'a str>,
        fingerprint: u64,
    ) -> Self {
        let request_digest = request_digest(method, target, &arguments_digest, principal);
        Self { method, target, arguments_digest, principal, fingerprint, request_digest }
    }

    /// The request's method.
    pub fn method(&self) -> Method {
        self.method
    }

    /// The tool or prompt name, or the resource URI.
    pub fn target(&self) -> &'a str {
        self.target
    }

    /// The digest of the request's arguments.
    pub fn arguments_digest(&self) -> &ArgumentsDigest {
        &self.arguments_digest
    }

    /// The authenticated principal, `None` on a server without auth.
    pub fn principal(&self) -> Option<&'a str> {
        self.principal
    }

    /// The flow's fingerprint: a token of another build of the flow is refused as stale.
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// The 16 bytes a token carries for method, target, arguments and principal (not the fingerprint, which
    /// travels apart so that a stale flow is told from a wrong request).
    pub(crate) fn request_digest(&self) -> &[u8; 16] {
        &self.request_digest
    }
}

fn request_digest(method: Method, target: &str, arguments: &ArgumentsDigest, principal: Option<&str>) -> [u8; 16] {
    let mut h = Sha256::new();
    h.update(b"fastmcp requestState v1 binding\0");
    h.update([method.tag()]);
    h.update((target.len() as u64).to_le_bytes());
    h.update(target.as_bytes());
    h.update(arguments.0);
    match principal {
        None => h.update([0]),
        Some(p) => {
            h.update([1]);
            h.update((p.len() as u64).to_le_bytes());
            h.update(p.as_bytes());
        }
    }
    let full = h.finalize();
    let mut out = [0; 16];
    out.copy_from_slice(&full[..16]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn canonical_json_ignores_key_order_and_whitespace() {
        let a = ArgumentsDigest::of_raw_json(r#"{"b": [1, 2.0, {"y": null, "x": "é\n"}], "a": true}"#).unwrap();
        let b = ArgumentsDigest::of_json(&json!({"a": true, "b": [1, 2, {"x": "é\n", "y": null}]}));
        assert_eq!(a, b);
        assert_eq!(
            ArgumentsDigest::of_json(&json!({"a": 1})),
            ArgumentsDigest::of_bytes(br#"{"a":1}"#),
            "canonical text is compact JSON"
        );
        assert_ne!(ArgumentsDigest::of_json(&json!({"a": 1})), ArgumentsDigest::of_json(&json!({"a": 1.5})));
        assert_ne!(ArgumentsDigest::of_json(&json!({"a": "1"})), ArgumentsDigest::of_json(&json!({"a": 1})));
    }

    /// Digests a released build computed: a token minted by an older replica must still open on a newer one,
    /// so the canonical form may not drift.
    const PINNED: &[(&str, &str)] = &[
        (
            r#"{"service":"billing-api","replicas":3}"#,
            "ec7f8b3db77ab7af3f97a770d44810e8e428e6e3792a1e212e1677e4281838a6",
        ),
        (
            r#"{"b": [1, 2.0, {"y": null, "x": "é\n"}], "a": true}"#,
            "a4ebe83a24eab57a1a5bfa170289f7ecf59b53de8dd803a4a96930cf0dc1a5c2",
        ),
        (r#"{"a":1,"b":2,"a":3}"#, "493df656a590967c84d643bdd55ee956fb53262c51b154115083c9bcc4c992e3"),
        (
            r#"{"x":{"b":1,"a":2},"x":{"c":3},"é":0,"e":0,"E":0,"":0}"#,
            "49ed3168ba2c840eddf67f8cb9fff2cac1df3580553c5b83a514168ae29d4873",
        ),
        (
            r#"{"k\u00e9y":"v\"\\\/\u0041\ud83d\ude00\u0001\t"}"#,
            "857bd56e808aaf68b821af5e9c7ee600314a6c2a7d203f6aaae126bbdc89acbd",
        ),
        (
            r#"[0,-0,-1,1e3,1.5,-2.0,9007199254740993,18446744073709551615,-9223372036854775808,1e300,2.5e-7,9007199254740992.0,123456789012345678901234567890]"#,
            "5f6ce7b1e88555beed797f1266c018877036a33ba9de48324e6171065a8a3b49",
        ),
        ("{}", "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"),
        ("[]", "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945"),
        (r#""s""#, "0f4657778ae14ff7aeeb2c2190ede79099aa9c4e8a9e54829462f0e92af659e5"),
        ("null", "74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b"),
        (" true ", "b5bea41b6c623f7c09f1bf24dcae58ebab3c0cdd90ad966bc43a45b44867e12b"),
    ];

    #[test]
    fn canonical_digests_stay_as_released() {
        let hex = |d: ArgumentsDigest| d.as_bytes().iter().map(|b| format!("{b:02x}")).collect::<String>();
        for (json, want) in PINNED {
            let got = hex(ArgumentsDigest::of_raw_json(json).unwrap());
            assert_eq!(got, *want, "{json}");
            let value: Value = serde_json::from_str(json).unwrap();
            assert_eq!(hex(ArgumentsDigest::of_json(&value)), *want, "{json} as a Value");
        }
    }

    #[test]
    fn request_digest_separates_fields() {
        let args = ArgumentsDigest::of_bytes(b"{}");
        let digest = |m, t, a, p| request_digest(m, t, &a, p);
        let digests = [
            digest(Method::ToolsCall, "ab", args, None),
            digest(Method::ToolsCall, "a", args, None),
            digest(Method::PromptsGet, "ab", args, None),
            digest(Method::ToolsCall, "ab", args, Some("")),
            digest(Method::ToolsCall, "ab", args, Some("b")),
            digest(Method::ToolsCall, "ab", ArgumentsDigest::of_bytes(b""), None),
        ];
        for (i, a) in digests.iter().enumerate() {
            for b in &digests[i + 1..] {
                assert_ne!(a, b);
            }
        }
        let bound = |fingerprint| *Binding::new(Method::ToolsCall, "ab", args, None, fingerprint).request_digest();
        assert_eq!(bound(7), bound(8), "the fingerprint travels apart");
    }

    #[test]
    fn method_names_round_trip() {
        for m in [Method::ToolsCall, Method::PromptsGet, Method::ResourcesRead] {
            assert_eq!(Method::from_name(m.name()), Some(m));
        }
        assert_eq!(Method::from_name("tools/list"), None);
    }
}
