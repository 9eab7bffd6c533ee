//! Recording Kubernetes Events (client-go tools/record): recorder → broadcaster → correlator → sink.
//!
//! An [`EventRecorder`] puts events on the [`EventBroadcaster`]'s queue (1000
//! deep; the non-blocking `event` drops when it is full, the blocking
//! `record` waits). The broadcaster's [`EventBroadcaster::run`] hands each
//! event to its watchers (a log, the UI: plain callbacks, called at once)
//! and to the sink's own queue, also 1000 deep and dropping when full, as
//! each watcher of client-go's `watch.Broadcaster` has its own. The sink's
//! writer drains that queue through the [`Correlator`] into an [`EventSink`]
//! that creates each event, or patches the count and lastTimestamp of the one
//! written before, trying 12 times: first after a random 0–10 s, then 10 s
//! apart. A sink that is retrying therefore never holds up the watchers or
//! the recorders.

pub mod correlator;
pub mod series;

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::Duration;

use futures::channel::mpsc;
use futures::future::LocalBoxFuture;
use futures::{FutureExt, StreamExt};
use k8s_openapi::api::core::v1::{Event, EventSource, ObjectReference};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use kube_core::params::{Patch, PatchParams, PostParams};

pub use correlator::{Correlator, Decision, EventKey};

use crate::api::Api;
use crate::clock::{Clock, Jitter, Timestamp};
use crate::rest::{Error, RestClient};

/// Events queued before the non-blocking recorder starts dropping (client-go: 1000).
pub const QUEUE_LENGTH: usize = 1000;
/// Attempts to write one event (client-go: 12).
pub const SINK_TRIES: u32 = 12;
/// Wait between attempts (client-go: 10 s).
pub const SINK_RETRY_INTERVAL: Duration = Duration::from_secs(10);

/// `Normal` or `Warning`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    /// Something expected happened.
    Normal,
    /// Something a person should look at.
    Warning,
}

impl EventType {
    /// The API's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Normal => "Normal",
            EventType::Warning => "Warning",
        }
    }
}

fn time(t: Timestamp) -> Option<Time> {
    let secs = i64::try_from(t.as_secs()).ok()?;
    k8s_openapi::jiff::Timestamp::from_second(secs)
        .ok()
        .map(Time)
}

/// Puts events on a broadcaster's queue.
#[derive(Clone)]
pub struct EventRecorder {
    /// This recorder's sender; never cloned per event (each clone of a
    /// futures sender adds a slot, which would make the queue unbounded).
    tx: Rc<RefCell<mpsc::Sender<Event>>>,
    component: String,
    clock: Rc<dyn Clock>,
    dropped: Rc<Cell<u64>>,
}

impl std::fmt::Debug for EventRecorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventRecorder")
            .field("component", &self.component)
            .field("dropped", &self.dropped.get())
            .finish()
    }
}

impl EventRecorder {
    fn build(
        &self,
        object: &ObjectReference,
        annotations: BTreeMap<String, String>,
        type_: EventType,
        reason: &str,
        message: &str,
    ) -> Event {
        let now = self.clock.now();
        let name = format!(
            "{}.{:x}",
            object.name.as_deref().unwrap_or("unknown"),
            now.as_nanos()
        );
        Event {
            metadata: ObjectMeta {
                name: Some(name),
                namespace: Some(
                    object
                        .namespace
                        .clone()
                        .filter(|n| !n.is_empty())
                        .unwrap_or_else(|| "default".into()),
                ),
                annotations: (!annotations.is_empty()).then_some(annotations),
                ..Default::default()
            },
            involved_object: object.clone(),
            reason: Some(reason.to_string()),
            message: Some(message.to_string()),
            type_: Some(type_.as_str().to_string()),
            source: Some(EventSource {
                component: Some(self.component.clone()),
                host: None,
            }),
            reporting_component: Some(self.component.clone()),
            reporting_instance: Some(self.component.clone()),
            first_timestamp: time(now),
            last_timestamp: time(now),
            count: Some(1),
            ..Default::default()
        }
    }

    /// Records an event; drops it (and counts the drop) when the queue is full.
    pub fn event(&self, object: &ObjectReference, type_: EventType, reason: &str, message: &str) {
        self.annotated_event(object, BTreeMap::new(), type_, reason, message);
    }

    /// Records an event with a formatted message.
    pub fn eventf(
        &self,
        object: &ObjectReference,
        type_: EventType,
        reason: &str,
        message: std::fmt::Arguments<'_>,
    ) {
        self.event(object, type_, reason, &message.to_string());
    }

