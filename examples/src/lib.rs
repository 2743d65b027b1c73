//! What the example binaries share: the quickstart server's handlers, served on stdio by `quickstart` and
//! mounted into an axum app by `axum`; authorization from the environment, for `auth` and `axum`; and
//! `--help` ([`cli`]), for every binary.

pub mod auth;
pub mod cli;
pub mod quickstart;
