//! An incremental `text/event-stream` parser (the WHATWG rules): bytes go in as the network delivers them,
//! whole events come out. It keeps the last event id and `retry` across reconnections, which is what
//! resuming a stream with `Last-Event-ID` needs.

use std::time::Duration;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Event {
    /// `event:`; `None` is the default type, `message`.
    pub event: Option<String>,
    /// The `data:` lines, joined with `\n`.
    pub data: String,
}

/// An event, or a line, larger than the limit: the stream cannot be trusted to carry the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TooLarge(pub usize);

/// Room for a field name and the `: ` on a line besides the limit on an event's data.
const LINE_SLACK: usize = 1024;

pub(crate) struct SseParser {
    max: usize,
    line: Vec<u8>,
    /// The chunk ended in CR: an LF starting the next one belongs to the same line break.
    skip_lf: bool,
    /// Whether the first line was seen (a byte-order mark may start the stream).
    started: bool,
    data: String,
    has_data: bool,
    event: Option<String>,
    last_id: Option<String>,
    retry: Option<Duration>,
}

impl SseParser {
    /// A parser refusing events whose data exceeds `max` bytes.
    pub fn new(max: usize) -> Self {
        Self {
            max,
            line: Vec::new(),
            skip_lf: false,
            started: false,
            data: String::new(),
            has_data: false,
            event: None,
            last_id: None,
            retry: None,
        }
    }

    /// The last event id the server gave (sticky across events, as browsers keep it), for `Last-Event-ID`.
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_id.as_deref()
    }

    /// The reconnection delay the server asked for, if it did.
    pub fn retry(&self) -> Option<Duration> {
        self.retry
    }

    /// A new connection continues the stream: a half-read event of the old one is dropped, the id and
    /// `retry` are kept.
    pub fn reconnected(&mut self) {
        self.line.clear();
        self.skip_lf = false;
        self.started = false;
        self.data.clear();
        self.has_data = false;
        self.event = None;
    }

    /// Parses `chunk`, appending the events it completes to `out`.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<Event>) -> Result<(), TooLarge> {
        let mut rest = chunk;
        if self.skip_lf && !rest.is_empty() {
            self.skip_lf = false;
            if rest[0] == b'\n' {
                rest = &rest[1..];
            }
        }
        while let Some(end) = rest.iter().position(|b| *b == b'\n' || *b == b'\r') {
            self.extend_line(&rest[..end])?;
            let cr = rest[end] == b'\r';
            rest = &rest[end + 1..];
            if cr {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    None => self.skip_lf = true,
                    Some(_) => {}
                }
            }
            let line = std::mem::take(&mut self.line);
            self.process(&line, out)?;
        }
        self.extend_line(rest)
    }

    fn extend_line(&mut self, bytes: &[u8]) -> Result<(), TooLarge> {
        if self.line.len() + bytes.len() > self.max.saturating_add(LINE_SLACK) {
            return Err(TooLarge(self.max));
        }
        self.line.extend_from_slice(bytes);
        Ok(())
    }

    fn process(&mut self, line: &[u8], out: &mut Vec<Event>) -> Result<(), TooLarge> {
        let mut line = line;
        if !self.started {
            self.started = true;
            line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        }
        if line.is_empty() {
            self.dispatch(out);
            return Ok(());
        }
        if line[0] == b':' {
            return Ok(()); // a comment (keep-alive)
        }
        let (field, value) = match line.iter().position(|b| *b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        let value = String::from_utf8_lossy(value);
        match field {
            b"data" => {
                if self.data.len() + value.len() > self.max {
                    return Err(TooLarge(self.max));
                }
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(&value);
                self.has_data = true;
            }
            b"event" => self.event = Some(value.into_owned()),
            b"id" if !value.contains('\0') => {
                self.last_id = (!value.is_empty()).then(|| value.into_owned());
            }
            b"retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                if let Ok(ms) = value.parse::<u64>() {
                    self.retry = Some(Duration::from_millis(ms));
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn dispatch(&mut self, out: &mut Vec<Event>) {
        let event = self.event.take().filter(|e| !e.is_empty());
        if std::mem::take(&mut self.has_data) {
            out.push(Event { event, data: std::mem::take(&mut self.data) });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_chunks(chunks: &[&[u8]]) -> (Vec<Event>, SseParser) {
        let mut parser = SseParser::new(64);
        let mut out = Vec::new();
        for chunk in chunks {
            parser.feed(chunk, &mut out).expect("within limits");
        }
        (out, parser)
    }

    fn data(events: &[Event]) -> Vec<&str> {
        events.iter().map(|e| e.data.as_str()).collect()
    }

    #[test]
    fn events_ids_and_retry() {
        let stream = b"id: 1-0\nretry: 250\ndata: \n\n: keep-alive\n\nid: 1-1\nevent: message\ndata: {\"a\":1}\n\n";
        let (events, parser) = parse_chunks(&[stream]);
        assert_eq!(data(&events), ["", "{\"a\":1}"], "the priming event is an event with empty data");
        assert_eq!(events[1].event.as_deref(), Some("message"));
        assert_eq!(parser.last_event_id(), Some("1-1"));
        assert_eq!(parser.retry(), Some(Duration::from_millis(250)));
    }

    #[test]
    fn any_split_and_any_line_break_give_the_same_events() {
        let text: &[u8] = b"\xEF\xBB\xBFdata: one\r\ndata:two\r\n\r\nid: x\rdata: three\r\rdata: four\n\n";
        let (whole, _) = parse_chunks(&[text]);
        assert_eq!(data(&whole), ["one\ntwo", "three", "four"]);
        for split in 0..text.len() {
            let (a, b) = text.split_at(split);
            let (events, parser) = parse_chunks(&[a, b]);
            assert_eq!(events, whole, "split at {split}");
            assert_eq!(parser.last_event_id(), Some("x"));
        }
        let bytes: Vec<&[u8]> = text.chunks(1).collect();
        assert_eq!(parse_chunks(&bytes).0, whole, "byte by byte");
    }

    #[test]
    fn odd_fields_are_ignored_and_an_unfinished_event_is_not_dispatched() {
        let (events, parser) = parse_chunks(&[b"retry: soon\nid: a\0b\nfoo: bar\ndata\n\ndata: half"]);
        assert_eq!(data(&events), [""], "a bare `data` line is an empty data line");
        assert_eq!((parser.last_event_id(), parser.retry()), (None, None));
        let mut parser = parser;
        parser.reconnected();
        let mut out = Vec::new();
        parser.feed(b"data: whole\n\n", &mut out).expect("fits");
        assert_eq!(data(&out), ["whole"], "the half event of the lost connection is gone");
    }

    #[test]
    fn events_over_the_limit_are_refused() {
        let mut parser = SseParser::new(8);
        let mut out = Vec::new();
        parser.feed(b"data: 12345\n", &mut out).expect("fits");
        assert_eq!(parser.feed(b"data: 6789\n", &mut out), Err(TooLarge(8)), "the event's data together");
        let mut parser = SseParser::new(8);
        let endless = vec![b'x'; 2000];
        assert_eq!(parser.feed(&endless, &mut out), Err(TooLarge(8)), "a line that never ends");
    }
}
