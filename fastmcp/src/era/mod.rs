//! The two protocol eras: each message is classified once ([`classify`]), then served by the legacy adapter
//! (sessions, the shim) or the modern one (envelope, request state, tasks). Transports hand the adapters the
//! facts they have (the message, its headers, its session) and ask the answer how to travel.

mod classify;
mod connection;
mod engine;
mod flights;
mod legacy;
mod modern;
mod params;
mod request_meta;

pub(crate) use classify::{
    Answer, Classified, Delivery, Headers, METHOD_HEADER, Message, NAME_HEADER, PROTOCOL_VERSION_HEADER, SessionUse,
    Status, batch, parse, text,
};
pub(crate) use connection::{Batch, BatchReply, Connection, Entered, Stream};
pub(crate) use engine::Engine;
pub(crate) use legacy::{CloseStream, SessionRecord};
