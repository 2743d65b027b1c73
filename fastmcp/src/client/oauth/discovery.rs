//! Finding where tokens come from: the server's protected resource metadata (RFC 9728), then its
//! authorization server's metadata (RFC 8414 / OpenID Connect discovery), each validated before use.

use super::dpop::USE_NONCE;
use crate::auth::discovery::metadata_urls;
use crate::auth::fetch::{Fetcher, Why};
use crate::auth::{METADATA_PATH, ParsedChallenge, parse_challenges};
use crate::client::ClientError;
use http::header::WWW_AUTHENTICATE;
use http::{HeaderMap, Uri};
use serde::Deserialize;
use std::net::IpAddr;

/// The `Bearer` (or `DPoP`, RFC 9449 §7.1) challenge of a refusal, as far as the client acts on it.
#[derive(Debug, Default)]
pub(super) struct Challenge {
    pub error: Option<String>,
    pub scope: Vec<String>,
    pub resource_metadata: Option<String>,
    /// Whether a `DPoP` challenge asks for a proof with the server's nonce (`use_dpop_nonce`, RFC 9449 §9).
    pub use_dpop_nonce: bool,
}

impl Challenge {
    /// The first `Bearer` or `DPoP` challenge of a `WWW-Authenticate` value (both carry the same
    /// parameters); an absent or unreadable one says nothing.
    pub fn parse(value: Option<&str>) -> Self {
        let challenges = value.and_then(parse_challenges).unwrap_or_default();
        let is = |c: &ParsedChallenge, scheme: &str| c.scheme.eq_ignore_ascii_case(scheme);
        let use_dpop_nonce = challenges.iter().any(|c| is(c, "dpop") && c.param("error") == Some(USE_NONCE));
        let Some(first) = challenges.iter().find(|c| is(c, "bearer") || is(c, "dpop")) else {
            return Self { use_dpop_nonce, ..Self::default() };
        };
        Self {
            error: first.param("error").map(str::to_owned),
            scope: first.param("scope").map(split_scopes).unwrap_or_default(),
            resource_metadata: first.param("resource_metadata").filter(|url| !url.is_empty()).map(str::to_owned),
            use_dpop_nonce,
        }
    }

    /// The challenges of every `WWW-Authenticate` header of a response (one list, RFC 9110 §11.6.1).
    pub fn of(headers: &HeaderMap) -> Self {
        let values: Vec<&str> = headers.get_all(WWW_AUTHENTICATE).iter().filter_map(|v| v.to_str().ok()).collect();
        Self::parse((!values.is_empty()).then(|| values.join(", ")).as_deref())
    }
}

pub(super) fn split_scopes(scopes: &str) -> Vec<String> {
    scopes.split_ascii_whitespace().map(str::to_owned).collect()
}

/// Protected resource metadata (RFC 9728 §2), the fields the client uses.
#[derive(Clone, Debug, Deserialize)]
pub(super) struct ResourceMetadata {
    pub resource: String,
    #[serde(default)]
    pub authorization_servers: Vec<String>,
    pub scopes_supported: Option<Vec<String>>,
}

/// Authorization server metadata (RFC 8414 §2, RFC 9207 §3, the Client ID Metadata Document draft), the
/// fields the client uses.
#[derive(Clone, Debug, Deserialize)]
pub(super) struct ServerMetadata {
    pub issuer: String,
    pub authorization_endpoint: Option<String>,
    pub token_endpoint: Option<String>,
    pub registration_endpoint: Option<String>,
    pub scopes_supported: Option<Vec<String>>,
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    pub token_endpoint_auth_signing_alg_values_supported: Option<Vec<String>>,
    pub code_challenge_methods_supported: Option<Vec<String>>,
    #[serde(default)]
    pub client_id_metadata_document_supported: bool,
    #[serde(default)]
    pub authorization_response_iss_parameter_supported: bool,
    /// The algorithms it takes DPoP proofs in (RFC 9449 §5.1); absent where it does not advertise DPoP.
    pub dpop_signing_alg_values_supported: Option<Vec<String>>,
}

impl ServerMetadata {
    /// One of its endpoints, which must be there and be HTTPS (or loopback HTTP).
    pub fn endpoint<'a>(&'a self, name: &str, value: &'a Option<String>) -> Result<&'a str, ClientError> {
        let url = value.as_deref().ok_or_else(|| {
            ClientError::Auth(format!("the authorization server `{}` advertises no {name}", self.issuer))
        })?;
        check_secure(&format!("the {name} of `{}`", self.issuer), url)?;
        Ok(url)
    }
}

