//! stdio: newline-delimited JSON-RPC on a byte stream pair.
//!
//! stdout carries only protocol messages. Requests run concurrently (a slow tool never blocks `ping`), except
//! those that change connection state, and at most `Options::max_in_flight_per_connection` at once
//! (batch entries included). Two tasks share the work so a full connection neither drops requests nor
//! deadlocks:
//!
//! - the reader takes every line as it comes: answers to the server's own requests and notifications
//!   (cancellations) at once, requests into a queue that holds as many again as may run (a batch counts
//!   its entries; one larger than that waits for the queue to empty);
//! - the dispatcher starts queued requests in order, each when a slot frees.
//!
//! The writer runs in the reader's task, so a reply the reader makes is written without waking a thread.
//!
//! While the queue is full the reader stops, so the client's pipe fills and it is slowed down, not refused.
//! A handler that waits for the client's answer while every slot is taken still gets it: the reader keeps
//! reading until the queue is full too. At end of input, running and queued requests get a grace period to
//! finish.
//!
//! The common request needs neither task: when the queue is idle and a slot is free, the reader runs it at
//! once, and a request that finishes without waiting on anything (most tool calls) is answered with no task
//! spawned and no hand-over. One that waits is handed to the dispatcher as it stands, holding its slot, to go
//! on in a task of its own. That hand-over needs the idle queue: behind a queued request that waits for a
//! slot, a request holding one would never start, and with every slot so held, nothing would. (A handler
//! that computes for long without awaiting holds up the reader meanwhile, as it would hold up any task on
//! its worker thread.)

use super::inline::Reuse;
use super::lines::{Line, LineReader, write_lines};
use crate::auth::AccessToken;
use crate::era::{self, Batch, Connection, Engine, Entered, Message};
use crate::protocol::{ErrorObject, error_json};
use crate::server::{Options, Server};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc, oneshot};
use tokio::task::JoinSet;

/// Outbound messages queued before writers wait: bounds memory when the client reads slowly.
const OUTBOUND_QUEUE: usize = 1024;

/// What the reader hands the dispatcher: requests entered (registered as in flight) when read, so a
/// cancellation reaches them while they wait.
enum Job {
    Request(Entered),
    /// A request that changes connection state: served alone, the reader waiting until it is done.
    Alone(Entered, oneshot::Sender<()>),
    Batch(Vec<Entered>, Arc<era::BatchReply>),
    /// A request the reader started, in its slot, that has to wait: it goes on in a task of its own.
    Started(Pin<Box<dyn Future<Output = ()> + Send>>),
}

/// The reader's end of the dispatcher's queue, which holds at most `room`'s permits' worth of requests.
struct Queue {
    jobs: mpsc::UnboundedSender<(Job, OwnedSemaphorePermit)>,
    room: Arc<Semaphore>,
    max: usize,
}

impl Queue {
    fn new(max: usize) -> (Self, mpsc::UnboundedReceiver<(Job, OwnedSemaphorePermit)>) {
        let (jobs, queue) = mpsc::unbounded_channel();
        (Self { jobs, room: Arc::new(Semaphore::new(max)), max }, queue)
    }

    /// Queues a job once there is room for its requests (back-pressure on the client); false if the
    /// dispatcher is gone.
    async fn push(&self, job: Job) -> bool {
        let requests = match &job {
            Job::Request(_) | Job::Alone(..) | Job::Started(_) => 1,
            Job::Batch(requests, _) => requests.len().min(self.max),
        };
        // `max` fits in a u32 (`FastMcp::max_in_flight_per_connection` clamps it); the semaphore is never closed.
        let room = self.room.clone().acquire_many_owned(requests as u32).await.expect("the queue is never closed");
        self.jobs.send((job, room)).is_ok()
    }

    /// Whether every job queued so far has started: nothing queued waits for a slot, or will.
    fn is_idle(&self) -> bool {
        self.room.available_permits() == self.max
    }
}

