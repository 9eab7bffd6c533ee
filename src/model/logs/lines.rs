//! Lines cut from a byte stream (chunks split anywhere, a UTF-8 character included), and one line with its time and source.

use crate::model::time::{Seconds, parse_time};

/// Cuts a byte stream into lines; chunks may split anywhere, a UTF-8
/// character included. Invalid UTF-8 becomes U+FFFD.
#[derive(Debug, Default)]
pub struct LineSplitter {
    partial: Vec<u8>,
}

impl LineSplitter {
    /// Feeds a chunk; returns the lines it completed (without `\n`/`\r\n`).
    pub fn push(&mut self, chunk: &[u8]) -> Vec<String> {
        let mut lines = Vec::new();
        let mut rest = chunk;
        while let Some(i) = rest.iter().position(|b| *b == b'\n') {
            let (line, tail) = rest.split_at(i);
            rest = &tail[1..];
            let whole: &[u8] = if self.partial.is_empty() {
                line
            } else {
                self.partial.extend_from_slice(line);
                &self.partial
            };
            let whole = whole.strip_suffix(b"\r").unwrap_or(whole);
            lines.push(String::from_utf8_lossy(whole).into_owned());
            self.partial.clear();
        }
        self.partial.extend_from_slice(rest);
        lines
    }

    /// The last line when the stream ends without a newline.
    pub fn finish(&mut self) -> Option<String> {
        (!self.partial.is_empty()).then(|| {
            let line = String::from_utf8_lossy(&self.partial).into_owned();
            self.partial.clear();
            line
        })
    }
}

/// One line of a log.
#[derive(Debug, Clone, PartialEq)]
pub struct LogLine {
    /// Which stream it came from (a workload's pod, or a pod's container).
    pub source: u16,
    /// The time the runtime wrote it, as sent (RFC 3339), if it had one.
    pub stamp: Option<Box<str>>,
    /// `stamp` in seconds, for ordering.
    pub at: Option<Seconds>,
    /// The line itself, ANSI codes included.
    pub text: Box<str>,
    /// A line the view wrote (a pod joined or left), not the container.
    pub marker: bool,
}

impl LogLine {
    /// Reads a line the API sent with `timestamps=true`: the time, a space,
    /// the line. A line without a readable time keeps all its text.
    pub fn parse(source: u16, raw: &str) -> Self {
        if let Some((stamp, text)) = raw.split_once(' ')
            && let Some(at) = stamp
                .as_bytes()
                .first()
                .filter(|b| b.is_ascii_digit())
                .and_then(|_| parse_time(stamp))
        {
            return Self {
                source,
                stamp: Some(stamp.into()),
                at: Some(at),
                text: text.into(),
                marker: false,
            };
        }
        Self {
            source,
            stamp: None,
            at: None,
            text: raw.into(),
            marker: false,
        }
    }

    /// A line the view writes itself.
    pub fn marker(source: u16, at: Option<Seconds>, text: String) -> Self {
        Self {
            source,
            stamp: None,
            at,
            text: text.into(),
            marker: true,
        }
    }
}
