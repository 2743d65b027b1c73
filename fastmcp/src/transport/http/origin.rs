//! Which host a request is for, parsed strictly, and DNS-rebinding protection for local servers.
//!
//! A request names its host once: one `Host` header (RFC 9112 §3.2: none, or more than one, is a 400), or
//! on HTTP/2 the `:authority` (the request URI's authority), which must agree with `Host` when both are
//! sent. Each is `host[:port]` with a bracketed IPv6 address only as `[addr]`, nothing after it but a port.
//! With `local_only`, that host must name the loopback, and an `Origin`, if sent, must be a loopback origin.

use super::headers::{RequestHeaders, Sent};
use http::{StatusCode, Uri};

/// Why a request's host is refused: its status (400 malformed, 403 not local) and the error's message.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct HostRefused {
    pub status: StatusCode,
    pub message: &'static str,
}

const fn malformed(message: &'static str) -> HostRefused {
    HostRefused { status: StatusCode::BAD_REQUEST, message }
}

const NOT_LOCAL: HostRefused =
    HostRefused { status: StatusCode::FORBIDDEN, message: "Forbidden: Host or Origin is not a local address" };

/// Checks the host a request names (always) and, with `local_only`, that it and its `Origin` are local.
pub(crate) fn check(uri: &Uri, headers: &RequestHeaders<'_>, local_only: bool) -> Result<(), HostRefused> {
    let host = match headers.host {
        Sent { repeated: true, .. } => return Err(malformed("Bad Request: more than one Host header")),
        Sent { first: Some(value), .. } => {
            let host = value.to_str().ok().and_then(Named::parse);
            Some(host.ok_or(malformed("Bad Request: malformed Host header"))?)
        }
        Sent { first: None, .. } => None,
    };
    // The `http` crate has parsed the URI's authority already, but more leniently than `host[:port]`.
    let target = match uri.authority() {
        Some(target) => Some(Named::parse(target.as_str()).ok_or(malformed("Bad Request: malformed :authority"))?),
        None => None,
    };
    let named = match (host, target) {
        (None, None) => return Err(malformed("Bad Request: missing Host header")),
        (Some(host), Some(target)) if !host.authority.eq_ignore_ascii_case(target.authority) => {
            return Err(malformed("Bad Request: Host does not match the request's authority"));
        }
        (Some(one), _) | (None, Some(one)) => one,
    };
    if local_only && !(is_loopback_host(named.host) && local_origin(headers.origin)) {
        return Err(NOT_LOCAL);
    }
    Ok(())
}

/// A `host[:port]` authority and its host, parsed once.
struct Named<'a> {
    authority: &'a str,
    host: &'a str,
}

impl<'a> Named<'a> {
    fn parse(text: &'a str) -> Option<Self> {
        Some(Self { authority: text, host: authority(text)? })
    }
}

/// No `Origin` (not a browser), or exactly one naming a loopback `http`/`https` origin.
fn local_origin(origin: Sent<'_>) -> bool {
    match origin {
        Sent { first: None, .. } => true,
        Sent { repeated: true, .. } => false,
        Sent { first: Some(origin), .. } => origin
            .to_str()
            .ok()
            .and_then(|o| o.strip_prefix("http://").or_else(|| o.strip_prefix("https://")))
            .is_some_and(is_loopback),
    }
}

/// The host of a `host[:port]` authority (brackets kept off an IPv6 address), or `None` when it is not one:
/// empty, userinfo, a path, characters a host name has not, an IPv6 literal with anything but a port after
/// it, an empty or out-of-range port.
fn authority(authority: &str) -> Option<&str> {
    let (host, port) = if let Some(rest) = authority.strip_prefix('[') {
        let (addr, after) = rest.split_once(']')?;
        addr.parse::<std::net::Ipv6Addr>().ok()?;
        let port = match after {
            "" => None,
            after => Some(after.strip_prefix(':')?),
        };
        (addr, port)
    } else {
        // One pass over the host's characters; what stops it must be the end or the port's `:`.
        let name_char = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~');
        let (host, rest) = authority.split_at(authority.bytes().position(|b| !name_char(b)).unwrap_or(authority.len()));
        let port = match rest {
            "" => None,
            rest => Some(rest.strip_prefix(':')?),
        };
        if host.is_empty() {
            return None;
        }
        (host, port)
    };
    if let Some(port) = port
        && !is_port(port)
    {
        return None;
    }
    Some(host)
}

