//! The reflector: keeps a store equal to the server's state with list + watch.
//!
//! It follows client-go's reflector: the first list asks for
//! `resourceVersion=0` (any cached state, cheap for the server); then a watch
//! from the list's resourceVersion with bookmarks and a random 5–10 minute
//! timeout. The resourceVersion advances with every event and bookmark. When
//! the watch says 410 Gone, the next list (after the backoff, as before
//! every list and watch in client-go) asks for the last seen version with
//! paging off, so the watch cache answers "not older than" instead of an
//! Exact read of the old revision from etcd; only if that is also gone (or
//! "too large") does it list at once with no version (a consistent read
//! from etcd, paged). Connection failures, 429s and 5xx back off
//! (800 ms ×2 up to 30 s, jittered, starting over every 2 minutes) and resume
//! the watch without a relist. A watch that ends within a second having
//! delivered nothing counts as a failure, so a broken server cannot cause a
//! hot loop.
//!
//! # The reflector, step by step
//!
//! This module follows client-go's reflector: first
//! list with `resourceVersion=0&limit=500` (served from the apiserver's watch
//! cache in one piece; an answer that comes back in pages means the resource
//! has no watch cache, and then later lists page too, client-go's
//! `paginatedResult`), then a watch from the list's resourceVersion with
//! bookmarks and a random 5–10 minute timeout. The version advances with every
//! event and bookmark. A 410 on the watch waits the backoff (client-go waits
//! before every ListAndWatch) and lists again at the last seen version with
//! **no limit**: `resourceVersion=X` with a limit would be an Exact read of the
//! old revision from etcd, answered with the old version, and the watch from
//! it would get 410 again, a loop; with no limit the watch cache answers "not
//! older than X". Only if that list is gone too (or "too large") does it read
//! the latest at once, paged; a continue token that expires mid-list falls
//! back to one full list at the version first asked for (the pager's
//! `FullListIfExpired`). Connection failures, 429 (honouring `Retry-After`),
//! and 5xx back off (800 ms ×2 to 30 s, jitter 1.0, starting over 2 minutes
//! after the sequence started, as apimachinery's `DelayWithReset`) and resume
//! the watch from the last version. The jitter, and the watch timeouts, draw
//! from the platform's randomness (`clock::Entropy`: `crypto.getRandomValues`
//! in the browser), never from the time, so informers that fail in the same
//! instant retry apart. An event that does not decode ends the watch; after
//! the backoff the reflector relists (client-go's `ListAndWatch` starts over),
//! since a resumed watch would receive the same event again forever. Lists
//! are decoded as their bytes arrive (`RestClient::receive`, fed chunk by
//! chunk from the transport's stream): `rest::split::Splitter` tells the
//! list's frame from each item, whose bytes are complete at its closing
//! brace, and `rest::list::ListDecoder` decodes each item then, straight from
//! the bytes, through the store's transform (a paged or streamed list page by
//! page, each object once, through `ReflectorStore::transform` and
//! `replace_transformed`). So the decode of a 160 MB Table runs while the rest
//! of it is on its way, and neither the body nor the objects are held whole;
//! a connection that breaks mid-body is asked again a second later, into a
//! fresh decoder (the rule `send_raw` applies to a GET whose connection broke).
//! A list has no deadline, but one that stops sending is noticed: when no byte
//! has come for `rest::LIST_IDLE_TIMEOUT` (30 s; only the gaps between chunks
//! count, so a large list read slowly still syncs) the read ends with
//! `TransportError::Stalled`, which is not asked again there, so the
//! reflector backs off, relists and shows the error. Each item decodes on its own
//! (`rest/list.rs`): an object that does not decode is named in
//! `ReflectorStatus::undecodable` (the first hundred, the rest counted; each
//! error cut to 300 characters, since serde quotes the bad value whole),
//! which the table's problem line and the X-ray page show, while every other
//! object stays live. The list hands those items to the store with the rest
//! (`ReflectorStore::replace_transformed`): one the store never held is left
//! out, but one it held is not deleted, since the list does not say it is
//! gone (a CRD's schema changed, a conversion webhook answers badly). Its
//! last good copy stays, marked stale (`cache/stale.rs`,
//! `SharedInformer::stale`, in every `InformerSnapshot`), handlers hear
//! nothing and the change timeline records no deletion, until a copy that
//! decodes arrives (the mark and the status's name go) or the server really
//! deletes it (a DELETED event, or a later list that neither has nor names
//! it). A watch event that does not decode ends the watch (below), so the
//! relist after it is what marks the object; until then its last good copy
//! is shown unmarked. A
//! watch that ends within a second having delivered nothing is a failure, and
//! a watch the server never closes is abandoned 30 s after its timeout. It is
//! one `step` function over an explicit `Step` enum; its public
//! `ReflectorState` (idle, listing, watching, backing off, stopped) is what the
//! UI shows.
//!
//! Deliberate deviations from client-go's reflector:
//!
//! - **A broken watch is watched again after a backoff, not relisted.** After
//!   a watch error other than 410 (a 5xx at open or mid-stream, a broken
//!   stream) client-go's `ListAndWatch` returns and the next one relists at
//!   the last version; the port backs off and resumes the watch from the last
//!   version instead (an undecodable event relists, as in client-go: see
//!   above). The store is correct either way (the version is still valid, or
//!   the watch answers 410 and the port relists), and resuming saves a LIST
//!   per error: in a tab, each relist of a large Table informer costs seconds
//!   of decoding, and a flapping proxy would pay it on every flap. client-go's
//!   retry of a watch on 429 and on connection refused matches the port.
//! - **A very short watch is watched again.** client-go calls a watch that
//!   lasted under a second with no event "very short", ends `ListAndWatch`
//!   and relists after its backoff; the port backs off the same way and then
//!   watches again from the last version, for the reason above.
//! - **A streaming list without its end bookmark falls back after 30 s.**
//!   client-go waits for the `k8s.io/initial-events-end` bookmark as long as
//!   the watch lasts (its 5–10 minute timeout); the port falls back to a plain
//!   list when 30 s pass without an event before the bookmark
//!   (`ReflectorConfig::watch_list_idle`), since a server that omits the
//!   bookmark would otherwise leave the view empty for minutes.
//!
//! Streaming lists (`ReflectorConfig::streaming`, client-go's WatchListClient):
//! the initial state comes as watch events (`sendInitialEvents=true`,
//! `resourceVersionMatch=NotOlderThan`) collected aside until the bookmark
//! annotated `k8s.io/initial-events-end: "true"`, then swapped in at once; the
//! initial events' versions are not trusted until then. The same stream then
//! goes on as a plain watch. Failures before the end bookmark are handled as
//! client-go's `watchList` does: 410 or "Too large resource version" asks
//! again at once for the latest state; connection refused and 429 back off
//! and ask again; anything else (a 5xx, a refusal, an event that does not
//! decode), or 30 s without an event, falls back to a plain paged list, and
//! the X-ray page says why (`ReflectorStatus::last_fallback`). A stream cut
//! before the bookmark asks for a streaming list again, one cut after it
//! resumes with a plain watch. In the
//! browser streaming lists go over WebSocket only (docs/kubectl-proxy.md: over
//! fetch, Kubernetes 1.37's compressed streaming lists stall).
//!
//! Table format (`ReflectorConfig::tables`): lists and watches ask for
//! `as=Table` with `includeObject=Metadata`; each row is cached as a
//! `TableRowObject` keyed by its object's metadata and the column definitions are
//! kept, so any resource, CRDs included, gets kubectl's columns live.

