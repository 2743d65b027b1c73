//! What the fuzz targets share: typed inputs built from libFuzzer's bytes (`arbitrary`), a reader that hands
//! bytes over in the chunks the input chooses, and the one synchronous poll the async line reader needs.

use libfuzzer_sys::arbitrary::{self, Arbitrary, Unstructured};
use serde_json::Value;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, ReadBuf};

/// A JSON value of bounded depth, with strings drawn from the input (so any text, including escapes).
#[derive(Debug, Clone)]
pub struct Json(pub Value);

impl<'a> Arbitrary<'a> for Json {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        json(u, 3).map(Json)
    }
}

fn json(u: &mut Unstructured<'_>, depth: u32) -> arbitrary::Result<Value> {
    let kinds = if depth == 0 { 5 } else { 7 };
    Ok(match u.choose_index(kinds)? {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => Value::from(u.arbitrary::<i64>()?),
        3 => serde_json::Number::from_f64(u.arbitrary()?).map_or(Value::Null, Value::Number),
        4 => Value::String(u.arbitrary()?),
        5 => Value::Array((0..u.choose_index(4)?).map(|_| json(u, depth - 1)).collect::<Result<_, _>>()?),
        _ => {
            let mut map = serde_json::Map::new();
            for _ in 0..u.choose_index(4)? {
                map.insert(u.arbitrary()?, json(u, depth - 1)?);
            }
            Value::Object(map)
        }
    })
}

/// An `AsyncRead` over `data` that returns at most `chunk` bytes per read, so framing sees every split.
pub struct Chunked<'a> {
    pub data: &'a [u8],
    pub chunk: usize,
}

impl AsyncRead for Chunked<'_> {
    fn poll_read(mut self: Pin<&mut Self>, _: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let n = self.chunk.max(1).min(self.data.len()).min(buf.remaining());
        buf.put_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Poll::Ready(Ok(()))
    }
}

/// Polls a future that never waits (its reader is always ready) to its end.
pub fn ready<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(std::task::Waker::noop());
    match future.as_mut().poll(&mut cx) {
        Poll::Ready(out) => out,
        Poll::Pending => panic!("a future over an always-ready reader waited"),
    }
}

/// Percent-encodes every byte of `text`: an expansion whose values can't be mistaken for a template's literal
/// text (which the targets keep free of `%`).
pub fn encode_all(text: &str) -> String {
    text.bytes().map(|b| format!("%{b:02X}")).collect()
}
