//! Who the client is to an authorization server: its `client_id` (pre-registered, a Client ID Metadata
//! Document, or registered dynamically, RFC 7591) and how it authenticates at the token endpoint.

use super::assertion::SigningKey;
use super::config::ClientMetadata;
use super::discovery::{ServerMetadata, is_loopback};
use crate::auth::fetch::Fetcher;
use crate::client::ClientError;
use http::Uri;
use serde::Deserialize;
use serde_json::{Value, json};

/// The client as one authorization server knows it.
#[derive(Clone)]
pub(super) struct Client {
    pub id: String,
    pub secret: Option<String>,
    /// The private key it authenticates with (`private_key_jwt`), in place of a secret.
    pub key: Option<SigningKey>,
    /// The token endpoint auth method it was registered with, when the registration said.
    pub method: Option<String>,
}

/// How the client authenticates at the token endpoint (RFC 6749 §2.3.1, RFC 7523 §2.2; a public client only
/// names itself).
#[derive(Debug)]
#[cfg_attr(test, derive(PartialEq, Eq))]
pub(super) enum ClientAuth<'a> {
    Basic { id: &'a str, secret: &'a str },
    Post { id: &'a str, secret: &'a str },
    Public { id: &'a str },
    PrivateKeyJwt { id: &'a str, key: &'a SigningKey },
}

const BASIC: &str = "client_secret_basic";
const POST: &str = "client_secret_post";
const NONE: &str = "none";
const PRIVATE_KEY_JWT: &str = "private_key_jwt";

/// The authentication for `client` at this authorization server: the method it registered with, else the
/// first of `client_secret_basic` and `client_secret_post` the server supports (RFC 8414: basic when it
/// lists none), else `none`. A client with a private key uses `private_key_jwt`.
pub(super) fn client_auth<'a>(client: &'a Client, server: &ServerMetadata) -> Result<ClientAuth<'a>, ClientError> {
    let id = client.id.as_str();
    if let Some(key) = &client.key {
        return private_key_jwt(id, key, server);
    }
    let Some(secret) = client.secret.as_deref() else { return Ok(ClientAuth::Public { id }) };
    let supported = server.token_endpoint_auth_methods_supported.as_deref();
    let supports = |method: &str| supported.is_none_or(|methods| methods.iter().any(|m| m == method));
    let method = match client.method.as_deref() {
        Some(method) => method,
        None if supports(BASIC) => BASIC,
        None if supported.is_some_and(|methods| methods.iter().any(|m| m == POST)) => POST,
        None if supported.is_some_and(|methods| methods.iter().any(|m| m == NONE)) => NONE,
        None => {
            return Err(ClientError::Auth(format!(
                "the authorization server `{}` takes none of {BASIC}, {POST} or {NONE} at its token endpoint \
                 (it lists {:?})",
                server.issuer,
                supported.unwrap_or_default()
            )));
        }
    };
    match method {
        BASIC => Ok(ClientAuth::Basic { id, secret }),
        POST => Ok(ClientAuth::Post { id, secret }),
        NONE => Ok(ClientAuth::Public { id }),
        other => Err(ClientError::Auth(format!(
            "client `{id}` is registered with the token endpoint auth method `{other}`, which this client does not \
             implement"
        ))),
    }
}

/// `private_key_jwt` where the server takes it and the key's algorithm. A server that lists no methods is
/// trusted to (the application configured the key for it); one that lists others would refuse the request.
fn private_key_jwt<'a>(
    id: &'a str,
    key: &'a SigningKey,
    server: &ServerMetadata,
) -> Result<ClientAuth<'a>, ClientError> {
    let issuer = &server.issuer;
    if let Some(methods) = &server.token_endpoint_auth_methods_supported
        && !methods.iter().any(|m| m == PRIVATE_KEY_JWT)
    {
        return Err(ClientError::Auth(format!(
            "the authorization server `{issuer}` does not take {PRIVATE_KEY_JWT} at its token endpoint (it lists \
             {methods:?}), and client `{id}` is configured with a private key"
        )));
    }
    let algorithm = key.algorithm_name();
    if let Some(algorithms) = &server.token_endpoint_auth_signing_alg_values_supported
        && !algorithms.contains(&algorithm)
    {
        return Err(ClientError::Auth(format!(
            "the authorization server `{issuer}` takes no {algorithm} client assertions (it lists {algorithms:?})"
        )));
    }
    Ok(ClientAuth::PrivateKeyJwt { id, key })
}

