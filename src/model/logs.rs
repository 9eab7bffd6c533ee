//! Container logs in plain Rust: the log view's options and their URL, lines cut from a byte stream, a bounded ring in timestamp order, ANSI colour as classes, filter and highlight.

use std::collections::VecDeque;

use kubeglass_client::k8s_openapi::jiff::Timestamp;
use kubeglass_client::kube_core::subresource::LogParams;

use crate::model::problem::Problem;
use crate::model::time::{Seconds, parse_time};

/// Lines asked for when the person has not chosen (`tailLines`).
pub const DEFAULT_TAIL: i64 = 5_000;
/// Lines the view keeps before it drops the oldest, unless asked (`keep=`).
pub const DEFAULT_CAP: usize = 250_000;
/// The choices of lines kept, the default among them; a `keep=` outside
/// the first and last is brought inside.
pub const KEEP_CHOICES: [usize; 4] = [10_000, 50_000, DEFAULT_CAP, 1_000_000];

/// How much of the log to ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tail {
    /// The last N lines.
    Lines(i64),
    /// The whole log the node keeps.
    All,
}

/// Everything the log view can be asked for; all of it lives in the URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogOptions {
    /// The container (None: the pod's first, or every one of a workload's pods).
    pub container: Option<String>,
    /// The last terminated container's log.
    pub previous: bool,
    /// Only lines newer than this many seconds.
    pub since_seconds: Option<i64>,
    /// Only lines newer than this time (RFC 3339).
    pub since_time: Option<String>,
    /// How much to load.
    pub tail: Tail,
    /// Show each line's timestamp.
    pub timestamps: bool,
    /// Wrap long lines.
    pub wrap: bool,
    /// Keep the stream open for new lines.
    pub follow: bool,
    /// Text or `/regex/` the shown lines must match.
    pub filter: String,
    /// Lines kept before the oldest are dropped.
    pub keep: usize,
}

impl Default for LogOptions {
    fn default() -> Self {
        Self {
            container: None,
            previous: false,
            since_seconds: None,
            since_time: None,
            tail: Tail::Lines(DEFAULT_TAIL),
            timestamps: false,
            wrap: false,
            follow: true,
            filter: String::new(),
            keep: DEFAULT_CAP,
        }
    }
}

impl LogOptions {
    /// Reads the options from a route's query parameters (`get` returns a
    /// parameter's decoded value). Values that make no sense are ignored.
    pub fn from_query(get: impl Fn(&str) -> Option<String>) -> Self {
        let d = Self::default();
        let flag = |k: &str, default: bool| match get(k).as_deref() {
            Some("1" | "true") => true,
            Some("0" | "false") => false,
            _ => default,
        };
        let positive = |k: &str| {
            get(k)
                .and_then(|v| v.parse::<i64>().ok())
                .filter(|n| *n > 0)
        };
        Self {
            container: get("c").filter(|c| kubeglass_client::names::validate_name(c).is_ok()),
            previous: flag("previous", d.previous),
            since_seconds: positive("since"),
            since_time: get("sinceTime").filter(|t| parse_time(t).is_some()),
            tail: match get("tail").as_deref() {
                Some("all") => Tail::All,
                _ => positive("tail").map_or(d.tail, Tail::Lines),
            },
            timestamps: flag("ts", d.timestamps),
            wrap: flag("wrap", d.wrap),
            follow: flag("follow", d.follow),
            filter: get("q").unwrap_or_default(),
            keep: positive("keep").map_or(d.keep, |n| {
                (n as usize).clamp(KEEP_CHOICES[0], KEEP_CHOICES[KEEP_CHOICES.len() - 1])
            }),
        }
    }

