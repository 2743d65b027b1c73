//! Server-sent events: the framing, keep-alive comments, and the resumable streams of legacy sessions.
//!
//! Modern responses stream live and are never resumed (closing one cancels its request). A legacy session's
//! streams go through its [`EventLog`]: every event gets an id `<stream>-<seq>`, the last few are kept, and a
//! client that lost a stream reconnects with `GET` + `Last-Event-ID` to receive what followed, while the
//! request goes on undisturbed. A reader never falls behind unnoticed: while one is attached, the producer
//! waits for it instead of dropping events.

pub(crate) use super::shared_log::ResumeError;
use super::shared_log::{Followed, SharedLog};
use crate::era::CloseStream;
use crate::protocol::{ErrorObject, RequestId, error_json};
use crate::sync::lock;
use crate::transport::inline::run_here;
use bytes::Bytes;
use http::header::{self, HeaderValue};
use http_body::Frame;
use http_body_util::BodyExt as _;
use std::collections::{BTreeMap, VecDeque};
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll, Waker};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::{Interval, MissedTickBehavior};

/// The body of every response the endpoint sends.
pub type Body = http_body_util::combinators::BoxBody<Bytes, Infallible>;
pub(crate) type Response = http::Response<Body>;

/// Messages queued on a live stream before the producer waits for the client to read.
const QUEUE: usize = 64;

/// The stream id of a session's standalone `GET` stream; request streams count up from 1.
pub(crate) const STANDALONE: u64 = 0;

/// An SSE response around `body`.
pub(crate) fn response(body: Body) -> Response {
    let mut response = http::Response::new(body);
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// A live SSE response whose messages `produce` sends (each a JSON-RPC message); it ends when `produce`
/// returns. Idle streams carry a keep-alive comment every `keep_alive`.
pub(crate) fn live<F, Fut>(keep_alive: Option<Duration>, produce: F) -> Response
where
    F: FnOnce(mpsc::Sender<String>) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let (tx, rx) = mpsc::channel(QUEUE);
    // An answer ready at once is in the channel, and the channel closed, when hyper first reads the body:
    // head, message and end go in one write.
    if let Some(rest) = run_here(Box::pin(produce(tx))) {
        tokio::spawn(rest);
    }
    let frame = |json: String| message(None, &json);
    response(LiveBody { rx, frame, keep_alive: keep_alive.map(ticker) }.boxed())
}

/// `response` with a body that holds `guard` until it is dropped: when the client has read it all, or went
/// away. What a response occupies (a stream's slot under the caps, a connection's request in flight) is
/// given back exactly then.
pub fn holding<G: Send + Sync + Unpin + 'static>(response: Response, guard: G) -> Response {
    response.map(|body| Holding { body, _guard: guard }.boxed())
}

struct Holding<G> {
    body: Body,
    _guard: G,
}

impl<G: Unpin> http_body::Body for Holding<G> {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// One `message` event, built at its exact size: `format!` grows its buffer several times over for a long
/// message (8 % of the server's CPU in the bench's legacy-session cell, most of it reallocating), and a buffer
/// filled to its capacity becomes `Bytes` without another copy.
fn message(id: Option<&str>, json: &str) -> Bytes {
    const EVENT: &str = "event: message\ndata: ";
    let id_line = id.map_or(0, |id| "id: \n".len() + id.len());
    let mut frame = String::with_capacity(id_line + EVENT.len() + json.len() + 2);
    if let Some(id) = id {
        frame.push_str("id: ");
        frame.push_str(id);
        frame.push('\n');
    }
    frame.push_str(EVENT);
    frame.push_str(json);
    frame.push_str("\n\n");
    Bytes::from(frame)
}

const KEEP_ALIVE: &[u8] = b": keep-alive\n\n";

fn ticker(period: Duration) -> Interval {
    let period = period.max(Duration::from_millis(10));
    let mut interval = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
    interval.set_missed_tick_behavior(MissedTickBehavior::Delay);
    interval
}

/// A keep-alive comment when `keep_alive` ticks.
fn poll_keep_alive(keep_alive: &mut Option<Interval>, cx: &mut Context<'_>) -> Poll<Bytes> {
    match keep_alive {
        Some(interval) => interval.poll_tick(cx).map(|_| Bytes::from_static(KEEP_ALIVE)),
        None => Poll::Pending,
    }
}

/// A body of what a task sends on `rx`, each item framed by `frame`, with keep-alives while it is quiet.
struct LiveBody<T, F> {
    rx: mpsc::Receiver<T>,
    frame: F,
    keep_alive: Option<Interval>,
}

impl<T, F: Fn(T) -> Bytes + Unpin> http_body::Body for LiveBody<T, F> {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if let Poll::Ready(next) = self.rx.poll_recv(cx) {
            return Poll::Ready(next.map(|item| Ok(Frame::data((self.frame)(item)))));
        }
        poll_keep_alive(&mut self.keep_alive, cx).map(|b| Some(Ok(Frame::data(b))))
    }
}

