//! The broadcaster: the recorders' queue, the watchers, and the sink's own queue and writer loop (client-go `watch.Broadcaster` and `StartRecordingToSink`).

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use futures::channel::mpsc;
use futures::future::LocalBoxFuture;
use futures::{FutureExt, StreamExt};
use k8s_openapi::api::core::v1::Event;

use super::correlator::Correlator;
use super::recorder::EventRecorder;
use super::sink::EventSink;
use super::writer::{Gone, Outcome, isomorphic_key, key_of, retry_waits, write, write_series};
use super::{QUEUE_LENGTH, series};
use crate::clock::{Clock, Jitter, Timestamp};

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
        EventRecorder::new(self.tx.clone(), component, clock)
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
        let dropped = self.sink_dropped.clone();
        let counts = Counts {
            written: self.written.clone(),
            skipped: self.skipped.clone(),
            failed: self.failed.clone(),
        };
        // The sink's own queue: one sender, so it holds `sink_queue` events.
        let (mut to_sink, for_sink) = mpsc::channel::<Event>(self.sink_queue.saturating_sub(1));
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
        // Made when first polled, as the loop was: its clock readings and
        // jitter draws happen when it starts, not when it is built.
        let write_all = async move { SinkWriter::new(sink, clock, counts).run(for_sink).await };
        async move {
            futures::future::join(distribute, write_all).await;
        }
        .boxed_local()
    }
}

/// The broadcaster's counters, which the sink's writer adds to.
struct Counts {
    written: Rc<Cell<u64>>,
    skipped: Rc<Cell<u64>>,
    failed: Rc<Cell<u64>>,
}

impl Counts {
    fn count(&self, o: Outcome) {
        let c = match o {
            Outcome::Written => &self.written,
            Outcome::Skipped => &self.skipped,
            Outcome::Failed => &self.failed,
        };
        c.set(c.get() + 1);
    }
}

/// The sink's writer loop (client-go's `StartRecordingToSink`): each event
/// through the correlator, or, for a sink that keeps series, through the
/// series cache with its finish and refresh schedule.
struct SinkWriter {
    sink: Rc<dyn EventSink>,
    clock: Rc<dyn Clock>,
    counts: Counts,
    correlator: Correlator,
    series: series::SeriesCache,
    jitter: Jitter,
    /// The sink keeps series (`EventSink::series`).
    series_mode: bool,
    /// When quiet series are next finished.
    next_finish: Timestamp,
    /// When the other series are next refreshed.
    next_refresh: Timestamp,
}

impl SinkWriter {
    fn new(sink: Rc<dyn EventSink>, clock: Rc<dyn Clock>, counts: Counts) -> Self {
        let jitter = Jitter::from_entropy(clock.as_ref());
        let series_mode = sink.series();
        let next_finish = clock.now() + series::FINISH_TIME;
        let next_refresh = clock.now() + series::REFRESH_TIME;
        Self {
            sink,
            clock,
            counts,
            correlator: Correlator::default(),
            series: series::SeriesCache::new(),
            jitter,
            series_mode,
            next_finish,
            next_refresh,
        }
    }

    /// Writes what reaches the sink's queue until every sender is gone.
    async fn run(mut self, mut for_sink: mpsc::Receiver<Event>) {
        loop {
            let next = if self.series_mode {
                let wait = self
                    .next_finish
                    .min(self.next_refresh)
                    .saturating_sub(self.clock.now());
                futures::select! {
                    e = for_sink.next().fuse() => match e {
                        Some(e) => Some(e),
                        None => break,
                    },
                    () = self.clock.sleep(wait).fuse() => None,
                }
            } else {
                match for_sink.next().await {
                    Some(e) => Some(e),
                    None => break,
                }
            };
            let waits = retry_waits(self.series_mode, &mut self.jitter);
            match next {
                Some(event) if self.series_mode => self.write_in_series(event, &waits).await,
                Some(event) => self.write_correlated(event, &waits).await,
                None => self.series_schedule(&waits).await,
            }
        }
    }

    /// One event for a sink that keeps series: skipped, or written as its
    /// series' next state.
    async fn write_in_series(&mut self, event: Event, waits: &[Duration]) {
        let (ns, name) = (
            event.metadata.namespace.clone().unwrap_or_default(),
            event.metadata.name.clone().unwrap_or_default(),
        );
        let now = self.clock.now();
        match self.series.observe(isomorphic_key(&event), now, &ns, &name) {
            None => self.counts.count(Outcome::Skipped),
            Some(w) => {
                let o = write_series(
                    self.sink.as_ref(),
                    self.clock.as_ref(),
                    event,
                    w,
                    waits,
                    &mut self.series,
                )
                .await;
                self.counts.count(o);
            }
        }
    }

    /// One event through the correlator (aggregated, counted or dropped as
    /// spam), then written as it decides.
    async fn write_correlated(&mut self, event: Event, waits: &[Duration]) {
        let Self {
            sink,
            clock,
            correlator,
            ..
        } = self;
        let key = key_of(&event);
        let name = event.metadata.name.clone().unwrap_or_default();
        let decision = correlator.correlate(&key, clock.now(), &name);
        let o = write(
            sink.as_ref(),
            clock.as_ref(),
            event,
            decision,
            None,
            waits,
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
        self.counts.count(o);
    }

    /// The series schedule: finish quiet series, refresh the rest.
    async fn series_schedule(&mut self, waits: &[Duration]) {
        let now = self.clock.now();
        let mut due = Vec::new();
        if now >= self.next_finish {
            due.extend(self.series.finish(now));
            self.next_finish = now + series::FINISH_TIME;
        }
        if now >= self.next_refresh {
            due.extend(self.series.refresh());
            self.next_refresh = now + series::REFRESH_TIME;
        }
        for w in due {
            let o = write_series(
                self.sink.as_ref(),
                self.clock.as_ref(),
                Event::default(),
                w,
                waits,
                &mut self.series,
            )
            .await;
            self.counts.count(o);
        }
    }
}