    /// Records an event carrying annotations.
    pub fn annotated_event(
        &self,
        object: &ObjectReference,
        annotations: BTreeMap<String, String>,
        type_: EventType,
        reason: &str,
        message: &str,
    ) {
        let e = self.build(object, annotations, type_, reason, message);
        if self.tx.borrow_mut().try_send(e).is_err() {
            self.dropped.set(self.dropped.get() + 1);
        }
    }

    /// Records an event, waiting for room in the queue (blocking mode).
    pub async fn record(
        &self,
        object: &ObjectReference,
        type_: EventType,
        reason: &str,
        message: &str,
    ) {
        let e = self.build(object, BTreeMap::new(), type_, reason, message);
        // Wait for room without holding the borrow across the await.
        let ready = futures::future::poll_fn(|cx| self.tx.borrow_mut().poll_ready(cx)).await;
        if ready.is_err() || self.tx.borrow_mut().start_send(e).is_err() {
            self.dropped.set(self.dropped.get() + 1);
        }
    }

    /// Events dropped because the queue was full (or closed).
    pub fn dropped(&self) -> u64 {
        self.dropped.get()
    }
}

/// Where events are written.
pub trait EventSink {
    /// Creates `event`.
    fn create<'a>(&'a self, event: &'a Event) -> LocalBoxFuture<'a, Result<Event, Error>>;
    /// Patches the existing event `name` in `namespace` with a merge patch.
    fn patch<'a>(
        &'a self,
        namespace: &'a str,
        name: &'a str,
        patch: serde_json::Value,
    ) -> LocalBoxFuture<'a, Result<Event, Error>>;
    /// True when the sink writes events.k8s.io/v1 series: repeats are then
    /// counted in a [`series::SeriesCache`] and written on its schedule
    /// (client-go `tools/events`) instead of through the [`Correlator`].
    fn series(&self) -> bool {
        false
    }
}

/// Which Events API a sink writes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventsApi {
    /// `v1 Event` (`count`, `lastTimestamp`).
    CoreV1,
    /// `events.k8s.io/v1 Event` (`series`, `eventTime`, `note`).
    EventsV1,
}

/// Writes Events through the API: events.k8s.io/v1 with series when the
/// server offers it, core/v1 otherwise.
#[derive(Clone)]
pub struct ApiSink {
    client: RestClient,
    api: EventsApi,
    clock: Option<Rc<dyn Clock>>,
}

impl std::fmt::Debug for ApiSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiSink")
            .field("api", &self.api)
            .finish_non_exhaustive()
    }
}

impl ApiSink {
    /// A core/v1 sink writing with `client`.
    pub fn new(client: RestClient) -> Self {
        Self {
            client,
            api: EventsApi::CoreV1,
            clock: None,
        }
    }

    /// A sink for the API discovery says the server offers.
    pub fn for_server(
        client: RestClient,
        discovery: &crate::discovery::Discovery,
        clock: Rc<dyn Clock>,
    ) -> Self {
        let v1 = discovery
            .resources_for("events.k8s.io", "v1")
            .iter()
            .any(|r| r.plural == "events" && r.supports("create") && r.supports("patch"));
        Self {
            client,
            api: if v1 {
                EventsApi::EventsV1
            } else {
                EventsApi::CoreV1
            },
            clock: Some(clock),
        }
    }

    /// Asks the server whether it serves events.k8s.io/v1 (one small
    /// request, no full discovery) and picks the API accordingly.
    pub async fn probe(client: RestClient, clock: Rc<dyn Clock>) -> Self {
        let request = http::Request::get("/apis/events.k8s.io/v1").body(Vec::new());
        let v1 = match request {
            Ok(r) => client
                .send_json::<k8s_openapi::apimachinery::pkg::apis::meta::v1::APIResourceList>(r)
                .await
                .is_ok_and(|l| {
                    l.resources.iter().any(|r| {
                        r.name == "events"
                            && r.verbs.iter().any(|v| v == "create")
                            && r.verbs.iter().any(|v| v == "patch")
                    })
                }),
            Err(_) => false,
        };
        Self {
            client,
            api: if v1 {
                EventsApi::EventsV1
            } else {
                EventsApi::CoreV1
            },
            clock: Some(clock),
        }
    }

    /// The API this sink writes to.
    pub fn api(&self) -> EventsApi {
        self.api
    }

