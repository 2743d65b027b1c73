//! Identifiers the server mints for clients to quote back (sessions, tasks, URL elicitations): 128 bits
//! from the OS's randomness, as 32 lowercase hex characters (visible ASCII, as session ids must be).

/// A fresh random id; what to do without the OS's randomness is the caller's decision.
pub(crate) fn random() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)?;
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
    fn hex_is_two_lowercase_digits_per_byte() {
        assert_eq!(super::hex(&[0x00, 0x0f, 0xa5, 0xff, 0x10]), "000fa5ff10");
        assert_eq!(super::hex(&[]), "");
    }
}
