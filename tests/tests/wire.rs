//! Round trips of fastmcp's wire types against the MCP specification's own example JSON.
//!
//! Every file under `tests/fixtures/wire/<era>/<SpecTypeName>/` is listed once in [`FIXTURES`] with the check
//! that applies to it; `every_fixture_file_is_in_the_table` fails on any file the table does not name, and
//! `fixtures_round_trip` fails on any table entry whose file is missing or does not round-trip. Where the
//! fixtures come from is in `tests/fixtures/wire/README.md`.
//!
//! A round trip deserializes the fixture's text into our type, serializes it back and compares JSON values. The
//! only fields removed before comparing are the ones the era adapter adds around our types (see
//! [`strip_result_envelope`] and [`embedded_request`]); each removal is explicit and validated, never silent.

use fastmcp::protocol::{
    CacheScope, CallToolParams, CallToolResult, CancelledParams, ClientCapabilities, CompleteParams, CompleteResult,
    ContentBlock, CreateMessageParams, CreateMessageResult, DiscoverResult, ElicitMode, ElicitParams, ElicitResult,
    Era, ErrorObject, GetPromptParams, GetPromptResult, Implementation, Inbound, InitializeParams, InitializeResult,
    InputRequest, InputRequests, InputRequiredResult, InputResponses, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListRootsResult, ListToolsResult, LoggingMessageParams, META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO, META_PROTOCOL_VERSION, META_SERVER_INFO, ModelPreferences, OutboundMessage, PaginatedParams,
    ProgressParams, ProgressToken, Prompt, ProtocolVersion, ReadResourceParams, ReadResourceResult, RequestId,
    Resource, ResourceContents, ResourceTemplate, ResourceUriParams, ResultType, Root, SamplingBlock, SamplingMessage,
    ServerCapabilities, Tool, codes, error_json, response_json,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

/// One fixture as a check sees it.
struct Fixture<'a> {
    /// Relative to the fixture root, e.g. `2026-07-28/Tool/with-no-parameters.json`.
    path: &'a str,
    text: &'a str,
}

impl Fixture<'_> {
    fn value(&self) -> Value {
        serde_json::from_str(self.text).unwrap_or_else(|e| panic!("fixture is not JSON: {e}"))
    }

    /// The era the fixture's first path segment names.
    fn era(&self) -> Era {
        let version = self.path.split('/').next().unwrap_or_default();
        ProtocolVersion::parse(version).unwrap_or_else(|| panic!("`{version}` is not a protocol version")).era()
    }
}

