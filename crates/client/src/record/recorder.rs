//! The recorder: what callers hold to record an Event about an object (client-go `EventRecorder`).

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

use futures::channel::mpsc;
use k8s_openapi::api::core::v1::{Event, EventSource, ObjectReference};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::{EventType, time};
use crate::clock::Clock;

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
    /// A recorder sending on `tx` (made by [`super::EventBroadcaster::recorder`]).
    pub(super) fn new(tx: mpsc::Sender<Event>, component: &str, clock: Rc<dyn Clock>) -> Self {
        Self {
            tx: Rc::new(RefCell::new(tx)),
            component: component.to_string(),
            clock,
            dropped: Rc::default(),
        }
    }

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
