//! The edge of a protected server: every request's bearer token verified before anything else runs, and
//! what each refusal answers (status and challenge). The one place a token is admitted or refused.

use super::access::{Refusal, require_scopes};
use super::challenge::{Challenge, Presented};
use super::resource::{METADATA_PATH, Metadata, Origin, ProtectedResource};
use super::token::AccessToken;
use super::verify::{Rejected, check_expiry};
use crate::log_every::{LogEvery, held_back};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime};

/// At most one log line a second about refused or unverifiable tokens: a flood of bad tokens must not
/// flood the log.
const REFUSED_LOG_INTERVAL: Duration = Duration::from_secs(1);

/// A protected server's edge, built once from its [`ProtectedResource`].
pub(crate) struct Gate {
    config: ProtectedResource,
    /// The canonical URI, once known (configured, or the URL `serve_http` bound).
    resolved: OnceLock<Resolved>,
    /// Limits the lines about refused tokens.
    refused_log: LogEvery,
}

struct Resolved {
    resource: String,
    metadata_url: String,
    metadata_json: String,
}

/// Why a request was not admitted.
#[derive(Debug)]
pub(crate) enum Unadmitted {
    /// No bearer token.
    Missing,
    /// An `Authorization` header that is not one bearer token.
    Malformed(&'static str),
    Rejected(Rejected),
    /// A valid token without the server-wide scopes.
    Refused(Refusal),
    /// The server does not know its own URI yet, so it cannot check audiences.
    Unconfigured,
}

/// How an HTTP response refuses: its status, its `WWW-Authenticate` value and the error's message.
pub(crate) struct Refused {
    pub status: u16,
    pub challenge: Option<String>,
    pub message: String,
}

impl Gate {
    pub fn new(config: ProtectedResource) -> Self {
        let gate = Self { resolved: OnceLock::new(), config, refused_log: LogEvery::new(REFUSED_LOG_INTERVAL) };
        if let Some(uri) = gate.config.resource.clone() {
            gate.resolve(&uri);
        }
        gate
    }

    /// Settles the canonical URI unless it was configured: `serve_http` passes the URL it serves on.
    pub fn resolve(&self, uri: &str) {
        let Ok(origin) = Origin::of(uri) else { return };
        let metadata_url = format!("{}{METADATA_PATH}{}", origin.origin, origin.path.trim_end_matches('/'));
        let config = &self.config;
        let metadata = Metadata {
            resource: uri,
            authorization_servers: &config.authorization_servers,
            scopes_supported: &config.scopes_supported,
            bearer_methods_supported: ["header"],
            resource_name: config.resource_name.as_deref(),
            resource_documentation: config.documentation.as_deref(),
        };
        let metadata_json = serde_json::to_string(&metadata).unwrap_or_default();
        let _ = self.resolved.set(Resolved { resource: uri.to_owned(), metadata_url, metadata_json });
    }

    /// The canonical URI tokens must be issued for.
    pub fn resource(&self) -> Option<&str> {
        self.resolved.get().map(|r| r.resource.as_str())
    }

    /// The metadata document's JSON, once the URI is known.
    pub fn metadata_json(&self) -> Option<&str> {
        self.resolved.get().map(|r| r.metadata_json.as_str())
    }

    /// Whether `path` is where the metadata is served: the root form, or with the resource's path after it.
    pub fn is_metadata_path(path: &str) -> bool {
        path.strip_prefix(METADATA_PATH).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    }

    /// The paths to route to the metadata when mounting the endpoint yourself.
    pub fn metadata_paths(&self) -> Vec<String> {
        let mut paths = vec![METADATA_PATH.to_owned()];
        if let Some(resolved) = self.resolved.get()
            && let Ok(origin) = Origin::of(&resolved.resource)
            && !origin.path.trim_matches('/').is_empty()
        {
            paths.push(format!("{METADATA_PATH}{}", origin.path.trim_end_matches('/')));
        }
        paths
    }

    /// Admits a request by what its `Authorization` header presents.
    pub async fn admit(&self, presented: Presented<'_>) -> Result<Arc<AccessToken>, Unadmitted> {
        let token = match presented {
            Presented::Nothing => return Err(Unadmitted::Missing),
            Presented::Malformed(why) => return Err(Unadmitted::Malformed(why)),
            Presented::Bearer(token) => token,
        };
        self.verify(token).await
    }

    /// Verifies one token: the verifier (which checks the audience against the canonical URI), expiry, the
    /// server-wide scopes.
    pub async fn verify(&self, token: &str) -> Result<Arc<AccessToken>, Unadmitted> {
        let resource = self.resource().ok_or(Unadmitted::Unconfigured)?;
        if token.len() > self.config.max_token_bytes {
            let why = format!("{} bytes, over the limit of {}", token.len(), self.config.max_token_bytes);
            return Err(Unadmitted::Rejected(Rejected::Malformed(why)));
        }
        let mut access = self.config.verifier.verify(token, resource).await.map_err(Unadmitted::Rejected)?;
        grant_implied(&mut access.scopes, &self.config.implied);
        check_expiry(&access, SystemTime::now(), self.config.leeway).map_err(Unadmitted::Rejected)?;
        require_scopes(&access, self.config.required_scopes.iter().map(String::as_str)).map_err(Unadmitted::Refused)?;
        Ok(Arc::new(access))
    }

