//! Objects told apart by their `type` field (content blocks), read without buffering them when `type` comes
//! first, as senders write it.
//!
//! serde's internally tagged enums buffer every field before they look at the tag, and a sampling block (a
//! tool block or a content block) was read into a `Value` to pick between the two, then buffered again by the
//! one picked: 4.6k instructions to read a one-line text answer. Here a first field `type` picks the type and
//! the rest of the object is read straight into it; a `type` further on is found by buffering the object, as
//! before. Two differences from serde's derive: a block must be an object (the derive also took a
//! `[type, fields…]` array), and a second `type` is ignored like any other field the type does not know.

use super::JsonObject;
use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

/// A type read from an object by its `type`.
pub(crate) trait Tagged: Sized {
    /// What an error says was expected ("internally tagged enum ContentBlock", as serde's derive says it).
    const EXPECTING: &'static str;

    /// The value of kind `kind`, its other fields read from `fields`.
    fn of_kind<'de, D: Deserializer<'de>>(kind: &str, fields: D) -> Result<Self, D::Error>;
}

/// Reads a `T` from an object.
pub(crate) fn deserialize<'de, T: Tagged, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
    d.deserialize_map(TagVisitor(PhantomData))
}

/// Reads a `T` from the object `map` is reading.
pub(crate) fn from_map<'de, T: Tagged, A: MapAccess<'de>>(map: A) -> Result<T, A::Error> {
    TagVisitor(PhantomData).visit_map(map)
}

struct TagVisitor<T>(PhantomData<T>);

impl<'de, T: Tagged> Visitor<'de> for TagVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(T::EXPECTING)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        let first = match map.next_key::<Key>()? {
            Some(Key::Type) => {
                let kind = map.next_value::<Kind<'de>>()?;
                return T::of_kind(&kind.0, MapAccessDeserializer::new(map));
            }
            first => first,
        };
        // `type` later or absent: the fields are kept until it is found.
        let mut fields = JsonObject::new();
        if let Some(Key::Other(name)) = first {
            fields.insert(name, map.next_value()?);
        }
        while let Some(name) = map.next_key::<String>()? {
            // The first of a repeated field counts, as the first `type` does on the direct path.
            let value = map.next_value()?;
            fields.entry(name).or_insert(value);
        }
        let kind = match fields.remove("type") {
            Some(Value::String(kind)) => kind,
            Some(other) => return Err(de::Error::custom(format!("`type` must be a string, not {other}"))),
            None => return Err(de::Error::missing_field("type")),
        };
        T::of_kind(&kind, Value::Object(fields)).map_err(de::Error::custom)
    }
}

/// An object's key: `type`, or any other (whose name is kept only on the buffering path).
enum Key {
    Type,
    Other(String),
}

impl<'de> de::Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
                Ok(if v == "type" { Key::Type } else { Key::Other(v.to_owned()) })
            }
        }
        d.deserialize_identifier(KeyVisitor)
    }
}

/// The `type` value, borrowed from the input where it can be.
struct Kind<'de>(Cow<'de, str>);

