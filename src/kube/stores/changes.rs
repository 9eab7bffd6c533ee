//! The tab's record of changes, as the changes page reads it: one informer per recorded kind (whole objects with managedFields) and the Warning events, each change compared with the version seen before it and kept in `rules::changes`.
//!
//! Recording starts the first time the changes page opens and then runs
//! for the tab's life, so coming back finds what happened meanwhile. The
//! store takes every notification of its informers (not a view's frames):
//! the objects there at sync come marked `initial` and are the starting
//! point, not changes, and each later version is compared with the one
//! before it, so no change is lost or merged. Views hear that rows came
//! once per animation frame.

use std::rc::Rc;
use std::sync::Arc;

use kubeglass_client::discovery::{Discovery, ResourceInfo};
use kubeglass_client::kube_core::DynamicObject;
use leptos::prelude::*;
use serde_json::Value;

use crate::kube::subscribe::{InformerSnapshot, Watch};
use kubeglass_client::cache::Notification;
use kubeglass_web::FrameQueue;

use crate::kube::Kube;
use crate::rules::changes::{Changes, Entry, KINDS, Subject};
use crate::rules::objects::resource_of;
use crate::rules::resolve::Unresolved;

/// One kind whose changes are recorded, as the page lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    /// The name it was asked for (`deployments.apps`).
    pub name: String,
    /// Its kind once discovery said (`Deployment`).
    pub kind: Option<String>,
    /// Why it is not recorded, if it is not.
    pub problem: Option<String>,
    /// Its informer's state, once it runs.
    pub status: Option<RwSignal<InformerSnapshot>>,
}

/// The recording, its kinds, and a trigger that fires when rows come (what views track).
#[derive(Clone, Copy)]
pub struct ChangeStore {
    inner: StoredValue<Changes, LocalStorage>,
    changed: Trigger,
    /// The kinds asked for, in order, with their state.
    pub kinds: RwSignal<Vec<Recorded>>,
    holds: StoredValue<Vec<Watch<DynamicObject>>, LocalStorage>,
    started: StoredValue<bool>,
}

impl ChangeStore {
    /// Not recording yet; provided once by the app.
    pub fn new() -> Self {
        Self {
            inner: StoredValue::new_local(Changes::new(0.0)),
            changed: Trigger::new(),
            kinds: RwSignal::new(Vec::new()),
            holds: StoredValue::new_local(Vec::new()),
            started: StoredValue::new(false),
        }
    }

    /// Starts recording the default kinds and the Warning events (once;
    /// later calls do nothing). Call from a component of the app, whose
    /// owner the informers then live under.
    pub fn start(&self, kube: &Kube) {
        if self.started.get_value() {
            return;
        }
        self.started.set_value(true);
        let since = kube.now();
        self.inner.update_value(|t| *t = Changes::new(since));
        for name in KINDS {
            self.add(kube, name);
        }
        self.record_warnings(kube);
    }

    /// Also records the kind `name` (any name kubectl takes: `db`,
    /// `certificates.cert-manager.io`); Secrets never, since their values
    /// would be in the diffs.
    pub fn add(&self, kube: &Kube, name: &str) {
        let name = name.trim().to_string();
        if name.is_empty()
            || self
                .kinds
                .with_untracked(|k| k.iter().any(|r| r.name == name))
        {
            return;
        }
        self.kinds.update(|k| {
            k.push(Recorded {
                name: name.clone(),
                kind: None,
                problem: None,
                status: None,
            })
        });
        let (this, kube) = (*self, kube.clone());
        let owner = Owner::current();
        kube.clone().spawn(async move {
            let outcome = kube.resolve_for(&name, &["list", "watch"]).await;
            let set = |f: &dyn Fn(&mut Recorded)| {
                this.kinds
                    .update(|k| k.iter_mut().filter(|r| r.name == name).for_each(f))
            };
            let info = match outcome {
                Ok(info) if info.group.is_empty() && info.plural == "secrets" => {
                    return set(&|r| {
                        r.problem = Some(
                            "Secrets are never recorded: their values would be in the diffs."
                                .into(),
                        )
                    });
                }
                Ok(info) => info,
                Err(why) => {
                    let text = unresolved_words(&name, why);
                    return set(&|r| r.problem = Some(text.clone()));
                }
            };
            let already = this.kinds.with_untracked(|k| {
                k.iter()
                    .any(|r| r.name != name && r.kind.as_deref() == Some(info.kind.as_str()))
            });
            if already {
                return set(&|r| r.problem = Some(format!("{} is recorded already.", info.kind)));
            }
            let watch = match owner {
                Some(owner) => owner.with(|| this.record(&kube, &info)),
                None => this.record(&kube, &info),
            };
            match watch {
                Ok(watch) => {
                    let status = watch.status();
                    this.holds.update_value(|h| h.push(watch));
                    set(&|r| {
                        r.kind = Some(info.kind.clone());
                        r.status = Some(status);
                    });
                }
                Err(e) => set(&|r| r.problem = Some(e.clone())),
            }
        });
    }

