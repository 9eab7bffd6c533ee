//! The broadcaster: the recorders' queue, the watchers, and the sink's own queue and writer loop (client-go `watch.Broadcaster` and `StartRecordingToSink`).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures::channel::mpsc;
use futures::future::LocalBoxFuture;
use futures::{FutureExt, StreamExt};
use k8s_openapi::api::core::v1::Event;

use super::correlator::Correlator;
use super::recorder::EventRecorder;
use super::sink::EventSink;
use super::writer::{Gone, Outcome, isomorphic_key, key_of, retry_waits, write, write_series};
use super::{QUEUE_LENGTH, series};
use crate::clock::{Clock, Jitter};

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
