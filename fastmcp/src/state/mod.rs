//! Request state: the token a modern-era round hands the client, and the checks it must pass to come back.
//!
//! When a handler needs client input, its round ends with `{resultType: "input_required", inputRequests,
//! requestState}`. The client retries the same request with the token byte-exact; the server opens it and
//! resumes the handler at the recorded step with the carried locals. The token is attacker-controlled, so
//! it is authenticated (and, with the `sealed-state` feature and `RequestStateConfig::sealed`, encrypted),
//! bound to the request and the principal, and short-lived.
//!
//! # Token format (version 1)
//!
//! ```text
//! signed:  v1.<kid>.<base64url(body)>.<base64url(HMAC-SHA256(mac key, "v1.<kid>." ‖ body))>
//! sealed:  v1s.<kid>.<base64url(nonce ‖ XChaCha20(body))>.<base64url(Poly1305 tag)>   AAD = "v1s.<kid>."
//!
//! body:    step u32 ‖ fingerprint u64 ‖ issued-at ms u64 ‖ expires-at ms u64 ‖ request digest [16]
//!          ‖ carried locals as JSON text [‖ NUL ‖ attachment]    (integers little-endian; 44-byte header)
//! ```
//!
//! - `kid` is 8 base64url characters derived from the key with HKDF; it picks the ring key that verifies.
//!   The MAC and encryption keys are derived from the ring key with HKDF under distinct labels; the ring key
//!   itself is never used directly.
//! - The signed MAC covers everything before it: the version, the key id and the body. Base64 is decoded
//!   strictly (no padding, no stray trailing bits), so each token text has one body and a changed character
//!   anywhere is refused. The sealed form authenticates the same span with the AEAD's tag (under its own
//!   derived key) instead of a second, redundant MAC.
//! - The request digest is SHA-256 over method, target (tool, prompt or URI), the arguments' digest and the
//!   principal, truncated to 16 bytes. The flow's fingerprint travels apart so that a token from another
//!   build of the flow is told from a token for another request.
//! - The attachment is optional text the token carries unparsed ([`StateCodec::seal_with_attachment`]). JSON
//!   text never holds a raw NUL, so the first NUL ends the locals; a token without one has no NUL at all.
//! - Every token is at most [`RequestStateConfig::max_token_bytes`] long (64 KiB by default), checked before
//!   anything is decoded.
//!
//! # Example
//!
//! ```
//! use fastmcp::state::{ArgumentsDigest, Binding, Method, RequestStateConfig, StateCodec, StateKeys};
//! use serde_json::json;
//!
//! let keys = StateKeys::from_keys([[7u8; 32]])?; // in production: random secrets, newest first
//! let codec = StateCodec::new(RequestStateConfig::new(keys))?;
//!
//! let args = ArgumentsDigest::of_json(&json!({"service": "api", "replicas": 3}));
//! let binding = Binding::new(Method::ToolsCall, "deploy", args, None, 0x5eed);
//!
//! let token = codec.seal(&binding, 1, &("plan-42",))?;
//! let resumed = codec.open(&token, &binding)?; // a refusal becomes -32602 "Invalid or expired requestState"
//! assert_eq!(resumed.step(), 1);
//! let (plan,): (String,) = resumed.restore()?;
//! assert_eq!(plan, "plan-42");
//! # Ok::<(), fastmcp::Error>(())
//! ```

mod binding;
mod error;
mod keys;

pub use binding::{ArgumentsDigest, Binding, Method};
pub use error::{INVALID_STATE_MESSAGE, INVALID_STATE_REASON, StateError};
pub use keys::{KeyError, MIN_KEY_BYTES, StateKeys};

use base64_simd::URL_SAFE_NO_PAD as B64;
use hmac::Mac as _;
use keys::KID_CHARS;
#[cfg(feature = "sealed-state")]
use keys::RingKey;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Version prefix of signed tokens.
const SIGNED: &str = "v1";
/// Version prefix of sealed tokens (read only by builds with the `sealed-state` feature).
#[cfg(feature = "sealed-state")]
const SEALED: &str = "v1s";

