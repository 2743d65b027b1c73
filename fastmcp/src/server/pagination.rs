//! Opaque cursors over the registry's fixed pages.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

const PREFIX: &str = "page:";

pub(crate) fn encode(page: usize) -> String {
    URL_SAFE_NO_PAD.encode(format!("{PREFIX}{page}"))
}

/// The page a cursor points at. `None` (absent) and `""` (the spec calls it valid) mean the first page.
pub(crate) fn decode(cursor: Option<&str>, pages: usize) -> Option<usize> {
    let cursor = match cursor {
        None | Some("") => return Some(0),
        Some(c) => c,
    };
    let bytes = URL_SAFE_NO_PAD.decode(cursor).ok()?;
    let page: usize = std::str::from_utf8(&bytes).ok()?.strip_prefix(PREFIX)?.parse().ok()?;
    (page < pages.max(1)).then_some(page)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_reject_garbage() {
        assert_eq!(decode(Some(&encode(2)), 3), Some(2));
        assert_eq!(decode(Some(&encode(3)), 3), None);
        assert_eq!(decode(None, 0), Some(0));
        assert_eq!(decode(Some(""), 5), Some(0));
        assert_eq!(decode(Some("not a cursor"), 5), None);
        assert_eq!(decode(Some(&URL_SAFE_NO_PAD.encode("page:x")), 5), None);
    }
}
