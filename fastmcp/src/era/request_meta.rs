//! A request's `params._meta`, as far as the server reads it: the modern envelope's keys and the progress
//! token, each read into its type as the params are parsed. The rest of `_meta` is skipped unread. Reading
//! `_meta` as a `Value` map built a tree of strings and maps on every request, only to take five keys out
//! of it; keeping each key's text to read later scanned and copied it twice.

use crate::protocol::{
    ClientCapabilities, Implementation, JsonObject, LoggingLevel, META_CLIENT_CAPABILITIES, META_CLIENT_INFO,
    META_LOG_LEVEL, META_PROGRESS_TOKEN, META_PROTOCOL_VERSION, ProgressToken, ProtocolVersion,
};
use serde::de::{Deserialize, DeserializeOwned, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::fmt;

/// The keys of `_meta` the server reads.
///
/// Its `Deserialize` is strict: a key whose value does not read as its type fails the parse, which then
/// starts over with [`Lenient`] (the parse of a message that reads is a single pass; one that does not is
/// the rare case that pays twice).
///
/// The two large values are boxed: it is built inside the params' parse and moved out through every layer
/// of it.
#[derive(Debug, Default)]
pub(crate) struct RequestMeta {
    pub protocol_version: Option<Slot<Version>>,
    pub client_capabilities: Option<Slot<Box<ClientCapabilities>>>,
    pub client_info: Option<Slot<Box<Implementation>>>,
    pub log_level: Option<Slot<LoggingLevel>>,
    pub progress_token: Option<Slot<ProgressToken>>,
}

/// A key's value: read into its type, or (read leniently) the text that does not read as one, so its error
/// is reported where the key is checked, in the order the era checks things.
#[derive(Debug)]
pub(crate) enum Slot<T> {
    Read(T),
    Unread(Box<RawValue>),
}

impl<T> Slot<T> {
    /// The value, if it read.
    pub fn read(&self) -> Option<&T> {
        match self {
            Slot::Read(value) => Some(value),
            Slot::Unread(_) => None,
        }
    }
}

/// A protocol version as `_meta` names it: one this build knows, or another (which the envelope refuses,
/// naming it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Version {
    Known(ProtocolVersion),
    Other(String),
}

impl Version {
    pub fn as_str(&self) -> &str {
        match self {
            Version::Known(v) => v.as_str(),
            Version::Other(v) => v,
        }
    }
}

/// Reads a known version without copying its text (serde's `Cow<str>` always copies).
impl<'de> Deserialize<'de> for Version {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Text;
        impl Visitor<'_> for Text {
            type Value = Version;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a protocol version")
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Version, E> {
                Ok(ProtocolVersion::parse(text).map_or_else(|| Version::Other(text.to_owned()), Version::Known))
            }
        }
        d.deserialize_str(Text)
    }
}

/// [`RequestMeta`] read leniently: a value that does not read as its key's type is kept as text
/// ([`Slot::Unread`]). For params that failed the strict parse, and `_meta` already parsed as a map.
pub(crate) struct Lenient(pub RequestMeta);

impl RequestMeta {
    /// Whether it claims the modern era (any of its envelope's keys).
    pub fn claims_modern(&self) -> bool {
        self.protocol_version.is_some() || self.client_capabilities.is_some() || self.client_info.is_some()
    }