/// How much of a session's streams is kept for resumption.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Retention {
    /// Events kept per stream (delivered ones, for a client that reconnects).
    pub events: usize,
    /// Streams kept per session; the oldest finished ones go first.
    pub streams: usize,
}

/// The resumable streams of one legacy session.
pub(crate) struct EventLog {
    inner: Mutex<Streams>,
    retention: Retention,
    /// Where request streams are copied for other replicas (sessions in a shared store).
    shared: OnceLock<Arc<SharedLog>>,
}

struct Streams {
    next: u64,
    /// By id, so the oldest come first: eviction finds the oldest finished one without a scan of all. Boxed,
    /// so a session with one or two streams holds a small tree node, not room for eleven streams in place.
    streams: BTreeMap<u64, Box<Stream>>,
}

struct Stream {
    events: VecDeque<(u64, Bytes)>,
    next_seq: u64,
    /// The producer is done: a reader that has read everything ends.
    ended: bool,
    /// The attached reader's generation; a reader whose generation is not this one stops.
    reader: Option<u64>,
    generations: u64,
    /// The last event the attached reader took.
    read: Option<u64>,
    reader_waker: Option<Waker>,
    producer_waker: Option<Waker>,
}

impl Stream {
    fn new() -> Self {
        Self {
            events: VecDeque::new(),
            next_seq: 0,
            ended: false,
            reader: None,
            generations: 0,
            read: None,
            reader_waker: None,
            producer_waker: None,
        }
    }

    /// Adds an event; returns its sequence number and frame.
    fn push(&mut self, stream: u64, frame: impl FnOnce(&str) -> Bytes, keep: usize) -> (u64, Bytes) {
        let seq = self.next_seq;
        self.next_seq += 1;
        let framed = frame(&format!("{stream}-{seq}"));
        self.events.push_back((seq, framed.clone()));
        // Drop the oldest events beyond what is kept, but never one an attached reader has not taken.
        while self.events.len() > keep.max(1) {
            let oldest = self.events.front().map_or(0, |(seq, _)| *seq);
            if self.reader.is_some() && self.read.is_none_or(|read| oldest > read) {
                break;
            }
            self.events.pop_front();
        }
        if let Some(waker) = self.reader_waker.take() {
            waker.wake();
        }
        (seq, framed)
    }

    /// Where the reader's next event is in `events`: the seqs kept are contiguous, so it is arithmetic.
    fn first_unread(&self) -> usize {
        let (Some(read), Some((front, _))) = (self.read, self.events.front()) else { return 0 };
        usize::try_from((read + 1).saturating_sub(*front)).map_or(self.events.len(), |i| i.min(self.events.len()))
    }

    /// Events the reader has not taken yet.
    fn unread(&self) -> usize {
        self.events.len() - self.first_unread()
    }

    fn attach(&mut self) -> u64 {
        self.generations += 1;
        self.reader = Some(self.generations);
        if let Some(waker) = self.reader_waker.take() {
            // The previous reader stops.
            waker.wake();
        }
        self.generations
    }