const HEADER: usize = 4 + 8 + 8 + 8 + 16;
const MAC_BYTES: usize = 32;
const MAC_CHARS: usize = 43;
#[cfg(feature = "sealed-state")]
const NONCE_BYTES: usize = 24;
#[cfg(feature = "sealed-state")]
const TAG_BYTES: usize = 16;
#[cfg(feature = "sealed-state")]
const TAG_CHARS: usize = 22;

/// Default lifetime of a token: 10 minutes.
pub const DEFAULT_TTL: Duration = Duration::from_secs(600);
/// Default cap on a token's length: 64 KiB.
pub const DEFAULT_MAX_TOKEN_BYTES: usize = 64 * 1024;

/// How request state is keyed, how long it lives and how large it may grow.
#[derive(Debug, Clone)]
pub struct RequestStateConfig {
    keys: Option<StateKeys>,
    ttl: Duration,
    max_token_bytes: usize,
    #[cfg(feature = "sealed-state")]
    sealed: bool,
}

impl Default for RequestStateConfig {
    /// The per-process random key ([`StateKeys::ephemeral`]), 10 minutes, 64 KiB, signed.
    fn default() -> Self {
        Self {
            keys: None,
            ttl: DEFAULT_TTL,
            max_token_bytes: DEFAULT_MAX_TOKEN_BYTES,
            #[cfg(feature = "sealed-state")]
            sealed: false,
        }
    }
}

impl RequestStateConfig {
    /// True when keys were configured (rather than the per-process random key).
    pub fn has_keys(&self) -> bool {
        self.keys.is_some()
    }

    /// This key ring, with the default TTL and cap, signed.
    pub fn new(keys: StateKeys) -> Self {
        Self { keys: Some(keys), ..Self::default() }
    }

    /// How long a token stays valid after it is minted (default 10 minutes). Applies when opening too: a
    /// token minted under a longer TTL is held to this one.
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// The longest token accepted or minted, in bytes (default 64 KiB). Checked before any decoding.
    pub fn max_token_bytes(mut self, max: usize) -> Self {
        self.max_token_bytes = max;
        self
    }

    /// Seal new tokens with XChaCha20-Poly1305, so carried locals are confidential and not only authentic
    /// (default: signed only). Either form is accepted when opening.
    #[cfg(feature = "sealed-state")]
    pub fn sealed(mut self, sealed: bool) -> Self {
        self.sealed = sealed;
        self
    }
}

/// Mints and opens request-state tokens. Build one per server and share it; it holds no per-request state.
#[derive(Clone)]
pub struct StateCodec {
    keys: StateKeys,
    ttl_ms: u64,
    max_token_bytes: usize,
    #[cfg(feature = "sealed-state")]
    sealed: bool,
}

impl fmt::Debug for StateCodec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("StateCodec");
        d.field("keys", &self.keys).field("ttl_ms", &self.ttl_ms).field("max_token_bytes", &self.max_token_bytes);
        #[cfg(feature = "sealed-state")]
        d.field("sealed", &self.sealed);
        d.finish()
    }
}

/// A token that passed every check: the step to resume at and the carried locals.
#[derive(Clone)]
pub struct Resumed {
    step: u32,
    /// The locals' JSON, then (when there is one) a NUL and the attachment.
    locals: String,
    /// Where the locals' JSON ends.
    json_len: usize,
    id: [u8; 16],
    expires_ms: u64,
}

impl Resumed {
    /// The step the flow resumes at.
    pub fn step(&self) -> u32 {
        self.step
    }

    /// What tells this token from every other: the first 16 bytes of its MAC (or AEAD tag), which covers
    /// the whole token. Two tokens share it only if they are the same text; a one-time flow that must tell
    /// identical rounds apart carries a random nonce in its locals. The server records the ids of consumed
    /// final rounds under it.
    pub fn id(&self) -> &[u8; 16] {
        &self.id
    }

