//! Lines cut from a byte stream (chunks split anywhere, a UTF-8 character included; one line bounded at 64 KiB), and one line with its time and source.

use crate::rules::time::{Seconds, parse_time};

/// The longest line the view keeps, in bytes: past it the line is cut
/// (at a character's boundary), the rest is counted, not kept, so one
/// line of gigabytes costs 64 KiB.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// One line cut from a stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawLine {
    /// Its text (without `\n`/`\r\n`), at most [`MAX_LINE_BYTES`] of it.
    pub text: String,
    /// The whole line's length in bytes, when it was longer than the bound.
    pub cut: Option<u64>,
}

/// Cuts a byte stream into lines; chunks may split anywhere, a UTF-8
/// character included. Invalid UTF-8 becomes U+FFFD. A line longer than
/// the bound keeps its first bytes and counts the rest.
#[derive(Debug)]
pub struct LineSplitter {
    partial: Vec<u8>,
    /// Bytes of the current line past the bound.
    over: u64,
    /// The current line's last byte (a `\r` before the `\n` is not text).
    last: u8,
    bound: usize,
}

impl Default for LineSplitter {
    fn default() -> Self {
        Self::with_bound(MAX_LINE_BYTES)
    }
}

impl LineSplitter {
    /// A splitter that keeps at most `bound` bytes of a line.
    pub fn with_bound(bound: usize) -> Self {
        Self {
            partial: Vec::new(),
            over: 0,
            last: 0,
            bound,
        }
    }

    /// Feeds a chunk; returns the lines it completed.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<RawLine> {
        let mut lines = Vec::new();
        let mut rest = chunk;
        while let Some(i) = rest.iter().position(|b| *b == b'\n') {
            self.take(&rest[..i]);
            lines.push(self.line());
            rest = &rest[i + 1..];
        }
        self.take(rest);
        lines
    }

    /// The last line when the stream ends without a newline.
    pub fn finish(&mut self) -> Option<RawLine> {
        (!self.partial.is_empty() || self.over > 0).then(|| self.line())
    }

    fn take(&mut self, bytes: &[u8]) {
        let Some(&last) = bytes.last() else {
            return;
        };
        self.last = last;
        let room = self
            .bound
            .saturating_sub(self.partial.len())
            .min(bytes.len());
        self.partial.extend_from_slice(&bytes[..room]);
        self.over += (bytes.len() - room) as u64;
    }

    fn line(&mut self) -> RawLine {
        let mut bytes = std::mem::take(&mut self.partial);
        let mut over = std::mem::take(&mut self.over);
        // A `\r` before the `\n` is not text, kept or counted.
        if std::mem::take(&mut self.last) == b'\r' {
            if over > 0 {
                over -= 1;
            } else {
                bytes.pop();
            }
        }
        let total = bytes.len() as u64 + over;
        if over > 0
            && let Err(e) = std::str::from_utf8(&bytes)
            && e.error_len().is_none()
        {
            // The bound fell inside a character: keep the whole ones.
            bytes.truncate(e.valid_up_to());
        }
        RawLine {
            text: String::from_utf8_lossy(&bytes).into_owned(),
            cut: (over > 0).then_some(total),
        }
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
    /// The whole line's length in bytes, when it was cut at [`MAX_LINE_BYTES`].
    pub cut: Option<u64>,
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
                cut: None,
            };
        }
        Self {
            source,
            stamp: None,
            at: None,
            text: raw.into(),
            marker: false,
            cut: None,
        }
    }

    /// Reads a line cut from a stream ([`LogLine::parse`]), with its cut.
    pub fn from_raw(source: u16, raw: &RawLine) -> Self {
        Self {
            cut: raw.cut,
            ..Self::parse(source, &raw.text)
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
            cut: None,
        }
    }
}
