//! Streaming decoder for watch responses: newline-delimited JSON events.
//!
//! The server writes one `{"type": …, "object": …}` document per line, but the
//! transport may hand them over in any chunking: an event split inside an
//! object or inside a UTF-8 character, or many events in one chunk. The
//! [`LineBuffer`] only cuts at `\n` bytes, which never occur inside a UTF-8
//! multi-byte sequence nor unescaped inside a JSON string, so every complete
//! line is a complete document whatever the chunk boundaries were.

use kube_core::watch::WatchEvent;
use serde::de::DeserializeOwned;

/// Largest single event accepted (an object is at most ~1.5 MB in etcd; this
/// leaves room for Table rows with included objects).
pub const MAX_EVENT_BYTES: usize = 64 * 1024 * 1024;

/// Why a watch line could not be turned into an event.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The line is not a valid watch event (bad JSON, unknown type, wrong shape).
    #[error("invalid watch event: {message} (event starts with {excerpt:?})")]
    Invalid {
        /// serde's description of the problem.
        message: String,
        /// The first bytes of the line, for the person reading the error.
        excerpt: String,
    },
    /// A single event grew beyond [`MAX_EVENT_BYTES`] without a newline.
    #[error("watch event larger than {limit} bytes")]
    TooLarge {
        /// The limit that was exceeded.
        limit: usize,
    },
}

/// Accumulates chunks and hands out complete lines.
#[derive(Debug, Default)]
pub struct LineBuffer {
    /// Bytes received but not yet returned as a line.
    buf: Vec<u8>,
    /// Bytes of `buf` before this offset hold no `\n` (avoids rescanning).
    scanned: usize,
    limit: Option<usize>,
}

impl LineBuffer {
    /// An empty buffer with the default event size limit.
    pub fn new() -> Self {
        Self {
            limit: Some(MAX_EVENT_BYTES),
            ..Self::default()
        }
    }

    /// Adds a chunk and returns the complete, non-blank lines it finished.
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<Vec<u8>>, DecodeError> {
        self.buf.extend_from_slice(chunk);
        let mut lines = Vec::new();
        let mut start = 0;
        let mut i = self.scanned.max(start);
        while let Some(pos) = self.buf[i..].iter().position(|&b| b == b'\n') {
            let end = i + pos;
            let line = &self.buf[start..end];
            if !line.iter().all(u8::is_ascii_whitespace) {
                lines.push(line.to_vec());
            }
            start = end + 1;
            i = start;
        }
        self.buf.drain(..start);
        self.scanned = self.buf.len();
        if let Some(limit) = self.limit
            && self.buf.len() > limit
        {
            self.buf.clear();
            self.scanned = 0;
            return Err(DecodeError::TooLarge { limit });
        }
        Ok(lines)
    }

    /// Ends the stream: returns a last line that had no trailing newline.
    pub fn finish(&mut self) -> Option<Vec<u8>> {
        let rest = std::mem::take(&mut self.buf);
        self.scanned = 0;
        if rest.iter().all(u8::is_ascii_whitespace) {
            None
        } else {
            Some(rest)
        }
    }

    /// Bytes held waiting for the end of their line.
    pub fn pending(&self) -> usize {
        self.buf.len()
    }
}

/// Decodes one line into a watch event.
pub fn decode_event<K: DeserializeOwned>(line: &[u8]) -> Result<WatchEvent<K>, DecodeError> {
    serde_json::from_slice(line).map_err(|e| DecodeError::Invalid {
        message: super::list::clip(&e.to_string()),
        excerpt: String::from_utf8_lossy(&line[..line.len().min(120)]).into_owned(),
    })
}

