//! JWTs the client presents at a token endpoint: the ones it signs itself to authenticate as a client
//! (`private_key_jwt`, RFC 7523 §2.2), and the ones it is given to use as an authorization grant (the JWT
//! bearer grant, RFC 7523 §2.1: a workload's platform token, SEP-1933, or an ID-JAG, SEP-990).

use super::discovery::ServerMetadata;
use super::registration::Client;
use super::store::Tokens;
use super::token::TokenRequest;
use super::{Context, Inner, pkce};
use crate::client::ClientError;
use futures_util::future::BoxFuture;
use jsonwebtoken::{Algorithm, AlgorithmFamily, EncodingKey, Header};
use pkcs8::der::SecretDocument;
use pkcs8::{ObjectIdentifier, PrivateKeyInfoRef};
use std::fmt;
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

pub(super) const CLIENT_ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
pub(super) const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/// How long a client assertion is good for: one request, and modest clock skew. The authorization server
/// need remember its `jti` (to refuse a replay) no longer.
const ASSERTION_LIFETIME: u64 = 60;

const RSA_ENCRYPTION: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.1");
const EC_PUBLIC_KEY: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10045.2.1");
const ED25519: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.101.112");

/// The private key a client authenticates with instead of a secret (`private_key_jwt`): each token request
/// carries a fresh JWT signed with it, which the authorization server checks against the public key
/// registered for the client. Cheap to clone; `Debug` shows no key material.
#[derive(Clone)]
pub struct SigningKey {
    key: Arc<EncodingKey>,
    algorithm: Algorithm,
    key_id: Option<String>,
}

impl SigningKey {
    /// A PEM private key: PKCS#8 (`BEGIN PRIVATE KEY`: RSA, EC or Ed25519) or PKCS#1 (`BEGIN RSA PRIVATE
    /// KEY`), to sign with `algorithm` (`ES256`, `RS256`, `PS256`, `EdDSA`, …). Checked here, with a trial
    /// signature, so a wrong key fails at configuration rather than at the first token request.
    pub fn from_pem(algorithm: Algorithm, pem: &str) -> Result<Self, ClientError> {
        let unreadable = |e: &dyn fmt::Display| ClientError::Auth(format!("the private key is not readable PEM: {e}"));
        // The label first: a key of a kind not taken is named as such, whatever its body.
        match pkcs8::der::pem::decode_label(pem.trim_start().as_bytes()).map_err(|e| unreadable(&e))? {
            "PRIVATE KEY" | "RSA PRIVATE KEY" => {}
            "EC PRIVATE KEY" => {
                return Err(ClientError::Auth(
                    "the private key is a SEC1 EC key; convert it to PKCS#8 (`openssl pkcs8 -topk8 -nocrypt`)"
                        .to_owned(),
                ));
            }
            "ENCRYPTED PRIVATE KEY" => {
                return Err(ClientError::Auth("the private key is encrypted; decrypt it to PKCS#8 first".to_owned()));
            }
            other => return Err(ClientError::Auth(format!("the PEM holds a `{other}`, not a private key"))),
        }
        let (label, document) = SecretDocument::from_pem(pem.trim_start()).map_err(|e| unreadable(&e))?;
        if label == "RSA PRIVATE KEY" {
            Self::with(algorithm, AlgorithmFamily::Rsa, document.as_bytes())
        } else {
            Self::from_pkcs8(algorithm, document.as_bytes())
        }
    }

    /// A DER private key: PKCS#8, or PKCS#1 for an RSA algorithm.
    pub fn from_der(algorithm: Algorithm, der: &[u8]) -> Result<Self, ClientError> {
        match PrivateKeyInfoRef::try_from(der) {
            Ok(_) => Self::from_pkcs8(algorithm, der),
            Err(_) if algorithm.family() == AlgorithmFamily::Rsa => Self::with(algorithm, AlgorithmFamily::Rsa, der),
            Err(e) => Err(ClientError::Auth(format!("the private key is not PKCS#8 DER: {e}"))),
        }
    }

    /// The `kid` of the registered public key this one matches, for an authorization server that holds
    /// several for the client (a JWKS).
    pub fn key_id(mut self, kid: impl Into<String>) -> Self {
        self.key_id = Some(kid.into());
        self
    }

