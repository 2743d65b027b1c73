//! What the application tells the OAuth client: how it is registered, which grant it uses, the scopes it
//! needs and where tokens are kept.

use super::assertion::{Assertion, SigningKey};
use super::exchange::IdentityProvider;
use super::store::{MemoryTokenStore, TokenStore};
use crate::auth::fetch::{DEFAULT_MAX_BODY, DEFAULT_TIMEOUT, Fetcher};
use crate::client::ClientError;
use futures_util::future::BoxFuture;
use serde_json::{Map, Value};
use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

/// The OAuth client's configuration. Build it for one grant, then say how the client is registered.
///
/// ```no_run
/// # use fastmcp::client::{AuthorizationCode, ClientMetadata, OAuth, OAuthConfig};
/// let oauth = OAuth::new(
///     OAuthConfig::authorization_code(AuthorizationCode::headless("http://127.0.0.1:3000/callback"))
///         .client_metadata_document("https://app.example.com/oauth/client.json")
///         .dynamic_registration(ClientMetadata::new("Example MCP client")),
/// );
/// ```
#[derive(Clone)]
pub struct OAuthConfig {
    pub(super) grant: Grant,
    pub(super) registration: Registration,
    pub(super) scope: Vec<String>,
    pub(super) refresh: bool,
    pub(super) store: Arc<dyn TokenStore>,
    pub(super) max_attempts: u32,
    pub(super) timeout: Duration,
    pub(super) dpop: super::Dpop,
}

#[derive(Clone)]
pub(super) enum Grant {
    AuthorizationCode(AuthorizationCode),
    ClientCredentials,
    /// A JWT the client is given is the grant (RFC 7523 §2.1).
    JwtBearer(Assertion),
    /// Enterprise-Managed Authorization: an ID-JAG from the IdP, then the JWT bearer grant.
    Enterprise(IdentityProvider),
}

/// The ways the client may have a `client_id`, tried in the spec's order: pre-registered, then a Client ID
/// Metadata Document if the authorization server supports them, then dynamic registration.
#[derive(Clone, Default)]
pub(super) struct Registration {
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    /// The pre-registered client's private key (`private_key_jwt`), in place of a secret.
    pub key: Option<SigningKey>,
    /// The issuer pre-registered credentials belong to; they are never offered to another.
    pub issuer: Option<String>,
    pub metadata_document: Option<String>,
    pub dynamic: Option<ClientMetadata>,
}

impl OAuthConfig {
    fn with(grant: Grant, registration: Registration) -> Self {
        Self {
            grant,
            registration,
            scope: Vec::new(),
            refresh: true,
            store: Arc::new(MemoryTokenStore::new()),
            max_attempts: 3,
            timeout: DEFAULT_TIMEOUT,
            dpop: super::Dpop::default(),
        }
    }

    /// The authorization code grant with PKCE, for a client acting for a user. Register it with
    /// [`client_id`](Self::client_id), [`client_metadata_document`](Self::client_metadata_document) and/or
    /// [`dynamic_registration`](Self::dynamic_registration).
    pub fn authorization_code(grant: AuthorizationCode) -> Self {
        Self::with(Grant::AuthorizationCode(grant), Registration::default())
    }

    /// The client credentials grant, for a client acting on its own behalf with the credentials it was
    /// registered with.
    pub fn client_credentials(client_id: impl Into<String>, client_secret: impl Into<String>) -> Self {
        let registration = Registration {
            client_id: Some(client_id.into()),
            client_secret: Some(client_secret.into()),
            ..Registration::default()
        };
        Self::with(Grant::ClientCredentials, registration)
    }

