//! `resources/*`: listing resources and resource templates, reading a resource, and (legacy) subscribing to its
//! updates. Modern subscriptions go through `subscriptions/listen` instead.

use super::{Annotations, Icon, InputResponses, JsonObject, ResourceContents};
use serde::{Deserialize, Serialize};

/// A concrete resource the server can read, as `resources/list` describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// The resource's URI, any scheme; what `resources/read` and subscriptions name, and `Mcp-Name` mirrors.
    pub uri: String,
    /// Its programmatic name; the display name too when `title` is absent.
    pub name: String,
    /// A human-readable display name (2025-06-18 on); absent means display `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resource holds, a hint to the model; optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The contents' MIME type (`mimeType` on the wire); absent when unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The raw contents' size in bytes, before base64 encoding; absent when unknown. Lets hosts show file
    /// sizes and estimate context use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Hints for the client: audience, priority, last modification; optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Sized icons a client may display (2025-11-25 on); optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Free-form metadata (`_meta` on the wire); optional.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// A family of resources whose URIs fill an RFC 6570 template, as `resources/templates/list` describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplate {
    /// The RFC 6570 URI template (`uriTemplate` on the wire), e.g. `file:///{path}`; a client fills it to get
    /// a URI to read, and completion can suggest its variables' values.
    pub uri_template: String,
    /// The template's programmatic name; the display name too when `title` is absent.
    pub name: String,
    /// A human-readable display name (2025-06-18 on); absent means display `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the template is for, a hint to the model; optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type (`mimeType` on the wire) of every resource the template matches; absent unless they all
    /// share one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Hints for the client: audience, priority, last modification; optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Sized icons a client may display (2025-11-25 on); optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Free-form metadata (`_meta` on the wire); optional.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The `resources/list` result: one page of resources. On the modern wire the server adds `resultType`,
/// `ttlMs` and `cacheScope` around these fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListResourcesResult {
    /// This page's resources.
    pub resources: Vec<Resource>,
    /// The opaque cursor for the next page (`nextCursor` on the wire); absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// The `resources/templates/list` result: one page of resource templates. On the modern wire the server adds
/// `resultType`, `ttlMs` and `cacheScope` around these fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListResourceTemplatesResult {
    /// This page's templates (`resourceTemplates` on the wire).
    pub resource_templates: Vec<ResourceTemplate>,
    /// The opaque cursor for the next page (`nextCursor` on the wire); absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// `resources/read` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadResourceParams {
    /// The URI to read: a listed resource's, or one a template matches. No match is "resource not found"
    /// (`-32002` legacy, `-32602` modern, with `data.uri`).
    pub uri: String,
    /// Modern only (`inputResponses` on the wire): on a retry after an `input_required` result, the client's
    /// answers to its `inputRequests`, by key; absent on a first request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<InputResponses>,
    /// Modern only (`requestState` on the wire): the opaque state an `input_required` result carried, echoed
    /// byte for byte on the retry; absent when there was none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Request metadata (`_meta` on the wire): the per-request envelope on a modern request (required there),
    /// and optionally a `progressToken` on a legacy one.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The `resources/read` result. On the modern wire the server adds `resultType`, `ttlMs` and `cacheScope`
/// around it (and a read may instead end `input_required`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadResourceResult {
    /// The resource's contents: text or base64 blobs, each with its URI (a sub-resource may have its own
    /// entry). A resource that does not exist is an error, never an empty list.
    pub contents: Vec<ResourceContents>,
}

/// `resources/subscribe`, `resources/unsubscribe` (legacy) and `notifications/resources/updated`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceUriParams {
    /// The resource to (un)subscribe to, or, in `notifications/resources/updated`, the one that changed (the
    /// spec lets that be a sub-resource of the one subscribed to).
    pub uri: String,
    /// Free-form metadata (`_meta` on the wire); optional. On a modern listen stream's
    /// `notifications/resources/updated` it carries the subscription id.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}
