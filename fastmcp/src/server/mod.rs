//! The `FastMcp` builder, the immutable registry and transport-free dispatch.
pub struct FastMcp;