    /// The algorithm it signs with.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The algorithm as JOSE names it (`ES256`), as metadata lists it.
    pub(super) fn algorithm_name(&self) -> String {
        serde_json::to_value(self.algorithm).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
    }

    fn from_pkcs8(algorithm: Algorithm, der: &[u8]) -> Result<Self, ClientError> {
        let info = PrivateKeyInfoRef::try_from(der)
            .map_err(|e| ClientError::Auth(format!("the private key is not PKCS#8: {e}")))?;
        let oid = info.algorithm.oid;
        // jsonwebtoken signs RSA with the PKCS#1 key inside the PKCS#8 wrapper, the others with the whole.
        if oid == RSA_ENCRYPTION {
            Self::with(algorithm, AlgorithmFamily::Rsa, info.private_key.as_bytes())
        } else if oid == EC_PUBLIC_KEY {
            Self::with(algorithm, AlgorithmFamily::Ec, der)
        } else if oid == ED25519 {
            Self::with(algorithm, AlgorithmFamily::Ed, der)
        } else {
            Err(ClientError::Auth(format!("the private key is of a kind this client does not sign with ({oid})")))
        }
    }

    fn with(algorithm: Algorithm, family: AlgorithmFamily, der: &[u8]) -> Result<Self, ClientError> {
        ensure_provider();
        if algorithm.family() == AlgorithmFamily::Hmac {
            return Err(ClientError::Auth(format!(
                "{algorithm:?} is a shared-secret algorithm; private_key_jwt signs with a private key"
            )));
        }
        if algorithm.family() != family {
            let kind = match family {
                AlgorithmFamily::Rsa => "RSA",
                AlgorithmFamily::Ec => "EC",
                _ => "Ed25519",
            };
            return Err(ClientError::Auth(format!(
                "the private key is an {kind} key, which cannot sign {algorithm:?}"
            )));
        }
        let key = match family {
            AlgorithmFamily::Rsa => EncodingKey::from_rsa_der(der),
            AlgorithmFamily::Ec => EncodingKey::from_ec_der(der),
            _ => EncodingKey::from_ed_der(der),
        };
        // A P-384 key for ES256, a truncated key: found now, not at the first token request.
        jsonwebtoken::encode(&Header::new(algorithm), &serde_json::json!({}), &key)
            .map_err(|e| ClientError::Auth(format!("the private key does not sign {algorithm:?}: {e}")))?;
        Ok(Self { key: Arc::new(key), algorithm, key_id: None })
    }

    /// A JWT of `claims` signed with this key.
    fn sign(&self, claims: &serde_json::Value) -> Result<String, ClientError> {
        let mut header = Header::new(self.algorithm);
        header.kid = self.key_id.clone();
        jsonwebtoken::encode(&header, claims, &self.key)
            .map_err(|e| ClientError::Auth(format!("signing the client assertion failed: {e}")))
    }
}

/// Keys compare by identity: the same key, shared by clones.
#[cfg(test)]
impl PartialEq for SigningKey {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.key, &other.key) && self.algorithm == other.algorithm && self.key_id == other.key_id
    }
}

#[cfg(test)]
impl Eq for SigningKey {}

impl fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SigningKey").field("algorithm", &self.algorithm).field("key_id", &self.key_id).finish()
    }
}

/// jsonwebtoken picks its crypto by crate features and fails when an application enabled both backends;
/// name ours, unless the application installed its own.
fn ensure_provider() {
    if jsonwebtoken::crypto::CryptoProvider::try_get_default().is_none() {
        let _ = jsonwebtoken::crypto::rust_crypto::DEFAULT_PROVIDER.install_default();
    }
}

/// The client assertion for one token request (RFC 7523 §2.2, §3): issued by and about the client, for the
/// authorization server. `aud` is its issuer identifier, not an endpoint URL from its metadata: an assertion
/// a malicious authorization server gets then names that server and is of no use at another (the audience
/// injection draft-ietf-oauth-rfc7523bis closes by requiring the issuer).
pub(super) fn client_assertion(client_id: &str, key: &SigningKey, issuer: &str) -> Result<String, ClientError> {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_secs();
    let jti = pkce::random(18).map_err(|_| ClientError::Auth("no randomness for the assertion's jti".to_owned()))?;
    key.sign(&serde_json::json!({
        "iss": client_id,
        "sub": client_id,
        "aud": issuer,
        "jti": jti,
        "iat": now,
        "exp": now + ASSERTION_LIFETIME,
    }))
}