type Check = fn(&Fixture<'_>);

/// Every fixture and how it is checked. One line each; sorted by path.
const FIXTURES: &[(&str, Check)] = &[
    // ---- 2025-11-25 (the spec ships no example files for it: its docs pages' examples, and ours) ----
    ("2025-11-25/CallToolRequest/doc-call-tool-request.json", request::<CallToolParams>),
    ("2025-11-25/CallToolRequestParams/ours-task-augmented-with-progress-token.json", params::<CallToolParams>),
    ("2025-11-25/CallToolResult/doc-structured-content-response.json", response::<CallToolResult>),
    ("2025-11-25/CancelledNotificationParams/ours-reason-only.json", bare::<CancelledParams>),
    ("2025-11-25/ClientCapabilities/ours-roots-list-changed-and-tasks.json", bare::<ClientCapabilities>),
    ("2025-11-25/CreateMessageRequest/doc-sampling-with-tools-request.json", embedded_request),
    ("2025-11-25/CreateMessageResult/doc-tool-use-response.json", response::<CreateMessageResult>),
    ("2025-11-25/ElicitRequest/doc-url-mode-request.json", embedded_request),
    ("2025-11-25/ElicitResult/doc-form-accept-response.json", response::<ElicitResult>),
    ("2025-11-25/ElicitResult/doc-url-mode-accept-response.json", response::<ElicitResult>),
    ("2025-11-25/ElicitResult/ours-accept-with-meta-response.json", response::<ElicitResult>),
    ("2025-11-25/InitializeRequest/doc-initialize-request.json", request::<InitializeParams>),
    ("2025-11-25/InitializeResult/doc-initialize-result-response.json", response::<InitializeResult>),
    ("2025-11-25/JSONRPCErrorResponse/doc-resource-not-found.json", error_response),
    ("2025-11-25/JSONRPCErrorResponse/doc-unknown-tool.json", error_response),
    ("2025-11-25/JSONRPCErrorResponse/doc-unsupported-protocol-version.json", error_response),
    ("2025-11-25/ListRootsRequest/doc-roots-list-request.json", embedded_request),
    ("2025-11-25/ListRootsResult/doc-roots-list-response.json", response::<ListRootsResult>),
    ("2025-11-25/ListRootsResult/ours-roots-with-meta-response.json", response::<ListRootsResult>),
    ("2025-11-25/ListToolsResult/doc-tools-list-response.json", response::<ListToolsResult>),
    ("2025-11-25/SamplingMessage/doc-text-and-tool-result.json", bare::<SamplingMessage>),
    ("2025-11-25/Tool/ours-tool-with-execution.json", bare::<Tool>),
    ("2025-11-25/URLElicitationRequiredError/doc-url-elicitation-required.json", error_response),
    // ---- 2026-07-28 (schema/2026-07-28/examples, plus docs examples and ours) ----
    ("2026-07-28/AudioContent/audio-wav-content.json", bare::<ContentBlock>),
    ("2026-07-28/AudioContent/ours-audio-with-annotations-and-meta.json", bare::<ContentBlock>),
    ("2026-07-28/BlobResourceContents/image-file-contents.json", bare::<ResourceContents>),
    ("2026-07-28/CallToolRequest/call-tool-request.json", request::<CallToolParams>),
    ("2026-07-28/CallToolRequestParams/get-weather-tool-call-params.json", params::<CallToolParams>),
    ("2026-07-28/CallToolRequestParams/ours-retry-with-input-responses.json", params::<CallToolParams>),
    ("2026-07-28/CallToolRequestParams/tool-call-params-with-progress-token.json", params::<CallToolParams>),
    ("2026-07-28/CallToolResult/invalid-tool-input-error.json", result::<CallToolResult>),
    ("2026-07-28/CallToolResult/result-with-array-structured-content.json", result::<CallToolResult>),
    ("2026-07-28/CallToolResult/result-with-structured-content.json", result::<CallToolResult>),
    ("2026-07-28/CallToolResult/result-with-unstructured-text.json", result::<CallToolResult>),
    ("2026-07-28/CallToolResultResponse/call-tool-result-response.json", response::<CallToolResult>),
    ("2026-07-28/CancelledNotification/user-requested-cancellation.json", notification::<CancelledParams>),
    ("2026-07-28/CancelledNotificationParams/ours-integer-request-id.json", bare::<CancelledParams>),
    ("2026-07-28/CancelledNotificationParams/user-requested-cancellation.json", bare::<CancelledParams>),
    ("2026-07-28/ClientCapabilities/elicitation-form-and-url-mode-support.json", bare::<ClientCapabilities>),
    ("2026-07-28/ClientCapabilities/elicitation-form-only-implicit.json", bare::<ClientCapabilities>),
    ("2026-07-28/ClientCapabilities/extensions-ui-mime-types.json", bare::<ClientCapabilities>),
    ("2026-07-28/ClientCapabilities/ours-all-capabilities.json", bare::<ClientCapabilities>),
    ("2026-07-28/ClientCapabilities/roots-minimum-baseline-support.json", bare::<ClientCapabilities>),
    ("2026-07-28/ClientCapabilities/sampling-context-inclusion-support-deprecated.json", bare::<ClientCapabilities>),
    ("2026-07-28/ClientCapabilities/sampling-minimum-baseline-support.json", bare::<ClientCapabilities>),
    ("2026-07-28/ClientCapabilities/sampling-tool-use-support.json", bare::<ClientCapabilities>),
    ("2026-07-28/CompleteRequest/completion-request.json", request::<CompleteParams>),
    ("2026-07-28/CompleteRequestParams/ours-prompt-ref-with-title.json", params::<CompleteParams>),
    ("2026-07-28/CompleteRequestParams/ours-resource-template-ref.json", params::<CompleteParams>),
    ("2026-07-28/CompleteRequestParams/prompt-argument-completion-with-context.json", params::<CompleteParams>),
    ("2026-07-28/CompleteRequestParams/prompt-argument-completion.json", params::<CompleteParams>),
    ("2026-07-28/CompleteResult/multiple-completion-values-with-more-available.json", result::<CompleteResult>),
    ("2026-07-28/CompleteResult/single-completion-value.json", result::<CompleteResult>),
    ("2026-07-28/CompleteResultResponse/completion-result-response.json", response::<CompleteResult>),
    ("2026-07-28/CreateMessageRequest/sampling-request.json", embedded_request),
    ("2026-07-28/CreateMessageRequestParams/basic-request.json", bare::<CreateMessageParams>),
    ("2026-07-28/CreateMessageRequestParams/follow-up-with-tool-results.json", bare::<CreateMessageParams>),
    ("2026-07-28/CreateMessageRequestParams/ours-all-fields.json", bare::<CreateMessageParams>),
    ("2026-07-28/CreateMessageRequestParams/request-with-tools.json", bare::<CreateMessageParams>),
    ("2026-07-28/CreateMessageResult/final-response.json", bare::<CreateMessageResult>),
    ("2026-07-28/CreateMessageResult/text-response.json", bare::<CreateMessageResult>),
    ("2026-07-28/CreateMessageResult/tool-use-response.json", bare::<CreateMessageResult>),
    ("2026-07-28/DiscoverResult/server-capabilities-discovery.json", result::<DiscoverResult>),
    ("2026-07-28/DiscoverResultResponse/discover-result-response.json", response::<DiscoverResult>),
    ("2026-07-28/ElicitRequest/elicitation-request.json", embedded_request),
    ("2026-07-28/ElicitRequestFormParams/elicit-multiple-fields.json", bare::<ElicitParams>),
    ("2026-07-28/ElicitRequestFormParams/elicit-single-field.json", bare::<ElicitParams>),
    ("2026-07-28/ElicitRequestURLParams/elicit-sensitive-data.json", bare::<ElicitParams>),
    ("2026-07-28/ElicitResult/accept-url-mode-no-content.json", bare::<ElicitResult>),
    ("2026-07-28/ElicitResult/input-multiple-fields.json", bare::<ElicitResult>),
    ("2026-07-28/ElicitResult/input-single-field.json", bare::<ElicitResult>),
    ("2026-07-28/ElicitResult/ours-accept-multi-select.json", bare::<ElicitResult>),
    ("2026-07-28/ElicitResult/ours-decline.json", bare::<ElicitResult>),
    ("2026-07-28/EmbeddedResource/embedded-file-resource-with-annotations.json", bare::<ContentBlock>),
    ("2026-07-28/EmbeddedResource/ours-embedded-blob-with-annotations.json", bare::<ContentBlock>),
    ("2026-07-28/GetPromptRequest/get-prompt-request.json", request::<GetPromptParams>),
    ("2026-07-28/GetPromptRequestParams/get-code-review-prompt.json", params::<GetPromptParams>),
    ("2026-07-28/GetPromptRequestParams/ours-retry-with-input-responses.json", params::<GetPromptParams>),
    ("2026-07-28/GetPromptResult/code-review-prompt.json", result::<GetPromptResult>),
    ("2026-07-28/GetPromptResult/ours-mixed-content-messages.json", result::<GetPromptResult>),
    ("2026-07-28/HeaderMismatchError/header-mismatch.json", error_response),
    ("2026-07-28/ImageContent/image-png-content-with-annotations.json", bare::<ContentBlock>),
    ("2026-07-28/InputRequests/elicitation-and-sampling-input-requests.json", bare::<InputRequests>),
    (
        "2026-07-28/InputRequiredResult/input-required-result-with-elicitation-and-sampling-and-request-state.json",
        input_required,
    ),
    ("2026-07-28/InputRequiredResult/input-required-result-with-request-state-only.json", input_required),
    ("2026-07-28/InputRequiredResult/ours-url-elicitation-and-roots.json", input_required),
    ("2026-07-28/InputResponses/elicitation-and-sampling-input-responses.json", input_responses),
    ("2026-07-28/InputResponses/ours-roots-and-decline.json", input_responses),
    ("2026-07-28/InternalError/unexpected-error.json", bare::<ErrorObject>),
    ("2026-07-28/InvalidParamsError/invalid-cursor.json", bare::<ErrorObject>),
    ("2026-07-28/InvalidParamsError/invalid-tool-arguments.json", bare::<ErrorObject>),
    ("2026-07-28/InvalidParamsError/unknown-prompt.json", bare::<ErrorObject>),
    ("2026-07-28/InvalidParamsError/unknown-tool.json", bare::<ErrorObject>),
    ("2026-07-28/JSONRPCErrorResponse/doc-resource-not-found.json", error_response),
    ("2026-07-28/ListPromptsResult/prompts-list-with-cursor-and-ttl.json", result::<ListPromptsResult>),
    (
        "2026-07-28/ListResourceTemplatesResult/resource-templates-list-with-cursor-and-ttl.json",
        result::<ListResourceTemplatesResult>,
    ),
    ("2026-07-28/ListResourcesResult/resources-list-with-cursor-and-ttl.json", result::<ListResourcesResult>),
    ("2026-07-28/ListRootsRequest/list-roots-request.json", embedded_request),
    ("2026-07-28/ListRootsResult/multiple-root-directories.json", bare::<ListRootsResult>),
    ("2026-07-28/ListRootsResult/single-root-directory.json", bare::<ListRootsResult>),
    ("2026-07-28/ListToolsRequest/list-tools-request.json", request::<PaginatedParams>),
    ("2026-07-28/ListToolsResult/tools-list-with-cursor-and-ttl.json", result::<ListToolsResult>),
    ("2026-07-28/LoggingMessageNotification/log-database-connection-failed.json", notification::<LoggingMessageParams>),
    ("2026-07-28/LoggingMessageNotificationParams/log-database-connection-failed.json", bare::<LoggingMessageParams>),
    ("2026-07-28/LoggingMessageNotificationParams/ours-string-data-no-logger.json", bare::<LoggingMessageParams>),
    ("2026-07-28/MethodNotFoundError/prompts-not-supported.json", bare::<ErrorObject>),
    ("2026-07-28/MissingRequiredClientCapabilityError/missing-elicitation-capability.json", error_response),
    ("2026-07-28/ModelPreferences/with-hints-and-priorities.json", bare::<ModelPreferences>),
    ("2026-07-28/PaginatedRequestParams/list-with-cursor.json", params::<PaginatedParams>),
    ("2026-07-28/ParseError/invalid-json.json", bare::<ErrorObject>),
    ("2026-07-28/ProgressNotification/progress-message.json", notification::<ProgressParams>),
    ("2026-07-28/ProgressNotificationParams/ours-integer-token-fractional-progress.json", bare::<ProgressParams>),
    ("2026-07-28/ProgressNotificationParams/progress-message.json", bare::<ProgressParams>),
    ("2026-07-28/Prompt/ours-prompt-with-titled-arguments.json", bare::<Prompt>),
    ("2026-07-28/ReadResourceRequest/read-resource-request.json", request::<ReadResourceParams>),
    ("2026-07-28/ReadResourceRequestParams/ours-retry-with-request-state.json", params::<ReadResourceParams>),
    ("2026-07-28/ReadResourceResult/file-resource-contents.json", result::<ReadResourceResult>),
    ("2026-07-28/ReadResourceResult/ours-text-and-blob.json", result::<ReadResourceResult>),
    (
        "2026-07-28/ReadResourceResultResponse/read-resource-result-response-with-ttl.json",
        response::<ReadResourceResult>,
    ),
    ("2026-07-28/Resource/file-resource-with-annotations.json", bare::<Resource>),
    ("2026-07-28/ResourceLink/file-resource-link.json", bare::<ContentBlock>),
    ("2026-07-28/ResourceLink/ours-resource-link-all-fields.json", bare::<ContentBlock>),
    ("2026-07-28/ResourceTemplate/ours-template-with-annotations.json", bare::<ResourceTemplate>),
    ("2026-07-28/ResourceUpdatedNotificationParams/file-resource-updated.json", bare::<ResourceUriParams>),
    ("2026-07-28/Root/project-directory.json", bare::<Root>),
    ("2026-07-28/SamplingMessage/multiple-content-blocks.json", bare::<SamplingMessage>),
    ("2026-07-28/SamplingMessage/single-content-block.json", bare::<SamplingMessage>),
    ("2026-07-28/ServerCapabilities/completions-minimum-baseline-support.json", bare::<ServerCapabilities>),
    ("2026-07-28/ServerCapabilities/extensions-tasks.json", bare::<ServerCapabilities>),
    ("2026-07-28/ServerCapabilities/logging-minimum-baseline-support.json", bare::<ServerCapabilities>),
    ("2026-07-28/ServerCapabilities/ours-all-capabilities.json", bare::<ServerCapabilities>),
    ("2026-07-28/ServerCapabilities/prompts-list-changed-notifications.json", bare::<ServerCapabilities>),
    ("2026-07-28/ServerCapabilities/prompts-minimum-baseline-support.json", bare::<ServerCapabilities>),
    ("2026-07-28/ServerCapabilities/resources-all-notifications.json", bare::<ServerCapabilities>),
    ("2026-07-28/ServerCapabilities/resources-list-changed-notifications-only.json", bare::<ServerCapabilities>),
    ("2026-07-28/ServerCapabilities/resources-minimum-baseline-support.json", bare::<ServerCapabilities>),
    (
        "2026-07-28/ServerCapabilities/resources-subscription-to-individual-resource-updates-only.json",
        bare::<ServerCapabilities>,
    ),
    ("2026-07-28/ServerCapabilities/tools-list-changed-notifications.json", bare::<ServerCapabilities>),
    ("2026-07-28/ServerCapabilities/tools-minimum-baseline-support.json", bare::<ServerCapabilities>),
    ("2026-07-28/TextContent/ours-text-with-annotations-and-meta.json", bare::<ContentBlock>),
    ("2026-07-28/TextContent/text-content.json", bare::<ContentBlock>),
    ("2026-07-28/TextResourceContents/text-file-contents.json", bare::<ResourceContents>),
    ("2026-07-28/Tool/doc-tool-with-x-mcp-header.json", bare::<Tool>),
    ("2026-07-28/Tool/ours-tool-with-annotations-icons-and-meta.json", bare::<Tool>),
    ("2026-07-28/Tool/tool-with-array-output-schema.json", bare::<Tool>),
    ("2026-07-28/Tool/tool-with-composition-input-schema.json", bare::<Tool>),
    ("2026-07-28/Tool/with-default-2020-12-input-schema.json", bare::<Tool>),
    ("2026-07-28/Tool/with-explicit-draft-07-input-schema.json", bare::<Tool>),
    ("2026-07-28/Tool/with-no-parameters.json", bare::<Tool>),
    ("2026-07-28/Tool/with-output-schema-for-structured-content.json", bare::<Tool>),
    ("2026-07-28/ToolResultContent/get-weather-tool-result.json", bare::<SamplingBlock>),
    ("2026-07-28/ToolUseContent/get-weather-tool-use.json", bare::<SamplingBlock>),
    ("2026-07-28/UnsupportedProtocolVersionError/unsupported-version.json", error_response),
];

// ---------------------------------------------------------------------------------------------------------------
// The two table tests.

fn fixture_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/wire")
}