    /// When the token stops being accepted (its expiry, or its issue time plus the codec's TTL if sooner):
    /// what a record about it (a consumed id) needs to outlive.
    pub fn expires_at(&self) -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(self.expires_ms)
    }

    /// The carried locals as JSON text, exactly as they were sealed.
    pub fn locals_json(&self) -> &str {
        &self.locals[..self.json_len]
    }

    /// The attachment the token was sealed with ([`StateCodec::seal_with_attachment`]); empty if none.
    pub fn attachment(&self) -> &str {
        self.locals.get(self.json_len + 1..).unwrap_or_default()
    }

    /// Deserializes the carried locals straight from the token's text into the type the flow expects.
    pub fn restore<'de, T: Deserialize<'de>>(&'de self) -> Result<T, StateError> {
        self.read(self.locals_json())
    }

    /// Deserializes the attachment as [`restore`](Self::restore) does the locals, refused the same way when
    /// it does not fit.
    pub fn restore_attachment<'de, T: Deserialize<'de>>(&'de self) -> Result<T, StateError> {
        self.read(self.attachment())
    }

    fn read<'de, T: Deserialize<'de>>(&self, text: &'de str) -> Result<T, StateError> {
        serde_json::from_str(text).map_err(|e| {
            let e = StateError::Undecodable { line: e.line(), column: e.column() };
            tracing::warn!(step = self.step, reason = e.kind(), "requestState refused: {e}");
            e
        })
    }
}

impl Drop for Resumed {
    fn drop(&mut self) {
        Scratch::give_back(std::mem::take(&mut self.locals).into_bytes());
    }
}

impl fmt::Debug for Resumed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The locals may be confidential: show only their size.
        f.debug_struct("Resumed")
            .field("step", &self.step)
            .field("locals_bytes", &self.json_len)
            .field("attachment_bytes", &self.attachment().len())
            .finish()
    }
}

/// The buffer a token's body is assembled in when minted, or decoded into when opened, kept per thread
/// between tokens so neither allocates and grows one each time: a round that opens a token and mints the next
/// reuses one buffer. Taken out of the thread's slot while in use (a re-entrant use just gets a fresh one) and
/// put back only if it is no larger than [`DEFAULT_MAX_TOKEN_BYTES`]. An opened token's locals keep it until
/// their [`Resumed`] drops.
struct Scratch(Vec<u8>);

thread_local! {
    static SCRATCH: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

impl Scratch {
    fn take() -> Self {
        let mut buf = SCRATCH.with(std::cell::Cell::take);
        buf.clear();
        Self(buf)
    }

    /// The buffer, for a [`Resumed`] to own and give back when it drops.
    fn into_inner(mut self) -> Vec<u8> {
        std::mem::take(&mut self.0)
    }

    fn give_back(buf: Vec<u8>) {
        if (1..=DEFAULT_MAX_TOKEN_BYTES).contains(&buf.capacity()) {
            // Fails only while the thread is being torn down; the buffer is then simply freed.
            let _ = SCRATCH.try_with(|slot| slot.set(buf));
        }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        Self::give_back(std::mem::take(&mut self.0));
    }
}

fn unix_ms(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn b64_len(bytes: usize) -> usize {
    // Unpadded: 4 characters per 3 bytes, plus 2 or 3 for a final partial group.
    bytes / 3 * 4 + [0, 2, 3][bytes % 3]
}

struct Header {
    step: u32,
    fingerprint: u64,
    issued_ms: u64,
    expires_ms: u64,
    request: [u8; 16],
}

impl Header {
    fn write(&self, out: &mut [u8]) {
        out[0..4].copy_from_slice(&self.step.to_le_bytes());
        out[4..12].copy_from_slice(&self.fingerprint.to_le_bytes());
        out[12..20].copy_from_slice(&self.issued_ms.to_le_bytes());
        out[20..28].copy_from_slice(&self.expires_ms.to_le_bytes());
        out[28..44].copy_from_slice(&self.request);
    }

    fn read(b: &[u8]) -> Option<Self> {
        let b: &[u8; HEADER] = b.get(..HEADER)?.try_into().ok()?;
        let u64_at =
            |i: usize| u64::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3], b[i + 4], b[i + 5], b[i + 6], b[i + 7]]);
        let mut request = [0; 16];
        request.copy_from_slice(&b[28..44]);
        Some(Self {
            step: u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            fingerprint: u64_at(4),
            issued_ms: u64_at(12),
            expires_ms: u64_at(20),
            request,
        })
    }
}