/// Decodes a whole stream of chunks into events (for tests and recorded streams).
pub fn decode_all<K: DeserializeOwned>(
    chunks: impl IntoIterator<Item = impl AsRef<[u8]>>,
) -> Vec<Result<WatchEvent<K>, DecodeError>> {
    let mut buf = LineBuffer::new();
    let mut out = Vec::new();
    for chunk in chunks {
        match buf.push(chunk.as_ref()) {
            Ok(lines) => out.extend(lines.iter().map(|l| decode_event(l))),
            Err(e) => out.push(Err(e)),
        }
    }
    if let Some(last) = buf.finish() {
        out.push(decode_event(&last));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube_core::DynamicObject;
    use proptest::prelude::*;

    /// A recorded-style stream: every event type, multi-byte UTF-8, escapes,
    /// a number beyond 2^53 and nested JSON.
    fn recorded() -> Vec<u8> {
        let lines = [
            r#"{"type":"ADDED","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"default","resourceVersion":"10"},"data":{"greeting":"grüß dich — 你好 🚀","html":"<img src=x onerror=alert(1)>"}}}"#,
            r#"{"type":"MODIFIED","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"default","resourceVersion":"11"},"data":{"big":"9007199254740993","nested":"{\"a\":{\"b\":[1,2,{\"c\":\"\\n\"}]}}"}}}"#,
            r#"{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"12","annotations":{"k8s.io/initial-events-end":"true"}}}}"#,
            r#"{"type":"DELETED","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"default","resourceVersion":"13"},"n":123456789012345678901234567890}}"#,
            r#"{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 1 (13)","reason":"Expired","code":410}}"#,
        ];
        let mut s = lines.join("\n").into_bytes();
        s.push(b'\n');
        s
    }

    fn summary(events: &[Result<WatchEvent<DynamicObject>, DecodeError>]) -> Vec<String> {
        events
            .iter()
            .map(|e| match e {
                Ok(WatchEvent::Added(o)) => {
                    format!("added {:?} {}", o.metadata.resource_version, o.data)
                }
                Ok(WatchEvent::Modified(o)) => {
                    format!("modified {:?} {}", o.metadata.resource_version, o.data)
                }
                Ok(WatchEvent::Deleted(o)) => {
                    format!("deleted {:?} {}", o.metadata.resource_version, o.data)
                }
                Ok(WatchEvent::Bookmark(b)) => format!(
                    "bookmark {} {:?}",
                    b.metadata.resource_version, b.metadata.annotations
                ),
                Ok(WatchEvent::Error(s)) => format!("error {} {}", s.code, s.reason),
                Err(e) => format!("decode error {e}"),
            })
            .collect()
    }

    #[test]
    fn decodes_every_event_type_from_one_chunk() {
        let events = decode_all::<DynamicObject>([recorded()]);
        let s = summary(&events);
        assert_eq!(s.len(), 5, "{s:#?}");
        assert!(s[0].starts_with("added Some(\"10\")") && s[0].contains("你好 🚀"));
        assert!(s[1].contains("9007199254740993"));
        assert!(s[2].starts_with("bookmark 12") && s[2].contains("initial-events-end"));
        assert!(s[3].starts_with("deleted Some(\"13\")"));
        assert_eq!(s[4], "error 410 Expired");
    }

    #[test]
    fn same_events_when_split_at_every_byte_offset() {
        let data = recorded();
        let whole = summary(&decode_all::<DynamicObject>([&data]));
        for cut in 0..=data.len() {
            let parts = [&data[..cut], &data[cut..]];
            assert_eq!(
                summary(&decode_all::<DynamicObject>(parts)),
                whole,
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn a_last_event_without_newline_is_still_decoded() {
        let data = recorded();
        let trimmed = &data[..data.len() - 1];
        assert_eq!(decode_all::<DynamicObject>([trimmed]).len(), 5);
    }

    #[test]
    fn bad_lines_are_errors_not_panics_and_later_lines_still_decode() {
        let stream = b"{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"x\"}}}\nnot json at all\n{\"type\":\"SURPRISE\",\"object\":{}}\n\xff\xfe\n\n{\"type\":\"DELETED\",\"object\":{\"metadata\":{\"name\":\"x\"}}}\n";
        let s = summary(&decode_all::<DynamicObject>([&stream[..]]));
        assert_eq!(s.len(), 5, "{s:#?}");
        assert!(s[0].starts_with("added"));
        assert!(s[1].starts_with("decode error invalid watch event"));
        assert!(s[2].starts_with("decode error"));
        assert!(s[3].starts_with("decode error"));
        assert!(s[4].starts_with("deleted"));
    }

    #[test]
    fn deeply_nested_json_is_an_error_not_a_stack_overflow() {
        let mut line = b"{\"type\":\"ADDED\",\"object\":{\"metadata\":{},\"x\":".to_vec();
        line.extend(std::iter::repeat_n(b'[', 100_000));
        line.push(b'\n');
        let out = decode_all::<DynamicObject>([&line]);
        assert!(matches!(out[0], Err(DecodeError::Invalid { .. })));
    }

    #[test]
    fn an_event_over_the_limit_is_refused() {
        let mut buf = LineBuffer {
            limit: Some(16),
            ..LineBuffer::default()
        };
        assert!(buf.push(b"0123456789").is_ok());
        assert_eq!(
            buf.push(b"0123456789"),
            Err(DecodeError::TooLarge { limit: 16 })
        );
        assert_eq!(buf.pending(), 0);
    }

    proptest! {
        #[test]
        fn any_chunking_gives_the_same_events(cuts in proptest::collection::vec(0usize..2000, 0..40)) {
            let data = recorded();
            let whole = summary(&decode_all::<DynamicObject>([&data]));
            let mut points: Vec<usize> = cuts.into_iter().map(|c| c % (data.len() + 1)).collect();
            points.sort_unstable();
            let mut chunks = Vec::new();
            let mut last = 0;
            for p in points {
                chunks.push(&data[last..p]);
                last = p;
            }
            chunks.push(&data[last..]);
            prop_assert_eq!(summary(&decode_all::<DynamicObject>(chunks)), whole);
        }

        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512), cut in 0usize..512) {
            let cut = cut.min(bytes.len());
            let _ = decode_all::<DynamicObject>([&bytes[..cut], &bytes[cut..]]);
        }
    }
}
