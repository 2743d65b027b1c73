//! What the example binaries share: the quickstart server's handlers, served on stdio by `quickstart` and
//! mounted into an axum app by `axum`.

pub mod quickstart;
