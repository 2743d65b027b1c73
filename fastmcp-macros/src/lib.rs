//! The attribute macros of [fastmcp](https://docs.rs/fast-mcp) (the `fast-mcp` package): write a Model
//! Context Protocol server as plain `async fn`s.
//!
//! | macro | on | makes | used with |
//! | --- | --- | --- | --- |
//! | [`#[tool]`](macro@tool) | `async fn` | a tool (`ToolHandler`) | `FastMcp::tool(f)` |
//! | [`#[prompt]`](macro@prompt) | `async fn` | a prompt (`PromptHandler`) | `FastMcp::prompt(f)` |
//! | [`#[resource("uri")]`](macro@resource) | `async fn` | a resource (`ResourceHandler`) | `FastMcp::resource(f)` |
//! | [`#[elicit]`](macro@elicit) | struct, enum, `async fn` | a form, a choice, a sub-flow | `T::elicit(..).ask()` |
//!
//! Use them through `fastmcp`, which re-exports them (`use fastmcp::prelude::*;`): generated code reaches the
//! runtime through `::fastmcp::__private`, so a server crate needs no serde or schemars dependency of its own.
//!
//! ```rust,no_run
//! use fastmcp::prelude::*;
//!
//! /// Say hello.
//! #[tool(read_only)]
//! async fn greet(
//!     /// Who to greet.
//!     name: String,
//! ) -> String {
//!     format!("Hello, {name}!")
//! }
//!
//! /// Ask the model to review some code.
//! #[prompt]
//! async fn review(code: String) -> String {
//!     format!("Please review this code:\n{code}")
//! }
//!
//! /// A greeting, addressed by URI.
//! #[resource("greetings://{name}")]
//! async fn greeting(name: String) -> String {
//!     format!("Hello, {name}!")
//! }
//!
//! #[tokio::main]
//! async fn main() -> fastmcp::Result<()> {
//!     FastMcp::new("hello").tool(greet).prompt(review).resource(greeting).run().await
//! }
//! ```
//!
//! Each fn macro turns an `async fn name(..)` into a unit struct `name` that implements the runtime's handler
//! trait, so `FastMcp::new(..).tool(name)` registers it, and keeps the fn callable as `name::invoke(..)` for
//! unit tests (unless it awaits `.ask()`: then its body is compiled into a resumable state machine, see
//! [Asking the client](macro@tool#asking-the-client-askawait)). Doc comments become descriptions.
//!
//! Mistakes are compile errors spanned on the tokens at fault: an unknown option lists the valid ones and
//! suggests the closest, a malformed value says what it should look like, and every problem of an item is
//! reported in one compile. Set `FASTMCP_MACROS_DEBUG=1` while building to print every expansion to stderr.
//!
//! # How the crate is built
//!
//! For contributors. The crate follows serde_derive's one-way split: `attr` parses the macros' options,
//! `model` builds a typed view of the fn, `flow` analyses a body that asks (it reads the fn and names nothing
//! of the runtime), `check` validates, and `expand` generates code, the only module that names
//! `::fastmcp::__private`. `#[elicit]` on a struct or an enum goes the same way through
//! `elicit::{options, model, check}` and `expand::{form, choice}`. Errors accumulate in a `Ctxt`, are spanned
//! on the user's tokens, and are emitted next to the user's item so the IDE keeps working.
//! `tests/tests/layering.rs` keeps the order.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod attr;
mod check;
mod ctxt;
mod docs;
mod elicit;
mod expand;
mod flow;
mod meta;
mod model;
mod uri_template;

use attr::Kind;
use proc_macro::TokenStream;

#[doc = include_str!("../docs/tool.md")]
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::run(Kind::Tool, args.into(), item.into()).into()
}

#[doc = include_str!("../docs/prompt.md")]
#[proc_macro_attribute]
pub fn prompt(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::run(Kind::Prompt, args.into(), item.into()).into()
}

#[doc = include_str!("../docs/resource.md")]
#[proc_macro_attribute]
pub fn resource(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::run(Kind::Resource, args.into(), item.into()).into()
}

#[doc = include_str!("../docs/elicit.md")]
#[proc_macro_attribute]
pub fn elicit(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::elicit(args.into(), item.into()).into()
}
