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

    /// Where a reflector starts: a streaming list when the config asks for
    /// one, else a list at `resourceVersion=0`.
    pub fn first_phase(&self) -> Phase<K> {
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