    /// The options as query pairs, defaults left out.
    pub fn to_query(&self) -> Vec<(&'static str, String)> {
        let d = Self::default();
        let mut q = Vec::new();
        if let Some(c) = &self.container {
            q.push(("c", c.clone()));
        }
        if self.previous {
            q.push(("previous", "1".into()));
        }
        if let Some(s) = self.since_seconds {
            q.push(("since", s.to_string()));
        }
        if let Some(t) = &self.since_time {
            q.push(("sinceTime", t.clone()));
        }
        match self.tail {
            Tail::All => q.push(("tail", "all".into())),
            Tail::Lines(n) if self.tail != d.tail => q.push(("tail", n.to_string())),
            Tail::Lines(_) => {}
        }
        if self.timestamps {
            q.push(("ts", "1".into()));
        }
        if self.wrap {
            q.push(("wrap", "1".into()));
        }
        if !self.follow {
            q.push(("follow", "0".into()));
        }
        if !self.filter.is_empty() {
            q.push(("q", self.filter.clone()));
        }
        if self.keep != d.keep {
            q.push(("keep", self.keep.to_string()));
        }
        q
    }

    /// The options that shape the request (container, previous, since, tail,
    /// follow), with those only the view reads (timestamps shown, wrap,
    /// filter, lines kept) at their defaults: when this changes, the stream
    /// is opened anew; when only the rest changes, it is not.
    pub fn request_part(&self) -> LogOptions {
        LogOptions {
            container: self.container.clone(),
            previous: self.previous,
            since_seconds: self.since_seconds,
            since_time: self.since_time.clone(),
            tail: self.tail,
            follow: self.follow,
            ..LogOptions::default()
        }
    }

    /// What to ask the API for one container. Timestamps are always asked
    /// for: they order a workload's merged lines, and the view hides them
    /// unless the person wants them.
    pub fn params(&self, container: &str) -> LogParams {
        LogParams {
            container: Some(container.to_string()),
            follow: self.follow && !self.previous,
            previous: self.previous,
            since_seconds: self.since_seconds,
            since_time: self
                .since_time
                .as_deref()
                .and_then(|t| t.parse::<Timestamp>().ok()),
            tail_lines: match self.tail {
                Tail::Lines(n) => Some(n),
                Tail::All => None,
            },
            timestamps: true,
            ..LogParams::default()
        }
    }
}

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

/// The loaded lines: at most `cap`, the oldest dropped first (and
/// counted), kept in timestamp order as lines from several streams arrive.
#[derive(Debug, Clone)]
pub struct LogRing {
    lines: VecDeque<LogLine>,
    cap: usize,
    dropped: u64,
}

/// How far back a late line may be placed among newer ones; further than
/// this it goes at the end (its stream is that far behind the others).
const REORDER_WINDOW: usize = 4_096;

impl LogRing {
    /// An empty ring holding at most `cap` lines.
    pub fn new(cap: usize) -> Self {
        Self {
            lines: VecDeque::new(),
            cap: cap.max(1),
            dropped: 0,
        }
    }

    /// Adds a line where its timestamp puts it among the last lines.
    pub fn push(&mut self, line: LogLine) {
        let mut at = self.lines.len();
        if let Some(t) = line.at {
            let floor = at.saturating_sub(REORDER_WINDOW);
            while at > floor && self.lines[at - 1].at.is_some_and(|prev| prev > t) {
                at -= 1;
            }
        }
        self.lines.insert(at, line);
        while self.lines.len() > self.cap {
            self.lines.pop_front();
            self.dropped += 1;
        }
    }

    /// Lines held.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Keeps at most `cap` lines from now on, dropping the oldest over it.
    pub fn set_cap(&mut self, cap: usize) {
        self.cap = cap.max(1);
        while self.lines.len() > self.cap {
            self.lines.pop_front();
            self.dropped += 1;
        }
    }

    /// True when no line is held.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Lines dropped to stay under the cap.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// The cap.
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// Line `i`, oldest first.
    pub fn get(&self, i: usize) -> Option<&LogLine> {
        self.lines.get(i)
    }

    /// Every line, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &LogLine> {
        self.lines.iter()
    }

    /// Forgets every line (a new query).
    pub fn clear(&mut self) {
        self.lines.clear();
        self.dropped = 0;
    }
}

/// One piece of a drawn line: text and the classes that colour it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// The text, drawn as text (never markup).
    pub text: String,
    /// Space-separated classes (`ansi-fg-1`, `ansi-bold`, `log-match` …).
    pub class: String,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Style {
    fg: Option<u8>,
    bg: Option<u8>,
    bold: bool,
    dim: bool,
    italic: bool,
    underline: bool,
}

