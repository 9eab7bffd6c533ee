//! Tables that outlive the tab: each table's rows are saved with the
//! resourceVersion they are complete up to, and the next time that table
//! is opened (a reload, a browser or launcher restart) it draws from them
//! at once and its informer resumes with a watch from that version, with
//! no list while the server still has it (the client's `cache::Seed`).
//!
//! - **What is saved**: Table informers' rows (kubectl's cells and each
//!   row's metadata), and informers whose objects are cut to a few fields
//!   (the usage columns' pods, to their containers' resources) or to
//!   metadata; never whole objects (a ConfigMap's data), and never a
//!   Secret's: core Secrets are left out whole, names included.
//! - **Where**: the host's [`SavedStore`], the launcher's per-context
//!   folder or the origin's Cache Storage (`kubeglass_web::Snapshots` says
//!   why each).
//! - **When**: once a table's cache is confirmed by the server (also after
//!   it was drawn from a save and caught up), then at most every
//!   [`SAVE_EVERY`] while it changes, when the tab is hidden, and when the
//!   informer stops (its view went).
//! - **Bounds**: a saved table over [`MAX_TEXT`] is not kept, and one older
//!   than [`MAX_AGE`] is not used. A store that fails (a full quota, a
//!   private window, a launcher that stopped) is named on the X-ray page
//!   and changes nothing else: the live view goes on as if nothing were
//!   saved.
//!
//! The saved text is one header line (what, which collection, when), then
//! the Table (or List) the server would have sent for the objects
//! (`form`).

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use futures::FutureExt;
use kubeglass_client::cache::{InformerOptions, ReflectorState, Seed, SharedInformer};
use kubeglass_client::clock::Clock;
use kubeglass_client::rest::secrets::is_secrets_path;
use leptos::prelude::*;

use crate::kube::host::SavedStore;
use crate::rules::time::Seconds;

mod form;
mod keyed;
mod usage;

pub use form::{Savable, decode, encode, key_of};
pub use keyed::Keyed;
pub use usage::SavedUsage;

/// How often a changing table is saved at most.
pub const SAVE_EVERY: Duration = Duration::from_secs(30);
/// How often the kept tables are looked at.
const CHECK_EVERY: Duration = Duration::from_secs(5);
/// A saved table older than this is not used (the server's watch cache
/// forgets versions within minutes on a busy cluster; a week-old table
/// would mostly mislead).
pub const MAX_AGE: Duration = Duration::from_secs(7 * 24 * 3600);
/// The largest saved table kept (about 180,000 pod rows at the 371 B a
/// row measured for 50,000).
pub const MAX_TEXT: usize = 64 << 20;

/// What the X-ray page shows of the saved tables.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SavedStats {
    /// Tables drawn from a saved state this visit.
    pub restored: u64,
    /// Saves made this visit.
    pub saves: u64,
    /// Bytes of the last save.
    pub last_bytes: usize,
    /// The tables kept, by key: the collection and when last saved.
    pub kept: Keyed<(String, Option<Seconds>)>,
    /// The last failure to read or keep one, in words.
    pub last_error: Option<String>,
    /// Where they are kept, in words; None when nowhere.
    pub place: Option<&'static str>,
}

/// A kept informer's version and the text it is saved as, made when due.
type Writer = Box<dyn FnOnce(&str, Seconds) -> Result<String, String>>;

struct Kept {
    /// Which informer (to keep one per key).
    id: Rc<RefCell<kubeglass_client::cache::ReflectorStatus>>,
    stopped: Box<dyn Fn() -> bool>,
    /// The informer's checkpoint: its version, and how to write it.
    checkpoint: Box<dyn Fn() -> Option<(String, Writer)>>,
    path: String,
    saved_rv: Option<String>,
    saved_at: Option<Seconds>,
}

struct Inner {
    store: Option<Rc<dyn SavedStore>>,
    clock: Rc<dyn Clock>,
    kept: RefCell<Keyed<Kept>>,
    /// When each table drawn from a saved state was saved, by key.
    restored: RefCell<Keyed<Seconds>>,
    stats: RwSignal<SavedStats>,
    /// A save is under way (saves go one at a time).
    saving: Cell<bool>,
    /// A forced save came while one was under way: run again after it.
    force_again: Cell<bool>,
    /// The informers are paused (the tab is hidden): a stopped one is
    /// still kept, since it runs again when the tab is shown.
    paused: Cell<bool>,
}