    /// What a request the gate did not admit answers.
    pub fn refused(&self, why: &Unadmitted) -> Refused {
        match why {
            Unadmitted::Missing => self.refusal(&Refusal::Unauthenticated),
            Unadmitted::Malformed(what) => Refused {
                status: 400,
                challenge: Some(self.challenge(Some("invalid_request"), Some(what.to_string()), Vec::new())),
                message: format!("Invalid Authorization header: {what}"),
            },
            Unadmitted::Rejected(Rejected::Unavailable(detail)) => {
                if let Some(suppressed) = self.refused_log.ready() {
                    tracing::warn!("a token could not be verified: {detail}{}", held_back(suppressed));
                }
                Refused { status: 503, challenge: None, message: Rejected::Unavailable(String::new()).to_string() }
            }
            Unadmitted::Rejected(rejected) => {
                if let Some(suppressed) = self.refused_log.ready() {
                    tracing::debug!("token refused: {rejected} {}{}", rejected.detail(), held_back(suppressed));
                }
                let description = rejected.to_string();
                Refused {
                    status: 401,
                    challenge: Some(self.challenge(Some("invalid_token"), Some(description.clone()), self.scope())),
                    message: description,
                }
            }
            Unadmitted::Refused(refusal) => self.refusal(refusal),
            Unadmitted::Unconfigured => {
                tracing::error!(
                    "refusing a request: this protected server does not know its own URI, so it cannot check \
                     token audiences; set ProtectedResource::resource"
                );
                Refused {
                    status: 500,
                    challenge: None,
                    message: "The server's authorization is not configured (ProtectedResource::resource)".into(),
                }
            }
        }
    }

    /// What refusing a caller a component (or the server's required scopes) answers: 401 without a token,
    /// 403 with the scopes that would lift it (so the client can step up).
    pub fn refusal(&self, refusal: &Refusal) -> Refused {
        match refusal {
            Refusal::Unauthenticated => Refused {
                status: 401,
                challenge: Some(self.challenge(None, None, self.scope())),
                message: refusal.to_string(),
            },
            Refusal::Denied(denied) => Refused {
                status: 403,
                challenge: Some(self.challenge(
                    Some("insufficient_scope"),
                    Some(denied.message().to_owned()),
                    denied.scopes().to_vec(),
                )),
                message: denied.message().to_owned(),
            },
        }
    }

    /// What a 401 asks for: the scopes the server needs at all.
    fn scope(&self) -> Vec<String> {
        let mut scope = self.config.scopes_supported.clone();
        for s in &self.config.required_scopes {
            if !scope.contains(s) {
                scope.push(s.clone());
            }
        }
        scope
    }

