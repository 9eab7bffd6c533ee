//! The one way a view subscribes to the cluster: a shared informer whose changed keys reach the view once per animation frame, held by a [`Watch`].
//!
//! This room holds what a view keeps while it shows something live, each
//! ended when the view drops it: a watch (here), the usage of a target
//! (`usage`: metrics.k8s.io has no watch, so a shared poll), a workload's
//! pods (`workload`), a container's log (`logs`) and a shell in it
//! (`shell`), each handed to its view once per animation frame.
//!
//! A watch is one line: `kube.subscribe("pod-counts", &path).table().frames(apply)`.
//! The `Subscribe` builder picks the informer's options (whole objects or
//! `table()` rows or `metadata_only()`, managedFields dropped unless
//! `with_managed_fields()`, or cut by `trimmed(name, f)` as each object is
//! decoded, e.g. the usage columns' pods to their containers' `resources`),
//! `fields`/`labels` selectors and `owner_index()` (read with
//! `Watch::owned_by`), so no page builds `InformerOptions` or imports the
//! client's `cache`; Secret redaction is the informer's own. `frames` hands
//! the view its changed keys once per animation frame (an empty batch when
//! it syncs empty) through `watch_frames`; `rows` keeps a map of rows
//! instead; `each` hands every notification as it comes (`watch_each`: the
//! changes store, which must see every version). The returned `Watch`
//! carries the informer's status as a signal (refreshed each frame and each
//! clock tick) and, when dropped, removes the handler and releases the
//! informer; a frame already asked for then applies nothing. Whole-object
//! informers (over WebSocket) linger a minute so going back is instant;
//! Table and metadata informers hold one of the browser's six HTTP/1.1
//! connections, so they stop at once.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

use kubeglass_client::api::Api;
use kubeglass_client::cache::indexer::{OWNER_UID_INDEX, owner_uid_index};
use kubeglass_client::cache::informer::DROP_MANAGED_FIELDS;
use kubeglass_client::cache::informer::HandlerRegistration;
use kubeglass_client::cache::{
    InformerOptions, InformerRef, Notification, SharedInformer, object_key,
};
use kubeglass_client::kube_core::DynamicObject;
use kubeglass_client::rest::table::TableRowObject;
use leptos::prelude::*;

use crate::kube::Kube;

use crate::rules::problem::Problem;

pub mod logs;
pub mod shell;
pub mod usage;
pub mod workload;
/// What views read of an informer: its status (the X-ray page's row, the
/// table's heading) and the factory's view of it.
pub use kubeglass_client::cache::{InformerSnapshot, factory::FactoryEntry};

/// A view's hold on a shared informer with its handler: dropping it removes
/// the handler and, if no other view holds the informer, stops its watch.
/// Its status is a signal, refreshed after each frame and each clock tick.
pub struct Watch<K> {
    informer: InformerRef<K>,
    registration: HandlerRegistration<K>,
    /// Stops waiting for the first sync when the view goes first.
    sync_wait: futures::future::AbortHandle,
    status: RwSignal<InformerSnapshot>,
    /// False once the view has gone: a frame already asked for when it
    /// went then applies nothing (its signals are disposed by then).
    alive: Rc<Cell<bool>>,
}

impl<K> Drop for Watch<K> {
    fn drop(&mut self) {
        self.alive.set(false);
        self.registration.remove();
        self.sync_wait.abort();
    }
}

impl<K> std::ops::Deref for Watch<K> {
    type Target = SharedInformer<K>;
    fn deref(&self) -> &SharedInformer<K> {
        &self.informer
    }
}

impl<K> Watch<K> {
    /// The informer's state and counters, as a signal.
    pub fn status(&self) -> RwSignal<InformerSnapshot> {
        self.status
    }
}

impl<K> Watch<K>
where
    K: kubeglass_client::kube_core::Resource + serde::de::DeserializeOwned + Clone + 'static,
{
    /// Makes sure the informer keeps client-go's owner-UID index: it may be
    /// shared with a view that did not ask for it.
    pub fn ensure_owner_index(&self) {
        let has = self
            .indexer()
            .borrow()
            .index_names()
            .iter()
            .any(|n| n == OWNER_UID_INDEX);
        if !has {
            // Checked just above, so it cannot conflict.
            let _ = self.add_index(OWNER_UID_INDEX, owner_uid_index());
        }
    }
}