impl StateCodec {
    /// A codec for this configuration. With no keys configured it uses the per-process random key (and says
    /// so once on stderr); that is the only way this fails.
    pub fn new(config: RequestStateConfig) -> Result<Self, KeyError> {
        let keys = match config.keys {
            Some(keys) => keys,
            None => StateKeys::ephemeral()?,
        };
        Ok(Self {
            keys,
            ttl_ms: u64::try_from(config.ttl.as_millis()).unwrap_or(u64::MAX),
            max_token_bytes: config.max_token_bytes,
            #[cfg(feature = "sealed-state")]
            sealed: config.sealed,
        })
    }

    /// The key ring.
    pub fn keys(&self) -> &StateKeys {
        &self.keys
    }

    /// Mints a token for `binding` that resumes at `step` with `locals` (any `Serialize`: a tuple of the
    /// carried locals, a `serde_json::Value`, or raw JSON text as a `serde_json::value::RawValue`).
    pub fn seal<T: Serialize + ?Sized>(
        &self,
        binding: &Binding<'_>,
        step: u32,
        locals: &T,
    ) -> Result<String, StateError> {
        self.seal_at(SystemTime::now(), binding, step, locals)
    }

    /// [`seal`](Self::seal), and `attachment` with the locals: authenticated (and sealed) like them, but left
    /// as text when the token is opened ([`Resumed::attachment`]), never parsed. For what a round needs only
    /// on a rare path, so the common one does not read it.
    pub fn seal_with_attachment<T: Serialize + ?Sized>(
        &self,
        binding: &Binding<'_>,
        step: u32,
        locals: &T,
        attachment: &str,
    ) -> Result<String, StateError> {
        self.mint(SystemTime::now(), binding, step, locals, attachment)
            .inspect_err(|e| e.log(binding.method().name(), binding.target()))
    }

    /// [`seal`](Self::seal) as if the time were `now`.
    pub fn seal_at<T: Serialize + ?Sized>(
        &self,
        now: SystemTime,
        binding: &Binding<'_>,
        step: u32,
        locals: &T,
    ) -> Result<String, StateError> {
        self.mint(now, binding, step, locals, "").inspect_err(|e| e.log(binding.method().name(), binding.target()))
    }

    fn mint<T: Serialize + ?Sized>(
        &self,
        now: SystemTime,
        binding: &Binding<'_>,
        step: u32,
        locals: &T,
        attachment: &str,
    ) -> Result<String, StateError> {
        #[cfg(feature = "sealed-state")]
        let lead = if self.sealed { NONCE_BYTES } else { 0 };
        #[cfg(not(feature = "sealed-state"))]
        let lead = 0;

        // [nonce] header locals: serialize the locals straight into the body, then fill the header in.
        let mut scratch = Scratch::take();
        let body = &mut scratch.0;
        body.resize(lead + HEADER, 0);
        serde_json::to_writer(&mut *body, locals).map_err(|e| StateError::Unserializable(e.to_string()))?;
        if !attachment.is_empty() {
            body.push(0);
            body.extend_from_slice(attachment.as_bytes());
        }
        let issued_ms = unix_ms(now);
        let header = Header {
            step,
            fingerprint: binding.fingerprint(),
            issued_ms,
            expires_ms: issued_ms.saturating_add(self.ttl_ms),
            request: *binding.request_digest(),
        };
        header.write(&mut body[lead..lead + HEADER]);

        let key = self.keys.signing();
        #[cfg(feature = "sealed-state")]
        if self.sealed {
            return self.mint_sealed(key, body);
        }
        let len = SIGNED.len() + 1 + KID_CHARS + 1 + b64_len(body.len()) + 1 + MAC_CHARS;
        if len > self.max_token_bytes {
            return Err(StateError::LocalsTooLarge { len, max: self.max_token_bytes });
        }
        let mut token = String::with_capacity(len);
        token.push_str(SIGNED);
        token.push('.');
        token.push_str(key.kid());
        token.push('.');
        let mac = key.mac.clone().chain_update(token.as_bytes()).chain_update(&*body).finalize().into_bytes();
        B64.encode_append(&*body, &mut token);
        token.push('.');
        B64.encode_append(mac, &mut token);
        debug_assert_eq!(token.len(), len);
        Ok(token)
    }

