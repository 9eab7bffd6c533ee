//! The polls: one loop per target, shared by ref-counted handles, stopped when the last handle drops.
//!
//! Like the informer factory, [`UsagePolls`] keeps one entry per
//! [`Target`] with a count of holders; [`UsagePolls::poll`] starts the
//! loop on the first hold (its first GET at once) and the last hold to go
//! aborts it. A later `poll` of the same target starts afresh: no state
//! outlives the last holder, so nothing stale is shown as current.
//!
//! Before its first GET a poll asks the group's discovery document which
//! versions the server lists, and reads the first that kubectl reads
//! ([`Version::first_served`]: `v1` where it is served, else `v1beta1`).
//! It asks again only after an answer that says the metrics are not
//! served (a metrics-server replaced by one serving other versions).

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::{Rc, Weak};
use std::time::Duration;

use futures::future::{AbortHandle, abortable};

use super::fetch::{Read, Sample, discover, fetch};
use super::history::{HISTORY_EVERY, History, MAX_SAVED_POINTS, Pause};
use super::ring::Ring;
use super::types::{ObjectUsage, POLL_EVERY, Point, PollState, Target, Version};
use kubeglass_client::cache::factory::Spawner;
use kubeglass_client::clock::Clock;
use kubeglass_client::rest::RestClient;

/// How often a target that is not served, or not allowed, is asked again:
/// neither mends in seconds, and a person installing metrics-server or
/// granting a role can wait a minute.
pub const NOT_SERVED_EVERY: Duration = Duration::from_secs(60);

/// How long a poll nobody holds goes on before it stops: as long as a
/// whole-object informer lingers, so a view left and come back to within a
/// minute finds its points.
pub const LINGER: Duration = Duration::from_secs(60);

/// Callbacks of [`PollRef::on_poll`], by registration id.
type Subscribers = RefCell<Vec<(u64, Rc<dyn Fn()>)>>;

/// Everything one poll knows; the loop is its only writer.
struct PollData {
    target: Target,
    state: RefCell<PollState>,
    latest: RefCell<Rc<Vec<ObjectUsage>>>,
    ring: RefCell<Ring>,
    /// GETs answered or failed.
    polls: Cell<u64>,
    /// Polls that ended in anything but a good sample.
    failures: Cell<u64>,
    last_took_ms: Cell<Option<f64>>,
    /// The last good answer's size and how long it took to decode.
    last_read: Cell<Option<Read>>,
    /// The version read, once discovery has named one.
    version: Cell<Option<Version>>,
    subscribers: Subscribers,
    next_subscriber: Cell<u64>,
    /// Points taken in from the history before the first GET.
    restored: Cell<usize>,
    /// When the points were last saved (clock seconds).
    saved_at: Cell<Option<f64>>,
}

impl PollData {
    fn new(target: Target) -> Self {
        Self {
            target,
            state: RefCell::new(PollState::Waiting),
            latest: RefCell::default(),
            ring: RefCell::default(),
            polls: Cell::new(0),
            failures: Cell::new(0),
            last_took_ms: Cell::new(None),
            last_read: Cell::new(None),
            version: Cell::new(None),
            subscribers: RefCell::default(),
            next_subscriber: Cell::new(0),
            restored: Cell::new(0),
            saved_at: Cell::new(None),
        }
    }