    fn detach(&mut self) {
        self.reader = None;
        if let Some(waker) = self.reader_waker.take() {
            waker.wake();
        }
        if let Some(waker) = self.producer_waker.take() {
            waker.wake();
        }
    }
}

impl EventLog {
    pub fn new(retention: Retention) -> Arc<Self> {
        let streams = Streams { next: STANDALONE + 1, streams: BTreeMap::new() };
        Arc::new(Self { inner: Mutex::new(streams), retention, shared: OnceLock::new() })
    }

    /// Events kept per stream.
    pub fn kept_events(&self) -> usize {
        self.retention.events
    }

    /// Copies the request streams opened from now on to `shared`, for other replicas to resume.
    pub fn share(&self, shared: SharedLog) {
        let _ = self.shared.set(Arc::new(shared));
    }

    /// Numbers the next request streams from `first`: copies of one session on several replicas each take
    /// their own range, so an event id names one stream of one copy.
    pub fn number_streams_from(&self, first: u64) {
        self.streams().next = first.max(STANDALONE + 1);
    }

    fn streams(&self) -> std::sync::MutexGuard<'_, Streams> {
        lock(&self.inner)
    }

    /// A new stream for one request's response, whose messages `produce` sends (each a JSON-RPC message);
    /// the producer and the log's intake run as one task. With `retry`, the stream starts with a priming
    /// event (an id, empty data) telling the client how soon to reconnect, and `produce` gets a handle that
    /// closes the response early (the request goes on; the client resumes with `GET`). Without one the
    /// client would have no id to resume from, so there is no such handle.
    pub fn open<F, Fut>(self: &Arc<Self>, request: &RequestId, retry: Option<Duration>, produce: F) -> Response
    where
        F: FnOnce(mpsc::Sender<String>, Option<CloseStream>) -> Fut,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let id = {
            let mut streams = self.streams();
            let id = streams.next;
            streams.next += 1;
            let mut stream = Stream::new();
            if let Some(retry) = retry {
                stream.push(id, |event| priming(event, retry), self.retention.events);
            }
            streams.streams.insert(id, Box::new(stream));
            self.evict(&mut streams);
            id
        };
        let body = self.reader(id, None, None).unwrap_or_else(|_| unreachable!("the stream was just made"));
        let log = Arc::downgrade(self);
        let close: CloseStream = Arc::new(move || {
            if let Some(log) = log.upgrade()
                && let Some(stream) = log.streams().streams.get_mut(&id)
            {
                stream.detach();
            }
        });
        let (tx, rx) = mpsc::channel(QUEUE);
        // Boxed where it is made: moved into the task as it stands, the handler's state (large) would be
        // copied at each move on the way.
        let produce = Box::pin(produce(tx, retry.map(|_| close)));
        let intake = pump(self.clone(), id, Some(request.clone()), rx);
        // A request that answers at once has its answer in the log, and the stream ended, before the response
        // goes out: hyper writes head, event and end in one write.
        let both = Box::pin(async move {
            futures_util::future::join(produce, intake).await;
        });
        if let Some(rest) = run_here(both) {
            tokio::spawn(rest);
        }
        response(body.boxed())
    }

    /// The session's standalone stream: where messages unrelated to any request go. Opening it with `GET`
    /// attaches a reader from now on.
    pub fn standalone(self: &Arc<Self>) -> mpsc::Sender<String> {
        self.streams().streams.entry(STANDALONE).or_insert_with(|| Box::new(Stream::new()));
        let (tx, rx) = mpsc::channel(QUEUE);
        tokio::spawn(pump(self.clone(), STANDALONE, None, rx));
        tx
    }

    /// Whether a reader is attached to the standalone stream (only one may be).
    pub fn standalone_attached(&self) -> bool {
        self.streams().streams.get(&STANDALONE).is_some_and(|s| s.reader.is_some())
    }

    /// A `GET` without `Last-Event-ID`: the standalone stream from now on, primed like the others.
    pub fn attach_standalone(self: &Arc<Self>, retry: Option<Duration>, keep_alive: Option<Duration>) -> Response {
        let after = {
            let mut streams = self.streams();
            let stream = streams.streams.entry(STANDALONE).or_insert_with(|| Box::new(Stream::new()));
            if let Some(retry) = retry {
                stream.push(STANDALONE, |event| priming(event, retry), self.retention.events);
            }
            // Only what comes from now on (the priming event included).
            stream.next_seq.checked_sub(1 + u64::from(retry.is_some()))
        };
        let body = self.reader(STANDALONE, after, keep_alive).unwrap_or_else(|_| unreachable!("the stream exists"));
        response(body.boxed())
    }

    /// A `GET` with `Last-Event-ID`: the rest of that stream, replayed, then live — from this copy of the
    /// session, or from the shared store when another replica's copy made the stream.
    pub async fn resume(
        self: &Arc<Self>,
        last_event_id: &str,
        keep_alive: Option<Duration>,
    ) -> Result<Response, ResumeError> {
        let (stream, seq) = parse_event_id(last_event_id).ok_or(ResumeError::Malformed)?;
        match (self.reader(stream, Some(seq), keep_alive), self.shared.get()) {
            (Err(ResumeError::UnknownStream), Some(shared)) => {
                let rx = shared.clone().resume(stream, seq).await?;
                let body = LiveBody { rx, frame: followed, keep_alive: keep_alive.map(ticker) };
                Ok(response(body.boxed()))
            }
            (reader, _) => Ok(response(reader?.boxed())),
        }
    }

    fn reader(
        self: &Arc<Self>,
        id: u64,
        after: Option<u64>,
        keep_alive: Option<Duration>,
    ) -> Result<Replay, ResumeError> {
        let mut streams = self.streams();
        let stream = streams.streams.get_mut(&id).ok_or(ResumeError::UnknownStream)?;
        if let Some(after) = after {
            if after >= stream.next_seq {
                return Err(ResumeError::UnknownStream);
            }
            // Something after `after` was dropped: resuming would silently lose it.
            if stream.events.front().is_some_and(|(first, _)| *first > after + 1) {
                return Err(ResumeError::Gone);
            }
        }
        let generation = stream.attach();
        stream.read = after;
        Ok(Replay { log: self.clone(), stream: id, generation, keep_alive: keep_alive.map(ticker) })
    }

    /// Keeps at most `retention.streams` request streams (the standalone one is not counted): finished ones go
    /// first, oldest first.
    fn evict(&self, streams: &mut Streams) {
        let requests =
            |streams: &Streams| streams.streams.len() - usize::from(streams.streams.contains_key(&STANDALONE));
        while requests(streams) > self.retention.streams.max(1) {
            let oldest_ended = streams.streams.iter().find(|(id, s)| **id != STANDALONE && s.ended).map(|(id, _)| *id);
            match oldest_ended {
                Some(id) => {
                    streams.streams.remove(&id);
                }
                None => break,
            }
        }
    }
}

