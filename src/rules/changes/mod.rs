//! Changes: every add, update and delete the changes store's informers see across the workload kinds, with Warning events between them, newest last, under a count and a byte cap.
//!
//! No backend and no history before the recording started: the informers
//! hand over each object they see, [`Changes::observe`] compares it with
//! the version seen before it (the field diff and the writers of
//! `rules::versions`), and a Warning event becomes a row of its own. Updates
//! that change only `status` (or nothing but resourceVersion and
//! managedFields) are marked, so a view can fold them away.

mod filter;

pub use filter::ChangeFilter;

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use serde_json::Value;

use crate::rules::time::Seconds;
use crate::rules::versions::{
    FieldChange, diff, manager_words, managers, sections, summary, writers,
};

/// The kinds whose changes are watched unless the person adds more, as the
/// app's routes name them: the workload kinds and what they lean on.
pub const KINDS: &[&str] = &[
    "deployments.apps",
    "replicasets.apps",
    "statefulsets.apps",
    "daemonsets.apps",
    "jobs.batch",
    "cronjobs.batch",
    "pods",
    "services",
    "ingresses.networking.k8s.io",
    "configmaps",
    "horizontalpodautoscalers.autoscaling",
    "persistentvolumeclaims",
    "nodes",
];

/// Rows kept; older ones are dropped (and counted).
pub const MAX_ENTRIES: usize = 10_000;
/// Bytes of field diffs kept across every row (their JSON); past it, the
/// oldest rows go first.
pub const MAX_BYTES: usize = 8 << 20;
/// Characters of a Warning's message a row keeps.
const MESSAGE_CHARS: usize = 300;

/// What happened to the object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// It appeared after the recording started.
    Added,
    /// It changed.
    Updated,
    /// It went away.
    Deleted,
    /// A Warning event about it.
    Warning,
}

impl Op {
    /// The word a row shows.
    pub fn word(self) -> &'static str {
        match self {
            Op::Added => "added",
            Op::Updated => "updated",
            Op::Deleted => "deleted",
            Op::Warning => "warning",
        }
    }
}

/// The object a row is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subject {
    /// Its resource as the app's routes name it (`deployments.apps`, `pods`).
    pub resource: String,
    /// Its kind (`Deployment`).
    pub kind: String,
    /// Its namespace; None for cluster-scoped kinds.
    pub namespace: Option<String>,
    /// Its name.
    pub name: String,
}

/// One row of the changes.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Its place in the recording (rows keep it when older ones go).
    pub seq: u64,
    /// When the tab saw it.
    pub at: Seconds,
    /// What happened.
    pub op: Op,
    /// The object.
    pub subject: Subject,
    /// Who did it: the managers that wrote (an update), the creators (an
    /// add), the component that reported (a Warning); empty when unknown.
    pub by: Vec<String>,
    /// One line (`spec.replicas 1 → 3`, `created`, `BackOff: back-off…`).
    pub summary: String,
    /// The fields that changed (an update), for the row's diff.
    pub changes: Vec<FieldChange>,
    /// An update that changed nothing outside `status` (or nothing but
    /// resourceVersion and managedFields).
    pub status_only: bool,
    bytes: usize,
}

/// The recording: rows oldest first, under [`MAX_ENTRIES`] and [`MAX_BYTES`].
#[derive(Debug, Clone)]
pub struct Changes {
    entries: VecDeque<Arc<Entry>>,
    bytes: usize,
    next: u64,
    /// When the recording started.
    pub since: Seconds,
    /// Rows dropped under the caps.
    pub dropped: u64,
    /// The rows kept per namespace and per kind, for the filter menus
    /// (kept as rows come and go, so a frame need not walk every row).
    namespaces: BTreeMap<String, usize>,
    kinds: BTreeMap<String, usize>,
    max_entries: usize,
    max_bytes: usize,
}

impl Changes {
    /// An empty recording started at `since`, with the default caps.
    pub fn new(since: Seconds) -> Self {
        Self::with_caps(since, MAX_ENTRIES, MAX_BYTES)
    }

    /// An empty recording with caps of its own (tests).
    pub fn with_caps(since: Seconds, max_entries: usize, max_bytes: usize) -> Self {
        Self {
            entries: VecDeque::new(),
            bytes: 0,
            next: 0,
            since,
            dropped: 0,
            namespaces: BTreeMap::new(),
            kinds: BTreeMap::new(),
            max_entries,
            max_bytes,
        }
    }