    /// The client credentials grant with `private_key_jwt` (RFC 7523 §2.2): no shared secret, each token
    /// request carries a short-lived JWT signed with `key`, whose public half is registered for `client_id`.
    ///
    /// ```no_run
    /// # use fastmcp::client::{Algorithm, OAuth, OAuthConfig, SigningKey};
    /// # fn demo(pem: &str) -> Result<(), fastmcp::client::ClientError> {
    /// let key = SigningKey::from_pem(Algorithm::ES256, pem)?;
    /// let oauth = OAuth::new(OAuthConfig::client_credentials_jwt("reporting-service", key));
    /// # Ok(()) }
    /// ```
    pub fn client_credentials_jwt(client_id: impl Into<String>, key: SigningKey) -> Self {
        let registration =
            Registration { client_id: Some(client_id.into()), key: Some(key), ..Registration::default() };
        Self::with(Grant::ClientCredentials, registration)
    }

    /// The JWT bearer grant (RFC 7523 §2.1), for a workload whose platform issues it a JWT the
    /// authorization server trusts (workload identity federation, SEP-1933: a Kubernetes service account
    /// token, a cloud identity token, a SPIFFE JWT-SVID): it needs no client registration. A
    /// [`client_id`](Self::client_id) (with a secret or key) authenticates it where the server asks for one.
    ///
    /// ```no_run
    /// # use fastmcp::client::{Assertion, OAuth, OAuthConfig};
    /// // A projected service account token with the authorization server as its audience.
    /// let oauth = OAuth::new(OAuthConfig::jwt_bearer(Assertion::file("/var/run/secrets/tokens/mcp")));
    /// ```
    pub fn jwt_bearer(assertion: Assertion) -> Self {
        Self::with(Grant::JwtBearer(assertion), Registration::default())
    }

    /// Enterprise-Managed Authorization (SEP-990), for a client acting for a user signed in to the
    /// enterprise's identity provider: the user's ID token is exchanged there for an ID-JAG (RFC 8693),
    /// which the MCP server's authorization server takes as a JWT bearer grant — no browser step. Register
    /// the client with that authorization server through [`client_id`](Self::client_id) (and a secret or key).
    ///
    /// ```no_run
    /// # use fastmcp::client::{Assertion, IdentityProvider, OAuth, OAuthConfig};
    /// # let id_token = String::new();
    /// let idp = IdentityProvider::new("https://acme.idp.example", "chat-app", Assertion::fixed(id_token));
    /// let oauth = OAuth::new(OAuthConfig::enterprise(idp).client_id("chat-app-at-mcp").client_secret("…"));
    /// ```
    pub fn enterprise(idp: IdentityProvider) -> Self {
        Self::with(Grant::Enterprise(idp), Registration::default())
    }

    /// A pre-registered `client_id`: used first, whatever else is configured.
    pub fn client_id(mut self, client_id: impl Into<String>) -> Self {
        self.registration.client_id = Some(client_id.into());
        self
    }

    /// The pre-registered client's secret (a confidential client); without one it is a public client.
    pub fn client_secret(mut self, secret: impl Into<String>) -> Self {
        self.registration.client_secret = Some(secret.into());
        self
    }

    /// The pre-registered client authenticates with a JWT signed by this key (`private_key_jwt`, RFC 7523
    /// §2.2) rather than a secret, with any grant.
    pub fn client_key(mut self, key: SigningKey) -> Self {
        self.registration.key = Some(key);
        self
    }

    /// The issuer the pre-registered credentials were issued by: with another authorization server they
    /// are not used (a Client ID Metadata Document or dynamic registration is, if configured).
    pub fn registered_with(mut self, issuer: impl Into<String>) -> Self {
        self.registration.issuer = Some(issuer.into());
        self
    }

    /// The HTTPS URL of this client's Client ID Metadata Document, its `client_id` where the authorization
    /// server says `client_id_metadata_document_supported`.
    pub fn client_metadata_document(mut self, url: impl Into<String>) -> Self {
        self.registration.metadata_document = Some(url.into());
        self
    }

    /// Dynamic client registration (RFC 7591) with this metadata, where neither of the others applies and
    /// the authorization server has a `registration_endpoint`. One registration per authorization server,
    /// kept for the life of this client.
    pub fn dynamic_registration(mut self, metadata: ClientMetadata) -> Self {
        self.registration.dynamic = Some(metadata);
        self
    }

