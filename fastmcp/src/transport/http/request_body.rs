//! A request's body: read whole under a cap, or read and dropped.

use bytes::{Buf as _, Bytes, BytesMut};
use http_body_util::{BodyExt as _, Limited};

/// Why a body could not be read whole: the cap's [`LengthLimitError`](http_body_util::LengthLimitError), or
/// the connection's own error.
pub(super) type BodyError = Box<dyn std::error::Error + Send + Sync>;

/// Reads `body` whole, or fails with `LengthLimitError` past `max` bytes. A body that comes in one frame (a
/// POST whose body arrived with its head) is that frame's buffer as it is: `collect()` lists every frame
/// and then copies them out, an allocation and about 1.2k instructions a request; reading the frames here
/// took 1.1 % off the bench's HTTP call. Later frames are joined into one buffer; trailers are no part of a
/// message and are dropped.
pub(super) async fn whole<B>(body: B, max: usize) -> Result<Bytes, BodyError>
where
    B: http_body::Body<Data = Bytes>,
    B::Error: Into<BodyError>,
{
    let mut body = std::pin::pin!(Limited::new(body, max));
    let mut first = Bytes::new();
    let mut joined: Option<BytesMut> = None;
    while let Some(frame) = body.as_mut().frame().await {
        let Ok(data) = frame?.into_data() else { continue };
        match &mut joined {
            Some(joined) => joined.extend_from_slice(&data),
            None if first.is_empty() => first = data,
            None if data.is_empty() => {}
            None => {
                let mut both = BytesMut::with_capacity(first.len() + data.len());
                both.extend_from_slice(&first);
                both.extend_from_slice(&data);
                joined = Some(both);
            }
        }
    }
    Ok(joined.map_or(first, BytesMut::freeze))
}

/// Reads and drops a body until it ends or `most` bytes of it were read.
pub(super) async fn discard<B: http_body::Body>(body: B, most: usize) {
    let mut body = std::pin::pin!(body);
    let mut read = 0;
    while read <= most {
        match body.as_mut().frame().await {
            Some(Ok(frame)) => read += frame.data_ref().map_or(0, |data| data.remaining()),
            _ => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderMap;
    use http_body::Frame;
    use http_body_util::StreamBody;
    use std::convert::Infallible;

    fn body(frames: Vec<Frame<Bytes>>) -> impl http_body::Body<Data = Bytes, Error = Infallible> {
        StreamBody::new(futures_util::stream::iter(frames.into_iter().map(Ok::<_, Infallible>)))
    }

    fn data(text: &'static str) -> Frame<Bytes> {
        Frame::data(Bytes::from_static(text.as_bytes()))
    }

    #[tokio::test]
    async fn a_body_in_one_frame_is_that_frame_not_a_copy() {
        let frame = Bytes::from_static(b"{\"jsonrpc\":\"2.0\"}");
        let read = whole(body(vec![Frame::data(frame.clone())]), 1024).await.unwrap();
        assert_eq!(read, frame);
        assert_eq!(read.as_ptr(), frame.as_ptr(), "the frame's own buffer");
    }

    #[tokio::test]
    async fn frames_are_joined_in_order_and_trailers_dropped() {
        let frames = vec![data(""), data("{\"a\""), data(""), data(":1"), data("}"), Frame::trailers(HeaderMap::new())];
        assert_eq!(whole(body(frames), 1024).await.unwrap(), "{\"a\":1}");
        assert_eq!(whole(body(vec![]), 1024).await.unwrap(), "");
    }

    #[tokio::test]
    async fn a_body_past_the_cap_is_refused_as_too_long() {
        for frames in [vec![data("0123456789")], vec![data("01234"), data("56789")]] {
            let e = whole(body(frames), 9).await.unwrap_err();
            assert!(e.downcast_ref::<http_body_util::LengthLimitError>().is_some(), "{e}");
        }
        assert_eq!(whole(body(vec![data("01234"), data("56789")]), 10).await.unwrap(), "0123456789");
    }
}
