//! Attribute macros for [fastmcp](https://docs.rs/fastmcp): `#[tool]`, `#[prompt]` and `#[resource]`.
//!
//! Use them through `fastmcp` (`use fastmcp::prelude::*;`), which re-exports them; generated code reaches
//! the runtime through `::fastmcp::__private`, so a server crate needs no serde or schemars dependency of
//! its own.
//!
//! Each macro turns an `async fn name(..)` into a unit struct `name` that implements the runtime's handler
//! trait, so `FastMcp::new(..).tool(name)` registers it, and keeps the fn callable as `name::invoke(..)`
//! for unit tests (unless it awaits `.ask()`: then its body is compiled into a resumable state machine,
//! see `flow`). Set `FASTMCP_MACROS_DEBUG=1` while building to print every expansion to stderr.
//!
//! The crate follows serde_derive's one-way split: `attr` parses the macros' options, `model` builds a typed
//! view of the fn, `flow` analyses a body that asks (it reads the fn and names nothing of the runtime),
//! `check` validates, and `expand` generates code, the only module that names `::fastmcp::__private`.
//! `#[elicit]` on a struct or an enum goes the same way through `elicit::{options, model, check}` and
//! `expand::{form, choice}`. Errors accumulate in a `Ctxt`, are spanned on the user's tokens, and are
//! emitted next to the user's item so the IDE keeps working. `tests/layering.rs` keeps the order.
#![forbid(unsafe_code)]

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

/// Makes an `async fn` an MCP tool.
///
/// ```ignore
/// use fastmcp::prelude::*;
///
/// /// Say hello.
/// #[tool(read_only)]
/// async fn greet(
///     /// Who to greet.
///     name: String,
///     /// How many exclamation marks.
///     excitement: Option<u8>,
///     ctx: Context,
/// ) -> String {
///     format!("Hello, {name}{}", "!".repeat(excitement.unwrap_or(1).into()))
/// }
/// ```
///
/// - The doc comments of the fn and of each parameter become the tool's and the properties' descriptions.
/// - What a parameter is, its type says, under whatever name it is imported (through
///   `fastmcp::handler::ToolParam`): a `Context` or `&Context` parameter receives the request's context,
///   afresh every round; an `Args<T>` takes the whole arguments object as `T`; any other `name: Type` is one
///   property of the input schema (`Type: Deserialize + JsonSchema`), and `Option<T>` is optional.
///   Attributes such as `#[serde(default)]` or `#[schemars(range(max = 10))]` on a parameter go to its field.
/// - The return type implements `IntoToolResult`: `String`, `Json<T>` (structured content and an output
///   schema), content blocks, `CallToolResult`, `()`, or a `Result` of these whose `Err` is an `isError`
///   result.
///
/// Options: `name = ".."` (default: the fn's name; 1–128 of `A-Za-z0-9_.-`), `title = ".."`,
/// `description = ".."` (default: the doc comments), and the annotation flags `read_only`, `destructive`,
/// `idempotent`, `open_world` (`flag` or `flag = false`), and `timeout = "30s"` (`ms`, `s` or `m`): a
/// round that runs longer is stopped and becomes an `isError` result (overrides `FastMcp::tool_timeout`).
/// `task = "optional"` or `task = "required"` lets calls run as tasks (the `io.modelcontextprotocol/tasks`
/// extension; `fastmcp::handler::TaskSupport`): a call from a client that declared the extension answers at once with a
/// task and runs in the background; `"required"` refuses other clients with `-32021`. A task tool's body may
/// place `run_as_task().ask().await?` after its first asks: the rounds before it stay synchronous.
/// `once` (implied by `destructive`) makes the final round of a flow that asks one-time: a replay of its
/// request state after the call completed is refused with `-32602` `request_state_consumed`.
///
/// Who may call it (`ToolHandler::access`); both may be given:
/// - `scopes = ["deploy:read", "deploy:write"]`: scopes the caller's token must all have, one string each.
/// - `auth = path::to::check`: a `fastmcp::auth::Check`, `fn(&AccessToken) -> Result<(), Denied>`, run after them.
///
/// # Asking the client: `.ask().await`
///
/// A body may await `.ask()` on an elicitation, a sampling request, `ListRoots`, `checkpoint()` or a tuple of
/// these (`let answer = Confirm::elicit("Deploy?").ask().await?;`). The macro compiles the body into a
/// resumable state machine: each `.ask()` ends the round, and the next round starts right after it, with the
/// answer in its place. Nothing before an ask runs again.
///
/// - An `.ask().await` must be the first thing its statement evaluates (after paths and literals at most):
///   a `let` initialiser, an expression statement or an `if`/`while` condition, in the fn's body or in a
///   block of an if/else, a match arm, or a loop/while/for body that stands as a statement. `?` and method
///   calls may follow it. Not in a closure, a nested `async` block, a nested fn, a macro call, a match guard.
/// - The locals a later round reads travel in the request state, so they must be `Serialize +
///   Deserialize` and owned (the error is on their `let`). Parameters come again with every round and are
///   not carried (a `mut` one is, since it may have changed). A `for` loop that asks collects its items
///   first, and carries the ones it has yet to visit.
/// - A fn that asks has no `invoke`: drive it through the `ToolHandler` trait.
/// - The same applies to `#[prompt]` and `#[resource]`.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::run(Kind::Tool, args.into(), item.into()).into()
}