    /// Scopes the application needs whatever the server suggests: always requested, in addition to the
    /// challenge's (or the resource metadata's `scopes_supported`).
    pub fn scope<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scope = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Whether to ask for refresh tokens (default yes): `offline_access` is requested when the
    /// authorization server lists it, and a dynamically registered client asks for the `refresh_token`
    /// grant. A refresh token the server gives is used either way.
    pub fn refresh(mut self, wanted: bool) -> Self {
        self.refresh = wanted;
        self
    }

    /// Where tokens are kept (default: in memory).
    pub fn token_store(mut self, store: impl TokenStore) -> Self {
        self.store = Arc::new(store);
        self
    }

    /// How many times in a row new credentials are got for a server that keeps refusing them (default 3):
    /// past it, the refusal is final.
    pub fn max_attempts(mut self, attempts: u32) -> Self {
        self.max_attempts = attempts.max(1);
        self
    }

    /// The time limit of each exchange with the servers (default 10 s); the user's time in the browser is
    /// the `open` hook's.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Whether tokens are bound to a key of this client's with DPoP (RFC 9449): by default
    /// [`Dpop::Auto`](super::Dpop::Auto), where the authorization server advertises it.
    pub fn dpop(mut self, dpop: super::Dpop) -> Self {
        self.dpop = dpop;
        self
    }
}

/// How the authorization request reaches the user and the response comes back: the hook is given the
/// URL to open, and answers with what arrived at the redirect URI.
pub type Open =
    Arc<dyn Fn(AuthorizationRequest) -> BoxFuture<'static, Result<AuthorizationResponse, ClientError>> + Send + Sync>;

/// The authorization code grant: where the authorization server redirects to, and how the user is sent
/// there.
#[derive(Clone)]
pub struct AuthorizationCode {
    pub(super) redirect_uri: String,
    pub(super) open: Open,
}

impl AuthorizationCode {
    /// `open` shows the user the authorization URL (a browser, a printed link) and waits for the redirect
    /// to `redirect_uri` (a loopback listener): it must be `https`, or `http` on a loopback host.
    pub fn new<F, Fut>(redirect_uri: impl Into<String>, open: F) -> Self
    where
        F: Fn(AuthorizationRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<AuthorizationResponse, ClientError>> + Send + 'static,
    {
        Self::with_hook(redirect_uri, Arc::new(move |request| Box::pin(open(request))))
    }

    /// The same with the hook already boxed.
    pub fn with_hook(redirect_uri: impl Into<String>, open: Open) -> Self {
        Self { redirect_uri: redirect_uri.into(), open }
    }

    /// No user: GETs the authorization URL and reads the code from the redirect's `Location`, not
    /// following it. For tests and conformance runs, against an authorization server that approves at once.
    pub fn headless(redirect_uri: impl Into<String>) -> Self {
        let fetcher = Fetcher::new(DEFAULT_TIMEOUT, DEFAULT_MAX_BODY);
        Self::new(redirect_uri, move |request: AuthorizationRequest| {
            let fetcher = fetcher.clone();
            async move {
                let location = fetcher
                    .get_redirect(&request.url)
                    .await
                    .map_err(|e| ClientError::Auth(format!("the authorization request did not redirect back: {e}")))?;
                AuthorizationResponse::from_redirect(&location)
            }
        })
    }
}

/// The authorization request to send the user to.
#[derive(Clone, Debug)]
pub struct AuthorizationRequest {
    /// The authorization endpoint's URL with every parameter.
    pub url: String,
    /// The `state` the response must carry back.
    pub state: String,
}

/// What arrived at the redirect URI. The client checks `state` and `iss` before it acts on `code` or
/// `error` (RFC 9207: an error of another issuer is not shown either).
#[derive(Clone, Default)]
pub struct AuthorizationResponse {
    /// The authorization code to exchange for tokens (empty when the authorization server refused).
    pub code: String,
    /// The `state` that came back: it must be the request's.
    pub state: String,
    /// The issuer that answered (RFC 9207 `iss`): when present it must be the authorization server's
    /// issuer exactly; absent, it is refused only where the server's metadata promised it.
    pub iss: Option<String>,
    /// `error` (and `error_description`), when the authorization server refused.
    pub error: Option<String>,
}

impl AuthorizationResponse {
    /// The response in a redirect URL's query (`…/callback?code=…&state=…&iss=…`).
    pub fn from_redirect(url: &str) -> Result<Self, ClientError> {
        let query = url.split('#').next().unwrap_or("").split_once('?').map(|(_, query)| query).unwrap_or("");
        let mut response = Self::default();
        let mut description = None;
        for (name, value) in form_urlencoded::parse(query.as_bytes()) {
            match &*name {
                "code" => response.code = value.into_owned(),
                "state" => response.state = value.into_owned(),
                "iss" => response.iss = Some(value.into_owned()),
                "error" => response.error = Some(value.into_owned()),
                "error_description" => description = Some(value.into_owned()),
                _ => {}
            }
        }
        if let (Some(error), Some(description)) = (&mut response.error, description) {
            *error = format!("{error}: {description}");
        }
        if response.code.is_empty() && response.error.is_none() {
            return Err(ClientError::Auth("the redirect carries neither a code nor an error".to_owned()));
        }
        Ok(response)
    }
}

impl fmt::Debug for AuthorizationResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuthorizationResponse")
            .field("code", &"<redacted>")
            .field("state", &self.state)
            .field("iss", &self.iss)
            .field("error", &self.error)
            .finish()
    }
}

