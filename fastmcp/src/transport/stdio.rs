//! stdio: newline-delimited JSON-RPC on a byte stream pair.
//!
//! stdout carries only protocol messages. Requests run concurrently (a slow tool never blocks `ping`), except
//! those that change connection state. At end of input, running requests get a grace period to finish.

use super::lines::{Line, LineReader};
use crate::auth::AccessToken;
use crate::era::{self, Connection, Engine, Message};
use crate::protocol::{ErrorObject, error_json};
use crate::server::Server;
use std::sync::Arc;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

/// Outbound messages queued before writers wait: bounds memory when the client reads slowly.
const OUTBOUND_QUEUE: usize = 1024;

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
    let (tx, rx) = mpsc::channel::<String>(OUTBOUND_QUEUE);
    let writer = tokio::spawn(write_lines(rx, writer));
    let conn = Arc::new(Connection::new(Engine::new(server), tx.clone(), true).with_caller(caller).with_shared_state());
    conn.forward_changes();
    let mut lines = LineReader::new(reader, options.max_message_bytes);
    let mut running = JoinSet::new();

    while let Some(line) = lines.next().await? {
        while running.try_join_next().is_some() {}
        let text = match line {
            Line::Text(bytes) => bytes,
            Line::TooLong => {
                let e = ErrorObject::invalid_request(format!(
                    "message exceeds the server's limit of {} bytes (FastMcp::max_message_bytes)",
                    options.max_message_bytes
                ));
                let _ = tx.send(error_json(None, &e)).await;
                continue;
            }
        };
        let text = match std::str::from_utf8(&text) {
            Ok(t) if t.trim().is_empty() => continue,
            Ok(t) => t,
            Err(e) => {
                let _ = tx.send(error_json(None, &ErrorObject::parse_error(e))).await;
                continue;
            }
        };
        if text.trim_start().starts_with('[') {
            match serde_json::from_str::<Vec<Box<serde_json::value::RawValue>>>(text) {
                Ok(items) if !items.is_empty() => {
                    let (conn, tx) = (conn.clone(), tx.clone());
                    running.spawn(async move {
                        if let Some(replies) = conn.batch(items).await {
                            let _ = tx.send(replies).await;
                        }
                    });
                }
                Ok(_) => {
                    let e = ErrorObject::invalid_request("an empty batch");
                    let _ = tx.send(error_json(None, &e)).await;
                }
                Err(e) => {
                    let e = if e.is_syntax() || e.is_eof() {
                        ErrorObject::parse_error(e)
                    } else {
                        ErrorObject::invalid_request("a batch is an array of JSON-RPC messages")
                    };
                    let _ = tx.send(error_json(None, &e)).await;
                }
            }
            continue;
        }
        match era::parse(text, None) {
            Err(rejected) => {
                let _ = tx.send(error_json(rejected.id.as_ref(), &rejected.error)).await;
            }
            Ok(Message::Request(req)) if req.is_sequential() => {
                if let Some(line) = conn.serve(*req, None).await {
                    let _ = tx.send(line).await;
                }
            }
            Ok(Message::Request(req)) => {
                let (conn, tx) = (conn.clone(), tx.clone());
                running.spawn(async move {
                    if let Some(line) = conn.serve(*req, None).await {
                        let _ = tx.send(line).await;
                    }
                });
            }
            Ok(Message::Notification(note)) => conn.notification(note),
            Ok(Message::Response { id, outcome }) => conn.response(&id, outcome),
        }
    }

    // The client can no longer answer requests the server sent it.
    conn.input_closed();
    if !running.is_empty() {
        let drained =
            tokio::time::timeout(options.shutdown_grace, async { while running.join_next().await.is_some() {} });
        if drained.await.is_err() {
            tracing::warn!(
                "input closed; {} request(s) still running after the grace period were stopped",
                running.len()
            );
        }
    }
    running.shutdown().await;
    // The writer ends when the last sender is gone; the connection holds one for server-to-client requests.
    drop(conn);
    drop(tx);
    writer.await.map_err(std::io::Error::other)?
}

async fn write_lines<W: AsyncWrite + Unpin>(mut rx: mpsc::Receiver<String>, writer: W) -> std::io::Result<()> {
    let mut out = BufWriter::new(writer);
    while let Some(line) = rx.recv().await {
        out.write_all(line.as_bytes()).await?;
        out.write_all(b"\n").await?;
        if rx.is_empty() {
            out.flush().await?;
        }
    }
    out.flush().await
}
