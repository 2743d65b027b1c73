//! The stdio floor: one tokio task reading newline-delimited JSON-RPC from stdin (a `BufReader`) and
//! answering each line with [`Floor::answer`] into a `BufWriter` on stdout, in order.
//!
//! The writer is flushed when no further complete line is already buffered from stdin: a client sending
//! one request at a time gets each answer at once, and a pipelining client gets the answers to everything
//! it sent in one read back in one write — what a competent line server does, and no more (no batching
//! across reads, no threads). A line over 4 MiB (fastmcp's default `max_message_bytes`) is answered with a
//! parse error and skipped.
//!
//! When stdin and stdout are pipes (as an MCP client launches a server), they are driven by tokio's
//! non-blocking pipe reactor, reopened through `/proc/self/fd` so that `O_NONBLOCK` stays on the floor's own
//! file descriptions — the same technique as rmcp's `stdio_pipes`. `tokio::io::stdin()`/`stdout()` (the
//! fallback) run every read and write on the blocking thread pool: a thread hand-off each way per message,
//! which at one request at a time costs more than the parsing (rmcp's pipes beat such a floor several times
//! over), so a floor built on them would be a straw man.

use std::fs::{File, OpenOptions};

use fastmcp_bench_load::floor::{Floor, Outcome};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, BufWriter};
use tokio::net::unix::pipe;

/// The longest line read, as fastmcp's default `max_message_bytes`.
const MAX_LINE: usize = 4 * 1024 * 1024;

/// Serves stdin until its end.
pub async fn serve(floor: Floor) -> std::io::Result<()> {
    match pipes() {
        Some((input, output)) => serve_on(floor, input, output).await,
        None => serve_on(floor, tokio::io::stdin(), tokio::io::stdout()).await,
    }
}

/// stdin and stdout as non-blocking pipes, if both are pipes.
fn pipes() -> Option<(pipe::Receiver, pipe::Sender)> {
    let input = File::open("/proc/self/fd/0").ok()?;
    let output = OpenOptions::new().write(true).open("/proc/self/fd/1").ok()?;
    Some((pipe::Receiver::from_file(input).ok()?, pipe::Sender::from_file(output).ok()?))
}

async fn serve_on(floor: Floor, input: impl AsyncRead + Unpin, output: impl AsyncWrite + Unpin) -> std::io::Result<()> {
    let mut input = BufReader::with_capacity(64 * 1024, input);
    let mut output = BufWriter::with_capacity(64 * 1024, output);
    let mut line = Vec::with_capacity(1024);
    let mut answer = Vec::with_capacity(1024);
    loop {
        line.clear();
        let complete = read_line(&mut input, &mut line).await?;
        if line.is_empty() && !complete {
            break; // end of input
        }
        let message = line.strip_suffix(b"\n").unwrap_or(&line);
        let message = message.strip_suffix(b"\r").unwrap_or(message);
        if message.len() > MAX_LINE {
            answer.clear();
            answer
                .extend_from_slice(br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"line too long"}}"#);
        } else if message.iter().all(u8::is_ascii_whitespace) {
            continue;
        } else if floor.answer(message, &mut answer) == Outcome::Notification {
            answer.clear();
        }
        if !answer.is_empty() {
            answer.push(b'\n');
            output.write_all(&answer).await?;
        }
        if !input.buffer().contains(&b'\n') {
            output.flush().await?;
        }
    }
    output.flush().await
}

/// Appends one line (with its `\n`) to `line`, keeping at most `MAX_LINE + 1` bytes of it (the rest is
/// read and dropped); false when input ended before a newline.
async fn read_line<R: AsyncBufReadExt + Unpin>(input: &mut R, line: &mut Vec<u8>) -> std::io::Result<bool> {
    loop {
        let buffer = input.fill_buf().await?;
        if buffer.is_empty() {
            return Ok(false);
        }
        let (take, done) = match buffer.iter().position(|&b| b == b'\n') {
            Some(at) => (at + 1, true),
            None => (buffer.len(), false),
        };
        let room = (MAX_LINE + 1).saturating_sub(line.len());
        line.extend_from_slice(&buffer[..take.min(room)]);
        input.consume(take);
        if done {
            return Ok(true);
        }
    }
}