/// The answer to a registration (RFC 7591 §3.2.1).
#[derive(Deserialize)]
struct Registered {
    client_id: String,
    client_secret: Option<String>,
    token_endpoint_auth_method: Option<String>,
}

/// Registers with the authorization server's `registration_endpoint` (RFC 7591 §3.1).
pub(super) async fn register(
    fetcher: &Fetcher,
    server: &ServerMetadata,
    metadata: &ClientMetadata,
    redirect_uri: &str,
    refresh: bool,
) -> Result<Client, ClientError> {
    let endpoint = server.endpoint("registration_endpoint", &server.registration_endpoint)?;
    let request = registration_request(server, metadata, redirect_uri, refresh);
    let registered: Registered = fetcher
        .post_json(endpoint, &request)
        .await
        .map_err(|e| ClientError::Auth(format!("dynamic client registration failed: {e}")))?;
    if registered.client_id.is_empty() {
        return Err(ClientError::Auth(format!("the registration at {endpoint} returned an empty client_id")));
    }
    tracing::debug!(issuer = %server.issuer, client_id = %registered.client_id, "oauth: registered dynamically");
    Ok(Client {
        id: registered.client_id,
        secret: registered.client_secret.filter(|secret| !secret.is_empty()),
        key: None,
        method: registered.token_endpoint_auth_method,
    })
}

/// The client metadata to register, its gaps filled from the grant and the server's metadata.
fn registration_request(
    server: &ServerMetadata,
    metadata: &ClientMetadata,
    redirect_uri: &str,
    refresh: bool,
) -> Value {
    let redirect_uris =
        if metadata.redirect_uris.is_empty() { vec![redirect_uri.to_owned()] } else { metadata.redirect_uris.clone() };
    let grant_types = if metadata.grant_types.is_empty() {
        let mut grants = vec!["authorization_code".to_owned()];
        if refresh {
            grants.push("refresh_token".to_owned());
        }
        grants
    } else {
        metadata.grant_types.clone()
    };
    // A client on the user's machine keeps no secret, so it asks to be public where it may be.
    let method = metadata.token_endpoint_auth_method.clone().unwrap_or_else(|| {
        match server.token_endpoint_auth_methods_supported.as_deref() {
            Some(methods) if methods.iter().any(|m| m == NONE) => NONE,
            Some(methods) if !methods.iter().any(|m| m == BASIC) && methods.iter().any(|m| m == POST) => POST,
            _ => BASIC,
        }
        .to_owned()
    });
    // OpenID Connect registration defaults to `web`, which rejects loopback redirect URIs.
    let application_type = metadata.application_type.clone().unwrap_or_else(|| {
        let native = redirect_uris.iter().all(|uri| is_native_redirect(uri));
        (if native { "native" } else { "web" }).to_owned()
    });
    let mut request = metadata.extra.clone();
    let fields = json!({
        "client_name": metadata.client_name,
        "redirect_uris": redirect_uris,
        "grant_types": grant_types,
        "response_types": ["code"],
        "token_endpoint_auth_method": method,
        "application_type": application_type,
    });
    if let Value::Object(fields) = fields {
        request.extend(fields);
    }
    Value::Object(request)
}