#[test]
fn fixtures_round_trip() {
    let root = fixture_root();
    let mut failures = Vec::new();
    for &(path, check) in FIXTURES {
        let text = match std::fs::read_to_string(root.join(path)) {
            Ok(text) => text,
            Err(e) => {
                failures.push(format!("{path}: cannot read: {e}"));
                continue;
            }
        };
        let fixture = Fixture { path, text: &text };
        if let Err(panic) = catch_unwind(AssertUnwindSafe(|| check(&fixture))) {
            let why = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("(non-string panic)");
            failures.push(format!("{path}: {why}"));
        }
    }
    assert!(failures.is_empty(), "{} of {} fixtures failed:\n{}", failures.len(), FIXTURES.len(), failures.join("\n"));
}

#[test]
fn every_fixture_file_is_in_the_table() {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeSet<String>) {
        for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("a readable directory entry").path();
            if path.is_dir() {
                walk(&path, root, out);
            } else {
                let rel = path.strip_prefix(root).expect("under the root");
                out.insert(rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/"));
            }
        }
    }
    let root = fixture_root();
    let mut on_disk = BTreeSet::new();
    walk(&root, &root, &mut on_disk);
    on_disk.remove("README.md");

    let mut listed = BTreeSet::new();
    for &(path, _) in FIXTURES {
        assert!(listed.insert(path.to_owned()), "{path} is listed twice");
    }
    let unlisted: Vec<_> = on_disk.difference(&listed).collect();
    assert!(unlisted.is_empty(), "fixture files no check covers (add them to FIXTURES): {unlisted:#?}");
    let missing: Vec<_> = listed.difference(&on_disk).collect();
    assert!(missing.is_empty(), "FIXTURES names files that do not exist: {missing:#?}");
}

