//! The modern era (2026-07-28): every request carries its own `_meta` envelope and is served statelessly.

use super::{Link, Status};
use crate::context::{Context, Extras, Scope};
use crate::protocol::Era;
use crate::protocol::InputRequiredResult;
use crate::protocol::{
    ClientCapabilities, DiscoverResult, ErrorObject, Implementation, JsonObject, LoggingLevel,
    META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, META_PROTOCOL_VERSION, META_SERVER_INFO,
    ProtocolVersion, Request, RequestId, codes, error_json, response_json,
};
use crate::protocol::{META_PROGRESS_TOKEN, ProgressToken};
use crate::server::Server;
use crate::server::dispatch::{self, CarryRef, Outcome, Reply, Round, Suspended};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// The long-lived request whose stream carries list-change notifications.
pub(crate) const LISTEN: &str = "subscriptions/listen";

/// Methods of the legacy era that 2026-07-28 removed: `-32601` when called with a modern envelope.
const REMOVED: [&str; 5] = ["initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"];

/// Serves one modern request; also says which HTTP status the spec gives its answer.
pub(crate) async fn serve(server: &Server, link: Link<'_>, req: Request, meta: JsonObject) -> (String, Status) {
    let (scope, log_level, progress_token) = match envelope(&req.id, meta) {
        Ok(envelope) => envelope,
        // Envelope and version errors are 400 on HTTP.
        Err(e) => return (error_json(Some(&req.id), &e), Status::BadRequest),
    };
    let method = req.method.as_str();
    let outcome = if method == "server/discover" {
        discover(server)
    } else if method == LISTEN {
        super::listen::listen(server, &req.id, req.params.as_deref(), link.notify, link.cancel).await
    } else if crate::tasks::serves(method) {
        let ctx = Context::with(scope, Extras { cancel: Some(link.cancel), ..Extras::default() });
        crate::tasks::serve(server, &ctx, method, req.params.as_deref())
    } else if dispatch::serves(method) {
        let extras = Extras {
            cancel: Some(link.cancel),
            notify: link.notify.cloned(),
            log_level,
            progress_token,
            server: Some(server.clone()),
            ..Extras::default()
        };
        let ctx = Context::with(scope, extras);
        let params = req.params.as_deref();
        let mut outcome = dispatch::dispatch(server, method, params, ctx.clone(), Round::Wire).await;
        if let Outcome::Suspend(suspended) = &outcome
            && let Some(resume) = answered_upfront(params, suspended)
        {
            outcome = dispatch::dispatch(server, method, params, ctx.clone(), resume).await;
        }
        match outcome {
            Outcome::Suspend(suspended) => input_required(server, &ctx, *suspended),
            Outcome::Task(start) => crate::tasks::create(server, &ctx, *start),
            other => other,
        }
    } else if REMOVED.contains(&method) {
        let e = ErrorObject::new(
            codes::METHOD_NOT_FOUND,
            format!("Method not found: {method} was removed in protocol revision 2026-07-28"),
        );
        return (error_json(Some(&req.id), &e), Status::NotFound);
    } else {
        return (error_json(Some(&req.id), &ErrorObject::method_not_found(method)), Status::NotFound);
    };
    // A missing client capability is 400 on HTTP; other handler errors stay in-band.
    let status = match &outcome {
        Outcome::Error(e) if e.code() == Some(codes::MISSING_REQUIRED_CLIENT_CAPABILITY) => Status::BadRequest,
        _ => Status::Ok,
    };
    (finish(server, &req.id, outcome), status)
}

/// A first round whose request already answers every input request it makes (`inputResponses` without
/// `requestState`): nothing came from the client but the arguments, so the round's own locals are as good as
/// sealed ones, and it resumes at once instead of asking again. Only the first suspension: later rounds need
/// their state.
fn answered_upfront(params: Option<&serde_json::value::RawValue>, suspended: &Suspended) -> Option<Round> {
    #[derive(serde::Deserialize)]
    struct Retry {
        #[serde(rename = "inputResponses")]
        input_responses: Option<crate::protocol::InputResponses>,
        #[serde(rename = "requestState")]
        request_state: Option<serde::de::IgnoredAny>,
    }
    let suspension = &suspended.suspension;
    if suspension.requests.is_empty() {
        return None;
    }
    let raw = params?.get();
    if !raw.contains("inputResponses") {
        return None;
    }
    let retry: Retry = serde_json::from_str(raw).ok()?;
    let responses = retry.input_responses.filter(|_| retry.request_state.is_none())?;
    suspension.requests.keys().all(|key| responses.contains_key(key)).then(|| {
        Round::Resume(crate::flow::Resume { step: suspension.step, locals: suspension.locals.clone(), responses })
    })
}

