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

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use futures::{FutureExt, StreamExt};
use kube_core::Resource;
use kube_core::params::{ListParams, WatchParams};
use kube_core::watch::WatchEvent;
use serde::de::DeserializeOwned;

use std::collections::HashMap;

use super::store::{ReflectorStore, object_key};
use crate::backoff::Backoff;
use crate::clock::{Clock, Jitter, Timestamp};
use crate::reconnect::Reconnect;
use crate::rest::list::{ListDecoder, Undecodable};
use crate::rest::table::TableColumn;
use crate::rest::{Error, RestClient};

/// Which resourceVersion the next list asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListFrom {
    /// `resourceVersion=0`: whatever the apiserver's cache holds (first list).
    Any,
    /// The last version this reflector saw (after a 410 on the watch).
    NotOlderThan(String),
    /// No resourceVersion: a consistent read (after that, too, was gone).
    Latest,
}

/// What the reflector is doing; shown on the X-ray page.
#[derive(Debug, Clone, PartialEq)]
pub enum ReflectorState {
    /// Not started yet.
    Idle,
    /// A list request is in flight.
    Listing,
    /// A watch is open and events flow into the store.
    Watching,
    /// Waiting after a failure before trying again.
    BackingOff {
        /// When the next attempt starts.
        until: Timestamp,
    },
    /// The reflector was stopped.
    Stopped,
}

impl ReflectorState {
    /// A short lower-case name for display ("listing", "watching", …).
    pub fn label(&self) -> &'static str {
        match self {
            ReflectorState::Idle => "idle",
            ReflectorState::Listing => "listing",
            ReflectorState::Watching => "watching",
            ReflectorState::BackingOff { .. } => "backing off",
            ReflectorState::Stopped => "stopped",
        }
    }
}

/// Counters and the latest state of one reflector.
#[derive(Debug, Clone, PartialEq)]
pub struct ReflectorStatus {
    /// Current state.
    pub state: ReflectorState,
    /// The last resourceVersion seen in a list, event or bookmark.
    pub last_resource_version: Option<String>,
    /// True once the first list has been stored.
    pub synced: bool,
    /// Lists performed (the first one included).
    pub lists: u64,
    /// Watches opened (the first one included).
    pub watches: u64,
    /// ADDED events received.
    pub added: u64,
    /// MODIFIED events received.
    pub modified: u64,
    /// DELETED events received.
    pub deleted: u64,
    /// BOOKMARK events received.
    pub bookmarks: u64,
    /// Failures (transport, API and decode errors).
    pub errors: u64,
    /// The latest failure, for a person to read.
    pub last_error: Option<String>,
    /// The HTTP status code of the latest failure when the server answered
    /// it (403 for forbidden, 404 for a resource that is not served), so a
    /// view can say which failure it is; None for transport and decode
    /// failures, and once a list or watch succeeds.
    pub last_error_code: Option<u16>,
    /// True while the latest failure was "cannot reach the API server".
    pub unreachable: bool,
    /// When the last event or bookmark arrived.
    pub last_event_at: Option<Timestamp>,
    /// When the last bookmark arrived (the server says "nothing changed up
    /// to this resourceVersion" about once a minute on a quiet watch).
    pub last_bookmark_at: Option<Timestamp>,
    /// Streaming lists completed (initial state received as watch events).
    pub watch_lists: u64,
    /// Streaming lists given up in favour of a plain list (refused, or no
    /// end-of-initial-events bookmark in time).
    pub watch_list_fallbacks: u64,
    /// Why the last streaming list fell back to a plain list, for the X-ray
    /// page; None while none has.
    pub last_fallback: Option<String>,
    /// The objects the last list could not decode as the view's type,
    /// named here (at most [`MAX_UNDECODABLE`]) while every other object
    /// stays live: one the store held before keeps its last good copy,
    /// marked stale ([`crate::cache::stale`]); one it never held is left
    /// out. A watch event that brings one decoded (or deletes it) takes it
    /// off the list.
    pub undecodable: Vec<Undecodable>,
    /// How many more did not decode than `undecodable` names.
    pub undecodable_more: usize,
}