    /// Saves the points through `history` now.
    fn save(
        &self,
        history: &dyn History,
        now: f64,
    ) -> futures::future::LocalBoxFuture<'static, ()> {
        self.saved_at.set(Some(now));
        let text = self.ring.borrow().to_text(MAX_SAVED_POINTS);
        history.save(&self.target, text)
    }

    /// Takes in one poll's outcome, then tells the subscribers.
    fn record(&self, at: f64, took_ms: Option<f64>, outcome: Result<Sample, PollState>) {
        if took_ms.is_some() {
            self.polls.set(self.polls.get() + 1);
            self.last_took_ms.set(took_ms);
        }
        let state = match outcome {
            Ok((items, read)) => {
                self.last_read.set(Some(read));
                self.ring.borrow_mut().record(at, &items);
                let n = items.len();
                *self.latest.borrow_mut() = Rc::new(items);
                PollState::Fresh { at, items: n }
            }
            Err(state) => {
                self.failures.set(self.failures.get() + 1);
                state
            }
        };
        *self.state.borrow_mut() = state;
        // Copied out first: a subscriber may subscribe or unsubscribe.
        let subscribers: Vec<Rc<dyn Fn()>> = self
            .subscribers
            .borrow()
            .iter()
            .map(|(_, f)| f.clone())
            .collect();
        for f in subscribers {
            f();
        }
    }
}

/// The loop of one target: a GET at once (after the group's discovery
/// while no version is known), then one every [`POLL_EVERY`] from the
/// start of the last (or [`NOT_SERVED_EVERY`] while not served or
/// forbidden), until aborted.
async fn run(data: Rc<PollData>, inner: Weak<PollsInner>) {
    let Some((client, clock, history, pause)) = inner.upgrade().map(|i| {
        (
            i.client.clone(),
            i.clock.clone(),
            i.history.borrow().clone(),
            i.pause.clone(),
        )
    }) else {
        return;
    };
    if let Err(e) = data.target.try_path(Version::V1beta1) {
        let now = clock.now().as_secs_f64();
        data.record(now, None, Err(PollState::Failed(e.to_string())));
        return;
    }
    if let Some(h) = &history
        && let Some(text) = h.load(&data.target).await
    {
        let now = clock.now().as_secs_f64();
        // A text that does not read is a history lost, nothing more.
        let restored = data.ring.borrow_mut().restore(&text, now).unwrap_or(0);
        data.restored.set(restored);
    }
    loop {
        pause.open().await;
        let start = clock.now();
        let version = match data.version.get() {
            Some(v) => Ok(v),
            None => discover(&client).await,
        };
        let outcome = match version {
            Ok(v) => {
                data.version.set(Some(v));
                fetch(&client, clock.as_ref(), &data.target, &data.target.path(v)).await
            }
            Err(state) => Err(state),
        };
        let end = clock.now();
        let took = end.saturating_sub(start);
        let every = match outcome {
            Err(PollState::NotServed(_) | PollState::Forbidden(_)) => NOT_SERVED_EVERY,
            _ => POLL_EVERY,
        };
        if matches!(outcome, Err(PollState::NotServed(_))) {
            // Whatever serves the group next may serve other versions.
            data.version.set(None);
        }
        let good = outcome.is_ok();
        data.record(
            end.as_secs_f64(),
            Some(took.as_secs_f64() * 1000.0),
            outcome,
        );
        let now = end.as_secs_f64();
        if let Some(h) = &history
            && good
            && data
                .saved_at
                .get()
                .is_none_or(|t| now - t >= HISTORY_EVERY.as_secs_f64())
        {
            data.save(h.as_ref(), now).await;
        }
        clock.sleep(every.saturating_sub(took)).await;
    }
}

struct Entry {
    data: Rc<PollData>,
    /// Live [`PollRef`] families (a `PollRef` and its clones are one).
    holders: usize,
    abort: AbortHandle,
}

struct PollsInner {
    client: RestClient,
    clock: Rc<dyn Clock>,
    spawner: Spawner,
    entries: RefCell<BTreeMap<Target, Entry>>,
    history: RefCell<Option<Rc<dyn History>>>,
    pause: Rc<Pause>,
}

impl Drop for PollsInner {
    /// Nobody can read a poll any more: stop them all.
    fn drop(&mut self) {
        for e in self.entries.get_mut().values() {
            e.abort.abort();
        }
    }
}

/// Shares polls of the metrics API between views (see the module).
#[derive(Clone)]
pub struct UsagePolls {
    inner: Rc<PollsInner>,
}

