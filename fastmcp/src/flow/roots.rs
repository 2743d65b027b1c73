//! Roots: the directories or files the client exposes to the server.

use super::ask::{Ask, read_answer};
use crate::protocol::{InputRequest, InputRequests, InputResponses, ListRootsResult, Root};

/// Asks the client for its roots: `let roots = ListRoots.ask().await?;`.
///
/// Roots are the directories (or files) the user has opened to the server, as `file://` URIs; `.ask()`
/// yields them as a `Vec<Root>`.
///
/// ```
/// use fastmcp::prelude::*;
///
/// /// Name the workspaces the client has open.
/// #[tool]
/// async fn workspaces() -> Result<String> {
///     let roots = ListRoots.ask().await?;
///     let names: Vec<&str> = roots.iter().map(|root| root.name.as_deref().unwrap_or(&root.uri)).collect();
///     Ok(format!("{} open: {}", names.len(), names.join(", ")))
/// }
/// # fn main() { let _ = FastMcp::new("workspaces").tool(workspaces); }
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct ListRoots;

impl Ask for ListRoots {
    type Output = Vec<Root>;

    fn requests(self, key: &str, into: &mut InputRequests) {
        into.insert(key.to_owned(), InputRequest::ListRoots);
    }

    fn answer(key: &str, responses: &InputResponses) -> Result<Self::Output, String> {
        read_answer::<ListRootsResult>(key, responses).map(|r| r.roots)
    }
}