impl<'de> de::Deserialize<'de> for Kind<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KindVisitor;
        impl<'de> Visitor<'de> for KindVisitor {
            type Value = Kind<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string naming the block's type")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Kind<'de>, E> {
                Ok(Kind(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Kind<'de>, E> {
                Ok(Kind(Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_str(KindVisitor)
    }
}

#[cfg(test)]
mod tests {
    use crate::protocol::{ContentBlock, EmbeddedResource, MediaContent, ResourceLink, TextContent};
    use serde::Deserialize;
    use serde_json::{Value, json};

    /// The same object's text with its `type` moved to the end, so that it is read the buffering way.
    fn type_last(block: &Value) -> String {
        let mut fields = block.as_object().unwrap().clone();
        let kind = fields.remove("type").unwrap();
        fields.insert("type".into(), kind);
        Value::Object(fields).to_string()
    }

    /// Inside an untagged enum a block is read from serde's own buffer, not from the text.
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Buffered {
        Block(ContentBlock),
    }

    /// Every kind reads the same with `type` first (straight from the text) or last (buffered), from text, from
    /// a `Value` and from serde's buffer, with the tag escaped too; and writes back as it was.
    #[test]
    fn a_block_reads_alike_wherever_its_type_is() {
        let blocks = [
            json!({"type": "text", "text": "notes", "annotations": {"priority": 0.5}}),
            json!({"type": "image", "data": "aGk=", "mimeType": "image/png"}),
            json!({"type": "audio", "data": "aGk=", "mimeType": "audio/wav"}),
            json!({"type": "resource_link", "uri": "file:///a", "name": "a", "size": 3}),
            json!({"type": "resource", "resource": {"uri": "file:///a", "text": "hi"}}),
        ];
        for block in blocks {
            let read: ContentBlock = serde_json::from_str(&block.to_string()).unwrap();
            assert_eq!(serde_json::to_value(&read).unwrap(), block);
            let last: ContentBlock = serde_json::from_str(&type_last(&block)).unwrap();
            assert_eq!(last, read, "{block}");
            assert_eq!(ContentBlock::deserialize(block.clone()).unwrap(), read, "{block}");
            let Buffered::Block(buffered) = serde_json::from_str(&block.to_string()).unwrap();
            assert_eq!(buffered, read, "{block}");
            let kind = block["type"].as_str().unwrap();
            let escaped = block.to_string().replacen(
                &format!("\"{kind}\""),
                &format!("\"\\u{:04x}{}\"", kind.as_bytes()[0], &kind[1..]),
                1,
            );
            assert_eq!(serde_json::from_str::<ContentBlock>(&escaped).unwrap(), read, "{escaped}");
        }
    }

    /// What serde's derive reads: the errors are held to its.
    #[derive(Debug, Deserialize)]
    #[serde(tag = "type", rename_all = "snake_case")]
    #[allow(dead_code)]
    enum Derived {
        Text(TextContent),
        Image(MediaContent),
        Audio(MediaContent),
        ResourceLink(ResourceLink),
        Resource(EmbeddedResource),
    }

    /// What is wrong with a block is said as serde's derive says it, on either path (positions aside: read
    /// straight, an error is placed where it is met rather than at the object's end).
    #[test]
    fn a_block_without_a_known_type_is_refused_as_the_derive_refuses_it() {
        let said =
            |e: serde_json::Error| e.to_string().split(" at line").next().unwrap().replace("Derived", "ContentBlock");
        for text in [
            r#"{"text": "x"}"#,
            "{}",
            r#"{"type": "video", "url": "x"}"#,
            r#"{"url": "x", "type": "video"}"#,
            r#"{"type": "text"}"#,
            r#"{"annotations": {}, "type": "text"}"#,
            r#"{"type": "image", "data": 7, "mimeType": "image/png"}"#,
            "7",
        ] {
            let ours = said(serde_json::from_str::<ContentBlock>(text).unwrap_err());
            assert_eq!(ours, said(serde_json::from_str::<Derived>(text).unwrap_err()), "{text}");
        }
        for text in [r#"{"type": 7, "text": "x"}"#, r#"{"text": "x", "type": 7}"#] {
            let e = serde_json::from_str::<ContentBlock>(text).unwrap_err().to_string();
            assert!(e.contains("type"), "{text}: {e}");
        }
        // A second `type` is ignored on either path.
        for text in [r#"{"type": "text", "text": "x", "type": "image"}"#, r#"{"text": "x", "type": "text", "type": 7}"#]
        {
            let read = serde_json::from_str::<ContentBlock>(text).unwrap();
            assert_eq!(read, ContentBlock::text("x"), "{text}");
        }
        // Where the derive is lenient, a block is an object: it read `["text", "x"]` as a text block.
        assert!(serde_json::from_str::<Derived>(r#"["text", "x"]"#).is_ok());
        let e = serde_json::from_str::<ContentBlock>(r#"["text", "x"]"#).unwrap_err().to_string();
        assert!(e.starts_with("invalid type: sequence, expected internally tagged enum ContentBlock"), "{e}");
    }
}