/// Serves the connection; every request on it comes from `caller` (the process's verified token, if any).
pub(crate) async fn serve<R, W>(
    server: Server,
    reader: R,
    writer: W,
    caller: Option<Arc<AccessToken>>,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let options = server.options().clone();
    let reply_limit = options.reply_limit();
    let (tx, rx) = mpsc::channel::<String>(OUTBOUND_QUEUE);
    let conn = Arc::new(Connection::new(Engine::new(server), tx.clone(), true).with_caller(caller).with_shared_state());
    conn.forward_changes();
    let (jobs, queue) = Queue::new(options.max_in_flight_per_connection);
    let mut dispatcher = tokio::spawn(dispatch(conn.clone(), queue, tx.clone()));

    let serving = async move {
        let read = read(&conn, reader, &options, &jobs, &tx).await;
        drop(jobs);
        // The client can no longer answer requests the server sent it.
        conn.input_closed();
        let drained = read.is_ok() && tokio::time::timeout(options.shutdown_grace, &mut dispatcher).await.is_ok();
        if !drained {
            if read.is_ok() {
                tracing::warn!(
                    "input closed; {} request(s) still running after the grace period were stopped",
                    conn.running()
                );
            }
            // Its requests are dropped with it.
            dispatcher.abort();
            let _ = dispatcher.await;
        }
        // The writer ends when the last sender is gone; the connection holds one for server-to-client
        // requests.
        drop(conn);
        drop(tx);
        read
    };
    // The writer runs in the reader's task: a reply the reader makes wakes no other thread to be written.
    let (read, written) = tokio::join!(serving, write_lines(rx, writer, reply_limit));
    written?;
    read
}

/// A request served in `slot`: its reply (none if it was cancelled), with the slot, which is held until the
/// reply is handed to the writer.
async fn request(
    conn: Arc<Connection>,
    req: Entered,
    slot: OwnedSemaphorePermit,
) -> (Option<String>, OwnedSemaphorePermit) {
    (conn.reply(req).await, slot)
}

/// Queues a line for the writer: at once where there is room (no wait to set up, as `send` does), else
/// once there is.
async fn hand_over(tx: &mpsc::Sender<String>, line: String) {
    if let Err(mpsc::error::TrySendError::Full(line)) = tx.try_send(line) {
        let _ = tx.send(line).await;
    }
}

