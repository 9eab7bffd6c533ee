//! The words made of logs: a workload pod's short name, the text a download saves, and a failed stream in a sentence.

use crate::model::problem::Problem;

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