// ---------------------------------------------------------------------------------------------------------------
// Checks.

/// A type on its own: the fixture is exactly its JSON.
fn bare<T: Serialize + DeserializeOwned>(f: &Fixture<'_>) {
    assert_same(&f.value(), &round_trip::<T>(f.text));
}

/// Request params: as `bare`, and the modern `_meta` envelope inside them must decode into our types too.
fn params<T: Serialize + DeserializeOwned>(f: &Fixture<'_>) {
    let value = f.value();
    check_request_meta(f, value.get("_meta"));
    assert_same(&value, &round_trip::<T>(f.text));
}

/// A modern `complete` result: our payload type plus the envelope the era adapter stamps.
fn result<T: Serialize + DeserializeOwned>(f: &Fixture<'_>) {
    let mut expected = f.value();
    assert_eq!(strip_result_envelope(f, &mut expected), Some(ResultType::Complete), "resultType");
    assert_same(&expected, &round_trip::<T>(f.text));
}

/// A modern `input_required` result.
fn input_required(f: &Fixture<'_>) {
    let mut expected = f.value();
    assert_eq!(strip_result_envelope(f, &mut expected), Some(ResultType::InputRequired), "resultType");
    let decoded: InputRequiredResult = serde_json::from_str(f.text).expect("an InputRequiredResult");
    assert!(
        decoded.input_requests.is_some() || decoded.request_state.is_some(),
        "at least one of inputRequests and requestState must be present"
    );
    assert_same(&expected, &to_value(&decoded));
}

