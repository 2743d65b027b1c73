//! The OAuth 2.1 client of the MCP authorization spec: when a server refuses a request, it finds the
//! server's authorization server (RFC 9728, then RFC 8414 / OpenID Connect discovery), gets a `client_id`
//! (pre-registered, a Client ID Metadata Document, or RFC 7591), authorizes — authorization code with PKCE
//! and a resource indicator (RFC 8707), the response's `state` and `iss` (RFC 9207) checked, client
//! credentials (with a secret or `private_key_jwt`), the JWT bearer grant (workload identity) or
//! enterprise-managed authorization (RFC 8693 token exchange for an ID-JAG) — and keeps, refreshes and steps
//! up the tokens, bound to a key of its own with DPoP (RFC 9449) where the authorization server supports it.
//! The HTTP transport only asks it, through [`Authorizer`].

mod assertion;
mod config;
mod discovery;
mod dpop;
mod exchange;
mod pkce;
mod registration;
mod store;
mod token;

#[cfg(test)]
mod tests;

pub use assertion::{Assertion, AssertionRequest, SigningKey};
pub use config::{AuthorizationCode, AuthorizationRequest, AuthorizationResponse, ClientMetadata, OAuthConfig, Open};
pub use dpop::Dpop;
pub use exchange::IdentityProvider;
pub use store::{MemoryTokenStore, TokenStore, Tokens};

use super::authorize::{Authorizer, Credentials, Refusal, RequestTarget};
use super::error::ClientError;
use super::transport::BoxFuture;
use crate::auth::fetch::{DEFAULT_MAX_BODY, Fetcher};
use crate::sync::lock;
use config::Grant;
use discovery::{Challenge, ServerMetadata, check_secure};
use dpop::{NONCE_HEADER, Prover, nonce_of};
use http::HeaderMap;
use pkce::Pkce;
use registration::{Client, check_metadata_document, register};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use token::TokenRequest;

/// A refusal of credentials got this recently, which only the retry has used, is a retry of the same
/// operation (the transport retries at once); a later one, or one after other requests used them, is a new
/// operation's.
const RETRY_WINDOW: Duration = Duration::from_secs(30);
/// However the credentials were used, this many renewals each within the window of the last end the chain:
/// concurrent requests cannot keep a server that refuses everything looping.
const BURST_FACTOR: u32 = 3;
/// An access token this close to its expiry is refreshed before it is sent.
const EXPIRY_MARGIN: Duration = Duration::from_secs(10);

/// The OAuth client: an [`Authorizer`] for the HTTP transport. Cheap to clone; clones share tokens and
/// registrations.
#[derive(Clone)]
pub struct OAuth {
    inner: Arc<Inner>,
}

struct Inner {
    config: OAuthConfig,
    fetcher: Fetcher,
    servers: Mutex<HashMap<String, Arc<Slot>>>,
    /// Dynamic registrations, by issuer: a `client_id` is one authorization server's.
    registered: tokio::sync::Mutex<HashMap<String, Client>>,
    /// The DPoP key and the servers' nonces.
    dpop: Prover,
}

/// One server's authorization state. Refusals (and refreshes) are handled one at a time under `flow`;
/// `generation` counts new credentials, so a refusal that waited for another's flow retries with its result.
#[derive(Default)]
struct Slot {
    generation: AtomicU64,
    /// How many requests were given the credentials since the last renewal.
    handed: AtomicU32,
    flow: tokio::sync::Mutex<Flow>,
}

#[derive(Default)]
struct Flow {
    /// What discovery found last: for refreshing before expiry.
    context: Option<Context>,
    /// The scopes the last authorization asked for: a step-up keeps them.
    requested: Vec<String>,
    /// Refusals of one operation in a row, each answered with new credentials.
    attempts: u32,
    /// Renewals in a row, each within the window of the last.
    burst: u32,
    renewed_at: Option<Instant>,
    /// Whether the last renewal was a refresh (a refreshed token refused at once is not refreshed again).
    refreshed: bool,
}