/// The tables saved and restored this visit; cheap to clone.
#[derive(Clone)]
pub struct SavedTables {
    inner: Rc<Inner>,
}

impl SavedTables {
    /// Saved tables kept in `store` (None: nowhere), timed by `clock`.
    pub fn new(store: Option<Rc<dyn SavedStore>>, clock: Rc<dyn Clock>) -> Self {
        let stats = SavedStats {
            place: store.as_ref().map(|s| s.place()),
            ..SavedStats::default()
        };
        Self {
            inner: Rc::new(Inner {
                store,
                clock,
                kept: RefCell::default(),
                restored: RefCell::default(),
                stats: RwSignal::new(stats),
                saving: Cell::new(false),
                force_again: Cell::new(false),
                paused: Cell::new(false),
            }),
        }
    }

    /// What the X-ray page shows, as a signal.
    pub fn stats(&self) -> ReadSignal<SavedStats> {
        self.inner.stats.read_only()
    }

    /// When the table under `key` was saved, if it was drawn from a saved state.
    pub fn restored_at(&self, key: &str) -> Option<Seconds> {
        self.inner.restored.borrow().get(key).copied()
    }

    /// The periodic look at the kept tables; runs for the app's life.
    pub async fn run(self) {
        if self.inner.store.is_none() {
            return;
        }
        loop {
            self.inner.clock.sleep(CHECK_EVERY).await;
            self.save_due(false).await;
        }
    }

    /// For an informer about to be made from `options`, its cache in
    /// `form` ("table", "metadata" or its transform's name): the key it is
    /// saved under, with a seed loader put in `options`; None when it is
    /// not saved (Secrets; no store).
    pub fn prepare<K: Savable>(
        &self,
        form: &str,
        options: &mut InformerOptions<K>,
    ) -> Option<String> {
        let store = self.inner.store.clone()?;
        let r = &options.reflector;
        if is_secrets_path(&r.url_path) {
            return None;
        }
        let key = key_of(
            form,
            &r.url_path,
            r.label_selector.as_deref(),
            r.field_selector.as_deref(),
        );
        let path = r.url_path.clone();
        let (me, k) = (self.clone(), key.clone());
        options.seed = Some(Box::new(move || {
            async move {
                let found = store.load(&k).await;
                me.seed_from(&k, &path, found)
            }
            .boxed_local()
        }));
        Some(key)
    }

    fn seed_from<K: Savable>(
        &self,
        key: &str,
        path: &str,
        found: Result<Option<String>, String>,
    ) -> Option<Seed<K>> {
        let text = match found {
            Ok(t) => t?,
            Err(e) => {
                self.failed(format!("reading the saved table of {path}: {e}"));
                return None;
            }
        };
        match decode(path, &text) {
            Ok((saved, _)) if self.now() - saved > MAX_AGE.as_secs_f64() => None,
            Ok((saved, seed)) => {
                self.inner.restored.borrow_mut().insert(key.into(), saved);
                self.inner.stats.update(|s| s.restored += 1);
                Some(seed)
            }
            Err(e) => {
                self.failed(format!("the saved table of {path} does not read: {e}"));
                None
            }
        }
    }

    /// Keeps saving `informer`'s cache (of the collection at `path`) under
    /// `key`, once per key.
    pub fn keep<
        K: Savable + kubeglass_client::kube_core::Resource + serde::de::DeserializeOwned,
    >(
        &self,
        key: String,
        path: String,
        informer: &SharedInformer<K>,
    ) {
        let id = informer.status();
        let mut kept = self.inner.kept.borrow_mut();
        if kept.get(&key).is_some_and(|k| Rc::ptr_eq(&k.id, &id)) {
            return;
        }
        let (a, b) = (informer.clone(), informer.clone());
        let saved_at = self.restored_at(&key);
        self.inner
            .stats
            .update(|s| s.kept.insert(key.clone(), (path.clone(), saved_at)));
        kept.insert(
            key,
            Kept {
                id,
                stopped: Box::new(move || a.snapshot().reflector.state == ReflectorState::Stopped),
                checkpoint: Box::new(move || {
                    let cp = b.checkpoint()?;
                    let rv = cp.resource_version.clone();
                    let write: Writer = Box::new(move |path, now| encode(path, now, &cp));
                    Some((rv, write))
                }),
                path,
                saved_rv: None,
                saved_at,
            },
        );
    }