//!
//! It is a state machine ([`Phase`]): [`Reflector::step`] performs one
//! I/O — one LIST request (through the [`crate::cache::pager`]), one watch
//! opened, one event read from the watch the phase holds (or its deadline
//! passing), or one backoff sleep — and returns the next phase. (The one
//! step without I/O: a watch asked for before any version is known goes
//! back to listing.) [`Reflector::run`] is the thin driver that steps until
//! it is dropped; tests step it one at a time.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use kube_core::Resource;
use serde::de::DeserializeOwned;

use super::store::ReflectorStore;
use crate::backoff::Backoff;
use crate::clock::{Clock, Jitter};
use crate::reconnect::Reconnect;
use crate::rest::table::TableColumn;
use crate::rest::{Error, RestClient};

mod config;
mod events;
mod list;
mod phase;
mod status;
mod watch;

pub use config::ReflectorConfig;
pub use phase::{ListFrom, Listing, OpenWatch, Phase};
pub use status::{MAX_UNDECODABLE, ReflectorState, ReflectorStatus};

/// The annotation on the bookmark that ends a streaming list's initial state.
pub const INITIAL_EVENTS_END: &str = "k8s.io/initial-events-end";

type StatusListener = Box<dyn Fn(&ReflectorStatus)>;

/// Keeps a store in step with one collection on the server.
pub struct Reflector<K> {
    client: RestClient,
    clock: Rc<dyn Clock>,
    config: ReflectorConfig,
    store: Rc<RefCell<dyn ReflectorStore<K>>>,
    status: Rc<RefCell<ReflectorStatus>>,
    on_status: Option<StatusListener>,
    backoff: Backoff,
    jitter: Jitter,
    reconnect: Option<Reconnect>,
    /// The columns of the last Table list (Table format only).
    columns: Rc<RefCell<Vec<TableColumn>>>,
    /// The rv=0 list came back in pages: the resource has no watch cache,
    /// so later lists page too (client-go's `paginatedResult`).
    paginated_result: bool,
}

