//! The server: the `FastMcp` builder, the immutable registry it freezes into a running [`Server`], and
//! transport-free, era-free dispatch.

pub(crate) mod access;
mod builder;
pub(crate) mod call;
mod changes;
pub(crate) mod dispatch;
mod pagination;
pub(crate) mod registry;
mod running;
mod uri_template;

pub use crate::protocol::ListChanged;
pub use builder::{FastMcp, HttpOptions, Options, Transport};
pub(crate) use changes::Change;
pub use running::Server;
