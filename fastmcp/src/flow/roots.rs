//! Roots: the directories or files the client exposes to the server.

use super::ask::{Ask, take_answer};
use crate::protocol::{InputRequest, InputRequests, InputResponses, ListRootsResult, Root};

/// Asks the client for its roots: `let roots = ListRoots.ask().await?;`.
#[derive(Debug, Clone, Copy, Default)]
pub struct ListRoots;

impl Ask for ListRoots {
    type Output = Vec<Root>;

    fn requests(self, key: &str, into: &mut InputRequests) {
        into.insert(key.to_owned(), InputRequest::ListRoots);
    }

    fn answer(key: &str, responses: &mut InputResponses) -> Result<Self::Output, String> {
        take_answer::<ListRootsResult>(key, responses).map(|r| r.roots)
    }
}