impl<K> Watch<K>
where
    K: kubeglass_client::kube_core::Resource + serde::de::DeserializeOwned + Clone + 'static,
{
    /// The cached objects whose owner references name `uid` (client-go's
    /// owner-UID index; see [`Subscribe::owner_index`]).
    pub fn owned_by(&self, uid: &str) -> Vec<Rc<K>> {
        self.indexer()
            .borrow()
            .by_index(OWNER_UID_INDEX, uid)
            .unwrap_or_default()
    }
}

/// What a view asks to watch, said in one line, e.g.
/// `kube.subscribe("pod-counts", &path).table().frames(apply)`.
///
/// The builder picks the informer's options — format (whole objects, Table
/// rows, metadata), transform (managedFields dropped unless asked),
/// selectors and indexes — so a view never builds them by hand. Secret
/// redaction is not the view's to ask for: the informer applies it to every
/// informer of core Secrets. Call [`Subscribe::table`] first, since the
/// other options belong to the row type it picks.
pub struct Subscribe<'a, K> {
    kube: &'a Kube,
    name: &'a str,
    options: InformerOptions<K>,
    owner_index: bool,
    /// Saves the informer's cache for the next visit (Table rows only).
    keep: Option<KeepHook<K>>,
}

/// Puts a saved state's loader in the options and says how to keep the
/// informer saved once made; None when it is not saved.
type KeepHook<K> = fn(&Kube, &mut InformerOptions<K>) -> Option<Keep<K>>;

/// Keeps an informer saved, once it is made.
type Keep<K> = Box<dyn FnOnce(&SharedInformer<K>)>;

/// Table rows are saved for the next visit (`stores::saved`), Secrets' never.
fn keep_table(
    kube: &Kube,
    options: &mut InformerOptions<TableRowObject>,
) -> Option<Keep<TableRowObject>> {
    let saved = kube.saved().clone();
    let key = saved.prepare("table", options)?;
    let path = options.reflector.url_path.clone();
    Some(Box::new(move |informer| saved.keep(key, path, informer)))
}

/// Objects cut to a few fields, or to their metadata, are saved as Table
/// rows are; whole objects never.
fn keep_cut(
    kube: &Kube,
    options: &mut InformerOptions<DynamicObject>,
) -> Option<Keep<DynamicObject>> {
    let form = if options.reflector.metadata_only {
        "metadata"
    } else if options.transform.is_some() && options.transform_name != DROP_MANAGED_FIELDS {
        options.transform_name
    } else {
        return None;
    };
    let saved = kube.saved().clone();
    let key = saved.prepare(form, options)?;
    let path = options.reflector.url_path.clone();
    Some(Box::new(move |informer| saved.keep(key, path, informer)))
}

impl Kube {
    /// Starts a subscription, named `name` on the X-ray page, to the
    /// collection at `path` (whole objects over WebSocket, managedFields
    /// dropped, until told otherwise).
    pub fn subscribe<'a>(&'a self, name: &'a str, path: &str) -> Subscribe<'a, DynamicObject> {
        Subscribe {
            kube: self,
            name,
            options: InformerOptions::new(path),
            owner_index: false,
            keep: None,
        }
    }
}

impl<'a> Subscribe<'a, DynamicObject> {
    /// kubectl's columns: server-side Table rows with their metadata.
    pub fn table(self) -> Subscribe<'a, TableRowObject> {
        let mut options = InformerOptions::new(self.options.reflector.url_path.clone());
        options.reflector = self.options.reflector.tables();
        Subscribe {
            kube: self.kube,
            name: self.name,
            options,
            owner_index: self.owner_index,
            keep: Some(keep_table),
        }
    }

    /// Metadata only (`PartialObjectMetadata`): what a Secret's page
    /// watches. Saved for the next visit, as Table rows are.
    pub fn metadata_only(mut self) -> Self {
        self.options.reflector = self.options.reflector.metadata_only();
        self.keep = Some(keep_cut);
        self
    }

    /// Caches each object as `trim` cuts it, not whole (client-go's
    /// `SetTransform`): for a view that reads a few fields of many objects.
    /// Informers are shared by `name`, so a trimmed cache never reaches a
    /// view that asked for whole objects. Secret redaction still applies.
    /// Saved for the next visit, as Table rows are (a whole object never is).
    pub fn trimmed(mut self, name: &'static str, trim: fn(DynamicObject) -> DynamicObject) -> Self {
        self.options = self.options.with_transform(name, Rc::new(trim));
        self.keep = Some(keep_cut);
        self
    }

    /// Keeps managedFields (an object's YAML view folds them; a list drops them).
    pub fn with_managed_fields(mut self) -> Self {
        self.options.transform = None;
        self
    }

    /// Keeps `rows` (emptied first) equal to the cache, each row made by
    /// `row` from its object, once per frame.
    pub fn rows<R: Send + Sync + 'static>(
        self,
        rows: RwSignal<BTreeMap<String, R>>,
        row: impl Fn(&DynamicObject) -> R + 'static,
    ) -> Watch<DynamicObject> {
        rows.set(BTreeMap::new());
        self.frames(move |inf, keys| {
            let indexer = inf.indexer();
            let indexer = indexer.borrow();
            rows.update(|rows| {
                for key in keys {
                    match indexer.get(&key) {
                        Some(o) => {
                            let r = row(&o);
                            rows.insert(key, r);
                        }
                        None => {
                            rows.remove(&key);
                        }
                    }
                }
            });
        })
    }
}

