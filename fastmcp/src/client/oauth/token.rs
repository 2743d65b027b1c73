//! The token endpoint: an authorization code exchanged (RFC 6749 §4.1.3), a refresh (§6), a client
//! credentials grant (§4.4), a JWT bearer grant (RFC 7523 §2.1) — each naming the resource the token is for
//! (RFC 8707) — and what it answers.

use super::assertion::{CLIENT_ASSERTION_TYPE, client_assertion};
use super::discovery::ServerMetadata;
use super::registration::{Client, ClientAuth, client_auth};
use super::store::Tokens;
use crate::auth::fetch::Fetcher;
use crate::client::ClientError;
use serde::{Deserialize, Deserializer};
use std::time::{SystemTime, UNIX_EPOCH};

/// One token request: its grant's parameters; the client authenticates as the server and its registration
/// say (or not at all, where it has none: a workload presenting its JWT).
pub(super) struct TokenRequest<'a> {
    /// The grant, for messages: `authorization code`, `refresh`, `client credentials`.
    pub grant: &'static str,
    pub params: Vec<(&'static str, &'a str)>,
    /// The scopes asked for, recorded as granted when the answer names none (RFC 6749 §5.1).
    pub scope: Option<String>,
    /// The refresh token being used: kept if the answer brings no new one (§6).
    pub refresh_token: Option<&'a str>,
}

/// The answer to a token request (RFC 6749 §5.1).
#[derive(Deserialize)]
struct TokenResponse {
    access_token: String,
    token_type: Option<String>,
    #[serde(default, deserialize_with = "seconds")]
    expires_in: Option<u64>,
    refresh_token: Option<String>,
    scope: Option<String>,
}

pub(super) async fn request(
    fetcher: &Fetcher,
    server: &ServerMetadata,
    client: Option<&Client>,
    request: TokenRequest<'_>,
) -> Result<Tokens, ClientError> {
    let endpoint = server.endpoint("token_endpoint", &server.token_endpoint)?;
    let auth = client.map(|client| client_auth(client, server)).transpose()?;
    let (form, basic) = form(&request.params, auth, &server.issuer)?;
    let answer: TokenResponse = fetcher
        .post_form(endpoint, form, basic)
        .await
        .map_err(|e| ClientError::Auth(format!("the token request ({}) failed: {e}", request.grant)))?;
    // A token of another type (DPoP) would need proofs this client does not make.
    if let Some(kind) = answer.token_type.as_deref().filter(|kind| !kind.eq_ignore_ascii_case("bearer")) {
        return Err(ClientError::Auth(format!(
            "{endpoint} issued a `{kind}` token; this client uses Bearer tokens only"
        )));
    }
    if answer.access_token.is_empty() {
        return Err(ClientError::Auth(format!("{endpoint} issued an empty access token")));
    }
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_secs();
    Ok(Tokens {
        access_token: answer.access_token,
        refresh_token: answer.refresh_token.or_else(|| request.refresh_token.map(str::to_owned)),
        expires_at: answer.expires_in.map(|seconds| now.saturating_add(seconds)),
        scope: answer.scope.or(request.scope),
        issuer: Some(server.issuer.clone()),
    })
}

/// HTTP Basic credentials: a client id and secret.
type Basic<'a> = (&'a str, &'a str);

/// The form to post to the token endpoint of `issuer`, and the Basic credentials when the client
/// authenticates so.
pub(super) fn form<'a>(
    params: &[(&str, &str)],
    auth: Option<ClientAuth<'a>>,
    issuer: &str,
) -> Result<(String, Option<Basic<'a>>), ClientError> {
    let mut form = form_urlencoded::Serializer::new(String::new());
    for (name, value) in params {
        form.append_pair(name, value);
    }
    let basic = match auth {
        Some(ClientAuth::Basic { id, secret }) => Some((id, secret)),
        Some(ClientAuth::Post { id, secret }) => {
            form.append_pair("client_id", id).append_pair("client_secret", secret);
            None
        }
        Some(ClientAuth::Public { id }) => {
            form.append_pair("client_id", id);
            None
        }
        // `client_id` too (RFC 7521 §4.2 allows it): the server finds the client's key without opening the JWT.
        Some(ClientAuth::PrivateKeyJwt { id, key }) => {
            let assertion = client_assertion(id, key, issuer)?;
            form.append_pair("client_id", id)
                .append_pair("client_assertion_type", CLIENT_ASSERTION_TYPE)
                .append_pair("client_assertion", &assertion);
            None
        }
        None => None,
    };
    Ok((form.finish(), basic))
}

/// `expires_in` as a number of seconds — or as a string of one, as some servers send it.
fn seconds<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Seconds {
        Whole(u64),
        Fraction(f64),
        Text(String),
    }
    Ok(match Option::<Seconds>::deserialize(deserializer)? {
        Some(Seconds::Whole(seconds)) => Some(seconds),
        Some(Seconds::Fraction(seconds)) => Some(seconds.max(0.0) as u64),
        Some(Seconds::Text(text)) => text.trim().parse().ok(),
        None => None,
    })
}