    /// Records what became of `subject` between the version seen before
    /// (`old`) and now (`new`, None when it is gone). The same
    /// resourceVersion again is no change. True when a row was added.
    pub fn observe(
        &mut self,
        subject: Subject,
        old: Option<&Value>,
        new: Option<&Value>,
        at: Seconds,
    ) -> bool {
        match (old, new) {
            (None, Some(new)) => {
                let mut by: Vec<String> = Vec::new();
                for m in managers(new) {
                    let w = manager_words(&m);
                    if !by.contains(&w) {
                        by.push(w);
                    }
                }
                self.push(
                    at,
                    Op::Added,
                    subject,
                    by,
                    "created".into(),
                    Vec::new(),
                    false,
                );
            }
            (Some(old), Some(new)) => {
                if resource_version(old) == resource_version(new) {
                    return false;
                }
                let changes = diff(old, new);
                let by: Vec<String> = writers(old, new, &changes)
                    .iter()
                    .map(manager_words)
                    .collect();
                let parts = sections(&changes);
                let status_only = parts.keys().all(|k| k == "status");
                let line = summary(&changes, &[]);
                self.push(at, Op::Updated, subject, by, line, changes, status_only);
            }
            (Some(_), None) => {
                self.push(
                    at,
                    Op::Deleted,
                    subject,
                    Vec::new(),
                    "deleted".into(),
                    Vec::new(),
                    false,
                );
            }
            (None, None) => return false,
        }
        true
    }

    /// Records a Warning event about `subject`: its reason, count and
    /// message (cut short), reported by its component.
    pub fn warning(&mut self, subject: Subject, event: &Value, at: Seconds) {
        let text = |p: &str| event.pointer(p).and_then(Value::as_str).unwrap_or("");
        let count = event.pointer("/count").and_then(Value::as_i64).unwrap_or(0);
        let mut message: String = text("/message").chars().take(MESSAGE_CHARS).collect();
        if text("/message").chars().count() > MESSAGE_CHARS {
            message.push('…');
        }
        let times = if count > 1 {
            format!(" ×{count}")
        } else {
            String::new()
        };
        let line = format!("{}{times}: {message}", text("/reason"));
        let source = [text("/reportingComponent"), text("/source/component")]
            .into_iter()
            .find(|s| !s.is_empty())
            .map(str::to_string);
        self.push(
            at,
            Op::Warning,
            subject,
            source.into_iter().collect(),
            line,
            Vec::new(),
            false,
        );
    }

    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        at: Seconds,
        op: Op,
        subject: Subject,
        by: Vec<String>,
        summary: String,
        changes: Vec<FieldChange>,
        status_only: bool,
    ) {
        let bytes = summary.len()
            + changes
                .iter()
                .map(|c| {
                    c.path.len()
                        + c.old.as_ref().map_or(0, |v| v.to_string().len())
                        + c.new.as_ref().map_or(0, |v| v.to_string().len())
                })
                .sum::<usize>();
        if let Some(ns) = &subject.namespace {
            *self.namespaces.entry(ns.clone()).or_default() += 1;
        }
        *self.kinds.entry(subject.kind.clone()).or_default() += 1;
        self.entries.push_back(Arc::new(Entry {
            seq: self.next,
            at,
            op,
            subject,
            by,
            summary,
            changes,
            status_only,
            bytes,
        }));
        self.next += 1;
        self.bytes += bytes;
        while self.entries.len() > self.max_entries
            || (self.bytes > self.max_bytes && self.entries.len() > 1)
        {
            if let Some(e) = self.entries.pop_front() {
                self.bytes -= e.bytes;
                self.dropped += 1;
                forget(&mut self.kinds, &e.subject.kind);
                if let Some(ns) = &e.subject.namespace {
                    forget(&mut self.namespaces, ns);
                }
            }
        }
    }

    /// The rows, oldest first (shared: a view copies pointers).
    pub fn entries(&self) -> impl DoubleEndedIterator<Item = &Arc<Entry>> + ExactSizeIterator {
        self.entries.iter()
    }

    /// The place the next row will have.
    pub fn next_seq(&self) -> u64 {
        self.next
    }

    /// The row with `seq`, while it is kept.
    pub fn get(&self, seq: u64) -> Option<&Arc<Entry>> {
        let first = self.entries.front()?.seq;
        self.entries
            .get(usize::try_from(seq.checked_sub(first)?).ok()?)
    }

    /// The namespaces the rows kept are in, in order.
    pub fn namespaces(&self) -> impl Iterator<Item = &String> {
        self.namespaces.keys()
    }

    /// The kinds the rows kept are of, in order.
    pub fn kinds(&self) -> impl Iterator<Item = &String> {
        self.kinds.keys()
    }

    /// Rows kept and the bytes of their diffs.
    pub fn held(&self) -> (usize, usize) {
        (self.entries.len(), self.bytes)
    }
}

/// One row fewer under `key`; the key goes with its last row.
fn forget(counts: &mut BTreeMap<String, usize>, key: &str) {
    if let Some(n) = counts.get_mut(key) {
        *n -= 1;
        if *n == 0 {
            counts.remove(key);
        }
    }
}

fn resource_version(v: &Value) -> Option<&str> {
    v.pointer("/metadata/resourceVersion")
        .and_then(Value::as_str)
}

#[cfg(test)]
mod tests;