/// The server and its authorization server, as validated by discovery.
#[derive(Clone)]
struct Context {
    /// The server's resource identifier (its metadata's `resource`): the `resource` of every request.
    resource: String,
    scopes_supported: Option<Vec<String>>,
    server: Arc<ServerMetadata>,
    /// Whether its token requests carry DPoP proofs ([`dpop::negotiate`]), decided before any grant runs.
    dpop: bool,
}

impl OAuth {
    /// The client for `config`. Nothing is fetched yet: discovery, registration and authorization run when a
    /// server first refuses a request (tokens already in the config's store are sent until then).
    pub fn new(config: OAuthConfig) -> Self {
        let fetcher = Fetcher::new(config.timeout, DEFAULT_MAX_BODY);
        let inner = Inner {
            config,
            fetcher,
            servers: Mutex::new(HashMap::new()),
            registered: tokio::sync::Mutex::new(HashMap::new()),
            dpop: Prover::new(),
        };
        Self { inner: Arc::new(inner) }
    }
}

impl Authorizer for OAuth {
    fn authorization<'a>(&'a self, request: RequestTarget<'a>) -> BoxFuture<'a, Result<Credentials, ClientError>> {
        Box::pin(async move { self.inner.authorization(request).await.map_err(|e| for_server(e, request.url)) })
    }

    fn refused<'a>(
        &'a self,
        request: RequestTarget<'a>,
        refusal: Refusal<'a>,
    ) -> BoxFuture<'a, Result<bool, ClientError>> {
        Box::pin(async move { self.inner.refused(request, refusal).await.map_err(|e| for_server(e, request.url)) })
    }

    /// A server's new DPoP nonce is used from the next request on (RFC 9449 §8.2).
    fn answered(&self, request: RequestTarget<'_>, headers: &HeaderMap) {
        self.inner.nonce_from(request.url, headers);
    }
}

/// An authorization failure says which server it was for.
fn for_server(error: ClientError, url: &str) -> ClientError {
    match error {
        ClientError::Auth(why) => ClientError::Auth(format!("for {url}: {why}")),
        other => other,
    }
}

impl Inner {
    fn slot(&self, url: &str) -> Arc<Slot> {
        let mut servers = lock(&self.servers);
        servers.entry(url.to_owned()).or_default().clone()
    }

    /// The kept access token, refreshed first if it is about to expire and can be — a DPoP-bound one with a
    /// fresh proof for this request. None before the first refusal: the server's challenge says where
    /// tokens come from.
    async fn authorization(&self, request: RequestTarget<'_>) -> Result<Credentials, ClientError> {
        let slot = self.slot(request.url);
        let Some(tokens) = self.current(request.url, &slot).await? else { return Ok(Credentials::default()) };
        let credentials = self.present(request, &tokens)?;
        slot.handed.fetch_add(1, Ordering::SeqCst);
        Ok(credentials)
    }

    /// How `tokens` go with `request`: a bound token under the `DPoP` scheme with a proof of the key that
    /// covers it, never as a Bearer token (RFC 9449 §7.1); any other as a Bearer token.
    fn present(&self, request: RequestTarget<'_>, tokens: &Tokens) -> Result<Credentials, ClientError> {
        if !tokens.dpop {
            return Ok(Credentials::bearer(&tokens.access_token));
        }
        let proof = self.dpop.proof(request.method.as_str(), request.url, Some(&tokens.access_token))?;
        Ok(Credentials { authorization: Some(format!("DPoP {}", tokens.access_token)), dpop: Some(proof) })
    }