/// What an assertion is wanted for: a provider may mint one for it (a workload identity platform issues
/// tokens for a requested audience).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct AssertionRequest {
    /// The issuer identifier of the authorization server the token is asked from: the `aud` a JWT
    /// authorization grant must name.
    pub issuer: String,
    /// The MCP server's resource identifier (RFC 8707).
    pub resource: String,
}

type Provide = Arc<dyn Fn(AssertionRequest) -> BoxFuture<'static, Result<String, ClientError>> + Send + Sync>;

/// Where a JWT the client is given comes from, asked each time a token is needed: such JWTs are short-lived
/// (a Kubernetes projected service account token rotates in place, an ID token expires), so the client
/// never keeps one.
#[derive(Clone)]
pub struct Assertion {
    provide: Provide,
}

impl Assertion {
    /// Always this JWT (a test, or a token the application renews by building a new client).
    pub fn fixed(jwt: impl Into<String>) -> Self {
        let jwt: Arc<str> = jwt.into().into();
        Self::from_fn(move |_| {
            let jwt = jwt.clone();
            async move { Ok(jwt.to_string()) }
        })
    }

    /// The JWT in this file, read anew each time: a projected token (Kubernetes'
    /// `/var/run/secrets/tokens/…`) that the platform replaces before it expires. Whitespace around it is
    /// not part of it.
    pub fn file(path: impl Into<PathBuf>) -> Self {
        let path: Arc<PathBuf> = Arc::new(path.into());
        Self::from_fn(move |_| {
            let path = path.clone();
            async move {
                let text = tokio::fs::read_to_string(&*path).await.map_err(|e| {
                    ClientError::Auth(format!("reading the assertion file `{}` failed: {e}", path.display()))
                })?;
                match text.trim() {
                    "" => Err(ClientError::Auth(format!("the assertion file `{}` is empty", path.display()))),
                    jwt => Ok(jwt.to_owned()),
                }
            }
        })
    }

    /// The JWT `provide` answers with: a call to a platform's metadata service, an SDK, a cache of your own.
    pub fn from_fn<F, Fut>(provide: F) -> Self
    where
        F: Fn(AssertionRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, ClientError>> + Send + 'static,
    {
        Self { provide: Arc::new(move |request| Box::pin(provide(request))) }
    }

    pub(super) async fn get(&self, context: &Context) -> Result<String, ClientError> {
        let request = AssertionRequest { issuer: context.server.issuer.clone(), resource: context.resource.clone() };
        let jwt = (self.provide)(request).await?;
        if jwt.is_empty() {
            return Err(ClientError::Auth("the assertion provider gave an empty assertion".to_owned()));
        }
        Ok(jwt)
    }
}

impl Inner {
    /// The JWT bearer grant (RFC 7523 §2.1): `assertion` is the grant, for the server's resource. The client
    /// authenticates as it is registered, if it is: a workload (SEP-1933) needs no registration, the JWT says
    /// who it is.
    pub(super) async fn jwt_bearer(
        &self,
        what: &'static str,
        assertion: &str,
        client: Option<&Client>,
        context: &Context,
        scopes: &[String],
    ) -> Result<Tokens, ClientError> {
        let scope = (!scopes.is_empty()).then(|| scopes.join(" "));
        let mut params = vec![("grant_type", JWT_BEARER), ("assertion", assertion)];
        if let Some(scope) = &scope {
            params.push(("scope", scope.as_str()));
        }
        params.push(("resource", context.resource.as_str()));
        let request = TokenRequest { grant: what, params, scope: scope.clone(), refresh_token: None };
        self.token(context, client, request, false).await
    }

    /// The client's registration where it is optional (the JWT bearer grant): none when nothing is
    /// configured.
    pub(super) async fn optional_client(&self, server: &ServerMetadata) -> Result<Option<Client>, ClientError> {
        let registration = &self.config.registration;
        if registration.client_id.is_none() && registration.metadata_document.is_none() {
            return Ok(None);
        }
        self.client(server).await.map(Some)
    }
}
