//! The server and what the era adapters keep across requests: one per served endpoint, shared by its
//! connections (stdio's one, or every HTTP request and session).

use super::classify::{Answer, Classified, Headers};
use super::modern::{self, Admitted, tasks::TaskStore};
use crate::cancel::Cancel;
use crate::context::SessionState;
use crate::server::Server;
use std::sync::Arc;
use tokio::sync::mpsc;

pub(crate) struct Engine {
    pub server: Server,
    /// The tasks this endpoint runs (modern era, tasks extension).
    tasks: Arc<TaskStore>,
}

impl Engine {
    pub fn new(server: Server) -> Arc<Self> {
        let tasks = Arc::new(TaskStore::new(server.store().clone(), server.inner.replica.clone()));
        Arc::new(Self { server, tasks })
    }

    /// Admits a modern request (every check that runs nothing; see [`modern::admit`]).
    pub fn admit(&self, req: Box<Classified>, headers: Option<&dyn Headers>) -> Result<Admitted, Answer> {
        modern::admit(&self.server, req, headers)
    }

    /// Serves an admitted modern request; `stream` is its response stream, if it has one, and `session`
    /// the session state of the connection it came on, where one client owns the connection (stdio).
    ///
    /// Not an `async fn`: a layer of its own would hold another copy of the admitted request in every
    /// request's future.
    pub fn serve(
        &self,
        admitted: Admitted,
        stream: Option<mpsc::Sender<String>>,
        cancel: Cancel,
        session: Option<Arc<SessionState>>,
    ) -> impl Future<Output = Answer> + Send + '_ {
        admitted.serve(&self.server, &self.tasks, stream, cancel, session)
    }
}