    async fn current(&self, url: &str, slot: &Slot) -> Result<Option<Tokens>, ClientError> {
        let store = &self.config.store;
        let Some(tokens) = store.get(url).await? else { return Ok(None) };
        if tokens.refresh_token.is_none() || !tokens.expires_within(EXPIRY_MARGIN) {
            return Ok(Some(tokens));
        }
        let flow = slot.flow.lock().await;
        // Another request may have refreshed while this one waited.
        let Some(tokens) = store.get(url).await? else { return Ok(None) };
        if !tokens.expires_within(EXPIRY_MARGIN) {
            return Ok(Some(tokens));
        }
        if let Some(context) = &flow.context
            && tokens.issuer.as_deref() == Some(context.server.issuer.as_str())
        {
            match self.refresh(url, context, &tokens).await {
                Ok(fresh) => {
                    slot.generation.fetch_add(1, Ordering::SeqCst);
                    return Ok(Some(fresh));
                }
                // The expired token goes; its refusal will run the whole flow.
                Err(e) => tracing::warn!(server = url, "oauth: refreshing an expiring token failed: {e}"),
            }
        }
        Ok(Some(tokens))
    }

    /// The `DPoP-Nonce` a server's answer carries, kept for its next proofs.
    fn nonce_from(&self, url: &str, headers: &HeaderMap) {
        if let Some(nonce) = headers.get(NONCE_HEADER).and_then(|v| v.to_str().ok()) {
            self.dpop.remember(url, nonce);
        }
    }

    /// A refusal: new credentials if they can be had (`true`: retry).
    async fn refused(&self, request: RequestTarget<'_>, refusal: Refusal<'_>) -> Result<bool, ClientError> {
        let (url, status) = (request.url, refusal.status);
        let challenge = Challenge::of(refusal.headers);
        self.nonce_from(url, refusal.headers);
        if challenge.use_dpop_nonce
            && let Some(proof) = &refusal.sent.dpop
        {
            // The server wants its nonce in the proof (RFC 9449 §9): the same credentials with a proof that
            // carries it, once — a proof refused with the nonce it already carried is not retried.
            let retry = self.dpop.nonce(url).is_some_and(|nonce| Some(nonce) != nonce_of(proof));
            tracing::debug!(server = url, retry, "oauth: the server asks for a DPoP nonce");
            return Ok(retry);
        }
        let step_up = status == 403 && challenge.error.as_deref() == Some("insufficient_scope");
        if status != 401 && !step_up {
            // A plain 403 is a decision about the caller, not about its credentials.
            return Ok(false);
        }
        let slot = self.slot(url);
        let seen = slot.generation.load(Ordering::SeqCst);
        let mut flow = slot.flow.lock().await;
        if slot.generation.load(Ordering::SeqCst) != seen {
            // New credentials arrived while this refusal waited: try them first.
            return Ok(true);
        }
        let recent = flow.renewed_at.is_some_and(|at| at.elapsed() < RETRY_WINDOW);
        let retried = recent && slot.handed.load(Ordering::SeqCst) <= 1;
        flow.attempts = if retried { flow.attempts + 1 } else { 1 };
        flow.burst = if recent { flow.burst + 1 } else { 1 };
        let limit = self.config.max_attempts;
        if flow.attempts > limit || flow.burst > limit * BURST_FACTOR {
            let times = if flow.attempts > limit { limit } else { flow.burst - 1 };
            let scope = if challenge.scope.is_empty() {
                String::new()
            } else {
                format!(", scope `{}`", challenge.scope.join(" "))
            };
            return Err(ClientError::Auth(format!(
                "the server refused the credentials got for it {times} times in a row (last HTTP {status}{scope}); giving up"
            )));
        }
        // A refreshed token refused at once is not refreshed again.
        let may_refresh = status == 401 && !(retried && flow.refreshed);
        self.renew(url, may_refresh, &challenge, &mut flow).await?;
        flow.renewed_at = Some(Instant::now());
        slot.handed.store(0, Ordering::SeqCst);
        slot.generation.fetch_add(1, Ordering::SeqCst);
        Ok(true)
    }

