//! What the fuzz targets in `fuzz/` call (feature `fuzzing`): the crate-internal parsers that read attacker
//! bytes, reachable from outside. Each item re-exports or thinly wraps one internal function; none decides
//! anything itself, so a target exercises exactly the code the server runs. Not public API.

use crate::era::{self, Engine, Message, SessionUse, Status};
use crate::protocol::{JsonObject, Rejected, RequestId};
use crate::server::Server;
use std::sync::Arc;
use tokio::io::AsyncRead;

pub use crate::flow::form::{Bound, Choice, ElicitChoice, FieldOptions, FormField, Format, select_from_value};
pub use crate::protocol::Inbound;
pub use crate::protocol::param_headers::{decode as decode_param_header, encode as encode_param_header};
pub use crate::state::{ArgumentsDigest, Binding, Method, RequestStateConfig, StateCodec, StateError, StateKeys};

/// Stdio framing: every line `reader` yields under the bound `max`, `None` for one that was too long.
pub async fn read_lines<R: AsyncRead + Unpin>(reader: R, max: usize) -> std::io::Result<Vec<Option<Vec<u8>>>> {
    let mut lines = crate::transport::LineReader::new(reader, max);
    let mut out = Vec::new();
    while let Some(line) = lines.next().await? {
        out.push(match line {
            crate::transport::Line::Text(text) => Some(text.to_vec()),
            crate::transport::Line::TooLong => None,
        });
    }
    Ok(out)
}

/// A resource URI template, as the registry parses and matches it.
#[derive(Debug, Clone)]
pub struct UriTemplate(crate::server::UriTemplate);

impl UriTemplate {
    pub fn parse(template: &str) -> Result<Self, String> {
        crate::server::UriTemplate::parse(template).map(Self)
    }

    pub fn match_uri(&self, uri: &str) -> Option<std::collections::BTreeMap<String, String>> {
        self.0.match_uri(uri)
    }
}

/// HTTP headers as a transport hands them to the era adapters: lowercase names, raw values.
#[derive(Debug, Default, Clone)]
pub struct HeaderList(pub Vec<(String, Vec<u8>)>);

impl era::Headers for HeaderList {
    fn first(&self, name: &str) -> (Option<&[u8]>, bool) {
        let mut values = self.0.iter().filter(|(n, _)| n == name).map(|(_, v)| v.as_slice());
        (values.next(), values.next().is_some())
    }
}

/// The HTTP status an answer goes with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnswerStatus {
    Ok,
    BadRequest,
    NotFound,
    Refused,
    TooMany,
}

/// What classification and, for a modern request, admission made of one message.
#[derive(Debug)]
pub enum Admission {
    /// Not a JSON-RPC message (`-32700` / `-32600`).
    Rejected(Rejected),
    Notification,
    Response,
    /// A request the legacy adapter serves (`probe`: `server/discover` without the envelope).
    Legacy {
        probe: bool,
        method: String,
    },
    /// A modern request that passed every check, with the `_meta` it was classified with.
    Admitted {
        id: RequestId,
        method: String,
        meta: JsonObject,
    },
    /// A modern request refused before anything ran: the error response's text and its status.
    Refused {
        json: String,
        status: AnswerStatus,
        meta: JsonObject,
    },
}

/// One endpoint's era adapters over a built server.
pub struct Endpoint(Arc<Engine>);

impl Endpoint {
    pub fn new(server: Server) -> Self {
        Self(Engine::new(server))
    }

    /// Classifies `text` (with these HTTP headers, or none as on stdio) and admits it if it is modern.
    pub fn admit(&self, text: &str, headers: Option<&HeaderList>) -> Admission {
        let headers = headers.map(|h| h as &dyn era::Headers);
        let req = match era::parse(text, headers) {
            Err(rejected) => return Admission::Rejected(rejected),
            Ok(Message::Notification(_)) => return Admission::Notification,
            Ok(Message::Response { .. }) => return Admission::Response,
            Ok(Message::Request(req)) => req,
        };
        match req.session_use() {
            SessionUse::None => {}
            use_ => return Admission::Legacy { probe: use_ == SessionUse::Optional, method: req.method.to_string() },
        }
        let (id, method, meta) = (req.id.clone(), req.method.to_string(), req.meta.to_object());
        match self.0.admit(req, headers) {
            Ok(_) => Admission::Admitted { id, method, meta },
            Err(answer) => {
                let status = match answer.status {
                    Status::Ok => AnswerStatus::Ok,
                    Status::BadRequest => AnswerStatus::BadRequest,
                    Status::NotFound => AnswerStatus::NotFound,
                    Status::Refused(_) => AnswerStatus::Refused,
                    Status::TooMany(_) => AnswerStatus::TooMany,
                };
                Admission::Refused { json: answer.json, status, meta }
            }
        }
    }
}
