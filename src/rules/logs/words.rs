//! The words made of logs: a workload pod's short name, the text a download saves, and a failed stream in a sentence.

use crate::rules::problem::Problem;

use super::{LogRing, strip_ansi};

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

/// How a line's own text is written out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogText {
    /// As the view draws it: colour codes gone, control and bidi characters
    /// drawn visibly (what a copy holds).
    Shown,
    /// As the container wrote it: colour codes and control characters
    /// included (what a download holds).
    Exact,
}

/// The mark a line cut at [`super::MAX_LINE_BYTES`] ends with, in the view
/// and in the text made of it.
pub fn cut_mark(total: u64) -> String {
    format!(
        " … [line cut: the first {} of {} kept]",
        bytes_in_words(super::MAX_LINE_BYTES as u64),
        bytes_in_words(total)
    )
}

/// A size in bytes, in words: `512 bytes`, `64 KiB`, `10.0 MiB`.
pub fn bytes_in_words(n: u64) -> String {
    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * KIB;
    const GIB: u64 = 1024 * MIB;
    match n {
        n if n < KIB => format!("{n} bytes"),
        n if n < MIB && n % KIB == 0 => format!("{} KiB", n / KIB),
        n if n < MIB => format!("{:.1} KiB", n as f64 / KIB as f64),
        n if n < GIB => format!("{:.1} MiB", n as f64 / MIB as f64),
        n => format!("{:.1} GiB", n as f64 / GIB as f64),
    }
}

/// The text a copy or a download of the loaded lines holds (with
/// timestamps when shown, and the pod's short name on a workload's merged
/// log); a cut line ends with its [`cut_mark`].
pub fn download_text(ring: &LogRing, timestamps: bool, names: &[String], text: LogText) -> String {
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
        match text {
            LogText::Shown => out.push_str(&strip_ansi(&l.text).0),
            LogText::Exact => out.push_str(&l.text),
        }
        if let Some(total) = l.cut {
            out.push_str(&cut_mark(total));
        }
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
