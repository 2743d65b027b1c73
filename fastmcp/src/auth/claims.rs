//! Reading the claims a JWT or an introspection response carries (they share names: RFC 7519, RFC 7662,
//! RFC 9068) into an [`AccessToken`].

use super::token::AccessToken;
use serde_json::{Map, Value};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// `iss`, `sub`, `client_id` (else `azp`), the scopes of `scope` (else `scp`), `exp`, and every claim.
pub(crate) fn access_token(claims: Map<String, Value>) -> AccessToken {
    let text = |name: &str| claims.get(name).and_then(Value::as_str).map(str::to_owned);
    let mut access = AccessToken::new();
    access.issuer = text("iss");
    access.subject = text("sub");
    access.client_id = text("client_id").or_else(|| text("azp"));
    access.scopes = scopes(&claims);
    access.expires_at = expiry(&claims);
    access.claims = claims;
    access
}

/// `scope` is a space-separated string (RFC 9068, RFC 7662); some servers send `scp`, a list or a string.
fn scopes(claims: &Map<String, Value>) -> Vec<String> {
    let words = |s: &str| s.split_whitespace().map(str::to_owned).collect::<Vec<_>>();
    match (claims.get("scope"), claims.get("scp")) {
        (Some(Value::String(scope)), _) => words(scope),
        (_, Some(Value::String(scp))) => words(scp),
        (_, Some(Value::Array(scp))) => scp.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        _ => Vec::new(),
    }
}

/// `exp`, seconds since the epoch (a JSON number, integer or not).
pub(crate) fn expiry(claims: &Map<String, Value>) -> Option<SystemTime> {
    let exp = claims.get("exp")?.as_f64().filter(|s| s.is_finite() && *s >= 0.0)?;
    UNIX_EPOCH.checked_add(Duration::try_from_secs_f64(exp).ok()?)
}

/// Whether `aud` (a string or a list) names one of `accepted`; `None` without an `aud`.
pub(crate) fn audience_names(claims: &Map<String, Value>, accepted: &[String]) -> Option<bool> {
    let names = |aud: &str| accepted.iter().any(|a| a == aud);
    Some(match claims.get("aud")? {
        Value::String(aud) => names(aud),
        Value::Array(auds) => auds.iter().filter_map(Value::as_str).any(names),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(claims: Value) -> AccessToken {
        let Value::Object(claims) = claims else { panic!("an object") };
        access_token(claims)
    }

    #[test]
    fn maps_the_standard_claims() {
        let access = read(json!({"iss": "https://as", "sub": "alice", "client_id": "app", "azp": "other",
            "scope": "read  write", "exp": 2_000_000_000, "extra": [1]}));
        assert_eq!(access.issuer.as_deref(), Some("https://as"));
        assert_eq!(access.subject.as_deref(), Some("alice"));
        assert_eq!(access.client_id.as_deref(), Some("app"), "client_id over azp");
        assert_eq!(access.scopes, ["read", "write"]);
        assert_eq!(access.expires_at, Some(UNIX_EPOCH + Duration::from_secs(2_000_000_000)));
        assert_eq!(access.claims["extra"], json!([1]));
    }

    #[test]
    fn falls_back_to_azp_and_scp() {
        let access = read(json!({"azp": "app", "scp": ["a", "b"]}));
        assert_eq!((access.client_id.as_deref(), access.scopes), (Some("app"), vec!["a".into(), "b".into()]));
        assert_eq!(read(json!({"scp": "a b"})).scopes, ["a", "b"]);
        assert_eq!(read(json!({"scope": "x", "scp": ["y"]})).scopes, ["x"], "scope wins");
        let none = read(json!({"scope": 3, "exp": "soon", "sub": 7}));
        assert_eq!((none.scopes.len(), none.expires_at, none.subject), (0, None, None));
    }

    #[test]
    fn audiences_are_a_string_or_a_list() {
        let accepted = ["https://mcp/a".to_owned()];
        let aud = |v: Value| audience_names(json!({"aud": v}).as_object().expect("object"), &accepted);
        assert_eq!(aud(json!("https://mcp/a")), Some(true));
        assert_eq!(aud(json!(["x", "https://mcp/a"])), Some(true));
        assert_eq!(aud(json!(["x"])), Some(false));
        assert_eq!(aud(json!("https://mcp/a/b")), Some(false));
        assert_eq!(aud(json!(1)), Some(false));
        assert_eq!(audience_names(&Map::new(), &accepted), None);
    }
}
