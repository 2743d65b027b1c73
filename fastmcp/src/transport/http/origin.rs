//! DNS-rebinding protection for local servers: `Host` must name the loopback, and an `Origin`, if sent, must
//! be a loopback origin.

use crate::era::Headers as _;
use http::header::{self, HeaderMap};

pub(crate) fn local_origin(headers: &HeaderMap) -> bool {
    let host = headers.text(header::HOST.as_str()).unwrap_or("");
    let host_ok = host.is_empty() || is_loopback_authority(host);
    let origin_ok = headers.get(header::ORIGIN).is_none_or(|o| {
        o.to_str()
            .ok()
            .and_then(|o| o.strip_prefix("http://").or_else(|| o.strip_prefix("https://")))
            .is_some_and(is_loopback_authority)
    });
    host_ok && origin_ok
}

/// `localhost`, `127.x.y.z` or `[::1]`, with an optional port.
fn is_loopback_authority(authority: &str) -> bool {
    let host = if let Some(rest) = authority.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else {
        authority
            .rsplit_once(':')
            .map_or(authority, |(host, port)| if port.bytes().all(|b| b.is_ascii_digit()) { host } else { authority })
    };
    host.eq_ignore_ascii_case("localhost") || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_authorities() {
        for ok in ["localhost", "localhost:8000", "127.0.0.1", "127.0.0.1:3000", "[::1]", "[::1]:8000", "LOCALHOST"] {
            assert!(is_loopback_authority(ok), "{ok}");
        }
        for bad in ["evil.com", "evil.com:80", "10.0.0.1", "localhost.evil.com", "[::2]:80", ""] {
            assert!(!is_loopback_authority(bad), "{bad}");
        }
    }
}