/// The protected resource metadata of the server at `server_url`: from the challenge's `resource_metadata`
/// when it named one, else from the well-known URLs (the path form, then the root). Its `resource` must
/// identify this server (RFC 9728 §3.3), or the document is not used: another server's metadata would
/// send the client, and its tokens, elsewhere.
pub(super) async fn protected_resource(
    fetcher: &Fetcher,
    server_url: &str,
    from_challenge: Option<&str>,
) -> Result<ResourceMetadata, ClientError> {
    let server =
        Canonical::of(server_url).map_err(|why| ClientError::Auth(format!("server URL `{server_url}`: {why}")))?;
    let candidates = match from_challenge {
        Some(url) => vec![url.to_owned()],
        None => server.well_known(),
    };
    let mut notes = Vec::new();
    for url in candidates {
        match fetcher.get_json::<ResourceMetadata>(&url).await {
            Ok(doc) if !server.is_within(&doc.resource) => {
                return Err(ClientError::Auth(format!(
                    "the protected resource metadata at {url} is for `{}`, not for {server_url} (RFC 9728 §3.3): not used",
                    doc.resource
                )));
            }
            Ok(doc) if doc.authorization_servers.is_empty() => {
                return Err(ClientError::Auth(format!(
                    "the protected resource metadata at {url} names no authorization server"
                )));
            }
            Ok(doc) => return Ok(doc),
            // Not there (or not metadata): the next well-known location may have it.
            Err(error) if from_challenge.is_none() && matches!(error.why, Why::Status(..) | Why::Json(_)) => {
                notes.push(error.to_string())
            }
            Err(error) => {
                notes.push(error.to_string());
                break;
            }
        }
    }
    Err(ClientError::Auth(format!("no protected resource metadata for {server_url}: {}", notes.join("; "))))
}

/// The metadata of the authorization server `issuer`, from the well-known URLs in the spec's order. A
/// document counts only if its `issuer` is `issuer` exactly (RFC 8414 §3.3): one server cannot speak for
/// another.
pub(super) async fn authorization_server(fetcher: &Fetcher, issuer: &str) -> Result<ServerMetadata, ClientError> {
    check_secure(&format!("the authorization server `{issuer}`"), issuer)?;
    let urls = metadata_urls(issuer).map_err(ClientError::Auth)?;
    let mut notes = Vec::new();
    for url in urls {
        match fetcher.get_json::<ServerMetadata>(&url).await {
            Ok(doc) if doc.issuer != issuer => {
                tracing::warn!(%url, issuer = %doc.issuer, expected = issuer, "oauth: metadata of another issuer ignored");
                notes.push(format!("{url} names issuer `{}`: not used", doc.issuer));
            }
            Ok(doc) => return Ok(doc),
            Err(error) => {
                // Every URL is on the issuer's origin: if it could not be reached, neither can the next.
                let unreachable = matches!(error.why, Why::Send(_) | Why::TimedOut(_) | Why::NoTls);
                notes.push(error.to_string());
                if unreachable {
                    break;
                }
            }
        }
    }
    Err(ClientError::Auth(format!("no usable metadata for the authorization server `{issuer}`: {}", notes.join("; "))))
}

/// Authorization server endpoints (and redirect URIs) are HTTPS; plain HTTP only on a loopback host.
pub(super) fn check_secure(what: &str, url: &str) -> Result<(), ClientError> {
    let uri: Uri = url.parse().map_err(|_| ClientError::Auth(format!("{what}: `{url}` is not a URL")))?;
    let secure = match uri.scheme_str() {
        Some(scheme) if scheme.eq_ignore_ascii_case("https") => true,
        Some(scheme) if scheme.eq_ignore_ascii_case("http") => uri.host().is_some_and(is_loopback),
        _ => false,
    };
    if secure {
        Ok(())
    } else {
        Err(ClientError::Auth(format!("{what}: `{url}` is not HTTPS (plain HTTP is for loopback hosts only)")))
    }
}

pub(super) fn is_loopback(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost") || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// A URL as the spec compares resource identifiers: scheme and host lowercased, a default port dropped, no
/// trailing slash.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Canonical {
    origin: String,
    path: String,
    query: Option<String>,
}