    /// Discovery, then a refresh (on a 401, if there is a refresh token of this authorization server) or a
    /// new grant with the scopes the refusal asks for.
    async fn renew(
        &self,
        url: &str,
        may_refresh: bool,
        challenge: &Challenge,
        flow: &mut Flow,
    ) -> Result<(), ClientError> {
        let resource =
            discovery::protected_resource(&self.fetcher, url, challenge.resource_metadata.as_deref()).await?;
        // RFC 9728 §7.6 leaves the choice to the client: the first listed.
        let issuer = &resource.authorization_servers[0];
        let server = discovery::authorization_server(&self.fetcher, issuer).await?;
        let context = Context {
            resource: resource.resource,
            scopes_supported: resource.scopes_supported,
            dpop: dpop::negotiate(self.config.dpop, &server)?,
            server: Arc::new(server),
        };
        flow.context = Some(context.clone());

        // Tokens of another authorization server (it changed) are not refreshed there.
        let stored = self.config.store.get(url).await?.filter(|t| t.issuer.as_deref() == Some(issuer.as_str()));
        if may_refresh && let Some(tokens) = stored.as_ref().filter(|t| t.refresh_token.is_some()) {
            match self.refresh(url, &context, tokens).await {
                Ok(_) => {
                    flow.refreshed = true;
                    return Ok(());
                }
                Err(e) => tracing::info!(server = url, "oauth: refresh failed, authorizing anew: {e}"),
            }
        }
        flow.refreshed = false;

        let previously = match (&flow.requested, &stored) {
            (requested, Some(tokens)) if requested.is_empty() => tokens.scopes().map(str::to_owned).collect(),
            (requested, _) => requested.clone(),
        };
        let scopes = self.scopes(&previously, challenge, &context);
        let tokens = match &self.config.grant {
            Grant::AuthorizationCode(grant) => self.authorize(grant, &context, &scopes).await?,
            Grant::ClientCredentials => self.client_credentials(&context, &scopes).await?,
            Grant::JwtBearer(assertion) => {
                let client = self.optional_client(&context.server).await?;
                let jwt = assertion.get(&context).await?;
                self.jwt_bearer("JWT bearer", &jwt, client.as_ref(), &context, &scopes).await?
            }
            Grant::Enterprise(idp) => self.enterprise(idp, &context, &scopes).await?,
        };
        self.config.store.set(url, Some(tokens)).await?;
        flow.requested = scopes;
        Ok(())
    }

    /// The scopes to ask for (the spec's selection strategy): those asked for before, with the challenge's
    /// — or, the first time and without them, the resource metadata's `scopes_supported` — and the
    /// configured ones; `offline_access` when refresh is wanted and the authorization server lists it.
    fn scopes(&self, previously: &[String], challenge: &Challenge, context: &Context) -> Vec<String> {
        let suggested: &[String] = if !challenge.scope.is_empty() {
            &challenge.scope
        } else if previously.is_empty() {
            context.scopes_supported.as_deref().unwrap_or_default()
        } else {
            &[]
        };
        let mut scopes: Vec<String> = Vec::new();
        for scope in previously.iter().chain(suggested).chain(&self.config.scope) {
            if !scopes.contains(scope) {
                scopes.push(scope.clone());
            }
        }
        let offline = "offline_access";
        let listed = context.server.scopes_supported.as_ref().is_some_and(|s| s.iter().any(|s| s == offline));
        let by_user = matches!(self.config.grant, Grant::AuthorizationCode(_));
        if self.config.refresh && by_user && listed && !scopes.iter().any(|s| s == offline) {
            scopes.push(offline.to_owned());
        }
        scopes
    }