    fn micro_now(&self) -> Option<k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime> {
        let now = self.clock.as_ref()?.now();
        let t =
            k8s_openapi::jiff::Timestamp::from_microsecond(i64::try_from(now.as_micros()).ok()?)
                .ok()?;
        Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime(t))
    }

    fn v1_api(&self, namespace: &str) -> Api<k8s_openapi::api::events::v1::Event> {
        Api::namespaced(self.client.clone(), namespace)
    }
}

/// The events.k8s.io/v1 form of a core/v1 Event.
fn to_events_v1(
    e: &Event,
    event_time: Option<k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime>,
) -> k8s_openapi::api::events::v1::Event {
    let controller = e
        .reporting_component
        .clone()
        .unwrap_or_else(|| "kubeglass".into());
    k8s_openapi::api::events::v1::Event {
        metadata: e.metadata.clone(),
        event_time,
        reporting_controller: Some(controller.clone()),
        reporting_instance: Some(e.reporting_instance.clone().unwrap_or(controller)),
        action: Some(
            e.action
                .clone()
                .or_else(|| e.reason.clone())
                .unwrap_or_default(),
        ),
        reason: e.reason.clone(),
        regarding: Some(e.involved_object.clone()),
        note: e.message.clone(),
        type_: e.type_.clone(),
        // deprecatedSource stays unset: the apiserver refuses it on create
        // ("needs to be unset"), so core/v1 readers see no `source` for
        // events written this way.
        ..Default::default()
    }
}

/// Reads a v1 Event back as a core/v1 one (what watchers and counts expect).
fn from_events_v1(e: k8s_openapi::api::events::v1::Event) -> Event {
    Event {
        metadata: e.metadata,
        involved_object: e.regarding.unwrap_or_default(),
        reason: e.reason,
        message: e.note,
        type_: e.type_,
        reporting_component: e.reporting_controller,
        reporting_instance: e.reporting_instance,
        action: e.action,
        count: e.series.as_ref().map(|s| s.count),
        ..Default::default()
    }
}

impl EventSink for ApiSink {
    fn series(&self) -> bool {
        self.api == EventsApi::EventsV1
    }

    fn create<'a>(&'a self, event: &'a Event) -> LocalBoxFuture<'a, Result<Event, Error>> {
        async move {
            let ns = event.metadata.namespace.as_deref().unwrap_or("default");
            match self.api {
                EventsApi::CoreV1 => {
                    Api::<Event>::namespaced(self.client.clone(), ns)
                        .create(&PostParams::default(), event)
                        .await
                }
                EventsApi::EventsV1 => self
                    .v1_api(ns)
                    .create(
                        &PostParams::default(),
                        &to_events_v1(event, self.micro_now()),
                    )
                    .await
                    .map(from_events_v1),
            }
        }
        .boxed_local()
    }

    fn patch<'a>(
        &'a self,
        namespace: &'a str,
        name: &'a str,
        patch: serde_json::Value,
    ) -> LocalBoxFuture<'a, Result<Event, Error>> {
        async move {
            match self.api {
                EventsApi::CoreV1 => {
                    Api::<Event>::namespaced(self.client.clone(), namespace)
                        .patch(name, &PatchParams::default(), &Patch::Merge(patch))
                        .await
                }
                EventsApi::EventsV1 => {
                    // A repeat is a series: its count and when it was last
                    // seen. `note` is immutable in events.k8s.io/v1 (the
                    // apiserver answers 422), so the first message stays.
                    // When the last occurrence was seen (the series cache
                    // writes a finished series later), else now.
                    let observed = patch
                        .get("lastTimestamp")
                        .cloned()
                        .and_then(|t| serde_json::from_value::<Time>(t).ok())
                        .map(|t| k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime(t.0))
                        .or_else(|| self.micro_now());
                    let v1 = serde_json::json!({
                        "series": {
                            "count": patch.get("count").cloned().unwrap_or(serde_json::json!(2)),
                            "lastObservedTime": observed,
                        },
                    });
                    self.v1_api(namespace)
                        .patch(name, &PatchParams::default(), &Patch::Merge(v1))
                        .await
                        .map(from_events_v1)
                }
            }
        }
        .boxed_local()
    }
}

fn key_of(e: &Event) -> EventKey {
    let o = &e.involved_object;
    let s = |v: &Option<String>| v.clone().unwrap_or_default();
    EventKey {
        source: e
            .source
            .as_ref()
            .and_then(|s| s.component.clone())
            .unwrap_or_default(),
        object: (
            s(&o.kind),
            s(&o.namespace),
            s(&o.name),
            s(&o.uid),
            s(&o.api_version),
        ),
        type_: s(&e.type_),
        reason: s(&e.reason),
        message: s(&e.message),
        field_path: s(&o.field_path),
        reporting_controller: s(&e.reporting_component),
        reporting_instance: s(&e.reporting_instance),
    }
}

