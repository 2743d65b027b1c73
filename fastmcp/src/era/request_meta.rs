//! A request's `params._meta`, as far as the server reads it: the modern envelope's keys and the progress
//! token, each read into its type as the params are parsed. The rest of `_meta` is skipped unread. Reading
//! `_meta` as a `Value` map built a tree of strings and maps on every request, only to take five keys out
//! of it; keeping each key's text to read later scanned and copied it twice.
//!
//! A client sends the same capabilities and info on every request. Each thread keeps the last text of each
//! it read, with the value read from it ([`Last`]): a request that repeats the text shares that value, with
//! nothing parsed, allocated or copied.

use crate::protocol::{
    ClientCapabilities, Implementation, JsonObject, LoggingLevel, META_CLIENT_CAPABILITIES, META_CLIENT_INFO,
    META_LOG_LEVEL, META_PROGRESS_TOKEN, META_PROTOCOL_VERSION, ProgressToken, ProtocolVersion,
};
use serde::de::{Deserialize, DeserializeOwned, Deserializer, Error as _, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::cell::RefCell;
use std::fmt;
use std::sync::Arc;
use std::thread::LocalKey;

/// The keys of `_meta` the server reads.
///
/// Its `Deserialize` is strict: a key whose value does not read as its type fails the parse, which then
/// starts over with [`Lenient`] (the parse of a message that reads is a single pass; one that does not is
/// the rare case that pays twice).
///
/// The two large values are shared ([`Last`]), which also keeps them out of the params' parse, through
/// every layer of which this is moved.
#[derive(Debug, Default)]
pub(crate) struct RequestMeta {
    pub protocol_version: Option<Slot<Version>>,
    pub client_capabilities: Option<Slot<Arc<ClientCapabilities>>>,
    pub client_info: Option<Slot<Arc<Implementation>>>,
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
            Key::ClientCapabilities => self.client_capabilities = Some(shared(map, lenient, &CAPABILITIES)?),
            Key::ClientInfo => self.client_info = Some(shared(map, lenient, &INFO)?),
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
        fn shared<T: serde::Serialize>(slot: &Slot<Arc<T>>) -> serde_json::Value {
            match slot {
                Slot::Read(value) => serde_json::to_value(&**value).unwrap_or_default(),
                Slot::Unread(raw) => serde_json::from_str(raw.get()).unwrap_or_default(),
            }
        }
        let version = |slot: &Slot<Version>| match slot {
            Slot::Read(v) => serde_json::Value::from(v.as_str()),
            Slot::Unread(raw) => serde_json::from_str(raw.get()).unwrap_or_default(),
        };
        let slots = [
            (META_PROTOCOL_VERSION, self.protocol_version.as_ref().map(version)),
            (META_CLIENT_CAPABILITIES, self.client_capabilities.as_ref().map(shared)),
            (META_CLIENT_INFO, self.client_info.as_ref().map(shared)),
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

/// The last text of one `_meta` key a thread read, and the value read from it.
pub(crate) struct Last<T>(RefCell<Option<(Box<str>, Arc<T>)>>);

/// Longer texts are read every time, not kept.
const LAST_MAX: usize = 4096;

thread_local! {
    static CAPABILITIES: Last<ClientCapabilities> = const { Last(RefCell::new(None)) };
    static INFO: Last<Implementation> = const { Last(RefCell::new(None)) };
}

impl<T: DeserializeOwned> Last<T> {
    /// The value of `text`: the kept one if it is the text kept, else read (and kept, if it reads).
    fn read(&self, text: &str) -> serde_json::Result<Arc<T>> {
        if let Some((kept, value)) = &*self.0.borrow()
            && **kept == *text
        {
            return Ok(value.clone());
        }
        let value = Arc::new(serde_json::from_str::<T>(text)?);
        if text.len() <= LAST_MAX {
            *self.0.borrow_mut() = Some((text.into(), value.clone()));
        }
        Ok(value)
    }
}

/// Reads the next value of `map` as a [`Last`] of this thread's: borrowed from the message when strict (which
/// only ever reads text), so a kept text costs one comparison.
fn shared<'de, T: DeserializeOwned, A: MapAccess<'de>>(
    map: &mut A,
    lenient: bool,
    last: &'static LocalKey<Last<T>>,
) -> Result<Slot<Arc<T>>, A::Error> {
    if lenient {
        let raw: Box<RawValue> = map.next_value()?;
        return Ok(last.with(|last| last.read(raw.get())).map_or(Slot::Unread(raw), Slot::Read));
    }
    let raw: &'de RawValue = map.next_value()?;
    last.with(|last| last.read(raw.get())).map(Slot::Read).map_err(A::Error::custom)
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
    fn a_thread_shares_what_it_read_from_the_same_text_only() {
        let meta = |caps: &str| -> RequestMeta {
            let text = format!(r#"{{"io.modelcontextprotocol/clientCapabilities":{caps}}}"#);
            serde_json::from_str(&text).unwrap()
        };
        let caps = |meta: &RequestMeta| meta.client_capabilities.as_ref().and_then(Slot::read).cloned().unwrap();
        let (first, again) = (caps(&meta(r#"{"sampling":{}}"#)), caps(&meta(r#"{"sampling":{}}"#)));
        assert!(Arc::ptr_eq(&first, &again), "the same text is read once");
        let other = caps(&meta(r#"{"roots":{}}"#));
        assert!(other.roots.is_some() && other.sampling.is_none(), "another text is read for itself");
        assert!(serde_json::from_str::<RequestMeta>(r#"{"io.modelcontextprotocol/clientCapabilities":7}"#).is_err());
        let lenient: Lenient =
            serde_json::from_str(r#"{"io.modelcontextprotocol/clientCapabilities":{"roots":7}}"#).unwrap();
        assert!(matches!(&lenient.0.client_capabilities, Some(Slot::Unread(raw)) if raw.get() == r#"{"roots":7}"#));
        assert!(Arc::ptr_eq(&other, &caps(&meta(r#"{"roots":{}}"#))), "a text that did not read is not kept");
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