    /// Reads the next value of `map`, for `key`.
    fn fill<'de, A: MapAccess<'de>>(&mut self, key: Key, map: &mut A, lenient: bool) -> Result<(), A::Error> {
        fn next<'de, T: DeserializeOwned, A: MapAccess<'de>>(map: &mut A, lenient: bool) -> Result<Slot<T>, A::Error> {
            if !lenient {
                return map.next_value().map(Slot::Read);
            }
            let raw: Box<RawValue> = map.next_value()?;
            Ok(serde_json::from_str(raw.get()).map_or(Slot::Unread(raw), Slot::Read))
        }
        match key {
            Key::ProtocolVersion => self.protocol_version = Some(next(map, lenient)?),
            Key::ClientCapabilities => self.client_capabilities = Some(next(map, lenient)?),
            Key::ClientInfo => self.client_info = Some(next(map, lenient)?),
            Key::LogLevel => self.log_level = Some(next(map, lenient)?),
            Key::ProgressToken => self.progress_token = Some(next(map, lenient)?),
            Key::Other => {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }

    /// The keys it read, as a map (the fuzz targets check them).
    #[cfg(feature = "fuzzing")]
    pub fn to_object(&self) -> JsonObject {
        fn value<T: serde::Serialize>(slot: &Slot<T>) -> serde_json::Value {
            match slot {
                Slot::Read(value) => serde_json::to_value(value).unwrap_or_default(),
                Slot::Unread(raw) => serde_json::from_str(raw.get()).unwrap_or_default(),
            }
        }
        let version = |slot: &Slot<Version>| match slot {
            Slot::Read(v) => serde_json::Value::from(v.as_str()),
            Slot::Unread(raw) => serde_json::from_str(raw.get()).unwrap_or_default(),
        };
        let slots = [
            (META_PROTOCOL_VERSION, self.protocol_version.as_ref().map(version)),
            (META_CLIENT_CAPABILITIES, self.client_capabilities.as_ref().map(value)),
            (META_CLIENT_INFO, self.client_info.as_ref().map(value)),
            (META_LOG_LEVEL, self.log_level.as_ref().map(value)),
            (META_PROGRESS_TOKEN, self.progress_token.as_ref().map(value)),
        ];
        slots.into_iter().filter_map(|(key, value)| Some((key.to_owned(), value?))).collect()
    }

    /// The keys it reads from a `_meta` already parsed (methods whose params type keeps `_meta` as a map),
    /// read leniently from the map itself.
    pub fn from_object(meta: JsonObject) -> Self {
        Lenient::deserialize(serde_json::Value::Object(meta)).map(|meta| meta.0).unwrap_or_default()
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

/// Reads an object's keys, keeping the last of a repeated key (as a map of `Value`s would).
struct Keys {
    lenient: bool,
}

impl<'de> Visitor<'de> for Keys {
    type Value = RequestMeta;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a map")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RequestMeta, A::Error> {
        let mut read = RequestMeta::default();
        while let Some(key) = map.next_key::<Key>()? {
            read.fill(key, &mut map, self.lenient)?;
        }
        Ok(read)
    }
}

impl<'de> Deserialize<'de> for RequestMeta {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(Keys { lenient: false })
    }
}

impl<'de> Deserialize<'de> for Lenient {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(Keys { lenient: true }).map(Lenient)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = r#"{"x":{"deep":[1,2]},"progressToken":1,"io.modelcontextprotocol/protocolVersion":"a",
        "io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":
        {"name":"c\"q","version":"1"}}"#;

    #[test]
    fn reads_its_keys_and_the_last_of_a_repeated_key() {
        let meta: RequestMeta = serde_json::from_str(TEXT).unwrap();
        assert_eq!(meta.protocol_version.as_ref().and_then(Slot::read), Some(&Version::Known(ProtocolVersion::LATEST)));
        assert_eq!(meta.progress_token.as_ref().and_then(Slot::read), Some(&ProgressToken::Number(1)));
        assert_eq!(meta.client_info.as_ref().and_then(Slot::read).map(|i| i.name.as_str()), Some("c\"q"));
        assert!(meta.claims_modern());
        assert!(meta.client_capabilities.is_none() && meta.log_level.is_none());
        assert!(serde_json::from_str::<RequestMeta>("[1]").is_err(), "not an object");

        let object: JsonObject = serde_json::from_str(TEXT).unwrap();
        let again = RequestMeta::from_object(object);
        assert_eq!(
            again.protocol_version.as_ref().and_then(Slot::read),
            Some(&Version::Known(ProtocolVersion::LATEST))
        );
        assert_eq!(again.client_info.as_ref().and_then(Slot::read).map(|i| i.version.as_str()), Some("1"));
    }

    #[test]
    fn a_value_that_does_not_read_fails_the_strict_parse_and_is_kept_by_the_lenient_one() {
        let text = r#"{"io.modelcontextprotocol/protocolVersion":7,"progressToken":1.5,
            "io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},
            "io.modelcontextprotocol/logLevel":"loud"}"#;
        assert!(serde_json::from_str::<RequestMeta>(text).is_err());
        let meta = serde_json::from_str::<Lenient>(text).unwrap().0;
        assert!(matches!(&meta.protocol_version, Some(Slot::Unread(raw)) if raw.get() == "7"));
        assert!(matches!(&meta.progress_token, Some(Slot::Unread(raw)) if raw.get() == "1.5"));
        assert!(matches!(&meta.log_level, Some(Slot::Unread(raw)) if raw.get() == "\"loud\""));
        assert!(matches!(&meta.client_info, Some(Slot::Read(info)) if info.name == "c"));
        // An unknown version string reads: the envelope refuses it by name.
        let other: RequestMeta =
            serde_json::from_str(r#"{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}"#).unwrap();
        assert_eq!(other.protocol_version.as_ref().and_then(Slot::read).map(Version::as_str), Some("2099-01-01"));
    }
}