/// The metadata a client registers dynamically (RFC 7591 §2).
#[derive(Clone, Debug)]
pub struct ClientMetadata {
    pub(super) client_name: String,
    pub(super) redirect_uris: Vec<String>,
    pub(super) grant_types: Vec<String>,
    pub(super) token_endpoint_auth_method: Option<String>,
    pub(super) application_type: Option<String>,
    pub(super) extra: Map<String, Value>,
}

impl ClientMetadata {
    /// Registers `client_name` with, unless set otherwise: the grant's redirect URI, the
    /// `authorization_code` grant (and `refresh_token` when refresh is wanted), `none` as the token
    /// endpoint auth method where the authorization server allows public clients, and `application_type`
    /// `native` for loopback redirect URIs (`web` otherwise).
    pub fn new(client_name: impl Into<String>) -> Self {
        Self {
            client_name: client_name.into(),
            redirect_uris: Vec::new(),
            grant_types: Vec::new(),
            token_endpoint_auth_method: None,
            application_type: None,
            extra: Map::new(),
        }
    }

    /// The redirect URIs to register, instead of the grant's one redirect URI.
    pub fn redirect_uris<S: Into<String>>(mut self, uris: impl IntoIterator<Item = S>) -> Self {
        self.redirect_uris = uris.into_iter().map(Into::into).collect();
        self
    }

    /// The grant types to register, instead of `authorization_code` (with `refresh_token` when refresh is wanted).
    pub fn grant_types<S: Into<String>>(mut self, grants: impl IntoIterator<Item = S>) -> Self {
        self.grant_types = grants.into_iter().map(Into::into).collect();
        self
    }

    /// `none`, `client_secret_basic` or `client_secret_post`.
    pub fn token_endpoint_auth_method(mut self, method: impl Into<String>) -> Self {
        self.token_endpoint_auth_method = Some(method.into());
        self
    }

    /// `native` or `web` (OpenID Connect Dynamic Client Registration).
    pub fn application_type(mut self, kind: impl Into<String>) -> Self {
        self.application_type = Some(kind.into());
        self
    }

    /// Any other field of RFC 7591 §2 (`client_uri`, `logo_uri`, `contacts`, …).
    pub fn field(mut self, name: impl Into<String>, value: impl Into<Value>) -> Self {
        self.extra.insert(name.into(), value.into());
        self
    }
}