fn retryable(e: &Error) -> bool {
    match e {
        Error::Transport(_) => true,
        Error::Api(a) => a.is_too_many_requests() || a.is_server_error() || a.is_timeout(),
        _ => false,
    }
}

type Watcher = Box<dyn FnMut(&Event)>;

/// Fans recorded events out to watchers and a sink.
pub struct EventBroadcaster {
    tx: mpsc::Sender<Event>,
    rx: RefCell<Option<mpsc::Receiver<Event>>>,
    watchers: Rc<RefCell<Vec<Watcher>>>,
    written: Rc<Cell<u64>>,
    skipped: Rc<Cell<u64>>,
    failed: Rc<Cell<u64>>,
    /// Events the sink's queue had no room for (the sink was retrying).
    sink_dropped: Rc<Cell<u64>>,
    sink_queue: usize,
}

impl std::fmt::Debug for EventBroadcaster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventBroadcaster")
            .field("written", &self.written.get())
            .finish_non_exhaustive()
    }
}

impl Default for EventBroadcaster {
    fn default() -> Self {
        Self::new()
    }
}

impl EventBroadcaster {
    /// A broadcaster with client-go's queue length.
    pub fn new() -> Self {
        Self::with_queue_length(QUEUE_LENGTH)
    }

    /// A broadcaster whose queue holds `len` events.
    pub fn with_queue_length(len: usize) -> Self {
        // mpsc::channel(n) holds n plus one slot per sender (this one and
        // one per recorder), so the queue holds about `len` events.
        let (tx, rx) = mpsc::channel(len.saturating_sub(1));
        Self {
            tx,
            rx: RefCell::new(Some(rx)),
            watchers: Rc::default(),
            written: Rc::default(),
            skipped: Rc::default(),
            failed: Rc::default(),
            sink_dropped: Rc::default(),
            sink_queue: len,
        }
    }

    /// A recorder reporting as `component` (e.g. `kubeglass`).
    pub fn recorder(&self, component: &str, clock: Rc<dyn Clock>) -> EventRecorder {
        EventRecorder {
            tx: Rc::new(RefCell::new(self.tx.clone())),
            component: component.to_string(),
            clock,
            dropped: Rc::default(),
        }
    }

    /// Calls `watcher` with every event (e.g. logging to the console).
    pub fn watch(&self, watcher: impl FnMut(&Event) + 'static) {
        self.watchers.borrow_mut().push(Box::new(watcher));
    }

    /// (written, skipped by the spam filter, given up after retries).
    pub fn counts(&self) -> (u64, u64, u64) {
        (self.written.get(), self.skipped.get(), self.failed.get())
    }

    /// Events the sink never saw because its queue was full.
    pub fn sink_dropped(&self) -> u64 {
        self.sink_dropped.get()
    }