/// A whole JSON-RPC request: classified by `Inbound::parse`, its params decoded into `P`, re-rendered as our
/// outbound envelope.
fn request<P: Serialize + DeserializeOwned>(f: &Fixture<'_>) {
    let value = f.value();
    let Inbound::Request(req) = parse_ok(f.text) else { panic!("not classified as a request") };
    check_request_meta(f, value["params"].get("_meta"));
    let params: Option<P> = req.params.map(|raw| decode(raw.get()));
    let out = OutboundMessage { jsonrpc: "2.0", id: Some(&req.id), method: &req.method, params };
    assert_same(&value, &to_value(&out));
}

fn notification<P: Serialize + DeserializeOwned>(f: &Fixture<'_>) {
    let Inbound::Notification(n) = parse_ok(f.text) else { panic!("not classified as a notification") };
    let params: Option<P> = n.params.map(|raw| decode(raw.get()));
    let out = OutboundMessage { jsonrpc: "2.0", id: None, method: &n.method, params };
    assert_same(&f.value(), &to_value(&out));
}

/// A whole JSON-RPC result response, re-rendered by `response_json`. Modern results must carry `resultType`
/// (stripped as in `result`); legacy results must not.
fn response<R: Serialize + DeserializeOwned>(f: &Fixture<'_>) {
    let mut expected = f.value();
    let Inbound::Response { id, outcome: Ok(raw) } = parse_ok(f.text) else { panic!("not a result response") };
    let result_type = strip_result_envelope(f, &mut expected["result"]);
    match f.era() {
        Era::Modern => assert_eq!(result_type, Some(ResultType::Complete), "resultType"),
        Era::Legacy => assert_eq!(result_type, None, "a legacy result has no resultType"),
    }
    let rendered = response_json(&id, decode::<R>(raw.get()));
    assert_same(&expected, &serde_json::from_str(&rendered).expect("response_json renders JSON"));
}

/// A whole JSON-RPC error response, re-rendered by `error_json`; the `data` of the errors whose shape the spec
/// fixes must decode into our types.
fn error_response(f: &Fixture<'_>) {
    let Inbound::Response { id, outcome: Err(error) } = parse_ok(f.text) else { panic!("not an error response") };
    let data = error.data.clone().unwrap_or(Value::Null);
    match error.code {
        codes::UNSUPPORTED_PROTOCOL_VERSION => {
            for v in data["supported"].as_array().expect("data.supported is an array") {
                let v = v.as_str().expect("versions are strings");
                assert!(ProtocolVersion::parse(v).is_some(), "supported version {v} is one we know");
            }
            assert!(data["requested"].is_string(), "data.requested is a string");
        }
        codes::MISSING_REQUIRED_CLIENT_CAPABILITY => {
            let caps = &data["requiredCapabilities"];
            assert_same(caps, &round_trip::<ClientCapabilities>(&caps.to_string()));
        }
        codes::URL_ELICITATION_REQUIRED => {
            for e in data["elicitations"].as_array().expect("data.elicitations is an array") {
                let params: ElicitParams = serde_json::from_value(e.clone()).expect("ElicitParams");
                assert_eq!(params.mode, Some(ElicitMode::Url), "only URL-mode elicitations go in -32042");
                assert_same(e, &to_value(&params));
            }
        }
        _ => {}
    }
    let rendered = error_json(Some(&id), &error);
    assert_same(&f.value(), &serde_json::from_str(&rendered).expect("error_json renders JSON"));
}

/// An input request: `{method, params}` (`InputRequest`). Modern servers embed exactly that in
/// `inputRequests`; legacy servers send the same object as a server-to-client JSON-RPC request, whose
/// `jsonrpc` and `id` the legacy era adapter adds, so those two are stripped (after checking them) before
/// comparing. The spec's own 2026 `ListRootsRequest` example carries an `id` although the 2026 type has none;
/// it is stripped the same way.
fn embedded_request(f: &Fixture<'_>) {
    let mut expected = f.value();
    let obj = expected.as_object_mut().expect("an object");
    if let Some(jsonrpc) = obj.remove("jsonrpc") {
        assert_eq!(f.era(), Era::Legacy, "only legacy servers send input requests as JSON-RPC requests");
        assert_eq!(jsonrpc, "2.0");
    }
    if let Some(id) = obj.remove("id") {
        serde_json::from_value::<RequestId>(id).expect("a valid request id");
    }
    let request: InputRequest = serde_json::from_value(expected.clone()).expect("an InputRequest");
    if let InputRequest::Elicit(p) = &request {
        // 2026 dropped `elicitationId` from URL mode; 2025-11-25 requires it there.
        let url_mode = p.mode == Some(ElicitMode::Url);
        assert_eq!(p.elicitation_id.is_some(), url_mode && f.era() == Era::Legacy, "elicitationId");
    }
    assert_same(&expected, &to_value(&request));
}