impl<K> Reflector<K>
where
    K: Resource + DeserializeOwned + Clone + 'static,
{
    /// A reflector filling `store` from the collection described by `config`.
    pub fn new(
        client: RestClient,
        clock: Rc<dyn Clock>,
        config: ReflectorConfig,
        store: Rc<RefCell<dyn ReflectorStore<K>>>,
    ) -> Self {
        let jitter = Jitter::from_entropy(clock.as_ref());
        let mut backoff = Backoff::reflector(clock.random_u64());
        backoff.start_at(clock.now());
        Self {
            client,
            clock,
            config,
            store,
            status: Rc::new(RefCell::new(ReflectorStatus::default())),
            on_status: None,
            backoff,
            jitter,
            reconnect: None,
            columns: Rc::default(),
            paginated_result: false,
        }
    }

    /// The shared status, updated as the reflector runs.
    pub fn status(&self) -> Rc<RefCell<ReflectorStatus>> {
        self.status.clone()
    }

    /// Writes status into `status` instead of a fresh cell (an informer shares it).
    pub fn sharing_status(mut self, status: Rc<RefCell<ReflectorStatus>>) -> Self {
        self.status = status;
        self
    }

    /// Keeps the column definitions of Table lists in `columns`.
    pub fn sharing_columns(mut self, columns: Rc<RefCell<Vec<TableColumn>>>) -> Self {
        self.columns = columns;
        self
    }

    /// Calls `listener` after every status change.
    pub fn on_status(mut self, listener: impl Fn(&ReflectorStatus) + 'static) -> Self {
        self.on_status = Some(Box::new(listener));
        self
    }

    /// Cuts a backoff after a connection failure short when `reconnect` fires.
    pub fn with_reconnect(mut self, reconnect: Reconnect) -> Self {
        self.reconnect = Some(reconnect);
        self
    }

    /// Replaces the backoff policy (tests use one without jitter).
    pub fn with_backoff(mut self, backoff: Backoff) -> Self {
        self.backoff = backoff;
        self
    }

    /// Runs until the future is dropped: [`Reflector::step`] after step,
    /// from [`Reflector::first_phase`].
    pub async fn run(mut self) {
        let mut phase = self.first_phase();
        loop {
            phase = self.step(phase).await;
        }
    }

    /// Where a reflector starts: a watch from the last version when the
    /// store already holds the state at that version (a cache seeded from
    /// a saved state, or an informer run again after a stop); else a
    /// streaming list when the config asks for one, else a list at
    /// `resourceVersion=0`. A version the server no longer has ends that
    /// watch with 410 and the usual one relist.
    pub fn first_phase(&self) -> Phase<K> {
        // The store holds the state at the last version: a list stored it,
        // or a seed did (still resuming, or resumed from before).
        let resumable = {
            let s = self.status.borrow();
            (s.synced || s.resuming || s.resumes > 0) && s.last_resource_version.is_some()
        };
        if resumable {
            self.update(|s| {
                s.resuming = true;
                s.resumes += 1;
            });
            return Phase::Watch;
        }
        if self.config.watch_list {
            Phase::WatchList
        } else {
            Phase::List(ListFrom::Any)
        }
    }

    /// Performs the one I/O `phase` names and returns the next phase.
    pub async fn step(&mut self, phase: Phase<K>) -> Phase<K> {
        match phase {
            Phase::List(from) => self.start_list(from).await,
            Phase::Listing(listing) => self.continue_list(listing).await,
            Phase::Watch => self.open_watch().await,
            Phase::WatchList => self.open_watch_list().await,
            Phase::Watching(watch) => self.read_event(watch).await,
            Phase::Backoff { delay, then } => {
                self.back_off(delay).await;
                *then
            }
        }
    }

    /// Sleeps `delay`; after a connection failure a reconnect signal cuts
    /// it short.
    async fn back_off(&mut self, delay: Duration) {
        let until = self.clock.now() + delay;
        self.update(|s| s.state = ReflectorState::BackingOff { until });
        let sleep = self.clock.sleep(delay);
        match &self.reconnect {
            Some(r) if self.status.borrow().unreachable => {
                futures::future::select(sleep, r.wait()).await;
            }
            _ => sleep.await,
        }
    }

    fn update(&self, f: impl FnOnce(&mut ReflectorStatus)) {
        f(&mut self.status.borrow_mut());
        if let Some(l) = &self.on_status {
            l(&self.status.borrow());
        }
    }

    fn last_rv(&self) -> Option<String> {
        self.status.borrow().last_resource_version.clone()
    }

    fn record_error(&self, e: &Error) {
        let text = e.to_string();
        let unreachable = e.is_connect();
        let code = e.api().map(|a| a.code);
        self.update(|s| {
            s.errors += 1;
            s.last_error = Some(text);
            s.last_error_code = code;
            s.unreachable = unreachable;
        });
    }

    /// Records `e` and returns how long to wait: the backoff, or the server's
    /// Retry-After when that is longer.
    fn failure_delay(&mut self, e: &Error) -> Duration {
        self.record_error(e);
        let delay = self.backoff.next_delay(self.clock.now());
        match e.api().and_then(|a| a.retry_after) {
            Some(ra) => delay.max(ra),
            None => delay,
        }
    }

    /// Records `e`, then waits the backoff (or Retry-After) before `then`.
    fn fail_then(&mut self, e: &Error, then: Phase<K>) -> Phase<K> {
        let delay = self.failure_delay(e);
        Phase::Backoff {
            delay,
            then: Box::new(then),
        }
    }

    /// After a 410: a streaming list from the last version (the server
    /// answers from its cache or says 410 again), or a list at that version.
    fn relist_phase(&self) -> Phase<K> {
        if self.config.watch_list {
            return Phase::WatchList;
        }
        match self.last_rv() {
            Some(rv) => Phase::List(ListFrom::NotOlderThan(rv)),
            None => Phase::List(ListFrom::Latest),
        }
    }
}
