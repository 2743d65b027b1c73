//! The key ring: the first key signs, every key verifies.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hkdf::Hkdf;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::fmt;
use std::sync::OnceLock;

/// The shortest key the ring accepts, in bytes.
pub const MIN_KEY_BYTES: usize = 32;

/// Bytes of key id in a token (8 base64url characters).
const KID_BYTES: usize = 6;
pub(crate) const KID_CHARS: usize = 8;

/// HKDF salt: every key used here is derived under this label, never used raw.
const KDF_SALT: &[u8] = b"fastmcp requestState v1";

/// A key refused by [`StateKeys`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// A key is shorter than [`MIN_KEY_BYTES`].
    #[error("requestState key #{index} is {len} bytes; keys must be at least {MIN_KEY_BYTES} bytes of random data")]
    TooShort {
        /// The key's position in the ring, from 0 (the signing key).
        index: usize,
        /// Its length, in bytes.
        len: usize,
    },
    /// The ring was given no key.
    #[error("requestState key ring is empty; give at least one key, or use StateKeys::ephemeral()")]
    Empty,
    /// The same key appears twice in the ring.
    #[error("requestState key #{index} repeats an earlier key")]
    Duplicate {
        /// The position of the repeat, from 0.
        index: usize,
    },
    /// No key was configured and the operating system's random source failed to make one.
    #[error("cannot generate a requestState key: the OS random source failed: {0}")]
    Randomness(String),
}

/// One key of the ring, as the codec uses it: the id it is found by and the keys derived from it.
#[derive(Clone)]
pub(crate) struct RingKey {
    pub(crate) kid: [u8; KID_CHARS],
    /// HMAC-SHA256 keyed with the derived MAC key, ready to clone per token.
    pub(crate) mac: Hmac<Sha256>,
    #[cfg(feature = "sealed-state")]
    pub(crate) aead: chacha20poly1305::XChaCha20Poly1305,
}

impl RingKey {
    fn derive(secret: &[u8]) -> Self {
        let hk = Hkdf::<Sha256>::new(Some(KDF_SALT), secret);
        let mut kid = [0; KID_BYTES];
        let mut mac_key = [0; 32];
        // 6 and 32 bytes are far below HKDF-SHA256's 8160-byte limit, so expand cannot fail.
        hk.expand(b"key id", &mut kid).expect("HKDF output length is valid");
        hk.expand(b"hmac-sha256", &mut mac_key).expect("HKDF output length is valid");
        let mut kid_chars = [0; KID_CHARS];
        let written = URL_SAFE_NO_PAD.encode_slice(kid, &mut kid_chars).expect("6 bytes encode to 8 characters");
        debug_assert_eq!(written, KID_CHARS);
        let mac = <Hmac<Sha256> as Mac>::new_from_slice(&mac_key).expect("HMAC takes keys of any length");
        #[cfg(feature = "sealed-state")]
        let aead = {
            use chacha20poly1305::KeyInit as _;
            let mut enc_key = [0; 32];
            hk.expand(b"xchacha20poly1305", &mut enc_key).expect("HKDF output length is valid");
            chacha20poly1305::XChaCha20Poly1305::new(&enc_key.into())
        };
        Self {
            kid: kid_chars,
            mac,
            #[cfg(feature = "sealed-state")]
            aead,
        }
    }

    pub(crate) fn kid(&self) -> &str {
        // Base64url output is ASCII.
        std::str::from_utf8(&self.kid).unwrap_or_default()
    }
}

/// The request-state key ring.
///
/// The first key signs (and seals) new tokens; every key verifies. To rotate without dropping flows in
/// flight, put the new key first and keep the old one after it for at least the state's TTL, then remove it.
/// All replicas of a server must share the ring.
///
/// Keys are secrets of at least 32 random bytes (for example 32 bytes from a CSPRNG, stored base64 in a
/// secret manager). The ring never uses a key directly: it derives a key id, a MAC key and an encryption key
/// from each with HKDF-SHA256, so the id in a token reveals nothing of the key.
#[derive(Clone)]
pub struct StateKeys {
    pub(crate) ring: Vec<RingKey>,
    pub(crate) ephemeral: bool,
}