impl<K> Subscribe<'_, K>
where
    K: kubeglass_client::kube_core::Resource + serde::de::DeserializeOwned + Clone + 'static,
{
    /// Only the objects matching the field selector `selector`.
    pub fn fields(mut self, selector: String) -> Self {
        self.options.reflector.field_selector = Some(selector);
        self
    }

    /// Only the objects matching the label selector, if one is given.
    pub fn labels(mut self, selector: Option<String>) -> Self {
        self.options.reflector.label_selector = selector;
        self
    }

    /// Keeps client-go's owner-UID index, read with [`Watch::owned_by`]
    /// (also when the informer is shared with a view that did not ask).
    pub fn owner_index(mut self) -> Self {
        self.owner_index = true;
        self.options
            .indexers
            .push((OWNER_UID_INDEX.into(), owner_uid_index()));
        self
    }

    /// Subscribes a recorder: every notification reaches `on` as it comes
    /// (see [`Kube::watch_each`]). Views take [`Subscribe::frames`].
    pub fn each(mut self, on: impl FnMut(&Notification<K>) + 'static) -> Watch<K> {
        let keep = self.keep.and_then(|h| h(self.kube, &mut self.options));
        let watch = self.kube.watch_each(self.options, on);
        if let Some(keep) = keep {
            keep(&watch);
        }
        if self.owner_index {
            watch.ensure_owner_index();
        }
        watch
    }

    /// Subscribes: the changed keys reach `apply` once per animation frame
    /// (see [`Kube::watch_frames`]). Keep the [`Watch`] while the view shows them.
    pub fn frames(
        mut self,
        apply: impl FnMut(&SharedInformer<K>, Vec<String>) + 'static,
    ) -> Watch<K> {
        let keep = self.keep.and_then(|h| h(self.kube, &mut self.options));
        let watch = self.kube.watch_frames(self.name, self.options, apply);
        if let Some(keep) = keep {
            keep(&watch);
        }
        if self.owner_index {
            watch.ensure_owner_index();
        }
        watch
    }
}

/// The failure a watch is in now, if any: shown until its list succeeds
/// (and after, while its watch keeps failing); else the objects it cannot
/// read now (those shown as their last good copy said to be).
pub fn watch_problem(s: &InformerSnapshot) -> Option<Problem> {
    let unread = !s.reflector.undecodable.is_empty() || !s.stale.is_empty();
    if s.synced && s.reflector.errors == 0 && !unread {
        return None;
    }
    Problem::from_status(&s.reflector, &s.stale)
}

