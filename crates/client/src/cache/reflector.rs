//! The reflector: keeps a store equal to the server's state with list + watch.
//!
//! It follows client-go's reflector: the first list asks for
//! `resourceVersion=0` (any cached state, cheap for the server); then a watch
//! from the list's resourceVersion with bookmarks and a random 5–10 minute
//! timeout. The resourceVersion advances with every event and bookmark. When
//! the watch says 410 Gone, the next list asks for the last seen version; only
//! if that is also gone (or "too large") does it list with no version (a
//! consistent read from etcd). Connection failures, 429s and 5xx back off
//! (800 ms ×2 up to 30 s, jittered, reset after 2 healthy minutes) and resume
//! the watch without a relist. A watch that ends within a second having
//! delivered nothing counts as a failure, so a broken server cannot cause a
//! hot loop.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use futures::{FutureExt, StreamExt};
use kube_core::params::{ListParams, WatchParams};
use kube_core::watch::WatchEvent;
use kube_core::{ObjectList, Resource};
use serde::de::DeserializeOwned;

use super::store::ReflectorStore;
use crate::backoff::Backoff;
use crate::clock::{Clock, Jitter, Timestamp};
use crate::reconnect::Reconnect;
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
    /// True while the latest failure was "cannot reach the API server".
    pub unreachable: bool,
    /// When the last event or bookmark arrived.
    pub last_event_at: Option<Timestamp>,
}

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
            unreachable: false,
            last_event_at: None,
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
}

impl ReflectorConfig {
    /// client-go's defaults for the collection at `url_path`.
    pub fn new(url_path: impl Into<String>) -> Self {
        Self {
            url_path: url_path.into(),
            metadata_only: false,
            label_selector: None,
            field_selector: None,
            page_size: 500,
            min_watch_timeout: Duration::from_secs(300),
            min_watch_duration: Duration::from_secs(1),
            watch_grace: Duration::from_secs(30),
        }
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
}

/// The next thing the reflector does; one [`Reflector::step`] per value.
#[derive(Debug)]
enum Step {
    /// List, then replace the store.
    List(ListFrom),
    /// Watch from the last resourceVersion.
    Watch,
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
        let jitter = Jitter::from_clock(clock.as_ref());
        let seed = clock.now().as_nanos() as u64;
        Self {
            client,
            clock,
            config,
            store,
            status: Rc::new(RefCell::new(ReflectorStatus::default())),
            on_status: None,
            backoff: Backoff::reflector(seed),
            jitter,
            reconnect: None,
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
        let mut step = Step::List(ListFrom::Any);
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
            Step::Watch => {
                let Some(rv) = self.last_rv() else {
                    return Step::List(ListFrom::Any);
                };
                self.update(|s| {
                    s.state = ReflectorState::Watching;
                    s.watches += 1;
                });
                let started = self.clock.now();
                match self.watch(&rv).await {
                    WatchEnd::Gone => {
                        let from = match self.last_rv() {
                            Some(rv) => ListFrom::NotOlderThan(rv),
                            None => ListFrom::Latest,
                        };
                        Step::List(from)
                    }
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
                }
            }
        }
    }

    fn record_error(&self, e: &Error) {
        let text = e.to_string();
        let unreachable = e.is_connect();
        self.update(|s| {
            s.errors += 1;
            s.last_error = Some(text);
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
        match from {
            // The server answers rv=0 from its cache in one piece and ignores
            // a limit, so none is sent.
            ListFrom::Any => params.resource_version = Some("0".into()),
            ListFrom::NotOlderThan(rv) => {
                params.resource_version = Some(rv.clone());
                params.limit = Some(self.config.page_size);
            }
            ListFrom::Latest => params.limit = Some(self.config.page_size),
        }
        let mut items = Vec::new();
        let resource_version = loop {
            let request = if self.config.metadata_only {
                self.collection().list_metadata(&params)?
            } else {
                self.collection().list(&params)?
            };
            let page: ObjectList<K> = self.client.send_json(request).await?;
            items.extend(page.items);
            match page.metadata.continue_.filter(|c| !c.is_empty()) {
                Some(token) => params.continue_token = Some(token),
                None => break page.metadata.resource_version.unwrap_or_default(),
            }
        };
        if resource_version.is_empty() {
            return Err(Error::Decode("the list has no resourceVersion".into()));
        }
        self.store.borrow_mut().replace(items, &resource_version);
        self.update(|s| {
            s.lists += 1;
            s.synced = true;
            s.last_resource_version = Some(resource_version);
            s.last_error = None;
            s.unreachable = false;
        });
        Ok(())
    }

    async fn watch(&mut self, rv: &str) -> WatchEnd {
        let min = self.config.min_watch_timeout;
        let timeout = self.jitter.between(min, min * 2);
        let params = WatchParams {
            label_selector: self.config.label_selector.clone(),
            field_selector: self.config.field_selector.clone(),
            timeout: Some(timeout.as_secs() as u32),
            bookmarks: true,
            send_initial_events: false,
        };
        let request = if self.config.metadata_only {
            self.collection().watch_metadata(&params, rv)
        } else {
            self.collection().watch(&params, rv)
        };
        let request = match request {
            Ok(r) => r,
            Err(e) => return WatchEnd::Failed(e.into()),
        };
        let mut stream = match self.client.watch::<K>(request).await {
            Ok(s) => {
                // The server answered: whatever failed before is over.
                self.update(|s| s.unreachable = false);
                s
            }
            Err(e) if e.api().is_some_and(|a| a.is_gone()) => {
                self.record_error(&e);
                return WatchEnd::Gone;
            }
            Err(e) => return WatchEnd::Failed(e),
        };
        // A watch the server forgot to close is abandoned after its timeout.
        let mut deadline = self.clock.sleep(timeout + self.config.watch_grace).fuse();
        let mut delivered = false;
        loop {
            let next = futures::select! {
                next = stream.next().fuse() => next,
                () = deadline => return WatchEnd::Closed { delivered },
            };
            let event = match next {
                None => return WatchEnd::Closed { delivered },
                Some(Err(e)) => return WatchEnd::Failed(e),
                Some(Ok(event)) => event,
            };
            delivered = true;
            let now = self.clock.now();
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
                    self.after_event(Some(b.metadata.resource_version), now, |s| s.bookmarks += 1);
                }
                WatchEvent::Error(status) => {
                    let e = crate::rest::ApiError::from_status(*status, 500, None);
                    if e.is_gone() {
                        self.record_error(&e.into());
                        return WatchEnd::Gone;
                    }
                    return WatchEnd::Failed(e.into());
                }
            }
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
            s.unreachable = false;
        });
    }
}
