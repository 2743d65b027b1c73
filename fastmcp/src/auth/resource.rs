//! The server as an OAuth 2.1 protected resource: its canonical URI (RFC 8707), the metadata that tells
//! clients where to get tokens (RFC 9728), and the verifier its tokens must pass.

use super::verify::TokenVerifier;
use serde::Serialize;
use std::sync::Arc;
use std::time::Duration;

/// The well-known path of protected resource metadata (RFC 9728 §3); the resource's own path follows it.
pub const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// The environment variable a stdio server reads its one token from (verified once, at start).
pub const STDIO_TOKEN_VAR: &str = "FASTMCP_AUTH_TOKEN";

/// Authorization for a server: every HTTP request must carry a bearer token the verifier accepts, issued
/// for this server's canonical URI by one of its authorization servers.
///
/// ```no_run
/// # use fastmcp::auth::{AccessToken, ProtectedResource, StaticTokens};
/// let auth = ProtectedResource::new(StaticTokens::new().token("dev", AccessToken::new().subject("me")))
///     .resource("https://mcp.example.com/mcp")
///     .authorization_server("https://auth.example.com")
///     .scopes_supported(["mcp:tools"]);
/// # let _ = fastmcp::FastMcp::new("x").auth(auth);
/// ```
#[derive(Clone)]
pub struct ProtectedResource {
    pub(crate) resource: Option<String>,
    pub(crate) authorization_servers: Vec<String>,
    pub(crate) scopes_supported: Vec<String>,
    pub(crate) required_scopes: Vec<String>,
    pub(crate) resource_name: Option<String>,
    pub(crate) documentation: Option<String>,
    pub(crate) leeway: Duration,
    pub(crate) max_token_bytes: usize,
    /// Broader scopes and the narrower ones each grants.
    pub(crate) implied: Vec<(String, Vec<String>)>,
    pub(crate) verifier: Arc<dyn TokenVerifier>,
}

impl ProtectedResource {
    /// Protects the server with `verifier`. The rest starts empty (30 s leeway, tokens up to 16 KiB); name at
    /// least one [`authorization_server`](Self::authorization_server), or the server's build fails.
    pub fn new(verifier: impl TokenVerifier) -> Self {
        Self {
            resource: None,
            authorization_servers: Vec::new(),
            scopes_supported: Vec::new(),
            required_scopes: Vec::new(),
            resource_name: None,
            documentation: None,
            leeway: Duration::from_secs(30),
            max_token_bytes: 16 * 1024,
            implied: Vec::new(),
            verifier: Arc::new(verifier),
        }
    }

    /// This server's canonical URI (`https://mcp.example.com/mcp`): the audience its tokens must name and the
    /// `resource` of its metadata. Unset, `serve_http` uses the URL it serves on
    /// (`http://127.0.0.1:8000/mcp`); behind a proxy or mounted in an app, set it.
    pub fn resource(mut self, uri: impl Into<String>) -> Self {
        self.resource = Some(uri.into().trim_end_matches('/').to_owned());
        self
    }

    /// An authorization server clients may get tokens from (its issuer URL); at least one.
    pub fn authorization_server(mut self, issuer: impl Into<String>) -> Self {
        self.authorization_servers.push(issuer.into());
        self
    }