/// One to five ASCII digits naming a port (0–65535): no sign, nothing else.
fn is_port(port: &str) -> bool {
    (1..=5).contains(&port.len())
        && port
            .bytes()
            .try_fold(0u32, |n, b| b.is_ascii_digit().then(|| n * 10 + u32::from(b - b'0')))
            .is_some_and(|n| n <= u32::from(u16::MAX))
}

/// `localhost`, `127.x.y.z` or `[::1]`, with an optional port.
fn is_loopback(named: &str) -> bool {
    authority(named).is_some_and(is_loopback_host)
}

/// An authority's host (brackets off) that names the loopback.
fn is_loopback_host(host: &str) -> bool {
    // The usual two without parsing an address: every request to a local server asks this.
    host == "127.0.0.1"
        || host.eq_ignore_ascii_case("localhost")
        || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_authorities() {
        for ok in [
            "localhost",
            "localhost:8000",
            "127.0.0.1",
            "127.0.0.1:3000",
            "127.9.9.9:80",
            "[::1]",
            "[::1]:8000",
            "LOCALHOST",
        ] {
            assert!(is_loopback(ok), "{ok}");
        }
        for bad in
            ["evil.com", "evil.com:80", "10.0.0.1", "localhost.evil.com", "[::2]:80", "", "[::1]evil", "127.0.0.1x"]
        {
            assert!(!is_loopback(bad), "{bad}");
        }
    }

    #[test]
    fn authority_syntax() {
        for ok in [
            "example.com",
            "a-b.example:443",
            "127.0.0.1:65535",
            "[::1]",
            "[2001:db8::1]:80",
            "x_y~z",
            "h:0",
            "h:00080",
        ] {
            assert!(authority(ok).is_some(), "{ok}");
        }
        let bad = [
            "",
            ":80",
            "[::1]evil",
            "[::1]:",
            "[::1]:80x",
            "[::1",
            "[nothost]",
            "host:",
            "host:99999",
            "host:8o",
            "host:1:2",
            "user@host",
            "host/path",
            "host name",
            "ho\tst",
            "[::1]]",
            "host:+80",
            "host:65536",
            "host:000080",
            "host:99999999999999999999",
        ];
        for bad in bad {
            assert!(authority(bad).is_none(), "{bad:?}");
        }
    }

    fn headers(pairs: &[(&str, &str)]) -> http::HeaderMap {
        let mut map = http::HeaderMap::new();
        for (k, v) in pairs {
            map.append(http::HeaderName::from_bytes(k.as_bytes()).unwrap(), v.parse().unwrap());
        }
        map
    }

    #[test]
    fn one_host_consistent_with_the_authority() {
        let path: Uri = "/mcp".parse().unwrap();
        let h2: Uri = "http://127.0.0.1:8000/mcp".parse().unwrap();
        let status = |uri: &Uri, pairs: &[(&str, &str)], local| {
            check(uri, &RequestHeaders::read(&headers(pairs)), local).map_err(|r| r.status)
        };
        assert_eq!(status(&path, &[("host", "127.0.0.1:8000")], true), Ok(()));
        assert_eq!(status(&path, &[], false), Err(StatusCode::BAD_REQUEST), "no Host");
        assert_eq!(status(&path, &[("host", "a"), ("host", "a")], false), Err(StatusCode::BAD_REQUEST));
        assert_eq!(status(&path, &[("host", "[::1]evil")], false), Err(StatusCode::BAD_REQUEST));
        assert_eq!(status(&path, &[("host", "evil.com")], false), Ok(()), "not local_only");
        assert_eq!(status(&path, &[("host", "evil.com")], true), Err(StatusCode::FORBIDDEN));
        assert_eq!(status(&h2, &[], true), Ok(()), "h2: the :authority alone");
        assert_eq!(status(&h2, &[("host", "127.0.0.1:8000")], true), Ok(()));
        assert_eq!(status(&h2, &[("host", "localhost:8000")], true), Err(StatusCode::BAD_REQUEST), "disagree");
        let origin = |o: &str| status(&path, &[("host", "localhost"), ("origin", o)], true);
        assert_eq!(origin("http://localhost:3000"), Ok(()));
        for bad in ["http://evil.com", "null", "http://[::1]evil", "ftp://localhost", "http://localhost/x"] {
            assert_eq!(origin(bad), Err(StatusCode::FORBIDDEN), "{bad}");
        }
        let two = [("host", "localhost"), ("origin", "http://localhost"), ("origin", "http://localhost")];
        assert_eq!(status(&path, &two, true), Err(StatusCode::FORBIDDEN), "two Origins");
    }
}
