//! A request's headers, with those every POST reads found in one pass over them: looked up one by one, each
//! hashed its name and probed the map (about 175 instructions a lookup, eight a modern request).

use crate::era;
use http::header::{HeaderMap, HeaderValue};
use std::ops::Deref;

/// A header as the request sent it: its first value, and whether it came more than once.
#[derive(Clone, Copy, Default)]
pub(crate) struct Sent<'h> {
    pub first: Option<&'h HeaderValue>,
    pub repeated: bool,
}

impl<'h> Sent<'h> {
    fn see(&mut self, value: &'h HeaderValue) {
        match self.first {
            None => self.first = Some(value),
            Some(_) => self.repeated = true,
        }
    }
}

/// A request's header map, and the headers read on every POST as found in it. Any other header is looked up
/// in the map (it derefs to it).
pub(crate) struct RequestHeaders<'h> {
    map: &'h HeaderMap,
    pub host: Sent<'h>,
    pub origin: Sent<'h>,
    pub content_type: Sent<'h>,
    pub accept: Sent<'h>,
    pub content_length: Sent<'h>,
    protocol_version: Sent<'h>,
    method: Sent<'h>,
    name: Sent<'h>,
}

impl<'h> RequestHeaders<'h> {
    pub fn read(map: &'h HeaderMap) -> Self {
        let mut found = Self {
            map,
            host: Sent::default(),
            origin: Sent::default(),
            content_type: Sent::default(),
            accept: Sent::default(),
            content_length: Sent::default(),
            protocol_version: Sent::default(),
            method: Sent::default(),
            name: Sent::default(),
        };
        // Every value, a repeated header's too; names are lowercase in the map.
        for (name, value) in map {
            let sent = match name.as_str() {
                "host" => &mut found.host,
                "origin" => &mut found.origin,
                "content-type" => &mut found.content_type,
                "accept" => &mut found.accept,
                "content-length" => &mut found.content_length,
                era::PROTOCOL_VERSION_HEADER => &mut found.protocol_version,
                era::METHOD_HEADER => &mut found.method,
                era::NAME_HEADER => &mut found.name,
                _ => continue,
            };
            sent.see(value);
        }
        found
    }
}

impl Deref for RequestHeaders<'_> {
    type Target = HeaderMap;

    fn deref(&self) -> &HeaderMap {
        self.map
    }
}

impl era::Headers for RequestHeaders<'_> {
    fn first(&self, name: &str) -> (Option<&[u8]>, bool) {
        let sent = match name {
            era::PROTOCOL_VERSION_HEADER => self.protocol_version,
            era::METHOD_HEADER => self.method,
            era::NAME_HEADER => self.name,
            _ => return self.map.first(name),
        };
        (sent.first.map(HeaderValue::as_bytes), sent.repeated)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use era::Headers as _;

    /// What one pass finds is what a lookup in the map finds, repeated headers and absent ones included.
    #[test]
    fn a_pass_finds_what_lookups_find() {
        let mut map = HeaderMap::new();
        for (name, value) in [
            ("Host", "localhost:8000"),
            ("MCP-Protocol-Version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("Mcp-Method", "tools/list"),
            ("Accept", "application/json, text/event-stream"),
            ("X-Other", "x"),
            ("Mcp-Param-Region", "eu"),
        ] {
            map.append(http::HeaderName::from_bytes(name.as_bytes()).unwrap(), value.parse().unwrap());
        }
        let read = RequestHeaders::read(&map);
        for name in [
            era::PROTOCOL_VERSION_HEADER,
            era::METHOD_HEADER,
            era::NAME_HEADER,
            "content-type",
            "accept",
            "mcp-param-region",
            "x-other",
            "mcp-session-id",
        ] {
            assert_eq!(read.first(name), map.first(name), "{name}");
        }
        assert_eq!(read.method.first.map(HeaderValue::as_bytes), Some(&b"tools/call"[..]));
        assert!(read.method.repeated);
        assert_eq!(read.host.first.map(HeaderValue::as_bytes), Some(&b"localhost:8000"[..]));
        assert!(!read.host.repeated && read.origin.first.is_none() && read.content_length.first.is_none());
        assert_eq!(HeaderMap::get(&read, "x-other"), map.get("x-other"), "the rest from the map");
    }
}