/// Validates the per-request envelope: a supported version (`-32022`), then the required keys (`-32602`).
/// Returns the scope, the log level the client asked for (none: no logs) and the progress token.
fn envelope(
    id: &RequestId,
    mut meta: JsonObject,
) -> Result<(Scope, Option<LoggingLevel>, Option<ProgressToken>), ErrorObject> {
    let mut missing = Vec::new();
    let protocol_version = match meta.remove(META_PROTOCOL_VERSION) {
        None => {
            missing.push(META_PROTOCOL_VERSION);
            ProtocolVersion::LATEST
        }
        Some(Value::String(v)) => match ProtocolVersion::parse(&v).filter(|v| v.era() == Era::Modern) {
            Some(v) => v,
            None => return Err(unsupported_version(&v)),
        },
        Some(other) => return Err(unsupported_version(&other.to_string())),
    };
    let client_capabilities = match meta.remove(META_CLIENT_CAPABILITIES) {
        None => {
            missing.push(META_CLIENT_CAPABILITIES);
            ClientCapabilities::default()
        }
        Some(v) => meta_value::<ClientCapabilities>(META_CLIENT_CAPABILITIES, v)?,
    };
    if !missing.is_empty() {
        return Err(ErrorObject::invalid_params(format!("Missing required _meta keys: {}", missing.join(", ")))
            .with_data(json!({ "missing": missing })));
    }
    let client_info =
        meta.remove(META_CLIENT_INFO).map(|v| meta_value::<Implementation>(META_CLIENT_INFO, v)).transpose()?;
    let log_level = meta.remove(META_LOG_LEVEL).map(|v| meta_value::<LoggingLevel>(META_LOG_LEVEL, v)).transpose()?;
    let progress_token =
        meta.remove(META_PROGRESS_TOKEN).map(|v| meta_value::<ProgressToken>(META_PROGRESS_TOKEN, v)).transpose()?;
    let scope = Scope { request_id: id.clone(), protocol_version, client_info, client_capabilities };
    Ok((scope, log_level, progress_token))
}

fn meta_value<T: DeserializeOwned>(key: &str, value: Value) -> Result<T, ErrorObject> {
    serde_json::from_value(value).map_err(|e| ErrorObject::invalid_params(format!("Invalid _meta key {key}: {e}")))
}

fn unsupported_version(requested: &str) -> ErrorObject {
    let supported: Vec<&str> = ProtocolVersion::MODERN.iter().map(|v| v.as_str()).collect();
    ErrorObject::new(codes::UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version")
        .with_data(json!({ "supported": supported, "requested": requested }))
}

/// A suspension on the modern wire: the round ends with `input_required`, its input requests, and the
/// step and locals sealed into `requestState`. An input request the client's declared capabilities do not
/// cover is never embedded (`-32021`).
fn input_required(server: &Server, ctx: &Context, suspended: Suspended) -> Outcome {
    let Suspended { suspension, flow } = suspended;
    if let Some(e) = super::uncovered_request(ctx.client_capabilities(), &suspension.requests, "the request's") {
        return Outcome::Error(e);
    }
    let codec = match server.state_codec() {
        Ok(codec) => codec,
        Err(e) => return Outcome::Error(e),
    };
    let carry = CarryRef { locals: &suspension.locals, asked: &suspension.requests };
    match codec.seal(&flow.binding(), suspension.step, &carry) {
        Ok(token) => Outcome::InputRequired(InputRequiredResult {
            input_requests: (!suspension.requests.is_empty()).then_some(suspension.requests),
            request_state: Some(token),
        }),
        Err(e) => Outcome::Error(e.into()),
    }
}

/// `server/discover`: what the server supports. Answered in either era, so probing clients find us.
pub(crate) fn discover(server: &Server) -> Outcome {
    let inner = &server.inner;
    // `resources.subscribe` means `resourceSubscriptions` on `subscriptions/listen` here, and
    // `resources/subscribe` on legacy sessions: both are served.
    let capabilities = inner.capabilities.clone();
    let result = DiscoverResult {
        supported_versions: ProtocolVersion::MODERN.iter().map(|v| v.as_str().to_owned()).collect(),
        capabilities,
        instructions: inner.instructions.clone(),
    };
    match Reply::new(result, true) {
        Ok(reply) => Outcome::Complete(reply),
        Err(e) => Outcome::Error(e),
    }
}

/// Renders an outcome on the modern wire: `resultType` and `serverInfo` on every result, cache hints where the
/// spec requires them, and the modern codes for errors.
pub(crate) fn finish(server: &Server, id: &RequestId, outcome: Outcome) -> String {
    let (mut reply, result_type) = match outcome {
        Outcome::Complete(reply) => (reply, "complete"),
        Outcome::InputRequired(input) => match Reply::new(input, false) {
            Ok(reply) => (reply, "input_required"),
            Err(e) => return error_json(Some(id), &e.to_error_object(Era::Modern)),
        },
        Outcome::Created(reply) => (reply, "task"),
        Outcome::Error(e) => return error_json(Some(id), &e.to_error_object(Era::Modern)),
        Outcome::Suspend(_) | Outcome::Task(_) => {
            let e = ErrorObject::internal("a suspended round reached the wire unsealed");
            return error_json(Some(id), &e);
        }
    };
    let inner = &server.inner;
    reply.fields.insert("resultType".into(), result_type.into());
    if reply.cacheable && result_type == "complete" {
        let ttl = u64::try_from(inner.options.cache_ttl.as_millis()).unwrap_or(u64::MAX);
        reply.fields.insert("ttlMs".into(), ttl.into());
        reply.fields.insert("cacheScope".into(), json!(inner.options.cache_scope));
    }
    let meta = reply.fields.entry("_meta").or_insert_with(|| Value::Object(JsonObject::new()));
    if let Value::Object(meta) = meta {
        meta.insert(META_SERVER_INFO.into(), inner.server_info_meta.clone());
    }
    response_json(id, &reply)
}
