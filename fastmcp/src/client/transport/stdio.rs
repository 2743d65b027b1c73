//! stdio: the server is a child process; messages are lines on its stdin and stdout, its stderr passes
//! through to ours.

use super::{BoxFuture, Exchange, Inbox, Incoming, Outgoing, Transport};
use crate::client::error::ClientError;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt as _, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::{Mutex, mpsc};

/// The longest line read from the server.
const MAX_LINE: usize = 16 * 1024 * 1024;
/// How long the server may take to exit once its stdin is closed, before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(2);

pub(crate) struct StdioTransport {
    /// Lines for the server's stdin; taken at close, which ends the writer and so closes stdin.
    lines: std::sync::Mutex<Option<mpsc::UnboundedSender<String>>>,
    child: Mutex<Option<Child>>,
    writer: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

impl StdioTransport {
    /// Starts `command` with piped stdin and stdout; what it prints arrives on `inbox`.
    pub fn spawn(mut command: Command, inbox: Inbox) -> Result<Self, ClientError> {
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit()).kill_on_drop(true);
        let mut child = command.spawn().map_err(|e| ClientError::Transport(format!("cannot start the server: {e}")))?;
        let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(ClientError::Transport("the server's stdio could not be piped".into()));
        };
        let (lines, mut outbox) = mpsc::unbounded_channel::<String>();
        let writer = tokio::spawn(async move {
            while let Some(line) = outbox.recv().await {
                let written = async {
                    stdin.write_all(line.as_bytes()).await?;
                    stdin.write_all(b"\n").await?;
                    stdin.flush().await
                };
                if written.await.is_err() {
                    return;
                }
            }
            // Every sender gone: closing stdin tells the server to finish.
        });
        tokio::spawn(read_lines(stdout, inbox));
        let lines = std::sync::Mutex::new(Some(lines));
        Ok(Self { lines, child: Mutex::new(Some(child)), writer: Mutex::new(Some(writer)) })
    }
}

async fn read_lines(stdout: tokio::process::ChildStdout, inbox: Inbox) {
    let mut reader = BufReader::new(stdout);
    let mut line = Vec::new();
    let why = loop {
        line.clear();
        match (&mut reader).take(MAX_LINE as u64 + 1).read_until(b'\n', &mut line).await {
            Ok(0) => break None,
            Ok(_) if line.len() > MAX_LINE => break Some(format!("the server sent a line over {MAX_LINE} bytes")),
            Ok(_) => match std::str::from_utf8(&line) {
                Ok(text) if text.trim().is_empty() => {}
                Ok(text) => {
                    if inbox.send(Incoming::Message(text.trim_end().to_owned())).is_err() {
                        return;
                    }
                }
                Err(_) => tracing::warn!("the server wrote a line that is not UTF-8; ignored"),
            },
            Err(e) => break Some(format!("reading the server's stdout: {e}")),
        }
    };
    let _ = inbox.send(Incoming::Closed(why));
}

impl Transport for StdioTransport {
    fn send(&self, message: Outgoing) -> BoxFuture<'_, Result<Exchange, ClientError>> {
        let lines = self.lines.lock().unwrap_or_else(|p| p.into_inner());
        let sent = match lines.as_ref() {
            Some(lines) => lines.send(message.json).map_err(|_| ClientError::Closed),
            None => Err(ClientError::Closed),
        };
        Box::pin(async move { sent.map(|()| Exchange::done()) })
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            // Without its sender the writer flushes what is queued and ends, dropping stdin: the server's
            // signal to finish.
            drop(self.lines.lock().unwrap_or_else(|p| p.into_inner()).take());
            if let Some(writer) = self.writer.lock().await.take() {
                let _ = tokio::time::timeout(EXIT_GRACE, writer).await;
            }
            let Some(mut child) = self.child.lock().await.take() else { return };
            if tokio::time::timeout(EXIT_GRACE, child.wait()).await.is_err() {
                let _ = child.kill().await;
            }
        })
    }

    fn closes_streams(&self) -> bool {
        false
    }

    fn relates_requests(&self) -> bool {
        false
    }
}
