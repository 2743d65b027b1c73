//! The middleware fastmcp ships: timing logs, a rate limit per caller, a response size limit, error
//! normalisation, and a cache that honours the results' own hints.

use super::{BoxFuture, Middleware, Next, Request, Response};
use crate::error::Error;
use crate::protocol::{CacheHint, CacheScope, CallToolResult, ErrorObject, JsonObject, codes};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Logs each round through `tracing` (target `fastmcp::middleware`): `→ method name` at debug when it
/// starts, `← method name (N ms)` at info when it answers, `… method name (N ms): waiting for input` at
/// info when it suspends, `✗ method name (N ms): why` at warn when it fails.
#[derive(Debug, Clone, Copy, Default)]
pub struct Logging;

impl Middleware for Logging {
    fn on_request<'a>(&'a self, request: Request<'a>, next: Next<'a>) -> BoxFuture<'a, Response> {
        Box::pin(async move {
            let (method, name) = (request.method, request.name.unwrap_or_default().to_owned());
            tracing::debug!(target: "fastmcp::middleware", "→ {method} {name}");
            let started = Instant::now();
            let response = next.run(request).await;
            let ms = started.elapsed().as_millis();
            match response.as_error() {
                Some(e) => tracing::warn!(target: "fastmcp::middleware", "✗ {method} {name} ({ms} ms): {e}"),
                None if response.is_suspended() => {
                    tracing::info!(target: "fastmcp::middleware", "… {method} {name} ({ms} ms): waiting for input")
                }
                None => tracing::info!(target: "fastmcp::middleware", "← {method} {name} ({ms} ms)"),
            }
            response
        })
    }
}

/// Callers beyond this many keys are not tracked one by one: the oldest windows are forgotten first.
const MAX_TRACKED: usize = 10_000;

/// At most `limit` rounds per `window` for each caller — its token's principal on a protected server,
/// every unauthenticated caller together otherwise — then `-32600` "Rate limit exceeded" with
/// `data.retryAfterMs`, until its window ends. Fixed windows, counted per round.
pub struct RateLimit {
    limit: u32,
    window: Duration,
    windows: Mutex<HashMap<String, (Instant, u32)>>,
}

impl RateLimit {
    /// `limit` rounds (at least 1) per caller in each `window` (at least 1 ms).
    pub fn per_principal(limit: u32, window: Duration) -> Self {
        Self { limit: limit.max(1), window: window.max(Duration::from_millis(1)), windows: Mutex::default() }
    }

    /// Counts one round for `key`: `Err(wait)` when its window is full.
    fn admit(&self, key: String, now: Instant) -> Result<(), Duration> {
        let mut windows = self.windows.lock().unwrap_or_else(|p| p.into_inner());
        if windows.len() >= MAX_TRACKED && !windows.contains_key(&key) {
            windows.retain(|_, (start, _)| now.duration_since(*start) < self.window);
            if windows.len() >= MAX_TRACKED {
                // Still full of live windows: the oldest goes.
                let oldest = windows.iter().min_by_key(|(_, (start, _))| *start).map(|(k, _)| k.clone());
                windows.remove(&oldest.unwrap_or_default());
            }
        }
        let (start, count) = windows.entry(key).or_insert((now, 0));
        if now.duration_since(*start) >= self.window {
            (*start, *count) = (now, 0);
        }
        if *count >= self.limit {
            return Err(self.window - now.duration_since(*start));
        }
        *count += 1;
        Ok(())
    }
}

impl Middleware for RateLimit {
    fn on_request<'a>(&'a self, request: Request<'a>, next: Next<'a>) -> BoxFuture<'a, Response> {
        let key = caller_key(&request);
        match self.admit(key, Instant::now()) {
            Ok(()) => next.run(request),
            Err(wait) => {
                let data = json!({ "retryAfterMs": u64::try_from(wait.as_millis()).unwrap_or(u64::MAX) });
                let error = ErrorObject::new(codes::INVALID_REQUEST, "Rate limit exceeded").with_data(data);
                Box::pin(async move { Response::error(Error::rpc(error)) })
            }
        }
    }
}

/// Whose requests these are: the token's principal, or the one anonymous caller.
fn caller_key(request: &Request<'_>) -> String {
    request.context.auth().map_or_else(String::new, |token| token.principal().as_str().to_owned())
}

/// Answers whose JSON is larger than `max_bytes` become `-32603` "Response size (N bytes) exceeds limit (M
/// bytes)".
#[derive(Debug, Clone, Copy)]
pub struct SizeLimit {
    /// The largest complete result let through, in bytes of JSON.
    pub max_bytes: usize,
}

impl Middleware for SizeLimit {
    fn on_request<'a>(&'a self, request: Request<'a>, next: Next<'a>) -> BoxFuture<'a, Response> {
        Box::pin(async move {
            let response = next.run(request).await;
            match response.json_len() {
                Some(len) if len > self.max_bytes => Response::error(Error::internal(format!(
                    "Response size ({len} bytes) exceeds limit ({} bytes)",
                    self.max_bytes
                ))),
                _ => response,
            }
        })
    }
}

/// Errors as clients expect them: a tool's becomes an `isError` result the model can read; another
/// method's keeps a code clients act on — JSON-RPC's own, and MCP's (resource not found, header mismatch,
/// missing capability, unsupported version, URL elicitation required) — and any other becomes `-32603`
/// with its message.
#[derive(Debug, Clone, Copy, Default)]
pub struct NormalizeErrors;