    fn challenge(&self, error: Option<&'static str>, description: Option<String>, scope: Vec<String>) -> String {
        let resource_metadata = self.resolved.get().map(|r| r.metadata_url.clone()).unwrap_or_default();
        Challenge { error, error_description: description, scope, resource_metadata }.render()
    }
}

/// Adds every scope the granted ones imply, transitively (each pass adds at least one, so it ends).
fn grant_implied(scopes: &mut Vec<String>, implied: &[(String, Vec<String>)]) {
    loop {
        let before = scopes.len();
        for (broader, narrower) in implied {
            if scopes.contains(broader) {
                for scope in narrower {
                    if !scopes.contains(scope) {
                        scopes.push(scope.clone());
                    }
                }
            }
        }
        if scopes.len() == before {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::StaticTokens;
    use crate::auth::challenge::parse_challenges;

    fn gate() -> Gate {
        let alice = AccessToken::new().subject("alice").scopes(["mcp"]);
        let expired = AccessToken::new().subject("old").scopes(["mcp"]).expires_at(SystemTime::UNIX_EPOCH);
        let bare = AccessToken::new().subject("bare");
        let verifier = StaticTokens::new().token("alice", alice).token("expired", expired).token("bare", bare);
        Gate::new(
            ProtectedResource::new(verifier)
                .resource("https://mcp.example.com/mcp")
                .authorization_server("https://as.example.com")
                .scopes_supported(["mcp"])
                .required_scopes(["mcp"]),
        )
    }

    fn block<T>(fut: impl std::future::Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread().build().expect("runtime").block_on(fut)
    }

    fn params(refused: &Refused) -> Vec<(String, String)> {
        parse_challenges(refused.challenge.as_deref().expect("a challenge")).expect("parses").remove(0).params
    }

    #[test]
    fn metadata_names_the_resource_and_its_servers() {
        let gate = gate();
        let doc: serde_json::Value = serde_json::from_str(gate.metadata_json().expect("resolved")).expect("json");
        assert_eq!(
            doc,
            serde_json::json!({
                "resource": "https://mcp.example.com/mcp",
                "authorization_servers": ["https://as.example.com"],
                "scopes_supported": ["mcp"],
                "bearer_methods_supported": ["header"],
            })
        );
        assert_eq!(gate.metadata_paths(), [METADATA_PATH, "/.well-known/oauth-protected-resource/mcp"]);
        assert!(Gate::is_metadata_path("/.well-known/oauth-protected-resource/mcp"));
        assert!(!Gate::is_metadata_path("/.well-known/oauth-protected-resourcex"));
    }

    #[test]
    fn each_refusal_has_its_status_and_challenge() {
        let gate = gate();
        let metadata = (
            "resource_metadata".to_owned(),
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp".to_owned(),
        );

        let missing = gate.refused(&block(gate.admit(Presented::Nothing)).expect_err("refused"));
        assert_eq!(missing.status, 401);
        assert_eq!(params(&missing), [metadata.clone(), ("scope".into(), "mcp".into())]);

        let unknown = gate.refused(&block(gate.admit(Presented::Bearer("nobody"))).expect_err("refused"));
        assert_eq!(unknown.status, 401);
        assert!(params(&unknown).contains(&("error".into(), "invalid_token".into())));

        let expired = gate.refused(&block(gate.admit(Presented::Bearer("expired"))).expect_err("refused"));
        assert_eq!((expired.status, expired.message.as_str()), (401, "The access token has expired"));

        let bare = gate.refused(&block(gate.admit(Presented::Bearer("bare"))).expect_err("refused"));
        assert_eq!(bare.status, 403);
        let p = params(&bare);
        assert!(p.contains(&("error".into(), "insufficient_scope".into())), "{p:?}");
        assert!(p.contains(&("scope".into(), "mcp".into())) && p.contains(&metadata), "{p:?}");

        let malformed = gate.refused(&block(gate.admit(Presented::Malformed("x"))).expect_err("refused"));
        assert_eq!(malformed.status, 400);

        let long = "a".repeat(16 * 1024 + 1);
        let too_long = gate.refused(&block(gate.admit(Presented::Bearer(&long))).expect_err("refused"));
        assert_eq!((too_long.status, too_long.message.as_str()), (401, "The access token is malformed"));

        let alice = block(gate.admit(Presented::Bearer("alice"))).expect("admitted");
        assert_eq!(alice.subject.as_deref(), Some("alice"));
    }

    #[test]
    fn broader_scopes_grant_the_narrower_ones_transitively() {
        let implied = vec![
            ("admin".to_owned(), vec!["deploy".to_owned(), "audit".to_owned()]),
            ("deploy".to_owned(), vec!["deploy:read".to_owned(), "deploy:write".to_owned()]),
        ];
        let mut scopes = vec!["admin".to_owned()];
        grant_implied(&mut scopes, &implied);
        assert_eq!(scopes, ["admin", "deploy", "audit", "deploy:read", "deploy:write"]);
        let mut scopes = vec!["deploy:read".to_owned()];
        grant_implied(&mut scopes, &implied);
        assert_eq!(scopes, ["deploy:read"], "narrower scopes imply nothing broader");
        let cyclic = vec![("a".to_owned(), vec!["b".to_owned()]), ("b".to_owned(), vec!["a".to_owned()])];
        let mut scopes = vec!["a".to_owned()];
        grant_implied(&mut scopes, &cyclic);
        assert_eq!(scopes, ["a", "b"]);

        let gate = Gate::new(
            ProtectedResource::new(StaticTokens::new().token("t", AccessToken::new().scopes(["deploy"])))
                .resource("https://mcp.example.com/mcp")
                .authorization_server("https://as")
                .required_scopes(["deploy:write"])
                .scope_implies("deploy", ["deploy:write"]),
        );
        let admitted = block(gate.admit(Presented::Bearer("t"))).expect("deploy implies deploy:write");
        assert!(admitted.has_scope("deploy:write"), "{admitted:?}");
    }

    #[test]
    fn without_a_uri_nothing_is_admitted() {
        let gate = Gate::new(
            ProtectedResource::new(StaticTokens::new().token("t", AccessToken::new()))
                .authorization_server("https://as"),
        );
        let why = block(gate.admit(Presented::Bearer("t"))).expect_err("refused");
        assert!(matches!(why, Unadmitted::Unconfigured));
        assert_eq!(gate.refused(&why).status, 500);
        gate.resolve("http://127.0.0.1:9/mcp");
        assert!(block(gate.admit(Presented::Bearer("t"))).is_ok());
    }
}