    #[cfg(feature = "sealed-state")]
    fn mint_sealed(&self, key: &RingKey, body: &mut [u8]) -> Result<String, StateError> {
        use chacha20poly1305::AeadInPlace as _;
        let len = SEALED.len() + 1 + KID_CHARS + 1 + b64_len(body.len()) + 1 + TAG_CHARS;
        if len > self.max_token_bytes {
            return Err(StateError::LocalsTooLarge { len, max: self.max_token_bytes });
        }
        let mut token = String::with_capacity(len);
        token.push_str(SEALED);
        token.push('.');
        token.push_str(key.kid());
        token.push('.');
        let (nonce, plaintext) = body.split_at_mut(NONCE_BYTES);
        fresh_nonce(nonce)?;
        let tag = key
            .aead
            .encrypt_in_place_detached((&*nonce).into(), token.as_bytes(), plaintext)
            // The AEAD refuses only messages of 256 GiB and more, far past any cap.
            .map_err(|_| StateError::LocalsTooLarge { len, max: self.max_token_bytes })?;
        B64.encode_append(&*body, &mut token);
        token.push('.');
        B64.encode_append(tag, &mut token);
        debug_assert_eq!(token.len(), len);
        Ok(token)
    }

    /// Opens a token the client sent back with a request bound as `binding`: checks its size, shape, key,
    /// signature (or seal), expiry, binding and fingerprint, in that order, and returns the step and locals.
    ///
    /// Every refusal is logged with its precise reason (at `warn`, or `debug` for an expired token) and
    /// converts with `?` into the `-32602` error the client should see.
    pub fn open(&self, token: &str, binding: &Binding<'_>) -> Result<Resumed, StateError> {
        self.open_at(SystemTime::now(), token, binding)
    }

    /// [`open`](Self::open) as if the time were `now`.
    pub fn open_at(&self, now: SystemTime, token: &str, binding: &Binding<'_>) -> Result<Resumed, StateError> {
        let result = self.verify(now, token, binding);
        if let Err(e) = &result {
            e.log(binding.method().name(), binding.target());
        }
        result
    }