    /// The client's registration with this authorization server, in the spec's order: pre-registered
    /// credentials (unless bound to another issuer), a Client ID Metadata Document where supported, dynamic
    /// registration where there is an endpoint for it.
    async fn client(&self, server: &ServerMetadata) -> Result<Client, ClientError> {
        let registration = &self.config.registration;
        let issuer = &server.issuer;
        let mut passed = Vec::new();
        if let Some(id) = &registration.client_id {
            match &registration.issuer {
                Some(bound) if bound != issuer => {
                    passed.push(format!("the pre-registered client `{id}` is registered with `{bound}`"))
                }
                _ => {
                    let (secret, key) = (registration.client_secret.clone(), registration.key.clone());
                    return Ok(Client { id: id.clone(), secret, key, method: None });
                }
            }
        }
        if let Some(url) = &registration.metadata_document {
            if server.client_id_metadata_document_supported {
                check_metadata_document(url)?;
                return Ok(Client { id: url.clone(), secret: None, key: None, method: Some("none".to_owned()) });
            }
            passed.push("it does not support client ID metadata documents".to_owned());
        }
        if let Some(metadata) = &registration.dynamic {
            let Grant::AuthorizationCode(grant) = &self.config.grant else {
                return Err(ClientError::Auth("dynamic registration is for the authorization code grant".to_owned()));
            };
            if server.registration_endpoint.is_some() {
                let mut registered = self.registered.lock().await;
                if let Some(client) = registered.get(issuer) {
                    return Ok(client.clone());
                }
                let client =
                    register(&self.fetcher, server, metadata, &grant.redirect_uri, self.config.refresh).await?;
                registered.insert(issuer.clone(), client.clone());
                return Ok(client);
            }
            passed.push("it has no registration_endpoint".to_owned());
        }
        if passed.is_empty() {
            passed.push("no client_id, client metadata document or dynamic registration is configured".to_owned());
        }
        Err(ClientError::Auth(format!(
            "no client registration for the authorization server `{issuer}`: {}",
            passed.join("; ")
        )))
    }

    /// The authorization code grant with PKCE: the user is sent to the authorization endpoint, and the code
    /// that comes back — its `state` and `iss` checked — is exchanged with the verifier.
    async fn authorize(
        &self,
        grant: &AuthorizationCode,
        context: &Context,
        scopes: &[String],
    ) -> Result<Tokens, ClientError> {
        let server = &context.server;
        let issuer = &server.issuer;
        // PKCE is not negotiated: the metadata is the only sign the server checks it (an absent list is "no").
        match server.code_challenge_methods_supported.as_deref() {
            Some(methods) if methods.iter().any(|m| m == "S256") => {}
            Some(methods) => {
                return Err(ClientError::Auth(format!(
                    "the authorization server `{issuer}` does not support PKCE with S256 (it lists {methods:?})"
                )));
            }
            None => {
                return Err(ClientError::Auth(format!(
                    "the authorization server `{issuer}` advertises no code_challenge_methods_supported, so not PKCE: \
                     the authorization code grant is not used without it"
                )));
            }
        }
        let endpoint = server.endpoint("authorization_endpoint", &server.authorization_endpoint)?;
        if grant.redirect_uri.get(..5).is_some_and(|scheme| scheme.eq_ignore_ascii_case("http:")) {
            check_secure("the redirect URI", &grant.redirect_uri)?;
        }
        let client = self.client(server).await?;
        let pkce = Pkce::new()?;
        let state = pkce::random(32)?;
        let scope = (!scopes.is_empty()).then(|| scopes.join(" "));
        let url = {
            let mut query = form_urlencoded::Serializer::new(String::new());
            query
                .append_pair("response_type", "code")
                .append_pair("client_id", &client.id)
                .append_pair("redirect_uri", &grant.redirect_uri)
                .append_pair("code_challenge", &pkce.challenge)
                .append_pair("code_challenge_method", "S256")
                .append_pair("state", &state);
            if let Some(scope) = &scope {
                query.append_pair("scope", scope);
            }
            query.append_pair("resource", &context.resource);
            let separator = if endpoint.contains('?') { '&' } else { '?' };
            format!("{endpoint}{separator}{}", query.finish())
        };
        tracing::debug!(%issuer, client_id = %client.id, ?scope, "oauth: authorization request");

        let response = (grant.open)(AuthorizationRequest { url, state: state.clone() }).await?;
        check_response(&response, &state, server)?;
        let params = vec![
            ("grant_type", "authorization_code"),
            ("code", response.code.as_str()),
            ("redirect_uri", grant.redirect_uri.as_str()),
            ("code_verifier", pkce.verifier.as_str()),
            ("resource", context.resource.as_str()),
        ];
        let request = TokenRequest { grant: "authorization code", params, scope, refresh_token: None };
        self.token(context, Some(&client), request, false).await
    }