/// A redirect URI of an application on the user's machine: a loopback address, or a private-use scheme.
fn is_native_redirect(uri: &str) -> bool {
    match uri.parse::<Uri>() {
        Ok(parsed) => match parsed.scheme_str() {
            Some("http" | "https") => parsed.host().is_some_and(is_loopback),
            _ => true,
        },
        Err(_) => uri.split_once(':').is_some_and(|(scheme, _)| !scheme.is_empty()),
    }
}

/// A Client ID Metadata Document's URL must be HTTPS with a path (the CIMD draft, §3).
pub(super) fn check_metadata_document(url: &str) -> Result<(), ClientError> {
    let ok = url.parse::<Uri>().is_ok_and(|uri| {
        uri.scheme_str() == Some("https") && uri.host().is_some() && !uri.path().trim_start_matches('/').is_empty()
    });
    if ok {
        Ok(())
    } else {
        Err(ClientError::Auth(format!("the client metadata document URL `{url}` is not an https URL with a path")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(methods: Option<&[&str]>) -> ServerMetadata {
        serde_json::from_value(json!({
            "issuer": "https://as.example.com",
            "token_endpoint_auth_methods_supported": methods,
        }))
        .expect("metadata")
    }

    fn client(secret: Option<&str>, method: Option<&str>) -> Client {
        Client { id: "id".into(), secret: secret.map(Into::into), key: None, method: method.map(Into::into) }
    }

    #[test]
    fn token_endpoint_authentication_follows_registration_then_the_server() {
        let confidential = client(Some("s"), None);
        let basic = ClientAuth::Basic { id: "id", secret: "s" };
        let post = ClientAuth::Post { id: "id", secret: "s" };
        assert_eq!(client_auth(&confidential, &server(None)).expect("ok"), basic, "RFC 8414's default");
        assert_eq!(client_auth(&confidential, &server(Some(&[POST, BASIC]))).expect("ok"), basic);
        assert_eq!(client_auth(&confidential, &server(Some(&[POST]))).expect("ok"), post);
        assert_eq!(client_auth(&confidential, &server(Some(&[NONE]))).expect("ok"), ClientAuth::Public { id: "id" });
        assert!(client_auth(&confidential, &server(Some(&["private_key_jwt"]))).is_err());
        let registered_post = client(Some("s"), Some(POST));
        assert_eq!(client_auth(&registered_post, &server(Some(&[BASIC, POST]))).expect("ok"), post);
        let public = client(None, None);
        assert_eq!(client_auth(&public, &server(Some(&[BASIC]))).expect("ok"), ClientAuth::Public { id: "id" });
        assert!(client_auth(&client(Some("s"), Some("tls_client_auth")), &server(None)).is_err());
    }

    #[test]
    fn registration_fills_its_gaps() {
        let request = registration_request(
            &server(Some(&[BASIC, NONE])),
            &ClientMetadata::new("app").field("client_uri", "https://app.example.com"),
            "http://127.0.0.1:3000/cb",
            true,
        );
        assert_eq!(
            request,
            json!({
                "client_uri": "https://app.example.com",
                "client_name": "app",
                "redirect_uris": ["http://127.0.0.1:3000/cb"],
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
                "token_endpoint_auth_method": "none",
                "application_type": "native",
            })
        );
        let web = registration_request(&server(None), &ClientMetadata::new("app"), "https://app.example.com/cb", false);
        assert_eq!(web["application_type"], "web");
        assert_eq!(web["token_endpoint_auth_method"], BASIC);
        assert_eq!(web["grant_types"], json!(["authorization_code"]));
        assert!(is_native_redirect("com.example.app:/callback"));
    }

    #[test]
    fn metadata_document_urls_are_https_with_a_path() {
        assert!(check_metadata_document("https://app.example.com/client.json").is_ok());
        for bad in ["http://app.example.com/client.json", "https://app.example.com", "https://app.example.com/"] {
            assert!(check_metadata_document(bad).is_err(), "{bad}");
        }
    }
}