/// How many undecodable objects a status names: it is copied into every
/// snapshot, so a cluster full of bad objects must not make it large.
pub const MAX_UNDECODABLE: usize = 100;

impl Default for ReflectorStatus {
    fn default() -> Self {
        Self {
            state: ReflectorState::Idle,
            last_resource_version: None,
            synced: false,
            lists: 0,
            watches: 0,
            added: 0,
            modified: 0,
            deleted: 0,
            bookmarks: 0,
            errors: 0,
            last_error: None,
            last_error_code: None,
            unreachable: false,
            last_event_at: None,
            last_bookmark_at: None,
            watch_lists: 0,
            watch_list_fallbacks: 0,
            last_fallback: None,
            undecodable: Vec::new(),
            undecodable_more: 0,
        }
    }
}

/// What to watch and how.
#[derive(Debug, Clone)]
pub struct ReflectorConfig {
    /// Collection path, e.g. `/api/v1/pods` or `/api/v1/namespaces/x/pods`.
    pub url_path: String,
    /// Ask for `PartialObjectMetadata` instead of whole objects.
    pub metadata_only: bool,
    /// Ask for server-side Table rows (kubectl's columns); the objects are
    /// then [`crate::rest::table::TableRowObject`]s.
    pub table: bool,
    /// Label selector, if any.
    pub label_selector: Option<String>,
    /// Field selector, if any.
    pub field_selector: Option<String>,
    /// Page size for lists that page (client-go: 500).
    pub page_size: u32,
    /// Shortest watch timeout (client-go: 5 minutes).
    pub min_watch_timeout: Duration,
    /// A watch that ends sooner than this with no event is a failure (client-go: 1 s).
    pub min_watch_duration: Duration,
    /// Extra time past the server-side timeout before a silent watch is abandoned.
    pub watch_grace: Duration,
    /// Get the initial state as a streaming list (`sendInitialEvents`)
    /// instead of a LIST, falling back to a LIST when that is refused.
    pub watch_list: bool,
    /// A streaming list that goes this long without an event before its
    /// end bookmark is given up for a plain list.
    pub watch_list_idle: Duration,
}

impl ReflectorConfig {
    /// client-go's defaults for the collection at `url_path`.
    pub fn new(url_path: impl Into<String>) -> Self {
        Self {
            url_path: url_path.into(),
            metadata_only: false,
            table: false,
            label_selector: None,
            field_selector: None,
            page_size: 500,
            min_watch_timeout: Duration::from_secs(300),
            min_watch_duration: Duration::from_secs(1),
            watch_grace: Duration::from_secs(30),
            watch_list: false,
            watch_list_idle: Duration::from_secs(30),
        }
    }

    /// Lists and watches server-side Table rows (kubectl's columns).
    pub fn tables(mut self) -> Self {
        self.table = true;
        self
    }

    /// Gets the initial state as a streaming list (client-go's WatchListClient).
    pub fn streaming(mut self) -> Self {
        self.watch_list = true;
        self
    }

    /// Lists and watches metadata only (`PartialObjectMetadata`).
    pub fn metadata_only(mut self) -> Self {
        self.metadata_only = true;
        self
    }
}

/// How a watch ended.
enum WatchEnd {
    /// The server closed the stream (timeout or otherwise).
    Closed { delivered: bool },
    /// The resourceVersion is too old: relist.
    Gone,
    /// A failure: back off, then watch again from the last resourceVersion.
    Failed(Error),
    /// An event did not decode: back off, then list again (client-go ends
    /// the watch with the decode error and its ListAndWatch starts over),
    /// so the bad object is named by the list instead of being received
    /// again by every resumed watch.
    Undecodable(Error),
    /// A streaming list ended before its initial state was complete.
    Unsynced { delivered: bool },
    /// A streaming list was refused or never finished: use a plain list.
    FallBack(Error),
}