impl StateKeys {
    /// A ring of these keys, the first of which signs. Refuses an empty ring, a key shorter than
    /// [`MIN_KEY_BYTES`] and a repeated key.
    pub fn from_keys<K: AsRef<[u8]>>(keys: impl IntoIterator<Item = K>) -> Result<Self, KeyError> {
        let mut ring: Vec<RingKey> = Vec::new();
        for (index, key) in keys.into_iter().enumerate() {
            let key = key.as_ref();
            if key.len() < MIN_KEY_BYTES {
                return Err(KeyError::TooShort { index, len: key.len() });
            }
            let derived = RingKey::derive(key);
            if ring.iter().any(|k| k.kid == derived.kid) {
                return Err(KeyError::Duplicate { index });
            }
            ring.push(derived);
        }
        if ring.is_empty() {
            return Err(KeyError::Empty);
        }
        Ok(Self { ring, ephemeral: false })
    }

    /// A ring of one key.
    pub fn single(key: impl AsRef<[u8]>) -> Result<Self, KeyError> {
        Self::from_keys([key])
    }

    /// The process's own random key, generated on first use and the same for every codec in the process.
    ///
    /// Tokens signed with it do not survive a restart and are refused by other replicas, so the first call
    /// says so once on stderr (a `tracing` warning). Configure keys for anything but a single process.
    pub fn ephemeral() -> Result<Self, KeyError> {
        static PROCESS_KEY: OnceLock<RingKey> = OnceLock::new();
        let key = match PROCESS_KEY.get() {
            Some(key) => key,
            None => {
                let mut secret = [0u8; 32];
                getrandom::fill(&mut secret).map_err(|e| KeyError::Randomness(e.to_string()))?;
                let mut first = false;
                // Two threads may race here; one secret wins and only its thread warns.
                let key = PROCESS_KEY.get_or_init(|| {
                    first = true;
                    RingKey::derive(&secret)
                });
                if first {
                    tracing::warn!(
                        "fastmcp: no requestState key configured; using a random per-process key. Flows waiting \
                         for client input will not survive a restart and will not cross replicas. Configure a \
                         key ring (StateKeys::from_keys) shared by every replica."
                    );
                }
                key
            }
        };
        Ok(Self { ring: vec![key.clone()], ephemeral: true })
    }

    /// The key ids in ring order, as they appear in tokens (not secret; for operators' diagnostics).
    pub fn key_ids(&self) -> impl Iterator<Item = &str> {
        self.ring.iter().map(RingKey::kid)
    }

    /// Whether this is the per-process random key of [`StateKeys::ephemeral`].
    pub fn is_ephemeral(&self) -> bool {
        self.ephemeral
    }

    pub(crate) fn signing(&self) -> &RingKey {
        // Every constructor leaves at least one key in the ring.
        &self.ring[0]
    }

    pub(crate) fn find(&self, kid: &str) -> Option<&RingKey> {
        self.ring.iter().find(|k| k.kid == kid.as_bytes())
    }
}

impl fmt::Debug for StateKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateKeys")
            .field("key_ids", &self.key_ids().collect::<Vec<_>>())
            .field("ephemeral", &self.ephemeral)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_validated() {
        assert_eq!(StateKeys::single([7u8; 31]).unwrap_err(), KeyError::TooShort { index: 0, len: 31 });
        assert_eq!(
            StateKeys::from_keys([[1u8; 32].as_slice(), &[2u8; 8]]).unwrap_err(),
            KeyError::TooShort { index: 1, len: 8 }
        );
        assert_eq!(StateKeys::from_keys(Vec::<Vec<u8>>::new()).unwrap_err(), KeyError::Empty);
        assert_eq!(StateKeys::from_keys([[1u8; 32], [1u8; 32]]).unwrap_err(), KeyError::Duplicate { index: 1 });
        let msg = StateKeys::single(b"short").unwrap_err().to_string();
        assert!(msg.contains("at least 32 bytes"), "{msg}");
    }

    #[test]
    fn key_ids_are_derived_and_debug_hides_keys() {
        let keys = StateKeys::from_keys([[1u8; 32], [2u8; 32]]).unwrap();
        let ids: Vec<_> = keys.key_ids().collect();
        assert_eq!(ids.len(), 2);
        assert_ne!(ids[0], ids[1]);
        assert!(ids.iter().all(|id| id.len() == KID_CHARS));
        assert_eq!(StateKeys::single([1u8; 32]).unwrap().key_ids().next(), Some(ids[0]));
        let debug = format!("{keys:?}");
        assert!(debug.contains(ids[0]) && !debug.contains("0101"), "{debug}");
    }

    #[test]
    fn the_process_key_is_one_per_process() {
        let a = StateKeys::ephemeral().unwrap();
        let b = StateKeys::ephemeral().unwrap();
        assert!(a.is_ephemeral());
        assert_eq!(a.key_ids().next(), b.key_ids().next());
    }
}