fn priming(event: &str, retry: Duration) -> Bytes {
    Bytes::from(format!("id: {event}\nretry: {}\ndata: \n\n", retry.as_millis()))
}

fn parse_event_id(id: &str) -> Option<(u64, u64)> {
    let (stream, seq) = id.trim().split_once('-')?;
    Some((stream.parse().ok()?, seq.parse().ok()?))
}

/// A followed event as it goes out; a lost request as the error that ends its stream.
fn followed(item: Followed) -> Bytes {
    match item {
        Followed::Event(frame) => frame,
        Followed::Lost(request) => {
            let e = ErrorObject::internal(
                "the server replica serving this request stopped before it answered; send the request again",
            );
            message(None, &error_json(Some(&request), &e))
        }
    }
}

/// Moves a producer's messages into the log, waiting while an attached reader has too many unread; copies
/// a request stream's events to the shared store when the session is there.
async fn pump(log: Arc<EventLog>, id: u64, request: Option<RequestId>, mut rx: mpsc::Receiver<String>) {
    let shared = log.shared.get().cloned().zip(request);
    if let Some((shared, request)) = &shared {
        // The priming event, pushed when the stream was made.
        let primed = log.streams().streams.get(&id).and_then(|s| s.events.front().cloned());
        if let Some((seq, frame)) = primed {
            shared.event(id, request, seq, &frame).await;
        }
    }
    while let Some(json) = rx.recv().await {
        let pushed = std::future::poll_fn(|cx| {
            let mut streams = log.streams();
            let Some(stream) = streams.streams.get_mut(&id) else { return Poll::Ready(None) };
            if stream.reader.is_some() && stream.unread() >= log.retention.events.max(1) {
                stream.producer_waker = Some(cx.waker().clone());
                return Poll::Pending;
            }
            Poll::Ready(Some(stream.push(id, |event| message(Some(event), &json), log.retention.events)))
        })
        .await;
        if let (Some((shared, request)), Some((seq, frame))) = (&shared, pushed) {
            shared.event(id, request, seq, &frame).await;
        }
    }
    let last = {
        let mut streams = log.streams();
        let Some(stream) = streams.streams.get_mut(&id) else { return };
        stream.ended = true;
        if let Some(waker) = stream.reader_waker.take() {
            waker.wake();
        }
        stream.next_seq.checked_sub(1)
    };
    if let Some((shared, request)) = &shared {
        shared.end(id, request, last).await;
    }
}