    fn verify(&self, now: SystemTime, token: &str, binding: &Binding<'_>) -> Result<Resumed, StateError> {
        if token.len() > self.max_token_bytes {
            return Err(StateError::TooLarge { len: token.len(), max: self.max_token_bytes });
        }
        let (authenticated, mac) = token.rsplit_once('.').ok_or(StateError::Malformed("no MAC segment"))?;
        let (version, rest) = authenticated.split_once('.').ok_or(StateError::Malformed("no version segment"))?;
        let (kid, payload) = rest.split_once('.').ok_or(StateError::Malformed("no key id segment"))?;
        let (body, locals_at, id) = match version {
            SIGNED => {
                let key = self.keys.find(kid).ok_or(StateError::UnknownKey)?;
                if mac.len() != MAC_CHARS {
                    return Err(StateError::Malformed("MAC length"));
                }
                let tag = decode_tag::<MAC_BYTES>(mac).ok_or(StateError::Malformed("MAC encoding"))?;
                // Strict decoding (no padding, no stray trailing bits): one text per body, so a changed
                // character is a changed body or a refusal.
                let mut body = Scratch::take();
                B64.decode_append(payload, &mut body.0).map_err(|_| StateError::Malformed("payload encoding"))?;
                let prefix = &token.as_bytes()[..version.len() + 1 + kid.len() + 1];
                // Constant-time comparison.
                key.mac
                    .clone()
                    .chain_update(prefix)
                    .chain_update(&body.0)
                    .verify_slice(&tag)
                    .map_err(|_| StateError::BadSignature)?;
                (body, HEADER, token_id(&tag))
            }
            #[cfg(feature = "sealed-state")]
            SEALED => {
                use chacha20poly1305::AeadInPlace as _;
                let key = self.keys.find(kid).ok_or(StateError::UnknownKey)?;
                if mac.len() != TAG_CHARS {
                    return Err(StateError::Malformed("tag length"));
                }
                let tag = decode_tag::<TAG_BYTES>(mac).ok_or(StateError::Malformed("tag encoding"))?;
                let mut body = Scratch::take();
                B64.decode_append(payload, &mut body.0).map_err(|_| StateError::Malformed("payload encoding"))?;
                if body.0.len() < NONCE_BYTES + HEADER {
                    return Err(StateError::Malformed("payload too short"));
                }
                let aad = &token.as_bytes()[..version.len() + 1 + kid.len() + 1];
                let (nonce, ciphertext) = body.0.split_at_mut(NONCE_BYTES);
                key.aead
                    .decrypt_in_place_detached((&*nonce).into(), aad, ciphertext, (&tag).into())
                    .map_err(|_| StateError::BadSignature)?;
                (body, NONCE_BYTES + HEADER, token_id(&tag))
            }
            _ => return Err(StateError::UnknownVersion),
        };
        // Authentic from here on: what follows can only fail for a token this ring minted.
        let header = Header::read(&body.0[locals_at - HEADER..]).ok_or(StateError::Malformed("payload too short"))?;
        let deadline = header.expires_ms.min(header.issued_ms.saturating_add(self.ttl_ms));
        if unix_ms(now) >= deadline {
            return Err(StateError::Expired);
        }
        if &header.request != binding.request_digest() {
            return Err(StateError::WrongBinding);
        }
        if header.fingerprint != binding.fingerprint() {
            return Err(StateError::StaleFingerprint);
        }
        let mut locals = body.into_inner();
        locals.drain(..locals_at);
        // Validated once here, so restoring reads it as text and skips a check per string.
        let locals = String::from_utf8(locals).map_err(|_| StateError::Undecodable { line: 0, column: 0 })?;
        let json_len = memchr::memchr(0, locals.as_bytes()).unwrap_or(locals.len());
        Ok(Resumed { step: header.step, locals, json_len, id, expires_ms: deadline })
    }
}

/// The `N` bytes of a MAC or tag segment; `None` unless it is exactly `N` bytes in strict base64url.
fn decode_tag<const N: usize>(text: &str) -> Option<[u8; N]> {
    // Checked first: the decoder asserts that its output fits.
    if text.len() != b64_len(N) {
        return None;
    }
    let mut tag = [0u8; N];
    let decoded = B64.decode(text.as_bytes(), base64_simd::Out::from_slice(&mut tag)).ok()?;
    (decoded.len() == N).then_some(tag)
}

/// A token's id: the first 16 bytes of its MAC or tag.
fn token_id(tag: &[u8]) -> [u8; 16] {
    let mut id = [0; 16];
    id.copy_from_slice(&tag[..16]);
    id
}

/// A fresh XChaCha20 nonce: 192 random bits, so random nonces never collide in practice.
#[cfg(feature = "sealed-state")]
fn fresh_nonce(nonce: &mut [u8]) -> Result<(), StateError> {
    getrandom::fill(nonce).map_err(|_| StateError::Randomness)
}

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;