    /// The scopes a client should ask for to use the server at all (`scopes_supported` in the metadata, and
    /// the `scope` of a 401's challenge). Components ask for more with `#[tool(scopes = […])]`.
    pub fn scopes_supported<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes_supported = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Scopes every request needs, whatever it calls (403 `insufficient_scope` without them).
    pub fn required_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.required_scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// A name for people (`resource_name`).
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.resource_name = Some(name.into());
        self
    }

    /// Where people read how to use it (`resource_documentation`).
    pub fn documentation(mut self, url: impl Into<String>) -> Self {
        self.documentation = Some(url.into());
        self
    }

    /// How long past its `exp` a token is still accepted, for clock skew (default 30 s).
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// The longest bearer token looked at (default 16 KiB); a longer one is refused before any verifier
    /// reads it.
    pub fn max_token_bytes(mut self, bytes: usize) -> Self {
        self.max_token_bytes = bytes.max(1);
        self
    }

    /// A scope hierarchy (the spec's MUST): a token granted `broader` has `narrower` too, as if the
    /// authorization server had listed them (`scope_implies("deploy", ["deploy:read", "deploy:write"])`).
    /// Transitive. Applied once, as the token is admitted, so every check and `ctx.auth()` see it.
    pub fn scope_implies<S: Into<String>>(
        mut self,
        broader: impl Into<String>,
        narrower: impl IntoIterator<Item = S>,
    ) -> Self {
        self.implied.push((broader.into(), narrower.into_iter().map(Into::into).collect()));
        self
    }

    /// What makes the configuration unusable, checked at build.
    pub(crate) fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if self.authorization_servers.is_empty() {
            problems.push(
                "a protected resource names at least one authorization server \
                 (ProtectedResource::authorization_server)"
                    .to_owned(),
            );
        }
        if let Some(uri) = &self.resource
            && let Err(why) = Origin::of(uri)
        {
            problems.push(format!("ProtectedResource::resource `{uri}`: {why}"));
        }
        let implied = self.implied.iter().flat_map(|(broader, narrower)| std::iter::once(broader).chain(narrower));
        for scope in self.scopes_supported.iter().chain(&self.required_scopes).chain(implied) {
            if let Err(why) = check_scope(scope) {
                problems.push(why);
            }
        }
        problems
    }
}

/// A scope token as RFC 6749 §3.3 defines it: printable ASCII but space, `"` and `\`.
pub fn check_scope(scope: &str) -> Result<(), String> {
    let ok = !scope.is_empty()
        && scope.bytes().all(|b| b == 0x21 || (0x23..=0x5B).contains(&b) || (0x5D..=0x7E).contains(&b));
    if ok { Ok(()) } else { Err(format!("`{scope}` is not a scope: use printable ASCII without spaces, `\"` or `\\`")) }
}

/// A canonical resource URI split into its origin and path.
pub(crate) struct Origin<'a> {
    pub origin: &'a str,
    pub path: &'a str,
}

impl<'a> Origin<'a> {
    /// An absolute `http`/`https` URI with a host and no fragment (RFC 8707 §2).
    pub fn of(uri: &'a str) -> Result<Self, &'static str> {
        let (scheme, rest) = uri.split_once("://").ok_or("not an absolute URI (it needs a scheme)")?;
        if !scheme.eq_ignore_ascii_case("https") && !scheme.eq_ignore_ascii_case("http") {
            return Err("not an http or https URI");
        }
        if uri.contains('#') {
            return Err("a resource URI has no fragment");
        }
        let authority_len = rest.find(['/', '?']).unwrap_or(rest.len());
        if authority_len == 0 {
            return Err("it has no host");
        }
        let split = scheme.len() + 3 + authority_len;
        Ok(Self { origin: &uri[..split], path: uri[split..].split('?').next().unwrap_or("") })
    }
}

/// The metadata document (RFC 9728 §2).
#[derive(Serialize)]
pub(crate) struct Metadata<'a> {
    pub resource: &'a str,
    pub authorization_servers: &'a [String],
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub scopes_supported: &'a [String],
    pub bearer_methods_supported: [&'static str; 1],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_documentation: Option<&'a str>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_uris_split_into_origin_and_path() {
        let o = Origin::of("https://mcp.example.com/mcp").expect("valid");
        assert_eq!((o.origin, o.path), ("https://mcp.example.com", "/mcp"));
        let o = Origin::of("http://127.0.0.1:8000").expect("valid");
        assert_eq!((o.origin, o.path), ("http://127.0.0.1:8000", ""));
        for bad in ["mcp.example.com", "ftp://x/mcp", "https:///mcp", "https://x/mcp#frag"] {
            assert!(Origin::of(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn scopes_are_rfc_6749_tokens() {
        for ok in ["deploy:write", "admin", "https://api/read", "a!#[]~"] {
            assert_eq!(check_scope(ok), Ok(()), "{ok}");
        }
        for bad in ["", "two words", "q\"uote", "back\\slash", "é"] {
            assert!(check_scope(bad).is_err(), "{bad:?}");
        }
    }
}