impl Style {
    fn class(&self) -> String {
        let mut c = Vec::new();
        if let Some(f) = self.fg {
            c.push(format!("ansi-fg-{f}"));
        }
        if let Some(b) = self.bg {
            c.push(format!("ansi-bg-{b}"));
        }
        for (on, name) in [
            (self.bold, "ansi-bold"),
            (self.dim, "ansi-dim"),
            (self.italic, "ansi-italic"),
            (self.underline, "ansi-underline"),
        ] {
            if on {
                c.push(name.to_string());
            }
        }
        c.join(" ")
    }

    /// Applies one SGR sequence's parameters.
    fn apply(&mut self, params: &str) {
        let mut it = params.split(';').map(|p| {
            if p.is_empty() {
                0
            } else {
                p.parse::<u16>().unwrap_or(u16::MAX)
            }
        });
        while let Some(p) = it.next() {
            match p {
                0 => *self = Style::default(),
                1 => self.bold = true,
                2 => self.dim = true,
                3 => self.italic = true,
                4 => self.underline = true,
                22 => (self.bold, self.dim) = (false, false),
                23 => self.italic = false,
                24 => self.underline = false,
                30..=37 => self.fg = Some((p - 30) as u8),
                90..=97 => self.fg = Some((p - 90 + 8) as u8),
                39 => self.fg = None,
                40..=47 => self.bg = Some((p - 40) as u8),
                100..=107 => self.bg = Some((p - 100 + 8) as u8),
                49 => self.bg = None,
                38 | 48 => {
                    let colour = match it.next() {
                        Some(5) => it.next().map(nearest_of_256),
                        Some(2) => {
                            let (r, g, b) = (it.next(), it.next(), it.next());
                            match (r, g, b) {
                                (Some(r), Some(g), Some(b)) => Some(nearest_rgb(r, g, b)),
                                _ => None,
                            }
                        }
                        _ => None,
                    };
                    if p == 38 {
                        self.fg = colour;
                    } else {
                        self.bg = colour;
                    }
                }
                _ => {}
            }
        }
    }
}

/// One of the 16 basic colours closest to xterm's colour `n`.
fn nearest_of_256(n: u16) -> u8 {
    match n {
        0..=15 => n as u8,
        16..=231 => {
            let n = n - 16;
            let level = |v: u16| if v == 0 { 0 } else { 55 + v * 40 };
            nearest_rgb(level(n / 36), level(n / 6 % 6), level(n % 6))
        }
        232..=255 => {
            let v = 8 + (n - 232) * 10;
            nearest_rgb(v, v, v)
        }
        _ => 7,
    }
}

/// One of the 16 basic colours closest to an RGB colour.
fn nearest_rgb(r: u16, g: u16, b: u16) -> u8 {
    const BASIC: [(u16, u16, u16); 16] = [
        (0, 0, 0),
        (205, 49, 49),
        (13, 188, 121),
        (229, 229, 16),
        (36, 114, 200),
        (188, 63, 188),
        (17, 168, 205),
        (229, 229, 229),
        (102, 102, 102),
        (241, 76, 76),
        (35, 209, 139),
        (245, 245, 67),
        (59, 142, 234),
        (214, 112, 214),
        (41, 184, 219),
        (255, 255, 255),
    ];
    let d = |(x, y, z): (u16, u16, u16)| {
        let (dr, dg, db) = (
            i32::from(x) - i32::from(r),
            i32::from(y) - i32::from(g),
            i32::from(z) - i32::from(b),
        );
        dr * dr + dg * dg + db * db
    };
    (0..16u8).min_by_key(|i| d(BASIC[*i as usize])).unwrap_or(7)
}