    /// Subscribes to every object of `info` and records each change as it
    /// comes (every version, in the order the informer delivers them).
    pub(in crate::kube) fn record(
        &self,
        kube: &Kube,
        info: &ResourceInfo,
    ) -> Result<Watch<DynamicObject>, String> {
        let path = info.collection_path(None).map_err(|e| e.to_string())?;
        let (resource, kind) = (info.qualified_name(), info.kind.clone());
        let (this, k, wake) = (*self, kube.clone(), self.wake(kube));
        let subject = move |o: &DynamicObject| Subject {
            resource: resource.clone(),
            kind: kind.clone(),
            namespace: o.metadata.namespace.clone(),
            name: o.metadata.name.clone().unwrap_or_default(),
        };
        let watch = kube
            // "timeline": the name X-ray shows, kept from before the rename.
            .subscribe("timeline", &path)
            .with_managed_fields()
            .each(move |n: &Notification<DynamicObject>| {
                let (old, new) = match n {
                    // The state at sync is the starting point, not a change.
                    Notification::Added { initial: true, .. } => return,
                    Notification::Updated { resync: true, .. } => return,
                    Notification::Added { object, .. } => (None, Some(object)),
                    Notification::Updated { old, new, .. } => (Some(old), Some(new)),
                    Notification::Deleted { object, .. } => (Some(object), None),
                };
                let Some(object) = new.or(old) else { return };
                let (old, new) = (old.map(|o| as_json(o)), new.map(|o| as_json(o)));
                let at = k.now();
                let mut any = false;
                this.inner.update_value(|t| {
                    any = t.observe(subject(object), old.as_ref(), new.as_ref(), at)
                });
                if any {
                    wake.add(());
                }
            });
        Ok(watch)
    }

    /// Records each Warning event as it comes or repeats (a new count or
    /// last time), about the object it names; those there at sync are the
    /// starting point.
    fn record_warnings(&self, kube: &Kube) {
        let (this, k, wake) = (*self, kube.clone(), self.wake(kube));
        let watch = kube.subscribe("events", "/api/v1/events").each(
            move |n: &Notification<DynamicObject>| {
                let (before, event) = match n {
                    Notification::Added {
                        initial: false,
                        object,
                    } => (None, object),
                    Notification::Updated {
                        old,
                        new,
                        resync: false,
                    } => (Some(old), new),
                    _ => return,
                };
                let event = as_json(event);
                let now = mark(&event);
                if !now.warning || before.is_some_and(|b| mark(&as_json(b)) == now) {
                    return;
                }
                let discovery = k.discovered.get_untracked().and_then(Result::ok);
                let subject = involved(&event, discovery.as_deref());
                let at = k.now();
                this.inner.update_value(|t| t.warning(subject, &event, at));
                wake.add(());
            },
        );
        let status = watch.status();
        self.holds.update_value(|h| h.push(watch));
        self.kinds.update(|k| {
            k.push(Recorded {
                name: "events (Warning)".into(),
                kind: Some("Event".into()),
                problem: None,
                status: Some(status),
            })
        });
    }

    /// Tells the views once per animation frame that rows came, however
    /// many came in it.
    fn wake(&self, kube: &Kube) -> Rc<FrameQueue<()>> {
        let changed = self.changed;
        Rc::new(kube.frame_queue("timeline", move |_| changed.notify()))
    }

    /// Reads the recording (tracked: re-read when rows come).
    pub fn with<R>(&self, f: impl FnOnce(&Changes) -> R) -> R {
        self.changed.track();
        self.inner.with_value(f)
    }

    /// Rows kept, bytes of their diffs and rows dropped; None before the
    /// recording starts (tracked).
    pub fn held(&self) -> Option<(usize, usize, u64)> {
        if self.kinds.with(Vec::is_empty) {
            return None;
        }
        Some(self.with(|t| {
            let (rows, bytes) = t.held();
            (rows, bytes, t.dropped)
        }))
    }

    /// One row, while it is kept (tracked).
    pub fn entry(&self, seq: u64) -> Option<Arc<Entry>> {
        self.with(|t| t.get(seq).cloned())
    }
}

/// The object an event is about; its resource as the routes name it when
/// discovery knows the kind (else no link).
fn involved(event: &Value, discovery: Option<&Discovery>) -> Subject {
    let text = |p: &str| {
        event
            .pointer(&format!("/involvedObject/{p}"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let (api_version, kind) = (text("apiVersion"), text("kind"));
    let resource = discovery
        .and_then(|d| resource_of(d, &api_version, &kind))
        .map(ResourceInfo::qualified_name)
        .unwrap_or_default();
    let namespace = Some(text("namespace")).filter(|s| !s.is_empty());
    Subject {
        resource,
        kind,
        namespace,
        name: text("name"),
    }
}

/// What makes an event news again: its type, count and last time.
#[derive(Debug, Clone, PartialEq)]
struct Mark {
    warning: bool,
    count: i64,
    last: String,
}

fn mark(event: &Value) -> Mark {
    let text = |p: &str| event.pointer(p).and_then(Value::as_str).unwrap_or("");
    Mark {
        warning: text("/type") == "Warning",
        count: event.pointer("/count").and_then(Value::as_i64).unwrap_or(0),
        last: format!(
            "{} {}",
            text("/lastTimestamp"),
            text("/series/lastObservedTime")
        ),
    }
}

/// An object as JSON, for the diff.
fn as_json(o: &DynamicObject) -> Value {
    serde_json::to_value(o).unwrap_or(Value::Null)
}

/// Why a kind the person typed is not recorded.
fn unresolved_words(name: &str, why: Unresolved) -> String {
    match why {
        Unresolved::Unknown => format!("The server has no resource called “{name}”."),
        Unresolved::Cannot(t) => t,
        Unresolved::Failed(p) => format!(
            "{} {}",
            p.explain("read the server's resources"),
            p.detail()
        ),
    }
}

/// The tab's changes (provided by the app).
pub fn use_changes() -> ChangeStore {
    expect_context::<ChangeStore>()
}
