//! Transports: bytes in, bytes out. They frame messages and hand them to the era adapters; they name no
//! method and no `_meta` key.

#[cfg(feature = "http")]
pub mod http;
mod inline;
mod lines;
pub(crate) mod process_io;
pub(crate) mod stdio;
#[cfg(feature = "fuzzing")]
pub(crate) use lines::{Line, LineReader};