impl Kube {
    /// An informer (shared through the factory) whose changed keys reach
    /// `apply` once per animation frame; the informer's cache already holds
    /// them. An informer that syncs with nothing notifies nothing, so then
    /// `apply` gets one empty batch: a view learns its list is empty. Keep
    /// the returned [`Watch`] as long as the view shows them. Every view
    /// subscribes through this, by way of [`Kube::subscribe`].
    pub(crate) fn watch_frames<K>(
        &self,
        name: &str,
        options: InformerOptions<K>,
        mut apply: impl FnMut(&SharedInformer<K>, Vec<String>) + 'static,
    ) -> Watch<K>
    where
        K: kubeglass_client::kube_core::Resource + serde::de::DeserializeOwned + Clone + 'static,
    {
        let informer = self.factory.informer(options);
        let inf = (*informer).clone();
        let status = RwSignal::new(inf.snapshot());
        let refresh = refresher(status);
        let alive = Rc::new(Cell::new(true));
        let live = alive.clone();
        let apply = Rc::new(RefCell::new(
            move |inf: &SharedInformer<K>, keys: Vec<String>| {
                if live.get() {
                    apply(inf, keys);
                    refresh(inf);
                }
            },
        ));
        let (on_sync, on_sync_apply) = (inf.clone(), apply.clone());
        let (synced, sync_wait) = futures::future::abortable(async move {
            on_sync.wait_synced().await;
            if on_sync.indexer().borrow().is_empty() {
                (on_sync_apply.borrow_mut())(&on_sync, Vec::new());
            }
        });
        self.spawn(async move {
            let _ = synced.await;
        });
        follow_ticks(inf.clone(), refresh);
        let frames = self.frame_queue(name, move |keys: Vec<String>| {
            (apply.borrow_mut())(&inf, keys)
        });
        let registration = informer.add_handler(
            move |n: &Notification<K>| {
                let key = match n {
                    Notification::Added { object, .. } => object_key(object.as_ref()),
                    Notification::Updated { new, .. } => object_key(new.as_ref()),
                    Notification::Deleted { object, .. } => object_key(object.as_ref()),
                };
                frames.add(key);
            },
            None,
        );
        Watch {
            informer,
            registration,
            sync_wait,
            status,
            alive,
        }
    }
}

impl Kube {
    /// An informer (shared through the factory) whose every notification
    /// reaches `on` as it happens: each version of each object, with
    /// `initial` marking the state at sync (or a late handler's replay).
    /// For a recorder that must tell a change from the starting point and
    /// see every version (the changes page's store), not for a view, which takes
    /// frames. Its status follows the clock's tick.
    pub(crate) fn watch_each<K>(
        &self,
        options: InformerOptions<K>,
        on: impl FnMut(&Notification<K>) + 'static,
    ) -> Watch<K>
    where
        K: kubeglass_client::kube_core::Resource + serde::de::DeserializeOwned + Clone + 'static,
    {
        let informer = self.factory.informer(options);
        let inf = (*informer).clone();
        let status = RwSignal::new(inf.snapshot());
        follow_ticks(inf, refresher(status));
        let registration = informer.add_handler(on, None);
        let (_, sync_wait) = futures::future::abortable(futures::future::ready(()));
        Watch {
            informer,
            registration,
            sync_wait,
            status,
            alive: Rc::new(Cell::new(true)),
        }
    }
}

/// Sets `status` to the informer's snapshot when it differs (a view
/// redraws only on a real change).
fn refresher<K>(status: RwSignal<InformerSnapshot>) -> impl Fn(&SharedInformer<K>) + Copy
where
    K: kubeglass_client::kube_core::Resource + serde::de::DeserializeOwned + Clone + 'static,
{
    move |inf: &SharedInformer<K>| {
        let s = inf.snapshot();
        if status.try_with_untracked(|old| *old != s) == Some(true) {
            status.set(s);
        }
    }
}

/// Refreshes a watch's status on each tick of the app's clock: failures
/// and backoff show without any change to the objects.
fn follow_ticks<K: 'static>(
    inf: SharedInformer<K>,
    refresh: impl Fn(&SharedInformer<K>) + 'static,
) {
    if let Some(now) = use_context::<crate::kube::Now>() {
        Effect::new(move |_| {
            now.0.track();
            refresh(&inf);
        });
    }
}

/// The cluster-wide collection path of the built-in kind `K` (all
/// namespaces for a namespaced kind), as the client's `Api` builds it.
pub fn cluster_path<K>(kube: &Kube) -> String
where
    K: kubeglass_client::kube_core::Resource<DynamicType = ()>,
{
    Api::<K>::all(kube.client.clone()).path().to_string()
}

/// The collection path of the built-in kind `K` in `namespace` (all
/// namespaces, or cluster-wide, for None), as the client's `Api` builds
/// it; a namespace that could not be part of a request path is invalid.
pub fn collection_path<K>(kube: &Kube, namespace: Option<&str>) -> Result<String, Problem>
where
    K: kubeglass_client::kube_core::Resource<DynamicType = ()>,
{
    let api = match namespace {
        Some(ns) => Api::<K>::namespaced(kube.client.clone(), ns),
        None => Api::<K>::all(kube.client.clone()),
    };
    match api.invalid() {
        Some(e) => Err(Problem::Invalid(e.to_string())),
        None => Ok(api.path().to_string()),
    }
}