    /// The client credentials grant: the client asks for itself.
    async fn client_credentials(&self, context: &Context, scopes: &[String]) -> Result<Tokens, ClientError> {
        let client = self.client(&context.server).await?;
        let scope = (!scopes.is_empty()).then(|| scopes.join(" "));
        let mut params = vec![("grant_type", "client_credentials")];
        if let Some(scope) = &scope {
            params.push(("scope", scope.as_str()));
        }
        params.push(("resource", context.resource.as_str()));
        let request = TokenRequest { grant: "client credentials", params, scope: scope.clone(), refresh_token: None };
        self.token(context, Some(&client), request, false).await
    }

    /// A refresh (RFC 6749 §6) at the authorization server that issued `tokens`; the result is kept.
    async fn refresh(&self, url: &str, context: &Context, tokens: &Tokens) -> Result<Tokens, ClientError> {
        let refresh_token = tokens.refresh_token.as_deref().unwrap_or_default();
        // A workload with no registration refreshes as it got the token: naming no client.
        let client = match self.config.grant {
            Grant::JwtBearer(_) => self.optional_client(&context.server).await?,
            _ => Some(self.client(&context.server).await?),
        };
        let params = vec![
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh_token),
            ("resource", context.resource.as_str()),
        ];
        let request =
            TokenRequest { grant: "refresh", params, scope: tokens.scope.clone(), refresh_token: Some(refresh_token) };
        // A bound refresh token (a public client's, RFC 9449 §5) is refreshed with a proof of the same key.
        let fresh = self.token(context, client.as_ref(), request, tokens.dpop).await?;
        self.config.store.set(url, Some(fresh.clone())).await?;
        tracing::debug!(server = url, issuer = %context.server.issuer, "oauth: tokens refreshed");
        Ok(fresh)
    }
}

impl Inner {
    /// A token request to the context's authorization server, every grant's: with a DPoP proof where the
    /// policy and the server's metadata said so (or the tokens it renews are bound).
    async fn token(
        &self,
        context: &Context,
        client: Option<&Client>,
        request: TokenRequest<'_>,
        bound: bool,
    ) -> Result<Tokens, ClientError> {
        let dpop = (context.dpop || bound).then_some(&self.dpop);
        token::request(&self.fetcher, &context.server, client, request, dpop).await
    }
}

/// The authorization response checked before its code (or error) is acted on: its `state` is the request's,
/// and its `iss` as RFC 9207 §2.4 and the MCP spec's table say — a present `iss` is the recorded issuer
/// exactly (no normalization), an absent one is refused only where the metadata promised it.
fn check_response(response: &AuthorizationResponse, state: &str, server: &ServerMetadata) -> Result<(), ClientError> {
    let issuer = &server.issuer;
    if response.state != state {
        return Err(ClientError::Auth(
            "the authorization response's state is not the request's (a response to another request?): refused"
                .to_owned(),
        ));
    }
    match (&response.iss, server.authorization_response_iss_parameter_supported) {
        (Some(iss), _) if iss != issuer => {
            return Err(ClientError::Auth(format!(
                "the authorization response names the issuer `{iss}`, not `{issuer}` (RFC 9207): refused"
            )));
        }
        (None, true) => {
            return Err(ClientError::Auth(format!(
                "the authorization response has no `iss`, which `{issuer}` says it sends (RFC 9207): refused"
            )));
        }
        _ => {}
    }
    if let Some(error) = &response.error {
        return Err(ClientError::Auth(format!(
            "the authorization server `{issuer}` refused the authorization: {error}"
        )));
    }
    if response.code.is_empty() {
        return Err(ClientError::Auth(format!("the authorization response of `{issuer}` has no code")));
    }
    Ok(())
}
