//! Newline-delimited framing with a bound on message size.

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

pub(crate) enum Line {
    Text(Vec<u8>),
    /// A line longer than the bound; its bytes were discarded up to the next newline.
    TooLong,
}

pub(crate) struct LineReader<R> {
    inner: BufReader<R>,
    max: usize,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub fn new(reader: R, max: usize) -> Self {
        Self { inner: BufReader::with_capacity(64 * 1024, reader), max }
    }

    /// The next line without its `\n` (and `\r`), or `None` at end of input. Never buffers more than `max`.
    pub async fn next(&mut self) -> std::io::Result<Option<Line>> {
        let mut line = Vec::new();
        let mut too_long = false;
        loop {
            let available = self.inner.fill_buf().await?;
            if available.is_empty() {
                return Ok(match (too_long, line.is_empty()) {
                    (true, _) => Some(Line::TooLong),
                    (false, true) => None,
                    (false, false) => Some(Line::Text(line)),
                });
            }
            let (chunk, consumed, done) = match available.iter().position(|&b| b == b'\n') {
                Some(i) => (&available[..i], i + 1, true),
                None => (available, available.len(), false),
            };
            if !too_long {
                if line.len() + chunk.len() > self.max {
                    too_long = true;
                    line = Vec::new();
                } else {
                    line.extend_from_slice(chunk);
                }
            }
            self.inner.consume(consumed);
            if done {
                if too_long {
                    return Ok(Some(Line::TooLong));
                }
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                return Ok(Some(Line::Text(line)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines(input: &[u8], max: usize) -> Vec<Option<Vec<u8>>> {
        let mut reader = LineReader::new(input, max);
        let mut out = Vec::new();
        while let Some(line) = reader.next().await.unwrap() {
            out.push(match line {
                Line::Text(t) => Some(t),
                Line::TooLong => None,
            });
        }
        out
    }

    #[tokio::test]
    async fn splits_bounds_and_recovers() {
        let got = lines(b"one\r\ntoolongline\ntwo\nlast", 8).await;
        assert_eq!(got, vec![Some(b"one".to_vec()), None, Some(b"two".to_vec()), Some(b"last".to_vec())]);
    }
}
