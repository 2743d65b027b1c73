//! Content blocks, resource contents, annotations and icons.

use super::JsonObject;
use super::tagged::{self, Tagged};
use serde::{Deserialize, Deserializer, Serialize, de};

/// Who a message or block is from or for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// `"user"`: the human side of the conversation.
    User,
    /// `"assistant"`: the model's side.
    Assistant,
}

/// Advisory hints for the client on how to use or show an object (`annotations` on content blocks, resources and
/// resource templates). Every field is optional; `Default` sets none.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// Who the object is meant for; both (`["user", "assistant"]`) when it is useful to each. Absent means unspecified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// How important the object is for operating the server: `1` effectively required, `0` entirely optional (the
    /// schema bounds it to 0–1; not checked here). Absent means unspecified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    /// `lastModified` on the wire (2025-06-18+): when the resource last changed, as an ISO 8601 string such as
    /// `"2025-01-12T15:00:58Z"`. Absent means unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

/// An icon a client may show in its UI for the server, tool, prompt or resource that lists it in `icons`
/// (2025-11-25+).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    /// Where the image is: an HTTP(S) URL or a `data:` URI with Base64 image data. Consumers should only fetch URLs
    /// from the same or a trusted domain, and take care with SVGs, which can carry script.
    pub src: String,
    /// `mimeType` on the wire: overrides a missing or generic source type (e.g. `"image/png"`, `"image/svg+xml"`);
    /// absent means the source's own type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes the icon suits, each `WxH` (`"48x48"`) or `"any"` for scalable formats like SVG; absent means any size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// `"light"` or `"dark"`: the background the icon is designed for; absent means any. A plain string, not checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
}

/// One block of tool output or prompt message content.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    /// `type: "text"`: text for or from the model.
    Text(TextContent),
    /// `type: "image"`: base64 image data and its MIME type.
    Image(MediaContent),
    /// `type: "audio"` (2025-03-26+): base64 audio data and its MIME type.
    Audio(MediaContent),
    /// `type: "resource_link"` (2025-06-18+): a pointer to a resource the client may fetch with `resources/read`.
    ResourceLink(ResourceLink),
    /// `type: "resource"`: a resource's contents, embedded in the block.
    Resource(EmbeddedResource),
}

/// The `type`s of [`ContentBlock`], as the wire spells them.
const CONTENT_TYPES: &[&str] = &["text", "image", "audio", "resource_link", "resource"];

impl<'de> Deserialize<'de> for ContentBlock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        tagged::deserialize(d)
    }
}

impl Tagged for ContentBlock {
    const EXPECTING: &'static str = "internally tagged enum ContentBlock";

    fn of_kind<'de, D: Deserializer<'de>>(kind: &str, fields: D) -> Result<Self, D::Error> {
        match kind {
            "text" => TextContent::deserialize(fields).map(Self::Text),
            "image" => MediaContent::deserialize(fields).map(Self::Image),
            "audio" => MediaContent::deserialize(fields).map(Self::Audio),
            "resource_link" => ResourceLink::deserialize(fields).map(Self::ResourceLink),
            "resource" => EmbeddedResource::deserialize(fields).map(Self::Resource),
            other => Err(de::Error::unknown_variant(other, CONTENT_TYPES)),
        }
    }
}

impl ContentBlock {
    /// A text block, without annotations or `_meta`.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(TextContent { text: text.into(), annotations: None, meta: None })
    }

    /// An image from base64 `data`.
    pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self::Image(MediaContent::new(data, mime_type))
    }

    /// Audio from base64 `data`.
    pub fn audio(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self::Audio(MediaContent::new(data, mime_type))
    }

    /// An embedded resource block holding `contents`, without annotations or `_meta`.
    pub fn resource(contents: ResourceContents) -> Self {
        Self::Resource(EmbeddedResource { resource: contents, annotations: None, meta: None })
    }

    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}