/// One row of [`UsagePolls::snapshots`] (the X-ray page).
#[derive(Clone, Debug, PartialEq)]
pub struct PollSnapshot {
    /// What is polled.
    pub target: Target,
    /// Holds on it ([`UsagePolls::poll`] calls whose [`PollRef`] lives).
    pub holders: usize,
    /// GETs that finished, well or not.
    pub polls: u64,
    /// Polls that gave no sample.
    pub failures: u64,
    /// Where it stands.
    pub state: PollState,
    /// Objects in the last good sample.
    pub objects: usize,
    /// Ring points kept in all.
    pub points: usize,
    /// How long the last GET took, in milliseconds.
    pub last_took_ms: Option<f64>,
    /// The last good answer's size and decode time.
    pub last_read: Option<Read>,
    /// The version read (None until discovery has named one).
    pub version: Option<Version>,
    /// Points taken in from a past visit's history before the first GET.
    pub restored: usize,
}

impl UsagePolls {
    /// Polls that GET through `client`, wait on `clock` and run on `spawner`.
    pub fn new(client: RestClient, clock: Rc<dyn Clock>, spawner: Spawner) -> Self {
        Self {
            inner: Rc::new(PollsInner {
                client,
                clock,
                spawner,
                entries: RefCell::default(),
                history: RefCell::default(),
                pause: Rc::default(),
            }),
        }
    }

    /// Keeps every poll's points in `history` between visits (see the
    /// `history` module); polls started from now on read it first.
    pub fn keep_history(&self, history: Rc<dyn History>) {
        *self.inner.history.borrow_mut() = Some(history);
    }

    /// Saves every running poll's points now (the tab is being hidden).
    pub fn save_history(&self) {
        let Some(h) = self.inner.history.borrow().clone() else {
            return;
        };
        let now = self.inner.clock.now().as_secs_f64();
        for e in self.inner.entries.borrow().values() {
            if e.data.polls.get() > 0 || e.data.restored.get() > 0 {
                (self.inner.spawner)(e.data.save(h.as_ref(), now));
            }
        }
    }

    /// Pauses every poll (no GET is sent), or ends the pause: a poll that
    /// came due meanwhile sends its GET at once.
    pub fn set_paused(&self, paused: bool) {
        self.inner.pause.set(paused);
    }

    /// True while paused.
    pub fn paused(&self) -> bool {
        self.inner.pause.is_paused()
    }

    /// A handle on the poll of `target`, shared by every holder; the first
    /// starts it (first GET at once); [`LINGER`] after the last drops, it
    /// stops (abort), unless held again meanwhile.
    pub fn poll(&self, target: Target) -> PollRef {
        let inner = &self.inner;
        let mut entries = inner.entries.borrow_mut();
        if let Some(e) = entries.get_mut(&target) {
            e.holders += 1;
            return PollRef::hold(e.data.clone(), Rc::downgrade(inner));
        }
        let data = Rc::new(PollData::new(target.clone()));
        let (task, abort) = abortable(run(data.clone(), Rc::downgrade(inner)));
        entries.insert(
            target,
            Entry {
                data: data.clone(),
                holders: 1,
                abort,
            },
        );
        drop(entries);
        (inner.spawner)(Box::pin(async move {
            let _ = task.await;
        }));
        PollRef::hold(data, Rc::downgrade(inner))
    }

    /// For the X-ray page: one per running poll, in target order.
    pub fn snapshots(&self) -> Vec<PollSnapshot> {
        self.inner
            .entries
            .borrow()
            .values()
            .map(|e| {
                let d = &e.data;
                PollSnapshot {
                    target: d.target.clone(),
                    holders: e.holders,
                    polls: d.polls.get(),
                    failures: d.failures.get(),
                    state: d.state.borrow().clone(),
                    objects: d.latest.borrow().len(),
                    points: d.ring.borrow().total(),
                    last_took_ms: d.last_took_ms.get(),
                    last_read: d.last_read.get(),
                    version: d.version.get(),
                    restored: d.restored.get(),
                }
            })
            .collect()
    }
}