/// A line's text without escape sequences, and where each style starts in
/// it (byte offset into the plain text).
pub fn strip_ansi(line: &str) -> (String, Vec<(usize, String)>) {
    let mut plain = String::with_capacity(line.len());
    let mut styles = Vec::new();
    let mut style = Style::default();
    let mut rest = line;
    while let Some(i) = rest.find('\x1b') {
        plain.push_str(&rest[..i]);
        let esc = &rest[i + 1..];
        if let Some(csi) = esc.strip_prefix('[') {
            // Parameters and intermediates, then one final byte @..~.
            let end = csi
                .bytes()
                .position(|b| (0x40..=0x7e).contains(&b))
                .unwrap_or(csi.len());
            if csi.as_bytes().get(end) == Some(&b'm') {
                style.apply(&csi[..end]);
                let class = style.class();
                match styles.last_mut() {
                    Some((at, c)) if *at == plain.len() => *c = class,
                    _ => styles.push((plain.len(), class)),
                }
            }
            rest = csi.get(end + 1..).unwrap_or("");
        } else if let Some(osc) = esc.strip_prefix(']') {
            // An operating system command (a window title, a hyperlink):
            // dropped up to its BEL or ESC \.
            let end = osc.find(['\x07', '\x1b']).unwrap_or(osc.len());
            let skip = if osc[end..].starts_with("\x1b\\") {
                2
            } else {
                1
            };
            rest = osc.get(end + skip..).unwrap_or("");
        } else {
            // Another escape (a charset switch…): drop ESC and the next character.
            let mut chars = esc.chars();
            chars.next();
            rest = chars.as_str();
        }
    }
    plain.push_str(rest);
    // Other control characters draw as nothing useful; tabs stay.
    if plain.bytes().any(|b| b < 0x20 && b != b'\t') {
        plain = plain
            .chars()
            .map(|c| {
                if c.is_control() && c != '\t' {
                    '\u{fffd}'
                } else {
                    c
                }
            })
            .collect();
    }
    (plain, styles)
}

/// The pieces of a line to draw: ANSI styles as classes, and `matches`
/// (byte ranges in the plain text) marked `log-match`.
pub fn pieces(plain: &str, styles: &[(usize, String)], matches: &[(usize, usize)]) -> Vec<Piece> {
    let mut cuts: Vec<usize> = vec![0, plain.len()];
    cuts.extend(styles.iter().map(|(at, _)| *at));
    for (a, b) in matches {
        cuts.push(*a);
        cuts.push(*b);
    }
    cuts.retain(|c| *c <= plain.len() && plain.is_char_boundary(*c));
    cuts.sort_unstable();
    cuts.dedup();
    let mut out: Vec<Piece> = Vec::new();
    for w in cuts.windows(2) {
        let (a, b) = (w[0], w[1]);
        if a == b {
            continue;
        }
        let style = styles
            .iter()
            .rev()
            .find(|(at, _)| *at <= a)
            .map(|(_, c)| c.as_str())
            .unwrap_or("");
        let hit = matches.iter().any(|(x, y)| *x <= a && b <= *y);
        let class = match (style.is_empty(), hit) {
            (true, false) => String::new(),
            (true, true) => "log-match".to_string(),
            (false, false) => style.to_string(),
            (false, true) => format!("{style} log-match"),
        };
        match out.last_mut() {
            Some(p) if p.class == class => p.text.push_str(&plain[a..b]),
            _ => out.push(Piece {
                text: plain[a..b].to_string(),
                class,
            }),
        }
    }
    out
}

/// A short name for a workload's pod: the part after the owner's name and
/// the pod template's hash (`frontend-7d9c-abcde` of `frontend` with hash
/// `7d9c` is `abcde`; a StatefulSet's `db-0` is `0`), or the whole name.
pub fn short_pod_name(pod: &str, owner: &str, template_hash: Option<&str>) -> String {
    let rest = pod
        .strip_prefix(owner)
        .and_then(|r| r.strip_prefix('-'))
        .filter(|r| !r.is_empty());
    let rest = match (rest, template_hash) {
        (Some(r), Some(h)) => r
            .strip_prefix(h)
            .and_then(|r| r.strip_prefix('-'))
            .filter(|r| !r.is_empty())
            .or(Some(r)),
        (r, _) => r,
    };
    rest.unwrap_or(pod).to_string()
}

