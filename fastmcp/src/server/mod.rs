//! The server: the `FastMcp` builder, the registry it builds for a running [`Server`] (replaced whole when
//! what is served changes), and transport-free, era-free dispatch.

pub(crate) mod access;
mod builder;
mod cache;
pub(crate) mod call;
pub(crate) mod catalog;
mod changes;
pub(crate) mod dispatch;
mod live;
pub mod middleware;
mod mount;
mod pagination;
pub(crate) mod registry;
pub(crate) mod reply;
mod running;
mod uri_template;
#[cfg(feature = "fuzzing")]
pub(crate) use uri_template::UriTemplate;

pub use crate::protocol::ListChanged;
pub use builder::{FastMcp, HttpOptions, Options, Transport};
pub use cache::{CacheHints, Cached};
pub(crate) use changes::Change;
pub use running::Server;
