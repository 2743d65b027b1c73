//! The per-request secrets of the authorization code flow: the PKCE pair (RFC 7636, `S256`) and `state`.

use crate::client::ClientError;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};

/// A code verifier and its `S256` challenge. Only the challenge leaves the client before the token request.
pub(super) struct Pkce {
    pub verifier: String,
    pub challenge: String,
}

impl Pkce {
    pub fn new() -> Result<Self, ClientError> {
        // 48 random bytes: a 64-character verifier, inside RFC 7636's 43–128 and of unreserved characters.
        let verifier = random(48)?;
        let challenge = challenge(&verifier);
        Ok(Self { verifier, challenge })
    }
}

/// `BASE64URL(SHA256(verifier))`, unpadded (RFC 7636 §4.2).
pub(super) fn challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// `bytes` random bytes from the operating system, base64url-encoded.
pub(super) fn random(bytes: usize) -> Result<String, ClientError> {
    let mut buffer = vec![0u8; bytes];
    getrandom::fill(&mut buffer).map_err(|e| ClientError::Auth(format!("no randomness for PKCE and state: {e}")))?;
    Ok(URL_SAFE_NO_PAD.encode(buffer))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_challenge_is_rfc_7636s() {
        // RFC 7636 appendix B.
        assert_eq!(
            challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
        let pkce = Pkce::new().expect("random");
        assert_eq!(pkce.verifier.len(), 64);
        assert!(pkce.verifier.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
        assert_eq!(pkce.challenge, challenge(&pkce.verifier));
        assert_ne!(Pkce::new().expect("random").verifier, pkce.verifier);
    }
}
