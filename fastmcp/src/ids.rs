//! Identifiers the server mints for clients to quote back (sessions, tasks, URL elicitations): 128 bits
//! from the OS's randomness, as 32 lowercase hex characters (visible ASCII, as session ids must be). And
//! values that need only be distinct, not unguessable, made without asking the OS each time.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// A fresh random id; what to do without the OS's randomness is the caller's decision.
pub(crate) fn random() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)?;
    Ok(hex(&bytes))
}

/// A value no other call returns, in this process or (with overwhelming odds) any other: 64 random bits
/// drawn once per process, then a counter, as 32 lowercase hex characters. Predictable within a process, so
/// only for what needs to be distinct (a one-time round's nonce, inside a MAC), never for what must be
/// unguessable: that is [`random`]. One system call per process instead of one per value.
pub(crate) fn unique() -> Result<String, getrandom::Error> {
    static PREFIX: OnceLock<u64> = OnceLock::new();
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let prefix = match PREFIX.get() {
        Some(prefix) => *prefix,
        None => {
            let mut bytes = [0u8; 8];
            getrandom::fill(&mut bytes)?;
            // A race here draws twice and keeps one: both callers then share it, as every later one does.
            *PREFIX.get_or_init(|| u64::from_le_bytes(bytes))
        }
    };
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&prefix.to_be_bytes());
    bytes[8..].copy_from_slice(&COUNTER.fetch_add(1, Ordering::Relaxed).to_be_bytes());
    Ok(hex(&bytes))
}

/// `bytes` as lowercase hex.
pub(crate) fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(2 * bytes.len());
    push_hex(&mut out, bytes);
    out
}

/// Appends `bytes` as lowercase hex (by hand: `format!` per byte cost ~11k instructions for 16 bytes, on the
/// path of every one-time round).
pub(crate) fn push_hex(out: &mut String, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn unique_values_share_the_process_prefix_and_never_repeat() {
        let values: Vec<String> = (0..1000).map(|_| super::unique().unwrap()).collect();
        let distinct: std::collections::HashSet<&String> = values.iter().collect();
        assert_eq!(distinct.len(), values.len());
        assert!(values.iter().all(|v| v.len() == 32 && v[..16] == values[0][..16]), "{values:?}");
        assert!(values.iter().all(|v| v.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))));
    }

    #[test]
    fn hex_is_two_lowercase_digits_per_byte() {
        assert_eq!(super::hex(&[0x00, 0x0f, 0xa5, 0xff, 0x10]), "000fa5ff10");
        assert_eq!(super::hex(&[]), "");
    }
}