/// The fields of a `text` block (the `type` tag is the enclosing [`ContentBlock`]'s).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextContent {
    /// The text content of the message or result.
    pub text: String,
    /// Hints for the client: audience, priority, `lastModified`; absent means none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta` on the wire: free-form metadata, passed through untouched; absent means none.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Image or audio: base64 data and its MIME type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MediaContent {
    /// The bytes, base64-encoded (standard alphabet).
    pub data: String,
    /// `mimeType` on the wire: the media type of `data` (e.g. `"image/png"`, `"audio/wav"`); which types work is up to
    /// the model provider.
    pub mime_type: String,
    /// Hints for the client: audience, priority, `lastModified`; absent means none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta` on the wire: free-form metadata, passed through untouched; absent means none.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl MediaContent {
    /// Media from base64 `data` and its MIME type, without annotations or `_meta`.
    pub fn new(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self { data: data.into(), mime_type: mime_type.into(), annotations: None, meta: None }
    }
}

/// A link to a resource (2025-06-18+): a `Resource` with `type: "resource_link"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceLink {
    /// The resource's URI, as `resources/read` takes it. A linked resource need not appear in `resources/list`.
    pub uri: String,
    /// The resource's programmatic name; also what clients display when `title` is absent.
    pub name: String,
    /// A human-readable display name (2025-06-18+); absent means display `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resource is, as a hint for the model; absent means none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `mimeType` on the wire: the resource's MIME type, if known; absent means unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The raw content's size in bytes (before base64 or tokenization), if known; lets hosts show file sizes and
    /// estimate context use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Icons a client may show for the resource (2025-11-25+); absent means none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Hints for the client: audience, priority, `lastModified`; absent means none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta` on the wire: free-form metadata, passed through untouched; absent means none.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The fields of a `resource` block: a resource's contents embedded in a tool result or prompt message. How to
/// render it is up to the client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmbeddedResource {
    /// The embedded contents: text or a base64 blob, with their URI.
    pub resource: ResourceContents,
    /// Hints for the client: audience, priority, `lastModified`; absent means none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta` on the wire: free-form metadata, passed through untouched; absent means none.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The contents of a resource: text or base64 blob.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ResourceContents {
    /// Text contents (the object has `text`). Read first: an object with both `text` and `blob` is read as text.
    Text(TextResourceContents),
    /// Binary contents (the object has `blob`, base64).
    Blob(BlobResourceContents),
}

impl ResourceContents {
    /// Text contents of `uri`, with an optional MIME type and no `_meta`.
    pub fn text(uri: impl Into<String>, mime_type: Option<String>, text: impl Into<String>) -> Self {
        Self::Text(TextResourceContents { uri: uri.into(), mime_type, text: text.into(), meta: None })
    }

    /// Binary contents; `bytes` are base64-encoded here.
    pub fn blob(uri: impl Into<String>, mime_type: Option<String>, bytes: &[u8]) -> Self {
        use base64::Engine as _;
        Self::Blob(BlobResourceContents {
            uri: uri.into(),
            mime_type,
            blob: base64::engine::general_purpose::STANDARD.encode(bytes),
            meta: None,
        })
    }

    /// The URI these contents are of: the resource read, or one of its sub-resources.
    pub fn uri(&self) -> &str {
        match self {
            Self::Text(t) => &t.uri,
            Self::Blob(b) => &b.uri,
        }
    }
}

/// A resource's contents as text: only for content that can be represented as text, not binary data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextResourceContents {
    /// The URI of the resource (or sub-resource) these contents are of.
    pub uri: String,
    /// `mimeType` on the wire: the contents' MIME type, if known; absent means unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The contents, as text.
    pub text: String,
    /// `_meta` on the wire: free-form metadata, passed through untouched; absent means none.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// A resource's contents as binary data, base64-encoded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BlobResourceContents {
    /// The URI of the resource (or sub-resource) these contents are of.
    pub uri: String,
    /// `mimeType` on the wire: the contents' MIME type, if known; absent means unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The bytes, base64-encoded ([`ResourceContents::blob`] writes the standard, padded alphabet).
    pub blob: String,
    /// `_meta` on the wire: free-form metadata, passed through untouched; absent means none.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}