/// Makes an `async fn` an MCP prompt.
///
/// ```ignore
/// /// Explain a piece of code.
/// #[prompt]
/// async fn explain(
///     /// The language of the code.
///     #[complete(["rust", "go", "python"])]
///     language: String,
///     /// The code.
///     code: String,
///     /// How detailed, 1 to 5.
///     level: Option<u8>,
/// ) -> String {
///     format!("Explain this {language} code at level {}:\n{code}", level.unwrap_or(3))
/// }
/// ```
///
/// Each `name: T` parameter is one argument (`T: FromStr`), required unless `Option<T>`, described by its
/// doc comments. `#[complete(["a", "b"])]` completes an argument from a list; `#[complete(f)]` calls
/// `async fn f(query: CompletionQuery) -> impl IntoCompletion` (e.g. `Vec<String>`). The return type
/// implements `IntoPromptResult` (`String`, `PromptMessage`, `Vec<PromptMessage>`, `GetPromptResult`, or a
/// `Result` of these). Options: `name`, `title`, `description`, and who may get it, as for `#[tool]`:
/// - `scopes = ["a", "b"]`: scopes the caller's token must all have, one string each.
/// - `auth = path::to::check`: a `fastmcp::auth::Check`, `fn(&AccessToken) -> Result<(), Denied>`, run after them.
#[proc_macro_attribute]
pub fn prompt(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::run(Kind::Prompt, args.into(), item.into()).into()
}

/// Makes an `async fn` an MCP resource, or a resource template when the URI has `{variables}`.
///
/// ```ignore
/// /// The app's configuration.
/// #[resource("config://app", mime_type = "application/json")]
/// async fn config() -> Json<Config> { .. }
///
/// /// One user's profile.
/// #[resource("users://{id}/profile{?fields}")]
/// async fn profile(id: u64, fields: Option<String>) -> Result<String> { .. }
/// ```
///
/// Template expressions: `{var}` (one path segment), `{+var}` or `{var*}` (may span `/`), `{?a,b}` (query
/// parameters). Every variable is a parameter of the same name (`T: FromStr`; `Option<T>` only for query
/// variables); a value that does not parse means "resource not found". A fixed URI takes no parameters.
/// Any other parameter must be one the runtime supplies (`Context`); `#[complete(..)]` works as for prompts. The return type implements
/// `IntoResourceContents` (`String` is text, `Vec<u8>` a blob, `Json<T>` JSON text, or `ResourceContents`,
/// `ReadResourceResult`, or a `Result` of these). Options: the URI first, then `name` (default: the fn's
/// name), `title`, `description` (default: the doc comments), `mime_type`, and who may read it, as for `#[tool]`:
/// - `scopes = ["a", "b"]`: scopes the caller's token must all have, one string each.
/// - `auth = path::to::check`: a `fastmcp::auth::Check`, `fn(&AccessToken) -> Result<(), Denied>`, run after them.
#[proc_macro_attribute]
pub fn resource(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::run(Kind::Resource, args.into(), item.into()).into()
}

/// Makes a struct (or a unit-variant enum) something a handler can ask the user to fill in:
/// `let answer = Confirm::elicit("Deploy?").ask().await?;`.
#[proc_macro_attribute]
pub fn elicit(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::elicit(args.into(), item.into()).into()
}
