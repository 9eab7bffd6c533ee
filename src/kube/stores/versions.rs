//! The versions of objects the tab has seen, as every view shares them: recorded as the informers hand them over, read by the object page's History, under the caps of `rules::versions`.

use leptos::prelude::*;
use serde_json::Value;

use crate::rules::time::Seconds;
use crate::rules::versions::{ObjectVersions, Versions};

/// The versions, and a trigger that fires when any change (what views track).
#[derive(Clone, Copy)]
pub struct VersionStore {
    inner: StoredValue<Versions, LocalStorage>,
    changed: Trigger,
}

impl VersionStore {
    /// Empty, with the default caps; provided once by the app.
    pub fn new() -> Self {
        Self {
            inner: StoredValue::new_local(Versions::new()),
            changed: Trigger::new(),
        }
    }

    /// The key of an object's versions: its resource, namespace and name.
    pub fn key(resource: &str, namespace: Option<&str>, name: &str) -> String {
        match namespace {
            Some(ns) => format!("{resource} {ns}/{name}"),
            None => format!("{resource} {name}"),
        }
    }

    /// Records a version seen at `now`.
    pub fn record(&self, key: &str, object: &Value, now: Seconds) {
        let mut new = false;
        self.inner
            .update_value(|h| new = h.record(key, object, now));
        if new {
            self.changed.notify();
        }
    }

    /// Records that the object is gone (views hear of it once).
    pub fn deleted(&self, key: &str, now: Seconds) {
        let mut new = false;
        self.inner.update_value(|h| new = h.deleted(key, now));
        if new {
            self.changed.notify();
        }
    }

    /// `key`'s versions now (tracked: re-read when any object's versions change).
    pub fn get(&self, key: &str) -> Option<ObjectVersions> {
        self.changed.track();
        self.inner.with_value(|h| h.get(key).cloned())
    }

    /// Bytes held, objects with versions and versions dropped under the
    /// byte cap, for the X-ray page (tracked).
    pub fn held(&self) -> (usize, usize, u64) {
        self.changed.track();
        self.inner.with_value(|h| {
            let (bytes, objects) = h.held();
            (bytes, objects, h.dropped)
        })
    }
}

/// The tab's versions store (provided by the app).
pub fn use_versions() -> VersionStore {
    expect_context::<VersionStore>()
}
