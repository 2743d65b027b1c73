//! A request's `params._meta`, as far as the server reads it: the modern envelope's keys and the progress
//! token, each kept as the JSON text it came as, to be read into its type once, where it is used. The rest
//! of `_meta` is skipped unread. Reading `_meta` as a `Value` map built a tree of strings and maps on every
//! request, only to take five keys out of it.

use crate::protocol::{
    JsonObject, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, META_PROGRESS_TOKEN, META_PROTOCOL_VERSION,
};
use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::fmt;

/// The keys of `_meta` the server reads, unparsed.
#[derive(Debug, Default)]
pub(crate) struct RequestMeta {
    pub protocol_version: Option<Box<RawValue>>,
    pub client_capabilities: Option<Box<RawValue>>,
    pub client_info: Option<Box<RawValue>>,
    pub log_level: Option<Box<RawValue>>,
    pub progress_token: Option<Box<RawValue>>,
}

impl RequestMeta {
    /// Whether it claims the modern era (any of its envelope's keys).
    pub fn claims_modern(&self) -> bool {
        self.protocol_version.is_some() || self.client_capabilities.is_some() || self.client_info.is_some()
    }

    /// The slot of `key`, if the server reads it.
    fn slot(&mut self, key: Key) -> Option<&mut Option<Box<RawValue>>> {
        match key {
            Key::ProtocolVersion => Some(&mut self.protocol_version),
            Key::ClientCapabilities => Some(&mut self.client_capabilities),
            Key::ClientInfo => Some(&mut self.client_info),
            Key::LogLevel => Some(&mut self.log_level),
            Key::ProgressToken => Some(&mut self.progress_token),
            Key::Other => None,
        }
    }

    /// The keys it read, parsed, as a map (the fuzz targets check them).
    #[cfg(feature = "fuzzing")]
    pub fn to_object(&self) -> JsonObject {
        let slots = [
            (META_PROTOCOL_VERSION, &self.protocol_version),
            (META_CLIENT_CAPABILITIES, &self.client_capabilities),
            (META_CLIENT_INFO, &self.client_info),
            (META_LOG_LEVEL, &self.log_level),
            (META_PROGRESS_TOKEN, &self.progress_token),
        ];
        let parse = |raw: &RawValue| serde_json::from_str(raw.get()).unwrap_or(serde_json::Value::Null);
        slots.into_iter().filter_map(|(key, raw)| raw.as_deref().map(|raw| (key.to_owned(), parse(raw)))).collect()
    }

    /// The keys it reads from a `_meta` already parsed (methods whose params type keeps `_meta` as a map).
    pub fn from_object(meta: JsonObject) -> Self {
        let mut read = Self::default();
        for (key, value) in meta {
            if let Some(slot) = read.slot(Key::of(&key)) {
                *slot = serde_json::value::to_raw_value(&value).ok();
            }
        }
        read
    }
}

/// A key of `_meta`, told apart without copying it (every modern request has several).
#[derive(Clone, Copy)]
enum Key {
    ProtocolVersion,
    ClientCapabilities,
    ClientInfo,
    LogLevel,
    ProgressToken,
    Other,
}

impl Key {
    fn of(key: &str) -> Self {
        match key {
            META_PROTOCOL_VERSION => Self::ProtocolVersion,
            META_CLIENT_CAPABILITIES => Self::ClientCapabilities,
            META_CLIENT_INFO => Self::ClientInfo,
            META_LOG_LEVEL => Self::LogLevel,
            META_PROGRESS_TOKEN => Self::ProgressToken,
            _ => Self::Other,
        }
    }
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Name;
        impl Visitor<'_> for Name {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<Key, E> {
                Ok(Key::of(key))
            }
        }
        d.deserialize_identifier(Name)
    }
}

/// Reads an object, keeping the last of a repeated key (as a map of `Value`s would).
impl<'de> Deserialize<'de> for RequestMeta {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Keys;
        impl<'de> Visitor<'de> for Keys {
            type Value = RequestMeta;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RequestMeta, A::Error> {
                let mut read = RequestMeta::default();
                while let Some(key) = map.next_key::<Key>()? {
                    match read.slot(key) {
                        Some(slot) => *slot = Some(map.next_value()?),
                        None => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(read)
            }
        }
        d.deserialize_map(Keys)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_what_it_reads_and_the_last_of_a_repeated_key() {
        let text = r#"{"x":{"deep":[1,2]},"progressToken":1,"io.modelcontextprotocol/protocolVersion":"a",
            "io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":
            {"name":"c\"q","version":"1"}}"#;
        let meta: RequestMeta = serde_json::from_str(text).unwrap();
        assert_eq!(meta.protocol_version.as_deref().map(RawValue::get), Some(r#""2026-07-28""#));
        assert_eq!(meta.progress_token.as_deref().map(RawValue::get), Some("1"));
        assert!(meta.client_info.is_some() && meta.claims_modern());
        assert!(meta.client_capabilities.is_none() && meta.log_level.is_none());
        assert!(serde_json::from_str::<RequestMeta>("[1]").is_err(), "not an object");

        let object: JsonObject = serde_json::from_str(text).unwrap();
        let again = RequestMeta::from_object(object);
        assert_eq!(again.protocol_version.as_deref().map(RawValue::get), Some(r#""2026-07-28""#));
        assert_eq!(again.client_info.as_deref().map(RawValue::get), Some(r#"{"name":"c\"q","version":"1"}"#));
    }
}