/// `InputResponses` stays raw in our model (only the asker knows each key's type), so each value is decoded
/// into the result type its shape names and must round-trip through it.
fn input_responses(f: &Fixture<'_>) {
    let responses: InputResponses = decode(f.text);
    assert!(!responses.is_empty());
    for (key, raw) in responses.iter() {
        let value: Value = serde_json::from_str(raw.get()).unwrap();
        let text = raw.get();
        let again = if value.get("action").is_some() {
            round_trip::<ElicitResult>(text)
        } else if value.get("roots").is_some() {
            round_trip::<ListRootsResult>(text)
        } else if value.get("model").is_some() {
            round_trip::<CreateMessageResult>(text)
        } else {
            panic!("input response `{key}` is none of ElicitResult, ListRootsResult, CreateMessageResult")
        };
        assert_same(&value, &again);
    }
    assert_same(&f.value(), &to_value(&responses));
}

// ---------------------------------------------------------------------------------------------------------------
// Helpers.

fn decode<T: DeserializeOwned>(text: &str) -> T {
    serde_json::from_str(text)
        .unwrap_or_else(|e| panic!("does not deserialize into {}: {e}", std::any::type_name::<T>()))
}

fn to_value<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or_else(|e| panic!("does not serialize: {e}"))
}

/// Deserializes from text (as the server does: `CallToolParams.arguments` is a `RawValue`, which only text can
/// fill), then serializes back to a JSON value.
fn round_trip<T: Serialize + DeserializeOwned>(text: &str) -> Value {
    to_value(&decode::<T>(text))
}

fn parse_ok(text: &str) -> Inbound {
    Inbound::parse(text).unwrap_or_else(|r| panic!("Inbound::parse rejected it: {:?}", r.error))
}

/// Removes what the modern era adapter stamps on every result around our payload types, after checking each is
/// well-formed, and returns the `resultType` found:
/// - `resultType` ("complete" / "input_required"), required on every modern result;
/// - `ttlMs` and `cacheScope`, the caching hints of list, read and discover results;
/// - `_meta["io.modelcontextprotocol/serverInfo"]` (and `_meta` itself if nothing else is in it).
///
/// Our types model none of these on purpose: one payload type serves both eras, and legacy results carry none.
fn strip_result_envelope(f: &Fixture<'_>, result: &mut Value) -> Option<ResultType> {
    let obj = result.as_object_mut().expect("a result is an object");
    let result_type = obj.remove("resultType").map(|t| serde_json::from_value::<ResultType>(t).expect("resultType"));
    let ttl = obj.remove("ttlMs");
    let scope = obj.remove("cacheScope");
    assert_eq!(ttl.is_some(), scope.is_some(), "ttlMs and cacheScope come together");
    if let (Some(ttl), Some(scope)) = (ttl, scope) {
        assert!(ttl.is_u64(), "ttlMs is a non-negative integer: {ttl}");
        serde_json::from_value::<CacheScope>(scope).expect("cacheScope is public or private");
    }
    if let Some(Value::Object(meta)) = obj.get_mut("_meta") {
        if let Some(info) = meta.remove(META_SERVER_INFO) {
            assert_same(&info, &round_trip::<Implementation>(&info.to_string()));
        }
        if meta.is_empty() {
            obj.remove("_meta");
        }
    }
    if f.era() == Era::Legacy {
        assert!(result_type.is_none(), "legacy results carry no resultType");
    }
    result_type
}

/// The modern per-request envelope, when present: each key must decode into our types.
fn check_request_meta(f: &Fixture<'_>, meta: Option<&Value>) {
    let Some(meta) = meta else { return };
    if let Some(v) = meta.get(META_PROTOCOL_VERSION) {
        let v = ProtocolVersion::parse(v.as_str().expect("a string")).expect("a known protocol version");
        assert_eq!(v.era(), f.era(), "the envelope's version is the fixture's era");
    }
    if let Some(caps) = meta.get(META_CLIENT_CAPABILITIES) {
        assert_same(caps, &round_trip::<ClientCapabilities>(&caps.to_string()));
    }
    if let Some(info) = meta.get(META_CLIENT_INFO) {
        assert_same(info, &round_trip::<Implementation>(&info.to_string()));
    }
    if let Some(token) = meta.get("progressToken") {
        serde_json::from_value::<ProgressToken>(token.clone()).expect("a progress token");
    }
}

/// Panics with the first JSON pointer where `actual` differs from `expected`.
fn assert_same(expected: &Value, actual: &Value) {
    if let Some(diff) = first_difference("", expected, actual) {
        panic!("round trip differs at {diff}\nexpected: {expected:#}\nactual:   {actual:#}");
    }
}

fn first_difference(at: &str, expected: &Value, actual: &Value) -> Option<String> {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (key, ev) in e {
                let here = format!("{at}/{key}");
                match a.get(key) {
                    Some(av) => {
                        if let Some(diff) = first_difference(&here, ev, av) {
                            return Some(diff);
                        }
                    }
                    None => return Some(format!("{here}: dropped (was {ev})")),
                }
            }
            a.iter().find(|(k, _)| !e.contains_key(*k)).map(|(k, v)| format!("{at}/{k}: added ({v})"))
        }
        (Value::Array(e), Value::Array(a)) if e.len() == a.len() => {
            e.iter().zip(a).enumerate().find_map(|(i, (ev, av))| first_difference(&format!("{at}/{i}"), ev, av))
        }
        (Value::Number(e), Value::Number(a)) => (!same_number(e, a)).then(|| format!("{at}: {e} became {a}")),
        _ => (expected != actual).then(|| format!("{at}: {expected} became {actual}")),
    }
}

/// JSON has one number type. Our `f64` fields (progress, priority, temperature) print `50.0` where a fixture
/// wrote `50`; every JSON reader takes both as the same number, so integers compare exactly and anything
/// involving a float compares by value.
fn same_number(e: &serde_json::Number, a: &serde_json::Number) -> bool {
    match (e.as_i64(), a.as_i64(), e.as_u64(), a.as_u64()) {
        (Some(x), Some(y), _, _) => x == y,
        (_, _, Some(x), Some(y)) => x == y,
        _ => e.as_f64() == a.as_f64(),
    }
}

