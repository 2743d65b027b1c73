//! Enterprise-Managed Authorization (SEP-990): the user's identity assertion from the enterprise's identity
//! provider is exchanged there (RFC 8693) for an Identity Assertion JWT Authorization Grant (ID-JAG) meant
//! for the MCP server's authorization server, which gives an access token for it (the JWT bearer grant).
//! The user signs in once, to the IdP; the IdP's policy decides which MCP servers the client may reach.

use super::assertion::{Assertion, SigningKey};
use super::registration::{Client, client_auth};
use super::store::Tokens;
use super::{Context, Inner, discovery, token};
use crate::client::ClientError;
use serde::Deserialize;

const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";
const ID_TOKEN: &str = "urn:ietf:params:oauth:token-type:id_token";

/// The enterprise identity provider, and the client as it knows it: where the user's ID token is exchanged
/// for an ID-JAG. The MCP server's authorization server is found as usual; the client's registration there
/// is [`OAuthConfig::client_id`](super::OAuthConfig::client_id) (and secret or key).
#[derive(Clone)]
pub struct IdentityProvider {
    issuer: String,
    client_id: String,
    client_secret: Option<String>,
    key: Option<SigningKey>,
    id_token: Assertion,
}

impl IdentityProvider {
    /// The IdP `issuer` (its metadata is discovered, OpenID Connect or RFC 8414), the client's `client_id`
    /// there, and the user's OpenID Connect ID token, which that client got when the user signed in (its
    /// `aud`).
    pub fn new(issuer: impl Into<String>, client_id: impl Into<String>, id_token: Assertion) -> Self {
        Self { issuer: issuer.into(), client_id: client_id.into(), client_secret: None, key: None, id_token }
    }

    /// The client's secret at the IdP; without a secret or key it is a public client there.
    pub fn client_secret(mut self, secret: impl Into<String>) -> Self {
        self.client_secret = Some(secret.into());
        self
    }

    /// The client authenticates at the IdP with a JWT signed by this key (`private_key_jwt`).
    pub fn client_key(mut self, key: SigningKey) -> Self {
        self.key = Some(key);
        self
    }
}

/// A token exchange's answer (RFC 8693 §2.2.1). `token_type` is `N_A`: an ID-JAG is no access token.
#[derive(Deserialize)]
struct Exchanged {
    access_token: String,
    issued_token_type: Option<String>,
}

impl Inner {
    /// The ID-JAG for this server's authorization server, then an access token for it. The client must be
    /// registered there: the ID-JAG names the client it was issued for.
    pub(super) async fn enterprise(
        &self,
        idp: &IdentityProvider,
        context: &Context,
        scopes: &[String],
    ) -> Result<Tokens, ClientError> {
        let client = self.client(&context.server).await?;
        let grant = self.id_jag(idp, context, scopes).await?;
        self.jwt_bearer("JWT bearer, with an ID-JAG", &grant, Some(&client), context, scopes).await
    }

    /// The token exchange at the IdP: the user's ID token for an ID-JAG whose audience is the MCP server's
    /// authorization server (its issuer) and whose resource is the MCP server.
    async fn id_jag(
        &self,
        idp: &IdentityProvider,
        context: &Context,
        scopes: &[String],
    ) -> Result<String, ClientError> {
        let at_idp = |why: String| ClientError::Auth(format!("the identity provider `{}`: {why}", idp.issuer));
        let server = discovery::authorization_server(&self.fetcher, &idp.issuer).await?;
        let endpoint = server.endpoint("token_endpoint", &server.token_endpoint)?;
        let id_token = idp.id_token.get(context).await?;
        let scope = scopes.join(" ");
        let mut params = vec![
            ("grant_type", TOKEN_EXCHANGE),
            ("requested_token_type", ID_JAG),
            ("audience", context.server.issuer.as_str()),
            ("resource", context.resource.as_str()),
            ("subject_token", id_token.as_str()),
            ("subject_token_type", ID_TOKEN),
        ];
        if !scope.is_empty() {
            params.push(("scope", scope.as_str()));
        }
        let client =
            Client { id: idp.client_id.clone(), secret: idp.client_secret.clone(), key: idp.key.clone(), method: None };
        let (form, basic) = token::form(&params, Some(client_auth(&client, &server)?), &server.issuer)?;
        let answer: Exchanged = self
            .fetcher
            .post_form(endpoint, form, basic)
            .await
            .map_err(|e| at_idp(format!("the token exchange for an ID-JAG failed: {e}")))?;
        match answer.issued_token_type.as_deref() {
            Some(ID_JAG) if !answer.access_token.is_empty() => {}
            Some(ID_JAG) => return Err(at_idp("the token exchange issued an empty ID-JAG".to_owned())),
            Some(other) => {
                return Err(at_idp(format!("the token exchange issued a `{other}`, not an ID-JAG ({ID_JAG})")));
            }
            None => return Err(at_idp("the token exchange's answer has no issued_token_type (RFC 8693)".to_owned())),
        }
        tracing::debug!(idp = %idp.issuer, audience = %context.server.issuer, "oauth: ID-JAG issued");
        Ok(answer.access_token)
    }
}
