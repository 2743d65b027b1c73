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
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
