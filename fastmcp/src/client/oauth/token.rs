//! The token endpoint: an authorization code exchanged (RFC 6749 §4.1.3), a refresh (§6), a client
//! credentials grant (§4.4), a JWT bearer grant (RFC 7523 §2.1) — each naming the resource the token is for
//! (RFC 8707) — and what it answers.

use super::assertion::{CLIENT_ASSERTION_TYPE, client_assertion};
use super::discovery::ServerMetadata;
use super::dpop::{NONCE_HEADER, PROOF_HEADER, Prover, USE_NONCE, nonce_of};
use super::registration::{Client, ClientAuth, client_auth};
use super::store::Tokens;
use crate::auth::fetch::{FetchError, Fetcher};
use crate::client::ClientError;
use http::{HeaderName, HeaderValue, Method, StatusCode};
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

/// One token request, with a DPoP proof when `dpop` is given (RFC 9449 §5): then the token must come back
/// bound to the key (`token_type` `DPoP`), and a `use_dpop_nonce` refusal is retried once with the nonce the
/// authorization server handed out (§8). Without one, the token must be a Bearer token.
pub(super) async fn request(
    fetcher: &Fetcher,
    server: &ServerMetadata,
    client: Option<&Client>,
    request: TokenRequest<'_>,
    dpop: Option<&Prover>,
) -> Result<Tokens, ClientError> {
    let endpoint = server.endpoint("token_endpoint", &server.token_endpoint)?;
    let auth = client.map(|client| client_auth(client, server)).transpose()?;
    let (form, basic) = form(&request.params, auth, &server.issuer)?;
    let answer = post(fetcher, endpoint, form, basic, dpop, request.grant).await?;
    let bound = binding(endpoint, answer.token_type.as_deref(), dpop.is_some())?;
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
        dpop: bound,
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

/// The token request posted — with a fresh proof each time when `dpop` is given, and retried once when the
/// authorization server answers `use_dpop_nonce` with a nonce the proof did not carry (RFC 9449 §8) — and
/// its answer read. Every `DPoP-Nonce` it hands out is kept for the next proofs.
async fn post(
    fetcher: &Fetcher,
    endpoint: &str,
    form: String,
    basic: Option<(&str, &str)>,
    dpop: Option<&Prover>,
    grant: &str,
) -> Result<TokenResponse, ClientError> {
    let failed = |e: FetchError| ClientError::Auth(format!("the token request ({grant}) failed: {e}"));
    let mut retried = false;
    loop {
        let proof = dpop.map(|dpop| dpop.proof("POST", endpoint, None)).transpose()?;
        let headers = match &proof {
            Some(proof) => vec![(HeaderName::from_static(PROOF_HEADER), proof_value(proof)?)],
            None => Vec::new(),
        };
        let answer = fetcher.post_form_answer(endpoint, form.clone(), basic, headers).await.map_err(failed)?;
        let nonce = answer.headers.get(NONCE_HEADER).and_then(|v| v.to_str().ok());
        if let (Some(dpop), Some(nonce)) = (dpop, nonce) {
            dpop.remember(endpoint, nonce);
        }
        // A nonce the proof did not carry yet: the retry can do better.
        let fresh = nonce.is_some_and(|nonce| proof.as_deref().and_then(nonce_of).as_deref() != Some(nonce));
        if dpop.is_some()
            && !retried
            && fresh
            && answer.status == StatusCode::BAD_REQUEST
            && asks_for_nonce(&answer.body)
        {
            tracing::debug!(%endpoint, "oauth: the token request is retried with the authorization server's DPoP nonce");
            retried = true;
            continue;
        }
        return answer.json(Method::POST, endpoint).map_err(failed);
    }
}

/// Whether the token is bound to the key (`token_type` `DPoP`), which it must be exactly when the request
/// carried a proof: an unbound token answering a proof is refused (its authorization server advertises
/// DPoP: RFC 9449 §5), and so is a bound one answering no proof (it could not be used). Another type is
/// refused too. An absent `token_type` is taken for Bearer (RFC 6749 §5.1 requires one).
fn binding(endpoint: &str, token_type: Option<&str>, proved: bool) -> Result<bool, ClientError> {
    let kind = token_type.unwrap_or("Bearer");
    let bound = kind.eq_ignore_ascii_case("dpop");
    if !bound && !kind.eq_ignore_ascii_case("bearer") {
        return Err(ClientError::Auth(format!(
            "{endpoint} issued a `{kind}` token; this client uses Bearer and DPoP tokens only"
        )));
    }
    match (proved, bound) {
        (true, false) => Err(ClientError::Auth(format!(
            "{endpoint} issued an unbound `{kind}` token to a request with a DPoP proof: its authorization server \
             advertises DPoP, so a token that is not bound to the key is refused (RFC 9449 §5)"
        ))),
        (false, true) => Err(ClientError::Auth(format!(
            "{endpoint} issued a DPoP-bound token to a request without a proof, which this client cannot use \
             (DPoP is off, or the authorization server does not advertise it: OAuthConfig::dpop)"
        ))),
        _ => Ok(bound),
    }
}

/// A proof as a header value (it is one: base64url and dots).
fn proof_value(proof: &str) -> Result<HeaderValue, ClientError> {
    HeaderValue::from_str(proof).map_err(|_| ClientError::Auth("a DPoP proof is not a header value".to_owned()))
}

/// Whether an error answer is the authorization server's request for a nonce (RFC 9449 §8).
fn asks_for_nonce(body: &[u8]) -> bool {
    #[derive(Deserialize)]
    struct Error {
        error: String,
    }
    serde_json::from_slice::<Error>(body).is_ok_and(|e| e.error == USE_NONCE)
}
