//! The log view's options: what a stream asks the server for, what only the view applies, and how both live in the URL.

use kubeglass_client::k8s_openapi::jiff::Timestamp;
use kubeglass_client::kube_core::subresource::LogParams;

use crate::rules::time::parse_time;

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