/// The next thing the reflector does; one [`Reflector::step`] per value.
#[derive(Debug)]
enum Step {
    /// List, then replace the store.
    List(ListFrom),
    /// Watch from the last resourceVersion.
    Watch,
    /// Streaming list: watch with the initial state sent as events.
    WatchList,
    /// Wait, then do `then`.
    Wait { delay: Duration, then: Box<Step> },
}

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
    /// The current streaming list has delivered its initial state.
    synced_this_stream: bool,
    /// The columns of the last Table list (Table format only).
    columns: Rc<RefCell<Vec<TableColumn>>>,
    /// The rv=0 list came back in pages: the resource has no watch cache,
    /// so later lists page too (client-go's `paginatedResult`).
    paginated_result: bool,
}

/// The annotation on the bookmark that ends a streaming list's initial state.
pub const INITIAL_EVENTS_END: &str = "k8s.io/initial-events-end";

/// Asks for kubectl's columns: `as=Table` with each row's metadata.
fn as_table(request: crate::transport::Request) -> crate::transport::Request {
    crate::api::with_table_accept(crate::api::with_query(request, "includeObject", "Metadata"))
}

/// How a stream that simply ended counts: before a streaming list's initial
/// state was complete, it must be asked for again.
fn ended(unsynced: bool, delivered: bool) -> WatchEnd {
    if unsynced {
        WatchEnd::Unsynced { delivered }
    } else {
        WatchEnd::Closed { delivered }
    }
}

/// How a failure before a streaming list's initial state is complete is
/// handled, as client-go's `watchList` does: the version asked for is gone
/// or newer than the server has seen, so ask again at once for the latest
/// state; or the server cannot be reached or says 429, so back off and ask
/// again; or anything else (a 5xx, an answer meaning "no streaming lists
/// here", an event that does not decode), so fall back to a plain list.
enum WatchListFailure {
    /// 410 Gone or "Too large resource version".
    VersionUnavailable,
    /// Connection refused or 429: back off, then stream again.
    Retry,
    /// Use a plain paged LIST.
    FallBack,
}

impl WatchListFailure {
    fn of(e: &Error) -> Self {
        match e.api() {
            Some(a) if a.is_gone() || a.is_too_large_resource_version() => Self::VersionUnavailable,
            Some(a) if a.is_too_many_requests() => Self::Retry,
            None if e.is_connect() => Self::Retry,
            _ => Self::FallBack,
        }
    }
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
            synced_this_stream: false,
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

    fn update(&self, f: impl FnOnce(&mut ReflectorStatus)) {
        f(&mut self.status.borrow_mut());
        if let Some(l) = &self.on_status {
            l(&self.status.borrow());
        }
    }

    fn last_rv(&self) -> Option<String> {
        self.status.borrow().last_resource_version.clone()
    }

    /// Runs until the future is dropped.
    pub async fn run(mut self) {
        let mut step = if self.config.watch_list {
            Step::WatchList
        } else {
            Step::List(ListFrom::Any)
        };
        loop {
            step = self.step(step).await;
        }
    }