    /// Distributes events until every recorder is gone; spawn it once.
    pub fn run(
        &self,
        sink: Rc<dyn EventSink>,
        clock: Rc<dyn Clock>,
    ) -> LocalBoxFuture<'static, ()> {
        let Some(mut rx) = self.rx.borrow_mut().take() else {
            return futures::future::ready(()).boxed_local();
        };
        let watchers = self.watchers.clone();
        let (written, skipped, failed, dropped) = (
            self.written.clone(),
            self.skipped.clone(),
            self.failed.clone(),
            self.sink_dropped.clone(),
        );
        // The sink's own queue: one sender, so it holds `sink_queue` events.
        let (mut to_sink, mut for_sink) = mpsc::channel::<Event>(self.sink_queue.saturating_sub(1));
        let distribute = async move {
            while let Some(event) = rx.next().await {
                for w in watchers.borrow_mut().iter_mut() {
                    w(&event);
                }
                if to_sink.try_send(event).is_err() {
                    dropped.set(dropped.get() + 1);
                }
            }
        };
        let write_all = async move {
            let mut correlator = Correlator::default();
            let mut series = series::SeriesCache::new();
            let mut jitter = Jitter::from_entropy(clock.as_ref());
            let series_mode = sink.series();
            let mut next_finish = clock.now() + series::FINISH_TIME;
            let mut next_refresh = clock.now() + series::REFRESH_TIME;
            let count = |o: Outcome| match o {
                Outcome::Written => written.set(written.get() + 1),
                Outcome::Skipped => skipped.set(skipped.get() + 1),
                Outcome::Failed => failed.set(failed.get() + 1),
            };
            loop {
                let next = if series_mode {
                    let wait = next_finish.min(next_refresh).saturating_sub(clock.now());
                    futures::select! {
                        e = for_sink.next().fuse() => match e {
                            Some(e) => Some(e),
                            None => break,
                        },
                        () = clock.sleep(wait).fuse() => None,
                    }
                } else {
                    match for_sink.next().await {
                        Some(e) => Some(e),
                        None => break,
                    }
                };
                let waits = retry_waits(series_mode, &mut jitter);
                match next {
                    Some(event) if series_mode => {
                        let (ns, name) = (
                            event.metadata.namespace.clone().unwrap_or_default(),
                            event.metadata.name.clone().unwrap_or_default(),
                        );
                        match series.observe(isomorphic_key(&event), clock.now(), &ns, &name) {
                            None => count(Outcome::Skipped),
                            Some(w) => {
                                let o = write_series(
                                    sink.as_ref(),
                                    clock.as_ref(),
                                    event,
                                    w,
                                    &waits,
                                    &mut series,
                                )
                                .await;
                                count(o);
                            }
                        }
                    }
                    Some(event) => {
                        let key = key_of(&event);
                        let name = event.metadata.name.clone().unwrap_or_default();
                        let decision = correlator.correlate(&key, clock.now(), &name);
                        let o = write(
                            sink.as_ref(),
                            clock.as_ref(),
                            event,
                            decision,
                            None,
                            &waits,
                            &mut |gone| match gone {
                                Gone::Forgotten => correlator.forget_written(&key),
                                Gone::Recreated { old_name, created } => correlator.update_state(
                                    &key,
                                    old_name,
                                    created.metadata.name.as_deref().unwrap_or(old_name),
                                ),
                            },
                        )
                        .await;
                        count(o);
                    }
                    None => {
                        // The series schedule: finish quiet series, refresh the rest.
                        let now = clock.now();
                        let mut due = Vec::new();
                        if now >= next_finish {
                            due.extend(series.finish(now));
                            next_finish = now + series::FINISH_TIME;
                        }
                        if now >= next_refresh {
                            due.extend(series.refresh());
                            next_refresh = now + series::REFRESH_TIME;
                        }
                        for w in due {
                            let o = write_series(
                                sink.as_ref(),
                                clock.as_ref(),
                                Event::default(),
                                w,
                                &waits,
                                &mut series,
                            )
                            .await;
                            count(o);
                        }
                    }
                }
            }
        };
        async move {
            futures::future::join(distribute, write_all).await;
        }
        .boxed_local()
    }
}

enum Outcome {
    Written,
    Skipped,
    Failed,
}

/// What became of an event whose patch found it gone (the server's event TTL).
enum Gone<'a> {
    /// A scheduled series write had no event to create again: forget it.
    Forgotten,
    /// Created again under `old_name` with the count so far; the caches
    /// take the created object's name (client-go's `UpdateState`).
    Recreated {
        /// The name the patch was for.
        old_name: &'a str,
        /// What the server created.
        created: &'a Event,
    },
}

/// The waits before each retry of one write ([`SINK_TRIES`] − 1 of them).
/// - core/v1 events, as client-go's `tools/record` `recordToSink`: the
///   first retry after a random 0–10 s, so many tabs that lost the server
///   do not retry in step, then 10 s apart.
/// - events.k8s.io/v1 series, as `tools/events` `attemptRecording`: every
///   retry after 10 s jittered by up to a quarter (`wait.Jitter(10 s, 0.25)`).
fn retry_waits(series: bool, jitter: &mut Jitter) -> Vec<Duration> {
    (1..SINK_TRIES)
        .map(|attempt| {
            if series {
                SINK_RETRY_INTERVAL + SINK_RETRY_INTERVAL.mul_f64(0.25 * jitter.next_f64())
            } else if attempt == 1 {
                jitter.between(Duration::ZERO, SINK_RETRY_INTERVAL)
            } else {
                SINK_RETRY_INTERVAL
            }
        })
        .collect()
}