/// Reads lines until end of input, answering what needs no slot and queueing requests for the dispatcher.
async fn read<R: AsyncRead + Unpin>(
    conn: &Arc<Connection>,
    reader: R,
    options: &Options,
    jobs: &Queue,
    tx: &mpsc::Sender<String>,
) -> std::io::Result<()> {
    let mut lines = LineReader::new(reader, options.max_message_bytes);
    // Where the reader runs requests itself, up to their first wait.
    let mut here = Reuse::default();
    let refuse = |e: ErrorObject| async move {
        let _ = tx.send(error_json(None, &e)).await;
    };
    while let Some(line) = lines.next().await? {
        let text = match line {
            Line::Text(bytes) => bytes,
            Line::TooLong => {
                refuse(ErrorObject::invalid_request(format!(
                    "message exceeds the server's limit of {} bytes (FastMcp::max_message_bytes)",
                    options.max_message_bytes
                )))
                .await;
                continue;
            }
        };
        let text = match std::str::from_utf8(text) {
            // JSON's whitespace is ASCII: a line of anything else is not a message, and is answered so.
            Ok(t) if t.trim_ascii().is_empty() => continue,
            Ok(t) => t,
            Err(e) => {
                refuse(ErrorObject::parse_error(e)).await;
                continue;
            }
        };
        let job = if text.trim_ascii_start().starts_with('[') {
            match era::batch(text, options.max_batch_size).map(|items| conn.open_batch(items)) {
                Err(e) => {
                    refuse(e).await;
                    continue;
                }
                Ok(Batch::Answered(reply)) => {
                    if let Some(reply) = reply {
                        let _ = tx.send(reply).await;
                    }
                    continue;
                }
                Ok(Batch::Run { requests, reply }) => Job::Batch(requests, reply),
            }
        } else {
            match era::parse(text, None) {
                Err(rejected) => {
                    let _ = tx.send(error_json(rejected.id.as_ref(), &rejected.error)).await;
                    continue;
                }
                Ok(Message::Notification(note)) => {
                    conn.notification(note);
                    continue;
                }
                Ok(Message::Response { id, outcome }) => {
                    conn.response(&id, outcome);
                    continue;
                }
                Ok(Message::Request(req)) if req.is_sequential() => {
                    let (done, served) = oneshot::channel();
                    if !jobs.push(Job::Alone(conn.enter(req), done)).await {
                        break;
                    }
                    let _ = served.await;
                    continue;
                }
                Ok(Message::Request(req)) => {
                    // The writer shares this task, and a reader with input ready never lets it run: with its
                    // queue full, give it a turn first, or this request finds no room for its reply and is
                    // handed on, and every one after it with it.
                    if tx.capacity() == 0 {
                        tokio::task::yield_now().await;
                    }
                    // Only when the queue is idle: a request that has to wait is queued holding its slot,
                    // and behind a request that waits for a slot it would never start.
                    match jobs.is_idle().then(|| conn.try_slot()).flatten() {
                        Some(slot) => {
                            let req = conn.enter_here(req);
                            match here.run_here(|| request(conn.clone(), req, slot)) {
                                Ok(Some((Some(line), slot))) => {
                                    // No room for the reply: it waits for room in a task of its own, holding
                                    // its slot, as a request that waits does, while the reader reads on.
                                    let Err(mpsc::error::TrySendError::Full(line)) = tx.try_send(line) else {
                                        continue;
                                    };
                                    let tx = tx.clone();
                                    Job::Started(Box::pin(async move {
                                        let _ = tx.send(line).await;
                                        drop(slot);
                                    }))
                                }
                                Ok(_) => continue,
                                Err(waiting) => {
                                    let tx = tx.clone();
                                    Job::Started(Box::pin(async move {
                                        if let Some((Some(line), _slot)) = waiting.await {
                                            hand_over(&tx, line).await;
                                        }
                                    }))
                                }
                            }
                        }
                        None => Job::Request(conn.enter(req)),
                    }
                }
            }
        };
        if !jobs.push(job).await {
            break;
        }
    }
    Ok(())
}

/// Starts queued requests in order, each in a slot of the connection; ends when the reader is done and
/// every request it started has finished.
async fn dispatch(
    conn: Arc<Connection>,
    mut queue: mpsc::UnboundedReceiver<(Job, OwnedSemaphorePermit)>,
    tx: mpsc::Sender<String>,
) {
    let mut running = JoinSet::new();
    // `_room` makes room in the queue once the job's requests have all started.
    while let Some((job, _room)) = queue.recv().await {
        match job {
            // The slot is held until the reply is handed to the writer: a client that does not read its
            // replies gets no more work done.
            Job::Request(req) => {
                let slot = slot(&conn, &mut running).await;
                let (conn, tx) = (conn.clone(), tx.clone());
                running.spawn(async move {
                    if let Some(line) = conn.reply(req).await {
                        let _ = tx.send(line).await;
                    }
                    drop(slot);
                });
            }
            // No slot: nothing else is read while it runs, and it must not wait behind requests that wait
            // for the client.
            Job::Started(run) => {
                running.spawn(run);
            }
            Job::Alone(req, done) => {
                if let Some(line) = conn.reply(req).await {
                    let _ = tx.send(line).await;
                }
                let _ = done.send(());
            }
            Job::Batch(requests, reply) => {
                for req in requests {
                    let slot = slot(&conn, &mut running).await;
                    let (conn, tx, reply) = (conn.clone(), tx.clone(), reply.clone());
                    running.spawn(async move {
                        let id = req.id().clone();
                        let line = conn.reply(req).await;
                        drop(slot);
                        if let Some(whole) = reply.settle(&id, line) {
                            let _ = tx.send(whole).await;
                        }
                    });
                }
            }
        }
    }
    while running.join_next().await.is_some() {}
}

/// A slot for one more request, once the finished ones are reaped: a task keeps its memory until joined.
async fn slot(conn: &Connection, running: &mut JoinSet<()>) -> OwnedSemaphorePermit {
    let slot = conn.slot().await;
    while running.try_join_next().is_some() {}
    slot
}