/// One hold on a poll; released when dropped.
struct Hold {
    data: Rc<PollData>,
    polls: Weak<PollsInner>,
}

impl Drop for Hold {
    fn drop(&mut self) {
        let Some(inner) = self.polls.upgrade() else {
            return;
        };
        let mut entries = inner.entries.borrow_mut();
        let target = &self.data.target;
        let last = match entries.get_mut(target) {
            // The entry of this very poll, not a later one of the same target.
            Some(e) if Rc::ptr_eq(&e.data, &self.data) => {
                e.holders = e.holders.saturating_sub(1);
                e.holders == 0
            }
            _ => false,
        };
        drop(entries);
        if !last {
            return;
        }
        // Nobody holds it: it polls on for LINGER (a view left and come
        // back to finds its points), then stops unless held again.
        let (clock, data, polls) = (inner.clock.clone(), self.data.clone(), self.polls.clone());
        (inner.spawner)(Box::pin(async move {
            clock.sleep(LINGER).await;
            if let Some(inner) = polls.upgrade() {
                inner.stop_if_unheld(&data);
            }
        }));
    }
}

impl PollsInner {
    /// Stops the poll of `data` if it is still this target's and nobody
    /// holds it.
    fn stop_if_unheld(&self, data: &Rc<PollData>) {
        let mut entries = self.entries.borrow_mut();
        let unheld = entries
            .get(&data.target)
            .is_some_and(|e| Rc::ptr_eq(&e.data, data) && e.holders == 0);
        if unheld && let Some(e) = entries.remove(&data.target) {
            e.abort.abort();
        }
    }
}

/// A view's handle on a shared poll. Clones share one hold; the poll stops
/// when the last clone of the last handle drops.
#[derive(Clone)]
pub struct PollRef {
    hold: Rc<Hold>,
}

impl PollRef {
    fn hold(data: Rc<PollData>, polls: Weak<PollsInner>) -> Self {
        Self {
            hold: Rc::new(Hold { data, polls }),
        }
    }

    fn data(&self) -> &PollData {
        &self.hold.data
    }

    /// What is polled.
    pub fn target(&self) -> Target {
        self.data().target.clone()
    }

    /// The version of metrics.k8s.io read (None until discovery has named
    /// one, and after an answer that it is not served).
    pub fn version(&self) -> Option<Version> {
        self.data().version.get()
    }

    /// Where the poll stands.
    pub fn state(&self) -> PollState {
        self.data().state.borrow().clone()
    }

    /// The last good sample, kept through later failures (empty before the
    /// first). Objects are in the server's order.
    pub fn latest(&self) -> Rc<Vec<ObjectUsage>> {
        self.data().latest.borrow().clone()
    }

    /// Points for one object key ([`ObjectUsage::key`]), oldest first (at
    /// most [`super::RING_POINTS`]; see [`super::MAX_TOTAL_POINTS`] for
    /// what goes first when a poll holds too many).
    pub fn points(&self, key: &str) -> Vec<Point> {
        self.data().ring.borrow().points(key)
    }

    /// Calls `f` after every poll (good or not); dropping the returned
    /// guard unregisters it.
    pub fn on_poll(&self, f: impl Fn() + 'static) -> PollSubscription {
        let data = self.data();
        let id = data.next_subscriber.get();
        data.next_subscriber.set(id + 1);
        data.subscribers.borrow_mut().push((id, Rc::new(f)));
        PollSubscription {
            data: Rc::downgrade(&self.hold.data),
            id,
        }
    }
}

/// A registration of [`PollRef::on_poll`]; dropping it unregisters.
///
/// It does not hold the poll: a view keeps its [`PollRef`] too.
#[must_use = "dropping the subscription unregisters it at once"]
pub struct PollSubscription {
    data: Weak<PollData>,
    id: u64,
}

impl Drop for PollSubscription {
    fn drop(&mut self) {
        if let Some(d) = self.data.upgrade() {
            d.subscribers.borrow_mut().retain(|(id, _)| *id != self.id);
        }
    }
}