    async fn step(&mut self, step: Step) -> Step {
        match step {
            Step::Wait { delay, then } => {
                let until = self.clock.now() + delay;
                self.update(|s| s.state = ReflectorState::BackingOff { until });
                let sleep = self.clock.sleep(delay);
                match &self.reconnect {
                    Some(r) if self.status.borrow().unreachable => {
                        futures::future::select(sleep, r.wait()).await;
                    }
                    _ => sleep.await,
                }
                *then
            }
            Step::List(from) => {
                self.update(|s| s.state = ReflectorState::Listing);
                match self.list(&from).await {
                    Ok(()) => Step::Watch,
                    Err(e) => {
                        let expired = e
                            .api()
                            .is_some_and(|a| a.is_gone() || a.is_too_large_resource_version());
                        if expired && matches!(from, ListFrom::NotOlderThan(_)) {
                            // The version we asked for is gone too: read the latest, now.
                            self.record_error(&e);
                            Step::List(ListFrom::Latest)
                        } else {
                            let delay = self.failure_delay(&e);
                            Step::Wait {
                                delay,
                                then: Box::new(Step::List(from)),
                            }
                        }
                    }
                }
            }
            Step::WatchList => self.watch_list_step().await,
            Step::Watch => {
                let Some(rv) = self.last_rv() else {
                    return Step::List(ListFrom::Any);
                };
                self.update(|s| {
                    s.state = ReflectorState::Watching;
                    s.watches += 1;
                });
                let started = self.clock.now();
                match self.watch(&rv, false).await {
                    // client-go waits its backoff before every ListAndWatch,
                    // the relist after a 410 included: a server whose watch
                    // cache keeps saying 410 is never listed in a hot loop.
                    WatchEnd::Gone => Step::Wait {
                        delay: self.backoff.next_delay(self.clock.now()),
                        then: Box::new(self.relist_step()),
                    },
                    // Only a streaming list ends these ways.
                    WatchEnd::Unsynced { .. } | WatchEnd::FallBack(_) => Step::Watch,
                    WatchEnd::Closed { delivered } => {
                        let lasted = self.clock.now().saturating_sub(started);
                        if !delivered && lasted < self.config.min_watch_duration {
                            let e = Error::Decode(format!(
                                "watch closed after {} ms without any event",
                                lasted.as_millis()
                            ));
                            let delay = self.failure_delay(&e);
                            Step::Wait {
                                delay,
                                then: Box::new(Step::Watch),
                            }
                        } else {
                            Step::Watch
                        }
                    }
                    WatchEnd::Failed(e) => {
                        let delay = self.failure_delay(&e);
                        Step::Wait {
                            delay,
                            then: Box::new(Step::Watch),
                        }
                    }
                    WatchEnd::Undecodable(e) => {
                        let delay = self.failure_delay(&e);
                        Step::Wait {
                            delay,
                            then: Box::new(self.relist_step()),
                        }
                    }
                }
            }
        }
    }

    /// After a 410: a streaming list from the last version (the server
    /// answers from its cache or says 410 again), or a list at that version.
    fn relist_step(&self) -> Step {
        if self.config.watch_list {
            return Step::WatchList;
        }
        match self.last_rv() {
            Some(rv) => Step::List(ListFrom::NotOlderThan(rv)),
            None => Step::List(ListFrom::Latest),
        }
    }