/// The text a download of the loaded lines holds (with timestamps when
/// shown, and the pod's short name on a workload's merged log).
pub fn download_text(ring: &LogRing, timestamps: bool, names: &[String]) -> String {
    let mut out = String::new();
    for l in ring.iter() {
        if timestamps && let Some(s) = &l.stamp {
            out.push_str(s);
            out.push(' ');
        }
        if names.len() > 1
            && let Some(n) = names.get(l.source as usize)
        {
            out.push('[');
            out.push_str(n);
            out.push_str("] ");
        }
        out.push_str(&strip_ansi(&l.text).0);
        out.push('\n');
    }
    out
}

/// Words for a log stream that could not be read: the kubelet's "waiting
/// to start" and "previous terminated container" (sent as 400) are said as
/// what they mean, not as an invalid request.
pub fn stream_problem(p: &Problem, what: &str) -> String {
    match p {
        Problem::Forbidden(_) => format!(
            "You cannot read the logs of {what}: your account is not allowed to (pods/log)."
        ),
        Problem::NotFound(_) => format!("{what} is gone: the cluster has no such pod now."),
        Problem::Invalid(d)
            if d.contains("waiting to start") || d.contains("ContainerCreating") =>
        {
            format!("{what} has not started yet, so it has no log.")
        }
        Problem::Invalid(d) if d.contains("previous terminated container") => {
            format!("{what} has no previous container: it has not restarted.")
        }
        p => p.explain(&format!("read the logs of {what}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::filter::{Filter, Finder, find_text};

    fn query<'a>(pairs: &'a [(&'static str, String)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| pairs.iter().find(|(p, _)| *p == k).map(|(_, v)| v.clone())
    }

    #[test]
    fn only_what_the_request_asks_for_reopens_a_stream() {
        let o = LogOptions {
            container: Some("web".into()),
            tail: Tail::All,
            follow: false,
            ..LogOptions::default()
        };
        let viewed = LogOptions {
            timestamps: true,
            wrap: true,
            filter: "/err/".into(),
            keep: 10_000,
            ..o.clone()
        };
        assert_eq!(
            viewed.request_part(),
            o.request_part(),
            "the view's own options"
        );
        for asked in [
            LogOptions {
                previous: true,
                ..o.clone()
            },
            LogOptions {
                since_seconds: Some(60),
                ..o.clone()
            },
            LogOptions {
                since_time: Some("2026-12-03T10:00:00Z".into()),
                ..o.clone()
            },
            LogOptions {
                tail: Tail::Lines(10),
                ..o.clone()
            },
            LogOptions {
                follow: true,
                ..o.clone()
            },
            LogOptions {
                container: Some("sidecar".into()),
                ..o.clone()
            },
        ] {
            assert_ne!(asked.request_part(), o.request_part(), "{asked:?}");
        }
    }

    #[test]
    fn options_round_trip_through_the_url_and_defaults_stay_out() {
        assert!(LogOptions::default().to_query().is_empty());
        let o = LogOptions {
            container: Some("web".into()),
            previous: true,
            since_seconds: Some(300),
            since_time: Some("2026-12-01T10:00:00Z".into()),
            tail: Tail::All,
            timestamps: true,
            wrap: true,
            follow: false,
            filter: "/err(or)?/".into(),
            keep: 50_000,
        };
        let q = o.to_query();
        assert_eq!(LogOptions::from_query(query(&q)), o);
        let tail = LogOptions {
            tail: Tail::Lines(20),
            ..LogOptions::default()
        };
        assert_eq!(tail.to_query(), [("tail", "20".to_string())]);
        assert_eq!(LogOptions::from_query(query(&tail.to_query())), tail);
    }

    #[test]
    fn nonsense_in_the_url_is_ignored() {
        let q = [
            ("c", "../secrets".to_string()),
            ("tail", "-5".to_string()),
            ("since", "abc".to_string()),
            ("sinceTime", "yesterday".to_string()),
            ("follow", "maybe".to_string()),
            ("keep", "lots".to_string()),
        ];
        assert_eq!(LogOptions::from_query(query(&q)), LogOptions::default());
        // A cap outside the choices is brought inside them.
        let keep = |v: &str| LogOptions::from_query(query(&[("keep", v.to_string())])).keep;
        assert_eq!(keep("5"), KEEP_CHOICES[0]);
        assert_eq!(keep("999999999"), 1_000_000);
        assert_eq!(keep("123456"), 123_456);
    }

    #[test]
    fn params_ask_for_timestamps_and_never_follow_a_previous_log() {
        let p = LogOptions::default().params("web");
        assert_eq!(p.container.as_deref(), Some("web"));
        assert!(p.follow && p.timestamps);
        assert_eq!(p.tail_lines, Some(DEFAULT_TAIL));
        let prev = LogOptions {
            previous: true,
            tail: Tail::All,
            since_time: Some("2026-12-01T10:00:00Z".into()),
            ..LogOptions::default()
        }
        .params("web");
        assert!(prev.previous && !prev.follow);
        assert_eq!(prev.tail_lines, None);
        assert!(prev.since_time.is_some());
    }

    #[test]
    fn lines_survive_any_cut_of_the_stream() {
        let text = "one\r\ntwo ü€\nthree\n4";
        let bytes = text.as_bytes();
        for cut in 0..bytes.len() {
            let mut s = LineSplitter::default();
            let mut lines = s.push(&bytes[..cut]);
            lines.extend(s.push(&bytes[cut..]));
            lines.extend(s.finish());
            assert_eq!(lines, ["one", "two ü€", "three", "4"], "cut at {cut}");
        }
        let mut s = LineSplitter::default();
        assert_eq!(s.push(b"bad \xff\n"), ["bad \u{fffd}"]);
        assert_eq!(s.finish(), None);
    }

    #[test]
    fn a_line_keeps_its_time_apart_from_its_text() {
        let l = LogLine::parse(0, "2026-12-01T10:00:00.5Z GET / 200");
        assert_eq!(l.stamp.as_deref(), Some("2026-12-01T10:00:00.5Z"));
        assert_eq!(&*l.text, "GET / 200");
        assert!(l.at.is_some());
        let plain = LogLine::parse(0, "no time here");
        assert_eq!((plain.stamp, &*plain.text), (None, "no time here"));
        let word = LogLine::parse(0, "2 apples");
        assert_eq!(&*word.text, "2 apples");
    }

    fn at(source: u16, t: &str, text: &str) -> LogLine {
        LogLine::parse(source, &format!("2026-12-01T10:00:{t}Z {text}"))
    }

    #[test]
    fn the_ring_orders_streams_by_time_and_drops_the_oldest() {
        let mut r = LogRing::new(4);
        r.push(at(0, "01", "a1"));
        r.push(at(0, "03", "a3"));
        r.push(at(1, "02", "b2"));
        r.push(LogLine::parse(1, "no time"));
        let texts: Vec<&str> = r.iter().map(|l| &*l.text).collect();
        assert_eq!(texts, ["a1", "b2", "a3", "no time"]);
        r.push(at(0, "04", "a4"));
        assert_eq!((r.len(), r.dropped()), (4, 1));
        assert_eq!(&*r.get(0).expect("present").text, "b2");
        // A smaller cap drops the oldest at once, and counts them.
        let mut smaller = r.clone();
        smaller.set_cap(2);
        assert_eq!((smaller.len(), smaller.dropped()), (2, 3));
        assert_eq!(&*smaller.get(0).expect("present").text, "no time");
        // Equal times keep their arrival order.
        let mut r = LogRing::new(10);
        r.push(at(0, "05", "first"));
        r.push(at(1, "05", "second"));
        assert_eq!(&*r.get(1).expect("present").text, "second");
    }

    #[test]
    fn ansi_becomes_classes_and_markup_stays_text() {
        let (plain, styles) =
            strip_ansi("\x1b[1;31mERROR\x1b[0m <b>x</b> \x1b[38;5;46mok\x1b[39m\x1b]0;title\x07");
        assert_eq!(plain, "ERROR <b>x</b> ok");
        assert_eq!(
            strip_ansi("a\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ b\x01").0,
            "alink b\u{fffd}"
        );
        let p = pieces(&plain, &styles, &[]);
        assert_eq!(
            p[0],
            Piece {
                text: "ERROR".into(),
                class: "ansi-fg-1 ansi-bold".into()
            }
        );
        assert_eq!(
            p[1],
            Piece {
                text: " <b>x</b> ".into(),
                class: String::new()
            }
        );
        assert_eq!(p[2].text, "ok");
        assert_eq!(p[2].class, "ansi-fg-2", "xterm 46 is nearest to green");
        // An unterminated sequence is dropped, not shown.
        assert_eq!(strip_ansi("a\x1b[31").0, "a");
        assert_eq!(strip_ansi("\x1b[38;2;250;250;250mw").1[0].1, "ansi-fg-15");
    }

    #[test]
    fn matches_are_highlighted_across_colours() {
        let (plain, styles) = strip_ansi("\x1b[32mINFO\x1b[0m request");
        let found = find_text(&plain, "fo re");
        assert_eq!(found, [(2, 7)]);
        let p = pieces(&plain, &styles, &found);
        let drawn: Vec<(&str, &str)> = p
            .iter()
            .map(|p| (p.text.as_str(), p.class.as_str()))
            .collect();
        assert_eq!(
            drawn,
            [
                ("IN", "ansi-fg-2"),
                ("FO", "ansi-fg-2 log-match"),
                (" re", "log-match"),
                ("quest", "")
            ]
        );
        assert_eq!(
            find_text("Ünïcode ERROR error", "error"),
            [(10, 15), (16, 21)]
        );
        assert!(find_text("abc", "abcd").is_empty());
    }

    #[test]
    fn the_filter_is_text_or_a_pattern() {
        let compile = |p: &str| -> Result<Finder, String> {
            if p == "(" {
                return Err("unbalanced".into());
            }
            let p = p.to_string();
            Ok(Box::new(move |h: &str| {
                h.find(&p)
                    .map(|i| vec![(i, i + p.len())])
                    .unwrap_or_default()
            }))
        };
        assert!(Filter::parse("").finder(compile).is_none());
        assert_eq!(
            Filter::parse("GET")
                .finder(compile)
                .expect("present")
                .expect("present")("a get b"),
            [(2, 5)]
        );
        assert_eq!(
            Filter::parse("/GET/")
                .finder(compile)
                .expect("present")
                .expect("present")("a get b"),
            []
        );
        assert!(
            Filter::parse("/(/")
                .finder(compile)
                .expect("present")
                .is_err()
        );
    }

    #[test]
    fn names_and_downloads() {
        assert_eq!(
            short_pod_name("frontend-7d9c-abcde", "frontend", Some("7d9c")),
            "abcde"
        );
        assert_eq!(
            short_pod_name("frontend-7d9c-abcde", "frontend", None),
            "7d9c-abcde"
        );
        assert_eq!(short_pod_name("db-0", "db", None), "0");
        assert_eq!(short_pod_name("other", "frontend", Some("7d9c")), "other");
        let mut r = LogRing::new(10);
        r.push(at(0, "01", "\x1b[31mred\x1b[0m"));
        r.push(at(1, "02", "b"));
        let names = ["a".to_string(), "b".to_string()];
        assert_eq!(
            download_text(&r, true, &names),
            "2026-12-01T10:00:01Z [a] red\n2026-12-01T10:00:02Z [b] b\n"
        );
        assert_eq!(download_text(&r, false, &names[..1]), "red\nb\n");
    }

    #[test]
    fn a_stream_that_cannot_be_read_is_said_in_words_of_its_kind() {
        let say = |p: Problem| stream_problem(&p, "container web of pod p");
        assert!(say(Problem::Forbidden(String::new())).contains("(pods/log)"));
        assert!(say(Problem::NotFound(String::new())).contains("is gone"));
        for kubelet in [
            "container \"web\" in pod \"p\" is waiting to start: image can't be pulled",
            "ContainerCreating",
        ] {
            assert_eq!(
                say(Problem::Invalid(kubelet.into())),
                "container web of pod p has not started yet, so it has no log.",
                "{kubelet}"
            );
        }
        assert!(
            say(Problem::Invalid(
                "previous terminated container \"web\" in pod \"p\" not found".into()
            ))
            .contains("has not restarted")
        );
        assert!(say(Problem::Invalid("bad sinceTime".into())).contains("the request is not valid"));
        assert!(say(Problem::Unreachable(String::new())).contains("cannot be reached"));
    }
}
