//! Newline-delimited framing with a bound on message size, both ways.

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, BufWriter};
use tokio::sync::mpsc;

pub(crate) enum Line<'a> {
    /// Lent until the next call: a slice of the read buffer when the line is all in it (the usual case,
    /// with nothing copied), else of the reader's own buffer, reused from line to line.
    Text(&'a [u8]),
    /// A line longer than the bound; its bytes were discarded up to the next newline.
    TooLong,
}

pub(crate) struct LineReader<R> {
    inner: BufReader<R>,
    max: usize,
    /// The last line's bytes in `inner`, consumed when the next is asked for.
    lent: usize,
    /// A line that spans reads, gathered.
    line: Vec<u8>,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub fn new(reader: R, max: usize) -> Self {
        Self { inner: BufReader::with_capacity(64 * 1024, reader), max, lent: 0, line: Vec::new() }
    }

    /// The next line without its `\n` (and `\r`), or `None` at end of input. Never buffers more than `max`.
    pub async fn next(&mut self) -> std::io::Result<Option<Line<'_>>> {
        self.inner.consume(std::mem::take(&mut self.lent));
        self.line.clear();
        let mut too_long = false;
        loop {
            let available = self.inner.fill_buf().await?;
            if available.is_empty() {
                return Ok(match (too_long, self.line.is_empty()) {
                    (true, _) => Some(Line::TooLong),
                    (false, true) => None,
                    // A last line without `\n` is kept as it is, `\r` and all.
                    (false, false) => Some(Line::Text(&self.line)),
                });
            }
            let (chunk, consumed, done) = match memchr::memchr(b'\n', available) {
                Some(i) => (&available[..i], i + 1, true),
                None => (available, available.len(), false),
            };
            if !too_long {
                if self.line.len() + chunk.len() > self.max {
                    too_long = true;
                    self.line = Vec::new();
                } else if done && self.line.is_empty() {
                    // The whole line is in the buffer: lend it from there.
                    self.lent = consumed;
                    let available = self.inner.buffer();
                    return Ok(Some(Line::Text(trim_cr(&available[..consumed - 1]))));
                } else {
                    self.line.extend_from_slice(chunk);
                }
            }
            self.inner.consume(consumed);
            if done {
                if too_long {
                    return Ok(Some(Line::TooLong));
                }
                return Ok(Some(Line::Text(trim_cr(&self.line))));
            }
        }
    }
}

/// A line without the `\r` of a `\r\n` ending.
fn trim_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Writes each message as one line, flushing when no other is waiting. A message over `max` bytes is not
/// written (a warning says so): replies were already replaced by errors that fit, so this only ever drops a
/// notification or a request to the client too large for it, and no line the client reads outgrows `max`.
pub(crate) async fn write_lines<W: AsyncWrite + Unpin>(
    mut rx: mpsc::Receiver<String>,
    writer: W,
    max: usize,
) -> std::io::Result<()> {
    let mut out = BufWriter::with_capacity(64 * 1024, writer);
    // Taken from the queue all at once: each take gives its room back under the queue's lock, which per
    // message was 1 % of a pipelining client's server time.
    let mut ready = Vec::with_capacity(64);
    while rx.recv_many(&mut ready, 256).await > 0 {
        for line in ready.drain(..) {
            if line.len() > max {
                tracing::warn!("dropped an outbound message of {} bytes, over the limit of {max}", line.len());
            } else {
                out.write_all(line.as_bytes()).await?;
                out.write_all(b"\n").await?;
            }
        }
        if rx.is_empty() {
            out.flush().await?;
        }
    }
    out.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines(input: &[u8], max: usize) -> Vec<Option<Vec<u8>>> {
        let mut reader = LineReader::new(input, max);
        let mut out = Vec::new();
        while let Some(line) = reader.next().await.unwrap() {
            out.push(match line {
                Line::Text(t) => Some(t.to_vec()),
                Line::TooLong => None,
            });
        }
        out
    }

    #[tokio::test]
    async fn splits_bounds_and_recovers() {
        let got = lines(b"one\r\ntoolongline\ntwo\nlast", 8).await;
        assert_eq!(got, vec![Some(b"one".to_vec()), None, Some(b"two".to_vec()), Some(b"last".to_vec())]);
        // Found by the `jsonrpc` fuzz target: a last line without `\n` keeps its `\r`.
        assert_eq!(lines(b"a\nlast\r", 8).await, vec![Some(b"a".to_vec()), Some(b"last\r".to_vec())]);
    }

    #[tokio::test]
    async fn writes_lines_within_the_bound_only() {
        let (tx, rx) = mpsc::channel(4);
        for line in ["short", "much too long", "fits"] {
            tx.send(line.to_owned()).await.unwrap();
        }
        drop(tx);
        let mut out = Vec::new();
        write_lines(rx, &mut out, 8).await.unwrap();
        assert_eq!(out, b"short\nfits\n");
    }
}
