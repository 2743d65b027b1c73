// The crate's front page is the README, whose examples run as doctests.
#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod auth;
mod cancel;
#[cfg(feature = "client")]
pub mod client;
pub mod context;
// The era adapters state HTTP's facts (sessions, streams, statuses) neutrally; a stdio-only build uses less.
#[cfg_attr(not(feature = "http"), allow(dead_code, unused_imports))]
mod era;
pub mod error;
pub mod flow;
/// The internal parsers the fuzz targets in `fuzz/` call. Not public API: present only with `fuzzing`.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod __fuzz {
    pub use crate::fuzzing::*;
}
// Its items are the fuzz targets' entry points, hidden from the docs: not public API.
#[cfg(feature = "fuzzing")]
#[allow(missing_docs)]
mod fuzzing;
pub mod handler;
mod ids;
mod leases;
mod log_every;
mod macro_support;
pub mod protocol;
#[cfg(feature = "client")]
pub mod proxy;
pub mod schema;
mod serve;
pub mod server;
// Who a client is, for every transport; the shares of bounded resources are HTTP's.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
mod shares;
pub mod state;
pub mod store;
mod sync;
pub mod transport;

pub use auth::AccessToken;
pub use context::Context;
pub use error::{Error, Result};
pub use fastmcp_macros::{elicit, prompt, resource, tool};
pub use handler::{Args, Json};
pub use protocol::ListChanged;
pub use serve::init_tracing;
pub use server::{FastMcp, HttpOptions, Server, Transport, middleware};
#[cfg(feature = "http")]
pub use transport::http::{McpService, PeerAddr};

/// schemars, re-exported like [`serde`]: `#[derive(fastmcp::schemars::JsonSchema)]` with
/// `#[schemars(crate = "fastmcp::schemars")]` on the type.
pub use schemars;
/// serde, re-exported so that your own parameter and result types need no dependency of their own:
/// `#[derive(fastmcp::serde::Deserialize)]` with `#[serde(crate = "fastmcp::serde")]` on the type.
pub use serde;
/// serde_json, re-exported for `json!` and [`Value`](serde_json::Value) in results and tests.
pub use serde_json;

/// Everything a server author usually needs, in one `use`.
pub mod prelude {
    pub use crate::flow::{
        AskExt as _, ElicitForm, ElicitUrl, Elicitation, Flow, InputRequired, ListRoots, Sample, Sampled, UrlConsent,
        checkpoint, run_as_task,
    };
    pub use crate::handler::{Args, CompletionQuery, Json};
    pub use crate::protocol::{
        CallToolResult, ContentBlock, GetPromptResult, PromptMessage, ReadResourceResult, ResourceContents, Role,
    };
    pub use crate::{Context, Error, FastMcp, ListChanged, Result, elicit, prompt, resource, tool};
}

/// What the macros expand to. Not public API: names here may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use crate::auth::{Access, Check};
    pub use crate::context::Context;
    pub use crate::error::Error;
    pub use crate::flow::driver::{AskWitness, Carried, answer, carried, restore, resume_parts, suspend, witness};
    pub use crate::flow::{
        Ask, ElicitForm, OnlyInsideHandlers, Pass, Resume, Slot, Step, SubFlow, SubFlowCall, Suspension, drive,
    };
    pub use crate::handler::param::{
        PromptParam, ResourceParam, Resumed, Role, SubFlowParam, ToolInput, ToolParam, borrowed_param, input_schema,
        parse_arguments, prompt_arguments, subflow_param,
    };
    pub use crate::handler::{
        BoxFuture, Caching, CompletionQuery, HandlerResult, IntoCompletion, IntoPromptResult, IntoResourceContents,
        IntoToolResult, PromptGet, PromptHandler, ResourceDefinition, ResourceHandler, ResourceRead, TaskSupport,
        ToolCall, ToolHandler, complete_from_list,
    };
    pub use crate::macro_support::*;
    pub use crate::protocol::{
        CacheScope, CallToolResult, Completion, GetPromptResult, JsonObject, Prompt, PromptArgument,
        ReadResourceResult, Resource, ResourceTemplate, Tool, ToolAnnotations,
    };
    pub use crate::schema::output_schema;
    pub use {schemars, serde, serde_json};
    /// What `#[elicit]` expands to: form fields, selects, the schema builder and answer validation.
    pub mod form {
        pub use crate::flow::form::*;
    }
}