    async fn watch_list_step(&mut self) -> Step {
        self.update(|s| {
            s.state = ReflectorState::Listing;
            s.watches += 1;
        });
        let rv = self.last_rv().unwrap_or_default();
        let started = self.clock.now();
        match self.watch(&rv, true).await {
            // Synced, then the stream went on as a plain watch and ended.
            WatchEnd::Closed { delivered } => {
                let lasted = self.clock.now().saturating_sub(started);
                if !delivered && lasted < self.config.min_watch_duration {
                    let e = Error::Decode("watch closed at once without any event".into());
                    let delay = self.failure_delay(&e);
                    return Step::Wait {
                        delay,
                        then: Box::new(Step::Watch),
                    };
                }
                Step::Watch
            }
            // Synced, then the stream (now a plain watch) sent an event that
            // does not decode: list again, as after a plain watch.
            WatchEnd::Undecodable(e) => {
                let delay = self.failure_delay(&e);
                Step::Wait {
                    delay,
                    then: Box::new(self.relist_step()),
                }
            }
            WatchEnd::Failed(e) if self.synced_this_stream => {
                let delay = self.failure_delay(&e);
                Step::Wait {
                    delay,
                    then: Box::new(Step::Watch),
                }
            }
            WatchEnd::Failed(e) => {
                let delay = self.failure_delay(&e);
                Step::Wait {
                    delay,
                    then: Box::new(Step::WatchList),
                }
            }
            WatchEnd::Gone => {
                // Before sync, the version asked from is too old (or newer
                // than the server has seen): ask for the latest state at
                // once, as client-go's watchList does. (Asked with no
                // version and still told so, the server is broken: back off.)
                if !self.synced_this_stream && !rv.is_empty() {
                    self.update(|s| s.last_resource_version = None);
                    return Step::WatchList;
                }
                // After sync the resumed watch expired: a new ListAndWatch,
                // after the backoff, streams the state from the last version.
                Step::Wait {
                    delay: self.backoff.next_delay(self.clock.now()),
                    then: Box::new(Step::WatchList),
                }
            }
            WatchEnd::Unsynced { delivered } => {
                let lasted = self.clock.now().saturating_sub(started);
                if !delivered && lasted < self.config.min_watch_duration {
                    let e = Error::Decode("streaming list closed at once without any event".into());
                    let delay = self.failure_delay(&e);
                    return Step::Wait {
                        delay,
                        then: Box::new(Step::WatchList),
                    };
                }
                Step::WatchList
            }
            WatchEnd::FallBack(e) => {
                self.record_error(&e);
                let why = e.to_string();
                self.update(|s| {
                    s.watch_list_fallbacks += 1;
                    s.last_fallback = Some(why);
                });
                match self.last_rv() {
                    Some(rv) => Step::List(ListFrom::NotOlderThan(rv)),
                    None => Step::List(ListFrom::Any),
                }
            }
        }
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

    fn list_params(&self) -> ListParams {
        ListParams {
            label_selector: self.config.label_selector.clone(),
            field_selector: self.config.field_selector.clone(),
            ..ListParams::default()
        }
    }

    fn collection(&self) -> kube_core::Request {
        kube_core::Request::new(self.config.url_path.clone())
    }

    async fn list(&mut self, from: &ListFrom) -> Result<(), Error> {
        let mut params = self.list_params();
        // Paging as client-go's reflector does (list() and its pager):
        // - rv=0 pages at 500; client-go takes an answer that came back in
        //   pages to mean the resource has no watch cache (older watch
        //   caches answer in one piece whatever the limit), and later lists
        //   page too. Kubernetes 1.37's watch cache pages rv=0 lists itself,
        //   so there every list pages, as client-go's do.
        // - rv=X (not "" or "0") with a limit would be an Exact read from
        //   etcd at that old revision, answering with the old version; with
        //   no limit the watch cache answers "not older than X". So paging is
        //   off there, unless the server has shown it has no watch cache.
        // - rv unset is a consistent read from etcd, paged.
        let page = Some(self.config.page_size);
        match from {
            ListFrom::Any => {
                params.resource_version = Some("0".into());
                params.limit = page;
            }
            ListFrom::NotOlderThan(rv) => {
                params.resource_version = Some(rv.clone());
                params.limit = page.filter(|_| self.paginated_result);
            }
            ListFrom::Latest => params.limit = page,
        }
        let first = params.clone();
        // Each item goes through the store's transform as it is decoded.
        let transform = self.store.borrow().transform();
        let mut items = Vec::new();
        let mut undecodable = Vec::new();
        let mut paginated = false;
        let resource_version = loop {
            let metadata = match self
                .list_page(&params, transform.as_ref(), &mut items, &mut undecodable)
                .await
            {
                Ok(m) => m,
                // A continue token that expired mid-list (the list took longer
                // than the compaction interval): one full list at the version
                // first asked for, instead of starting over page by page
                // (client-go's pager, FullListIfExpired).
                Err(e)
                    if params.continue_token.is_some() && e.api().is_some_and(|a| a.is_gone()) =>
                {
                    items.clear();
                    undecodable.clear();
                    let mut full = first.clone();
                    full.limit = None;
                    full.continue_token = None;
                    let m = self
                        .list_page(&full, transform.as_ref(), &mut items, &mut undecodable)
                        .await?;
                    break m.resource_version.unwrap_or_default();
                }
                Err(e) => return Err(e),
            };
            match metadata.continue_.filter(|c| !c.is_empty()) {
                Some(token) => {
                    paginated = true;
                    params.continue_token = Some(token);
                    // The version is in the token; the server refuses both.
                    params.resource_version = None;
                    params.version_match = None;
                }
                None => break metadata.resource_version.unwrap_or_default(),
            }
        };
        if matches!(from, ListFrom::Any) && paginated {
            self.paginated_result = true;
        }
        if resource_version.is_empty() {
            return Err(Error::Decode("the list has no resourceVersion".into()));
        }
        // The items that did not decode go along: the store keeps what it
        // holds for them (the list does not say they are gone).
        self.store
            .borrow_mut()
            .replace_transformed(items, &resource_version, &undecodable);
        self.update(|s| {
            s.lists += 1;
            s.synced = true;
            s.last_resource_version = Some(resource_version);
            s.undecodable_more = undecodable.len().saturating_sub(MAX_UNDECODABLE);
            undecodable.truncate(MAX_UNDECODABLE);
            s.undecodable = undecodable;
            s.last_error = None;
            s.last_error_code = None;
            s.unreachable = false;
        });
        Ok(())
    }

    /// One LIST request with `params`; the items that decode are appended
    /// to `items` (through `transform`), the ones that do not to `undecodable`.
    async fn list_page(
        &mut self,
        params: &ListParams,
        transform: Option<&crate::cache::store::Transform<K>>,
        items: &mut Vec<K>,
        undecodable: &mut Vec<Undecodable>,
    ) -> Result<k8s_openapi::apimachinery::pkg::apis::meta::v1::ListMeta, Error> {
        // kube-core leaves out resourceVersion=0 when a limit is set; client-go
        // sends both (any cached state, paged when there is no watch cache).
        let rv0 = params.continue_token.is_none()
            && params.limit.is_some()
            && params.resource_version.as_deref() == Some("0");
        let with_rv0 = |r: crate::transport::Request| {
            if rv0 {
                crate::api::with_query(r, "resourceVersion", "0")
            } else {
                r
            }
        };
        let request = if self.config.table {
            as_table(with_rv0(self.collection().list(params)?))
        } else if self.config.metadata_only {
            with_rv0(self.collection().list_metadata(params)?)
        } else {
            with_rv0(self.collection().list(params)?)
        };
        // The items are decoded as the body arrives, each through the
        // transform as soon as it is in: the decode runs while the rest of a
        // large list is still on its way, and a list of 10,000 whole pods
        // trimmed to a few fields never holds them whole, nor the body.
        let keep = |o: K| o;
        let each: &dyn Fn(K) -> K = match transform {
            Some(t) => &**t,
            None => &keep,
        };
        let table = self.config.table;
        let page = self
            .client
            .receive(request, || ListDecoder::new(table, each))
            .await?;
        if !page.columns.is_empty() {
            *self.columns.borrow_mut() = page.columns;
        }
        items.extend(page.items);
        undecodable.extend(page.undecodable);
        Ok(page.metadata)
    }

    async fn watch(&mut self, rv: &str, initial: bool) -> WatchEnd {
        self.synced_this_stream = false;
        let min = self.config.min_watch_timeout;
        let timeout = self.jitter.between(min, min * 2);
        let params = WatchParams {
            label_selector: self.config.label_selector.clone(),
            field_selector: self.config.field_selector.clone(),
            timeout: Some(timeout.as_secs() as u32),
            bookmarks: true,
            send_initial_events: initial,
        };
        let request = if self.config.metadata_only {
            self.collection().watch_metadata(&params, rv)
        } else if self.config.table {
            self.collection().watch(&params, rv).map(as_table)
        } else {
            self.collection().watch(&params, rv)
        };
        let request = match request {
            Ok(r) => r,
            Err(e) => return WatchEnd::Failed(e.into()),
        };
        let answered = self.client.watch::<K>(request).await;
        if self.status.borrow().unreachable && !answered.as_ref().is_err_and(Error::is_connect) {
            // The server answers again after it could not be reached: the
            // backoff grown by the outage starts over, so the relist a 410
            // now calls for waits 800 ms, not the outage's 30-60 s. (A
            // deliberate deviation: client-go's backoff resets only after
            // 2 minutes without failures.)
            self.backoff.reset();
        }
        let mut stream = match answered {
            Ok(s) => {
                // The server answered: whatever failed before is over.
                self.update(|s| s.unreachable = false);
                s
            }
            Err(e) if initial => return self.watch_list_failed(e),
            Err(e) if e.api().is_some_and(|a| a.is_gone()) => {
                self.record_error(&e);
                return WatchEnd::Gone;
            }
            Err(e) => return WatchEnd::Failed(e),
        };
        // A watch the server forgot to close is abandoned after its timeout.
        let mut deadline = self.clock.sleep(timeout + self.config.watch_grace).fuse();
        // The initial state of a streaming list collects here until the
        // end bookmark, then replaces the store in one go. Its events'
        // resourceVersions are not trusted for ordering until then.
        let mut initial_state: Option<HashMap<String, K>> = initial.then(HashMap::new);
        let transform = initial.then(|| self.store.borrow().transform()).flatten();
        let idle = self.config.watch_list_idle;
        let mut idle_check = self.clock.sleep(idle).fuse();
        let mut last_activity = self.clock.now();
        let mut delivered = false;
        loop {
            let next = futures::select! {
                next = stream.next().fuse() => next,
                () = deadline => return ended(initial_state.is_some(), delivered),
                () = idle_check => {
                    if initial_state.is_none() {
                        idle_check = futures::future::pending().boxed_local().fuse();
                        continue;
                    }
                    let quiet = self.clock.now().saturating_sub(last_activity);
                    if quiet >= idle {
                        return WatchEnd::FallBack(Error::Decode(format!(
                            "the streaming list sent no end-of-initial-events bookmark within {} s",
                            idle.as_secs()
                        )));
                    }
                    idle_check = self.clock.sleep(idle - quiet).fuse();
                    continue;
                }
            };
            let event = match next {
                None => return ended(initial_state.is_some(), delivered),
                // A streaming list that sends what does not decode falls
                // back to a plain list, as client-go's does on any error it
                // does not retry; the list then names the bad object.
                Some(Err(e @ Error::WatchDecode(_))) if initial_state.is_some() => {
                    return WatchEnd::FallBack(e);
                }
                Some(Err(e @ Error::WatchDecode(_))) => return WatchEnd::Undecodable(e),
                Some(Err(e)) => return WatchEnd::Failed(e),
                Some(Ok(event)) => event,
            };
            delivered = true;
            let now = self.clock.now();
            last_activity = now;
            if let Some(state) = initial_state.as_mut() {
                match event {
                    WatchEvent::Added(obj) | WatchEvent::Modified(obj) => {
                        let obj = match &transform {
                            Some(t) => t(obj),
                            None => obj,
                        };
                        state.insert(object_key(&obj), obj);
                        continue;
                    }
                    WatchEvent::Deleted(obj) => {
                        state.remove(&object_key(&obj));
                        continue;
                    }
                    WatchEvent::Bookmark(b) => {
                        let end = b
                            .metadata
                            .annotations
                            .get(INITIAL_EVENTS_END)
                            .is_some_and(|v| v == "true");
                        if !end || b.metadata.resource_version.is_empty() {
                            continue;
                        }
                        let items: Vec<K> = initial_state
                            .take()
                            .map(|m| m.into_values().collect())
                            .unwrap_or_default();
                        let rv = b.metadata.resource_version;
                        // Nothing undecodable: such an event falls back to a list.
                        self.store.borrow_mut().replace_transformed(items, &rv, &[]);
                        self.synced_this_stream = true;
                        self.update(|s| {
                            s.state = ReflectorState::Watching;
                            s.watch_lists += 1;
                            s.bookmarks += 1;
                            s.last_bookmark_at = Some(now);
                            s.synced = true;
                            s.last_resource_version = Some(rv);
                            s.last_event_at = Some(now);
                            s.last_error = None;
                            s.last_error_code = None;
                            s.unreachable = false;
                        });
                        continue;
                    }
                    WatchEvent::Error(_) => {}
                }
            }
            if let WatchEvent::Added(obj) | WatchEvent::Modified(obj) | WatchEvent::Deleted(obj) =
                &event
            {
                self.decoded(obj);
            }
            match event {
                WatchEvent::Added(obj) => {
                    let rv = obj.meta().resource_version.clone();
                    self.store.borrow_mut().add(obj);
                    self.after_event(rv, now, |s| s.added += 1);
                }
                WatchEvent::Modified(obj) => {
                    let rv = obj.meta().resource_version.clone();
                    self.store.borrow_mut().update(obj);
                    self.after_event(rv, now, |s| s.modified += 1);
                }
                WatchEvent::Deleted(obj) => {
                    let rv = obj.meta().resource_version.clone();
                    self.store.borrow_mut().delete(obj);
                    self.after_event(rv, now, |s| s.deleted += 1);
                }
                WatchEvent::Bookmark(b) => {
                    self.after_event(Some(b.metadata.resource_version), now, |s| {
                        s.bookmarks += 1;
                        s.last_bookmark_at = Some(now);
                    });
                }
                WatchEvent::Error(status) => {
                    let e = crate::rest::ApiError::from_status(*status, 500, None);
                    if initial_state.is_some() {
                        return self.watch_list_failed(e.into());
                    }
                    if e.is_gone() {
                        self.record_error(&e.into());
                        return WatchEnd::Gone;
                    }
                    return WatchEnd::Failed(e.into());
                }
            }
        }
    }

    /// A watch event brought `obj`, decoded: if the last list named it as
    /// undecodable, it no longer is (a copy that reads came, or it was
    /// deleted), so the status stops naming it. Free while nothing is named.
    fn decoded(&self, obj: &K) {
        if self.status.borrow().undecodable.is_empty() {
            return;
        }
        let key = object_key(obj);
        if self
            .status
            .borrow()
            .undecodable
            .iter()
            .any(|u| u.key == key)
        {
            self.update(|s| s.undecodable.retain(|u| u.key != key));
        }
    }

    /// How a streaming list that failed before its initial state ends.
    fn watch_list_failed(&self, e: Error) -> WatchEnd {
        match WatchListFailure::of(&e) {
            WatchListFailure::VersionUnavailable => {
                self.record_error(&e);
                WatchEnd::Gone
            }
            WatchListFailure::Retry => WatchEnd::Failed(e),
            WatchListFailure::FallBack => WatchEnd::FallBack(e),
        }
    }

    fn after_event(
        &self,
        rv: Option<String>,
        now: Timestamp,
        count: impl FnOnce(&mut ReflectorStatus),
    ) {
        self.update(|s| {
            count(s);
            if let Some(rv) = rv.filter(|rv| !rv.is_empty()) {
                s.last_resource_version = Some(rv);
            }
            s.last_event_at = Some(now);
            s.last_error = None;
            s.last_error_code = None;
            s.unreachable = false;
        });
    }
}
