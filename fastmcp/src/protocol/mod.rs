//! The wire, both eras: serde types for every message fastmcp reads or writes.
//!
//! Types follow the newest schema that defines them (2026-07-28, else 2025-11-25); fields that only one era
//! knows are optional, so one type serves both. Facts and their sources: `shared/reference/mcp-wire.md`.

pub mod capabilities;
pub mod completion;
pub mod content;
pub mod input;
pub mod jsonrpc;
pub mod lifecycle;
pub mod logging;
pub mod meta;
pub mod notifications;
pub mod param_headers;
pub mod prompts;
pub mod resources;
pub mod subscriptions;
mod tagged;
pub mod tasks;
pub mod tools;
pub mod version;

pub use capabilities::*;
pub use completion::*;
pub use content::*;
pub use input::*;
pub use jsonrpc::*;
pub use lifecycle::*;
pub use logging::*;
pub use meta::*;
pub use notifications::*;
pub use prompts::*;
pub use resources::*;
pub use subscriptions::*;
pub use tasks::*;
pub use tools::*;
pub use version::*;

/// A free-form JSON object (`_meta`, capability bags, schemas).
pub type JsonObject = serde_json::Map<String, serde_json::Value>;