// ---------------------------------------------------------------------------------------------------------------
// `Inbound::parse`: classification and rejections.

fn rejected(text: &str) -> (Option<RequestId>, i32) {
    match Inbound::parse(text) {
        Ok(inbound) => panic!("accepted {text}: {inbound:?}"),
        Err(r) => (r.id, r.error.code),
    }
}

#[test]
fn parse_classifies_requests() {
    let Inbound::Request(r) =
        parse_ok(r#"{"jsonrpc":"2.0","id":"a-1","method":"tools/call","params":{"name":"x","arguments":{}}}"#)
    else {
        panic!("not a request")
    };
    assert_eq!(r.id, RequestId::from("a-1"));
    assert_eq!(r.method, "tools/call");
    let params: Value = serde_json::from_str(r.params.expect("params").get()).expect("JSON");
    assert_eq!(params, json!({"name": "x", "arguments": {}}));

    let Inbound::Request(r) = parse_ok(r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#) else { panic!("not a request") };
    assert_eq!(r.id, RequestId::Number(7));
    assert!(r.params.is_none());

    // JSON-RPC allows by-position params; the method's own params type rejects them later with -32602.
    let Inbound::Request(r) = parse_ok(r#"{"jsonrpc":"2.0","id":0,"method":"m","params":[1,2]}"#) else {
        panic!("not a request")
    };
    assert_eq!(r.params.expect("params").get(), "[1,2]");

    // Negative and zero ids are ids; `params: null` is read as absent (as the TS and Python SDKs do).
    let Inbound::Request(r) = parse_ok(r#"{"jsonrpc":"2.0","id":-1,"method":"m","params":null}"#) else {
        panic!("not a request")
    };
    assert_eq!(r.id, RequestId::Number(-1));
    assert!(r.params.is_none());

    // Whitespace and key order do not matter.
    let Inbound::Request(r) = parse_ok("\n { \"method\" : \"m\" , \"id\" : \"x\" , \"jsonrpc\" : \"2.0\" } \n") else {
        panic!("not a request")
    };
    assert_eq!(r.id, RequestId::from("x"));
}

#[test]
fn parse_classifies_notifications() {
    let Inbound::Notification(n) = parse_ok(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#) else {
        panic!("not a notification")
    };
    assert_eq!(n.method, "notifications/initialized");
    assert!(n.params.is_none());

    let Inbound::Notification(n) =
        parse_ok(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#)
    else {
        panic!("not a notification")
    };
    let params: CancelledParams = decode(n.params.expect("params").get());
    assert_eq!(params.request_id, Some(RequestId::Number(3)));
}

#[test]
fn parse_classifies_responses() {
    let Inbound::Response { id, outcome: Ok(result) } = parse_ok(r#"{"jsonrpc":"2.0","id":"s-1","result":{}}"#) else {
        panic!("not a result")
    };
    assert_eq!(id, RequestId::from("s-1"));
    assert_eq!(result.get(), "{}");

    let Inbound::Response { id, outcome: Err(e) } =
        parse_ok(r#"{"jsonrpc":"2.0","id":4,"error":{"code":-1,"message":"User rejected sampling request"}}"#)
    else {
        panic!("not an error")
    };
    assert_eq!(id, RequestId::Number(4));
    assert_eq!((e.code, e.message.as_str(), e.data), (-1, "User rejected sampling request", None));
}

#[test]
fn parse_rejects_text_that_is_not_json_with_parse_error() {
    for text in
        ["", "   ", "{", "not json", r#"{"jsonrpc":"2.0","id":1,"method":"m",}"#, r#"{"jsonrpc":"2.0"} trailing"#]
    {
        assert_eq!(rejected(text), (None, codes::PARSE_ERROR), "{text:?}");
    }
}

#[test]
fn parse_rejects_json_that_is_not_a_message_with_invalid_request() {
    let cases = [
        // Not an object at all.
        ("42", None),
        (r#""a string""#, None),
        ("null", None),
        ("[]", None),
        // A positional array that lines up with the envelope's fields is still not a JSON-RPC object.
        (r#"["2.0", 1, "tools/list", {}, null, null]"#, None),
        // Batches are not part of any revision fastmcp serves as one message.
        (r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, None),
        // Wrong or missing protocol version; the id is still echoed.
        (r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#, Some(RequestId::Number(1))),
        (r#"{"jsonrpc":2.0,"id":1,"method":"ping"}"#, Some(RequestId::Number(1))),
        (r#"{"id":"x","method":"ping"}"#, Some(RequestId::from("x"))),
        // Ids: never null, never fractional, never booleans or objects.
        (r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, None),
        (r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#, None),
        (r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#, None),
        (r#"{"jsonrpc":"2.0","id":{"n":1},"method":"ping"}"#, None),
        // Method must be a string.
        (r#"{"jsonrpc":"2.0","id":2,"method":5}"#, Some(RequestId::Number(2))),
        (r#"{"jsonrpc":"2.0","method":null}"#, None),
        // Params must be structured: no scalars.
        (r#"{"jsonrpc":"2.0","id":3,"method":"m","params":5}"#, Some(RequestId::Number(3))),
        (r#"{"jsonrpc":"2.0","id":3,"method":"m","params":"x"}"#, Some(RequestId::Number(3))),
        (r#"{"jsonrpc":"2.0","method":"m","params":true}"#, None),
        // Neither a method nor a response.
        (r#"{"jsonrpc":"2.0"}"#, None),
        (r#"{"jsonrpc":"2.0","id":4}"#, Some(RequestId::Number(4))),
        // A response carries exactly one of result and error, and error is a proper error object.
        (r#"{"jsonrpc":"2.0","id":5,"result":{},"error":{"code":1,"message":"m"}}"#, Some(RequestId::Number(5))),
        (r#"{"jsonrpc":"2.0","id":6,"error":{"message":"no code"}}"#, Some(RequestId::Number(6))),
        (r#"{"jsonrpc":"2.0","id":6,"error":"text"}"#, Some(RequestId::Number(6))),
        (r#"{"jsonrpc":"2.0","result":{}}"#, None),
    ];
    for (text, id) in cases {
        assert_eq!(rejected(text), (id, codes::INVALID_REQUEST), "{text}");
    }
}

#[test]
fn rejections_render_as_json_rpc_errors() {
    let err = Inbound::parse("{").expect_err("not JSON");
    let rendered: Value = serde_json::from_str(&error_json(err.id.as_ref(), &err.error)).expect("JSON");
    assert_eq!(rendered["jsonrpc"], "2.0");
    assert_eq!(rendered["id"], Value::Null, "an unreadable id is answered with null");
    assert_eq!(rendered["error"]["code"], codes::PARSE_ERROR);

    let err = Inbound::parse(r#"{"jsonrpc":"1.0","id":"q","method":"ping"}"#).expect_err("wrong version");
    let rendered: Value = serde_json::from_str(&error_json(err.id.as_ref(), &err.error)).expect("JSON");
    assert_eq!(rendered["id"], "q");
    assert_eq!(rendered["error"]["code"], codes::INVALID_REQUEST);
}

// ---------------------------------------------------------------------------------------------------------------
// `ProtocolVersion`.

#[test]
fn protocol_version_parse() {
    let known = [
        ("2024-11-05", ProtocolVersion::V2024_11_05, Era::Legacy),
        ("2025-03-26", ProtocolVersion::V2025_03_26, Era::Legacy),
        ("2025-06-18", ProtocolVersion::V2025_06_18, Era::Legacy),
        ("2025-11-25", ProtocolVersion::V2025_11_25, Era::Legacy),
        ("2026-07-28", ProtocolVersion::V2026_07_28, Era::Modern),
    ];
    for (text, version, era) in known {
        assert_eq!(ProtocolVersion::parse(text), Some(version), "{text}");
        assert_eq!(version.as_str(), text);
        assert_eq!(version.to_string(), text);
        assert_eq!(version.era(), era, "{text}");
        assert_eq!(serde_json::to_value(version).expect("serializes"), json!(text));
    }
    assert_eq!(ProtocolVersion::ALL.len(), known.len());
    assert!(ProtocolVersion::ALL.windows(2).all(|w| w[0] < w[1]), "ALL is oldest first");
    assert_eq!(ProtocolVersion::LATEST, ProtocolVersion::V2026_07_28);
    assert_eq!(ProtocolVersion::LATEST_LEGACY.era(), Era::Legacy);
    assert!(ProtocolVersion::MODERN.iter().all(|v| v.era() == Era::Modern));

    // Exact strings only: the spec compares versions as opaque strings.
    for text in
        ["", "draft", "1.0.0", "1900-01-01", "2025-11-24", "2026-07-28 ", " 2026-07-28", "2026-7-28", "2026/07/28"]
    {
        assert_eq!(ProtocolVersion::parse(text), None, "{text:?}");
    }
}

/// Spot checks that the fixtures decode into the variants they should, beyond round-tripping.
#[test]
fn fixtures_decode_into_the_expected_variants() {
    let read = |path: &str| std::fs::read_to_string(fixture_root().join(path)).expect(path);

    let r: InputRequiredResult = decode(&read("2026-07-28/InputRequiredResult/ours-url-elicitation-and-roots.json"));
    let requests = r.input_requests.expect("inputRequests");
    assert!(matches!(&requests["connect"], InputRequest::Elicit(p) if p.mode == Some(ElicitMode::Url)));
    assert!(matches!(requests["workspace"], InputRequest::ListRoots));

    let t: SamplingBlock = decode(&read("2026-07-28/ToolUseContent/get-weather-tool-use.json"));
    assert!(matches!(t, SamplingBlock::Tool(_)), "tool_use is a tool block, not content");
    let t: SamplingBlock = decode(&read("2026-07-28/ToolResultContent/get-weather-tool-result.json"));
    assert!(matches!(t, SamplingBlock::Tool(_)), "tool_result is a tool block, not content");

    let c: ResourceContents = decode(&read("2026-07-28/BlobResourceContents/image-file-contents.json"));
    assert!(matches!(c, ResourceContents::Blob(_)));
    let c: ResourceContents = decode(&read("2026-07-28/TextResourceContents/text-file-contents.json"));
    assert!(matches!(c, ResourceContents::Text(_)));

    let caps: ClientCapabilities = decode(&read("2026-07-28/ClientCapabilities/elicitation-form-only-implicit.json"));
    let elicitation = caps.elicitation.expect("elicitation");
    assert!(elicitation.supports_form() && !elicitation.supports_url(), "`{{}}` means form mode only");

    let init: Value = decode(&read("2025-11-25/InitializeRequest/doc-initialize-request.json"));
    let p: InitializeParams = serde_json::from_value(init["params"].clone()).expect("InitializeParams");
    assert_eq!(ProtocolVersion::parse(&p.protocol_version), Some(ProtocolVersion::V2025_11_25));
    assert_eq!(p.capabilities.roots.and_then(|r| r.list_changed), Some(true));
}