impl Middleware for NormalizeErrors {
    fn on_request<'a>(&'a self, request: Request<'a>, next: Next<'a>) -> BoxFuture<'a, Response> {
        Box::pin(async move {
            let tool = request.method == "tools/call";
            let response = next.run(request).await;
            let Some(error) = response.as_error() else { return response };
            if tool {
                return Response::result(CallToolResult::error(error.to_string()));
            }
            const MCP: [i32; 6] = [
                codes::PARSE_ERROR,
                codes::RESOURCE_NOT_FOUND,
                codes::HEADER_MISMATCH,
                codes::MISSING_REQUIRED_CLIENT_CAPABILITY,
                codes::UNSUPPORTED_PROTOCOL_VERSION,
                codes::URL_ELICITATION_REQUIRED,
            ];
            match error.code() {
                Some(code) if (codes::INTERNAL_ERROR..=codes::INVALID_REQUEST).contains(&code) => response,
                Some(code) if MCP.contains(&code) => response,
                // Resource not found has an era-dependent code and a `data.uri` clients read.
                None if error.to_string().starts_with("Resource not found: ") => response,
                _ => Response::error(Error::internal(error.to_string())),
            }
        })
    }
}

/// Keeps complete results for as long as their cache hints allow and answers repeats from memory: lists
/// and first-round reads (the results that carry hints), never a retry or an `input_required` round. A
/// `private` result is kept per caller (its token's principal), a `public` one for all. What the server
/// announces (a list changed, a resource updated) makes every kept answer stale, as it does a client's
/// cache. At most `max_entries` are kept; the soonest to expire go first.
pub struct Caching {
    max_entries: usize,
    entries: Mutex<HashMap<String, (Instant, JsonObject, CacheHint)>>,
}

impl Caching {
    /// A cache of at most `max_entries` answers (at least 1).
    pub fn new(max_entries: usize) -> Self {
        Self { max_entries: max_entries.max(1), entries: Mutex::default() }
    }

    fn key(request: &Request<'_>, scope: CacheScope) -> String {
        let caller = match scope {
            CacheScope::Public => String::new(),
            CacheScope::Private => caller_key(request),
        };
        let arguments = request.arguments().map(|a| a.to_string()).unwrap_or_default();
        let cursor = request.cursor.unwrap_or_default();
        let generation = request.context.server().map(|server| server.generation());
        json!([request.method, request.name, cursor, arguments, caller, generation]).to_string()
    }

    /// The answer kept under one of `keys` (a caller's own first: it wins over a shared one).
    fn lookup(&self, keys: &[String], now: Instant) -> Option<Response> {
        let entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        keys.iter().find_map(|key| {
            let (expires, fields, hint) = entries.get(key).filter(|(at, ..)| *at > now)?;
            let left = CacheHint { ttl: expires.duration_since(now), scope: hint.scope };
            Some(Response::cached(fields.clone(), left))
        })
    }

    fn keep(&self, key: String, fields: JsonObject, hint: CacheHint, now: Instant) {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries.retain(|_, (at, ..)| *at > now);
        if entries.len() >= self.max_entries {
            let soonest = entries.iter().min_by_key(|(_, (at, ..))| *at).map(|(k, _)| k.clone());
            entries.remove(&soonest.unwrap_or_default());
        }
        entries.insert(key, (now + hint.ttl, fields, hint));
    }
}

impl Middleware for Caching {
    fn on_request<'a>(&'a self, request: Request<'a>, next: Next<'a>) -> BoxFuture<'a, Response> {
        Box::pin(async move {
            if request.retry {
                return next.run(request).await;
            }
            // Made once, before the request moves on: looked up, then kept under.
            let keys = [CacheScope::Private, CacheScope::Public].map(|scope| Self::key(&request, scope));
            if let Some(hit) = self.lookup(&keys, Instant::now()) {
                return hit;
            }
            let response = next.run(request).await;
            if let Some((fields, Some(hint))) = response.complete_parts()
                && hint.ttl > Duration::ZERO
            {
                let [private, public] = keys;
                let key = if hint.scope == CacheScope::Public { public } else { private };
                self.keep(key, fields, hint, Instant::now());
            }
            response
        })
    }
}

impl Response {
    /// An answer kept by [`Caching`], its hint the time it has left.
    fn cached(fields: JsonObject, hint: CacheHint) -> Self {
        let mut response = Response::result(Value::Object(fields));
        if let super::Outcome::Complete(reply) = &mut response.outcome {
            reply.cache = Some(hint);
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rate_limit_counts_per_key_and_resets_with_the_window() {
        let limit = RateLimit::per_principal(2, Duration::from_secs(10));
        let t0 = Instant::now();
        assert!(limit.admit("a".into(), t0).is_ok());
        assert!(limit.admit("a".into(), t0).is_ok());
        let wait = limit.admit("a".into(), t0 + Duration::from_secs(4)).unwrap_err();
        assert_eq!(wait, Duration::from_secs(6), "what is left of the window");
        assert!(limit.admit("b".into(), t0).is_ok(), "another caller has its own window");
        assert!(limit.admit("a".into(), t0 + Duration::from_secs(10)).is_ok(), "a new window");
    }
}