/// A reader of one stream: replays what it has not taken, then follows the producer.
struct Replay {
    log: Arc<EventLog>,
    stream: u64,
    generation: u64,
    keep_alive: Option<Interval>,
}

impl http_body::Body for Replay {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let next = {
            let mut streams = self.log.streams();
            let Some(stream) = streams.streams.get_mut(&self.stream) else { return Poll::Ready(None) };
            if stream.reader != Some(self.generation) {
                // Replaced by a newer reader, or disconnected on purpose.
                return Poll::Ready(None);
            }
            // Everything ready goes out in one frame: one write, not one per event.
            let ready: Vec<&(u64, Bytes)> = stream.events.range(stream.first_unread()..).collect();
            match ready.last() {
                None if stream.ended => return Poll::Ready(None),
                None => {
                    stream.reader_waker = Some(cx.waker().clone());
                    None
                }
                Some((last, _)) => {
                    let frame = match ready.as_slice() {
                        [(_, only)] => only.clone(),
                        all => {
                            let mut joined = bytes::BytesMut::with_capacity(all.iter().map(|(_, b)| b.len()).sum());
                            all.iter().for_each(|(_, event)| joined.extend_from_slice(event));
                            joined.freeze()
                        }
                    };
                    stream.read = Some(*last);
                    if let Some(waker) = stream.producer_waker.take() {
                        waker.wake();
                    }
                    Some(frame)
                }
            }
        };
        match next {
            Some(frame) => Poll::Ready(Some(Ok(Frame::data(frame)))),
            None => poll_keep_alive(&mut self.keep_alive, cx).map(|b| Some(Ok(Frame::data(b)))),
        }
    }

    fn is_end_stream(&self) -> bool {
        self.finished()
    }
}

impl Replay {
    /// The stream is over for this reader: the producer is done and everything was taken (so hyper can end
    /// the response with the last frame's write).
    fn finished(&self) -> bool {
        let streams = self.log.streams();
        streams
            .streams
            .get(&self.stream)
            .is_none_or(|s| s.reader != Some(self.generation) || (s.ended && s.unread() == 0))
    }
}

impl Drop for Replay {
    /// A client that goes away leaves the stream to be resumed; the producer no longer waits for it.
    fn drop(&mut self) {
        let mut streams = self.log.streams();
        if let Some(stream) = streams.streams.get_mut(&self.stream)
            && stream.reader == Some(self.generation)
        {
            stream.detach();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_event_is_framed_with_and_without_its_id() {
        let json = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
        assert_eq!(message(Some("3-0"), json), format!("id: 3-0\nevent: message\ndata: {json}\n\n"));
        assert_eq!(message(None, json), format!("event: message\ndata: {json}\n\n"));
        assert_eq!(message(None, ""), "event: message\ndata: \n\n");
    }
}