/// Writes one event as `decision` says, trying [`SINK_TRIES`] times, with
/// `waits` (from [`retry_waits`]) before the retries. A patch of an event that is gone (event TTL) creates it
/// again, with the same name and the count so far, as client-go's
/// `recordEvent` does, and tells `gone` so the caches follow the created
/// object; a scheduled series write with no event of its own is forgotten
/// instead. `observed` is when a patched repeat was last seen (now when None).
async fn write(
    sink: &dyn EventSink,
    clock: &dyn Clock,
    mut event: Event,
    decision: Decision,
    observed: Option<Timestamp>,
    waits: &[Duration],
    gone: &mut dyn FnMut(Gone<'_>),
) -> Outcome {
    let namespace = event.metadata.namespace.clone().unwrap_or_default();
    for attempt in 0..SINK_TRIES {
        if attempt > 0 {
            let wait = waits
                .get(attempt as usize - 1)
                .copied()
                .unwrap_or(SINK_RETRY_INTERVAL);
            clock.sleep(wait).await;
        }
        let result = match &decision {
            Decision::Skip => return Outcome::Skipped,
            Decision::Create { message } => {
                event.message = Some(message.clone());
                match sink.create(&event).await {
                    Err(Error::Api(a)) if a.is_already_exists() => return Outcome::Written,
                    other => other,
                }
            }
            Decision::Patch {
                name,
                count,
                message,
            } => {
                let patch = serde_json::json!({
                    "count": count,
                    "message": message,
                    "lastTimestamp": time(observed.unwrap_or_else(|| clock.now())),
                });
                match sink.patch(&namespace, name, patch).await {
                    Err(Error::Api(a)) if a.is_not_found() => {
                        // The event expired (event-ttl). A scheduled write
                        // has no event to create again: forget it.
                        if event.metadata.name.is_none() {
                            gone(Gone::Forgotten);
                            return Outcome::Failed;
                        }
                        event.metadata.name = Some(name.clone());
                        event.metadata.resource_version = None;
                        event.count = Some(*count);
                        event.message = Some(message.clone());
                        match sink.create(&event).await {
                            Ok(created) => {
                                gone(Gone::Recreated {
                                    old_name: name,
                                    created: &created,
                                });
                                Ok(created)
                            }
                            other => other,
                        }
                    }
                    other => other,
                }
            }
        };
        match result {
            Ok(_) => return Outcome::Written,
            Err(e) if retryable(&e) => continue,
            Err(_) => return Outcome::Failed,
        }
    }
    Outcome::Failed
}

/// The isomorphic key of an event (client-go `tools/events` `getKey`).
fn isomorphic_key(e: &Event) -> series::IsomorphicKey {
    let s = |v: &Option<String>| v.clone().unwrap_or_default();
    let object = |o: &ObjectReference| {
        [
            s(&o.kind),
            s(&o.namespace),
            s(&o.name),
            s(&o.uid),
            s(&o.api_version),
            s(&o.field_path),
        ]
    };
    series::IsomorphicKey {
        type_: s(&e.type_),
        action: e
            .action
            .clone()
            .or_else(|| e.reason.clone())
            .unwrap_or_default(),
        reason: s(&e.reason),
        reporting_controller: s(&e.reporting_component),
        reporting_instance: s(&e.reporting_instance),
        regarding: object(&e.involved_object),
        related: e.related.as_ref().map(object).unwrap_or_default(),
    }
}

/// Makes one write the series cache asked for.
async fn write_series(
    sink: &dyn EventSink,
    clock: &dyn Clock,
    mut event: Event,
    w: series::SeriesWrite,
    waits: &[Duration],
    cache: &mut series::SeriesCache,
) -> Outcome {
    match w {
        series::SeriesWrite::Create => {
            let message = event.message.clone().unwrap_or_default();
            write(
                sink,
                clock,
                event,
                Decision::Create { message },
                None,
                waits,
                &mut |_| {},
            )
            .await
        }
        series::SeriesWrite::Series {
            namespace,
            name,
            count,
            last_observed,
        } => {
            // A scheduled write has no event of its own: only the name and
            // namespace are needed to patch (and a gone one is not recreated).
            if event.metadata.name.is_none() {
                event.metadata.namespace = Some(namespace.clone());
            }
            let message = event.message.clone().unwrap_or_default();
            let mut forgotten = false;
            let o = write(
                sink,
                clock,
                event,
                Decision::Patch {
                    name: name.clone(),
                    count,
                    message,
                },
                Some(last_observed),
                waits,
                &mut |gone| forgotten = matches!(gone, Gone::Forgotten),
            )
            .await;
            if forgotten {
                cache.forget(&namespace, &name);
            }
            o
        }
    }
}
