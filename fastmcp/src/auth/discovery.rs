//! Where an issuer publishes its signing keys: its authorization server metadata (RFC 8414) or OpenID
//! Connect discovery, at the well-known URLs the MCP spec has clients try, in its order. A document counts
//! only if its `issuer` is the configured one exactly (RFC 8414 §3.3), so one server cannot speak for another.

use super::fetch::{Fetcher, Why};
use super::resource::Origin;
use super::verify::Rejected;
use serde::Deserialize;

const OAUTH: &str = "/.well-known/oauth-authorization-server";
const OIDC: &str = "/.well-known/openid-configuration";

/// The fields of the metadata a verifier needs.
#[derive(Deserialize)]
struct Metadata {
    issuer: String,
    jwks_uri: Option<String>,
}

/// The metadata URLs for `issuer`, in the order to try them. With a path (`https://as/tenant`): the
/// well-known segment inserted before it for OAuth, then for OIDC, then OIDC's appended after it; without a
/// path: OAuth's, then OIDC's.
pub(crate) fn metadata_urls(issuer: &str) -> Result<Vec<String>, String> {
    let origin = Origin::of(issuer).map_err(|why| format!("issuer `{issuer}`: {why}"))?;
    if issuer.contains('?') {
        return Err(format!("issuer `{issuer}`: an issuer has no query (RFC 8414 §2)"));
    }
    let (origin, path) = (origin.origin, origin.path.trim_end_matches('/'));
    Ok(if path.is_empty() {
        vec![format!("{origin}{OAUTH}"), format!("{origin}{OIDC}")]
    } else {
        vec![format!("{origin}{OAUTH}{path}"), format!("{origin}{OIDC}{path}"), format!("{origin}{path}{OIDC}")]
    })
}

/// The `jwks_uri` of the first metadata document for `issuer` that names it as its issuer.
pub(crate) async fn jwks_uri(fetcher: &Fetcher, issuer: &str) -> Result<String, Rejected> {
    let unavailable =
        |notes: Vec<String>| Rejected::Unavailable(format!("no metadata for issuer `{issuer}`: {}", notes.join("; ")));
    let urls = metadata_urls(issuer).map_err(|why| unavailable(vec![why]))?;
    let mut notes = Vec::new();
    for url in urls {
        match fetcher.get_json::<Metadata>(&url).await {
            Ok(doc) if doc.issuer != issuer => {
                tracing::warn!(%url, issuer = %doc.issuer, expected = issuer, "auth: metadata of another issuer ignored");
                notes.push(format!("{url} names issuer `{}`", doc.issuer));
            }
            Ok(Metadata { jwks_uri: Some(jwks_uri), .. }) => return Ok(jwks_uri),
            Ok(Metadata { jwks_uri: None, .. }) => notes.push(format!("{url} has no jwks_uri")),
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
    Err(unavailable(notes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::fetch::{DEFAULT_MAX_BODY, DEFAULT_TIMEOUT};
    use crate::auth::test_as::MockAs;
    use serde_json::json;

    #[test]
    fn urls_follow_the_mcp_order() {
        assert_eq!(
            metadata_urls("https://as.example.com").expect("valid"),
            [
                "https://as.example.com/.well-known/oauth-authorization-server",
                "https://as.example.com/.well-known/openid-configuration",
            ]
        );
        assert_eq!(metadata_urls("https://as.example.com/").expect("valid").len(), 2, "a bare `/` is no path");
        assert_eq!(
            metadata_urls("https://as.example.com/tenant/1").expect("valid"),
            [
                "https://as.example.com/.well-known/oauth-authorization-server/tenant/1",
                "https://as.example.com/.well-known/openid-configuration/tenant/1",
                "https://as.example.com/tenant/1/.well-known/openid-configuration",
            ]
        );
        for bad in ["as.example.com", "https://as.example.com/?x=1", "https://as/#f", "ftp://as"] {
            assert!(metadata_urls(bad).is_err(), "{bad}");
        }
    }

    fn fetcher() -> Fetcher {
        Fetcher::new(DEFAULT_TIMEOUT, DEFAULT_MAX_BODY)
    }

    #[tokio::test]
    async fn tries_each_url_in_order_until_one_names_the_issuer() {
        let mock = MockAs::start().await;
        let issuer = mock.url("/tenant");
        // The OAuth document is another issuer's; the inserted OIDC one is missing; the appended one is right.
        mock.json(&format!("{OAUTH}/tenant"), json!({"issuer": mock.url("/other"), "jwks_uri": "http://evil/jwks"}));
        mock.json(&format!("/tenant{OIDC}"), json!({"issuer": issuer, "jwks_uri": mock.url("/jwks")}));
        assert_eq!(jwks_uri(&fetcher(), &issuer).await, Ok(mock.url("/jwks")));
        assert_eq!(mock.paths(), [format!("{OAUTH}/tenant"), format!("{OIDC}/tenant"), format!("/tenant{OIDC}")]);
    }

    #[tokio::test]
    async fn the_first_matching_document_wins() {
        let mock = MockAs::start().await;
        let issuer = mock.url("");
        mock.json(OAUTH, json!({"issuer": issuer, "jwks_uri": mock.url("/oauth-jwks")}));
        mock.json(OIDC, json!({"issuer": issuer, "jwks_uri": mock.url("/oidc-jwks")}));
        assert_eq!(jwks_uri(&fetcher(), &issuer).await, Ok(mock.url("/oauth-jwks")));
        assert_eq!(mock.paths(), [OAUTH]);
    }

    #[tokio::test]
    async fn an_issuer_mismatch_everywhere_is_unavailable() {
        let mock = MockAs::start().await;
        let issuer = mock.url("");
        // Not even a trailing slash is forgiven: the comparison is exact.
        mock.json(OAUTH, json!({"issuer": format!("{issuer}/"), "jwks_uri": mock.url("/jwks")}));
        mock.json(OIDC, json!({"issuer": "https://elsewhere", "jwks_uri": mock.url("/jwks")}));
        let Err(Rejected::Unavailable(detail)) = jwks_uri(&fetcher(), &issuer).await else { panic!("not refused") };
        assert!(detail.contains("names issuer `https://elsewhere`"), "{detail}");
        assert_eq!(mock.hits("/jwks"), 0);
    }

    #[tokio::test]
    async fn an_unreachable_issuer_is_tried_once() {
        let issuer = format!("http://{}/tenant", MockAs::dead_addr());
        let Err(Rejected::Unavailable(detail)) = jwks_uri(&fetcher(), &issuer).await else { panic!("not refused") };
        assert!(detail.contains("request failed") && !detail.contains(OIDC), "{detail}");
    }
}