    /// Saves every kept table that changed (all of them now, with
    /// `force`: the tab is being hidden; else those not saved for
    /// [`SAVE_EVERY`], and those whose informer stopped, which are then let go).
    /// A forced save asked for while one is under way runs after it
    /// (the tab is hidden while a timed save is writing).
    pub async fn save_due(&self, force: bool) {
        let Some(store) = self.inner.store.clone() else {
            return;
        };
        if self.inner.saving.replace(true) {
            if force {
                self.inner.force_again.set(true);
            }
            return;
        }
        let mut force = force;
        loop {
            self.save_round(store.as_ref(), force).await;
            if !self.inner.force_again.replace(false) {
                break;
            }
            force = true;
        }
        self.inner.saving.set(false);
    }

    /// One pass of [`SavedTables::save_due`] over the kept tables.
    async fn save_round(&self, store: &dyn SavedStore, force: bool) {
        let now = self.now();
        let mut jobs = Vec::new();
        let mut gone = Vec::new();
        for (key, k) in self.inner.kept.borrow().iter() {
            let stopped = (k.stopped)();
            if stopped && !self.inner.paused.get() {
                gone.push(key.clone());
            }
            if k.saved_rv.is_some() && k.saved_rv == self.version_of(k) {
                continue;
            }
            let Some((rv, write)) = (k.checkpoint)() else {
                continue;
            };
            // The first checkpoint of a visit is saved at once: a table
            // drawn from an earlier save has just caught up with the server.
            let due = force
                || stopped
                || k.saved_rv.is_none()
                || k.saved_at
                    .is_none_or(|at| now - at >= SAVE_EVERY.as_secs_f64());
            if due {
                jobs.push((key.clone(), k.path.clone(), rv, write));
            }
        }
        for (key, path, rv, write) in jobs {
            let text = match write(&path, now) {
                Ok(t) => t,
                Err(e) => {
                    self.mark(&key, rv, now);
                    self.failed(format!("the cache of {path} could not be written: {e}"));
                    continue;
                }
            };
            if text.len() > MAX_TEXT {
                self.failed(format!(
                    "the table of {path} is {} MB, over the {} MB kept; it starts with a list next time",
                    text.len() >> 20,
                    MAX_TEXT >> 20
                ));
                self.mark(&key, rv, now);
                continue;
            }
            let bytes = text.len();
            match store.save(&key, text).await {
                Ok(()) => {
                    self.mark(&key, rv, now);
                    self.inner.stats.update(|s| {
                        s.saves += 1;
                        s.last_bytes = bytes;
                        s.last_error = None;
                        if let Some(e) = s.kept.get_mut(&key) {
                            e.1 = Some(now);
                        }
                    });
                }
                Err(e) => {
                    self.mark(&key, rv, now);
                    self.failed(format!("keeping the table of {path}: {e}"));
                }
            }
        }
        let mut kept = self.inner.kept.borrow_mut();
        for key in gone {
            kept.remove(&key);
        }
    }

    /// Says the informers are paused (stopped, to run again) or not.
    pub fn set_paused(&self, paused: bool) {
        self.inner.paused.set(paused);
    }

    /// Forgets every saved table of this cluster (the X-ray page's button).
    pub async fn forget(&self) -> Result<(), String> {
        let store = self.inner.store.clone().ok_or("nothing is saved here")?;
        store.forget().await?;
        for k in self.inner.kept.borrow_mut().values_mut() {
            k.saved_at = None;
            k.saved_rv = None;
        }
        self.inner.stats.update(|s| {
            s.last_error = None;
            for e in s.kept.values_mut() {
                e.1 = None;
            }
        });
        Ok(())
    }

    /// The version a kept informer's cache is at now (cheap: no copy of it).
    fn version_of(&self, k: &Kept) -> Option<String> {
        k.id.borrow().last_resource_version.clone()
    }

    fn mark(&self, key: &str, rv: String, now: Seconds) {
        if let Some(k) = self.inner.kept.borrow_mut().get_mut(key) {
            k.saved_rv = Some(rv);
            k.saved_at = Some(now);
        }
    }

    fn failed(&self, why: String) {
        self.inner.stats.update(|s| s.last_error = Some(why));
    }

    fn now(&self) -> Seconds {
        self.inner.clock.now().as_secs_f64()
    }
}