impl Canonical {
    pub fn of(url: &str) -> Result<Self, &'static str> {
        if url.contains('#') {
            return Err("a resource URI has no fragment");
        }
        let uri: Uri = url.parse().map_err(|_| "not a URL")?;
        let scheme = uri.scheme_str().map(str::to_ascii_lowercase).ok_or("not an absolute URL")?;
        if scheme != "https" && scheme != "http" {
            return Err("not an http or https URL");
        }
        let authority = uri.authority().ok_or("it has no host")?;
        if authority.as_str().contains('@') {
            return Err("a resource URI has no user information");
        }
        let default_port = if scheme == "https" { 443 } else { 80 };
        let port = authority.port_u16().filter(|&port| port != default_port).map(|port| format!(":{port}"));
        let origin = format!("{scheme}://{}{}", authority.host().to_ascii_lowercase(), port.unwrap_or_default());
        let path = uri.path().trim_end_matches('/').to_owned();
        Ok(Self { origin, path, query: uri.query().map(str::to_owned) })
    }

    /// Where its metadata may be: the path form (`/.well-known/oauth-protected-resource/mcp`), then the root.
    fn well_known(&self) -> Vec<String> {
        let root = format!("{}{METADATA_PATH}", self.origin);
        if self.path.is_empty() { vec![root] } else { vec![format!("{root}{}", self.path), root] }
    }

    /// Whether `resource` identifies this URL: the same URL, or the same origin with a path this one is
    /// under (a resource at the root covers the server at `/mcp`, as the reference SDK accepts). Another
    /// origin, or a sibling path, is not this server.
    pub fn is_within(&self, resource: &str) -> bool {
        let Ok(resource) = Self::of(resource) else { return false };
        let under = resource.path.is_empty()
            || resource.path == self.path
            || self.path.strip_prefix(&resource.path).is_some_and(|rest| rest.starts_with('/'));
        resource.origin == self.origin && under && (resource.query.is_none() || resource.query == self.query)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_identifiers_compare_canonically() {
        let server = Canonical::of("HTTPS://MCP.Example.com:443/mcp/").expect("valid");
        assert_eq!(server, Canonical::of("https://mcp.example.com/mcp").expect("valid"));
        for same in [
            "https://mcp.example.com/mcp",
            "https://mcp.example.com",
            "https://mcp.example.com/",
            "https://MCP.example.com/mcp/",
        ] {
            assert!(server.is_within(same), "{same}");
        }
        for other in [
            "https://evil.example.com/mcp",
            "http://mcp.example.com/mcp",
            "https://mcp.example.com:8443/mcp",
            "https://mcp.example.com/mcp2",
            "https://mcp.example.com/mcp/deeper",
            "https://mcp.example.com/other",
            "mcp.example.com/mcp",
            "https://mcp.example.com/mcp#x",
        ] {
            assert!(!server.is_within(other), "{other}");
        }
        assert_eq!(
            server.well_known(),
            [
                "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
                "https://mcp.example.com/.well-known/oauth-protected-resource",
            ]
        );
        assert_eq!(Canonical::of("http://127.0.0.1:8000").expect("valid").well_known().len(), 1);
    }

    #[test]
    fn only_https_or_loopback_http_is_secure() {
        for ok in
            ["https://as.example.com/token", "http://127.0.0.1:9000/token", "http://localhost/x", "http://[::1]:80/"]
        {
            assert!(check_secure("x", ok).is_ok(), "{ok}");
        }
        for bad in ["http://as.example.com/token", "ftp://127.0.0.1/", "not a url", "http://127.0.0.1.evil.com/"] {
            assert!(check_secure("x", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn bearer_challenges_are_read() {
        let c = Challenge::parse(Some(
            r#"Basic realm="x", Bearer error="insufficient_scope", scope="a b", resource_metadata="https://m/x""#,
        ));
        assert_eq!(c.error.as_deref(), Some("insufficient_scope"));
        assert_eq!(c.scope, ["a", "b"]);
        assert_eq!(c.resource_metadata.as_deref(), Some("https://m/x"));
        let none = Challenge::parse(Some("Basic realm=\"x\""));
        assert!(none.error.is_none() && none.scope.is_empty() && none.resource_metadata.is_none());
        assert!(Challenge::parse(None).scope.is_empty());
        // A DPoP challenge says the same, and may ask for a nonce; every header is read.
        let dpop = Challenge::parse(Some(r#"DPoP error="invalid_token", resource_metadata="https://m/x""#));
        assert_eq!(dpop.resource_metadata.as_deref(), Some("https://m/x"));
        assert!(!dpop.use_dpop_nonce);
        assert!(Challenge::parse(Some(r#"DPoP error="use_dpop_nonce""#)).use_dpop_nonce);
        assert!(!Challenge::parse(Some(r#"Bearer error="use_dpop_nonce""#)).use_dpop_nonce);
        let mut headers = HeaderMap::new();
        headers.append(WWW_AUTHENTICATE, "Basic realm=\"x\"".parse().unwrap());
        headers.append(WWW_AUTHENTICATE, "Bearer scope=\"a\"".parse().unwrap());
        headers.append(WWW_AUTHENTICATE, "DPoP algs=\"ES256\", error=\"use_dpop_nonce\"".parse().unwrap());
        let all = Challenge::of(&headers);
        assert!(all.scope == ["a"] && all.use_dpop_nonce, "{all:?}");
    }
}
