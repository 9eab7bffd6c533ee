//! The reflector's read step: one event from the open watch into the store.

use futures::{FutureExt, StreamExt};
use kube_core::Resource;
use kube_core::watch::WatchEvent;
use serde::de::DeserializeOwned;

use super::watch::{WatchEnd, ended};
use super::{INITIAL_EVENTS_END, OpenWatch, Phase, Reflector, ReflectorState, ReflectorStatus};
use crate::cache::store::object_key;
use crate::clock::Timestamp;
use crate::rest::Error;

impl<K> Reflector<K>
where
    K: Resource + DeserializeOwned + Clone + 'static,
{
    /// Reads one event from `watch` and applies it; the watch goes on,
    /// or its end decides what comes next.
    pub(super) async fn read_event(&mut self, mut watch: OpenWatch<K>) -> Phase<K> {
        let Err(end) = self.next_event(&mut watch).await else {
            return Phase::Watching(watch);
        };
        if watch.streaming {
            let synced = watch.synced();
            self.after_watch_list(end, watch.started, &watch.from, synced)
        } else {
            self.after_watch(end, watch.started)
        }
    }

    /// Waits for the next event (bounded by the watch's deadline and, for a
    /// streaming list before its end bookmark, by a quiet spell) and
    /// applies it; `Err` when the watch is over.
    async fn next_event(&mut self, w: &mut OpenWatch<K>) -> Result<(), WatchEnd> {
        let idle = self.config.watch_list_idle;
        let next = loop {
            futures::select! {
                next = w.stream.next().fuse() => break next,
                () = &mut w.deadline => return Err(ended(w.initial.is_some(), w.delivered)),
                () = &mut w.idle_check => {
                    if w.initial.is_none() {
                        // A resumed watch quiet since it opened: nothing
                        // changed since its version, so the cache is current.
                        if self.status.borrow().resuming {
                            self.update(|s| s.resuming = false);
                        }
                        w.idle_check = futures::future::pending().boxed_local().fuse();
                        continue;
                    }
                    let quiet = self.clock.now().saturating_sub(w.last_activity);
                    if quiet >= idle {
                        return Err(WatchEnd::FallBack(Error::Decode(format!(
                            "the streaming list sent no end-of-initial-events bookmark within {} s",
                            idle.as_secs()
                        ))));
                    }
                    w.idle_check = self.clock.sleep(idle - quiet).fuse();
                }
            }
        };
        let event = match next {
            None => return Err(ended(w.initial.is_some(), w.delivered)),
            // A streaming list that sends what does not decode falls
            // back to a plain list, as client-go's does on any error it
            // does not retry; the list then names the bad object.
            Some(Err(e @ Error::WatchDecode(_))) if w.initial.is_some() => {
                return Err(WatchEnd::FallBack(e));
            }
            Some(Err(e @ Error::WatchDecode(_))) => return Err(WatchEnd::Undecodable(e)),
            Some(Err(e)) => return Err(WatchEnd::Failed(e)),
            Some(Ok(event)) => event,
        };
        w.delivered = true;
        let now = self.clock.now();
        w.last_activity = now;
        match self.fold_initial(w, event, now) {
            None => Ok(()),
            Some(event) => self.apply_event(event, w.initial.is_some(), now),
        }
    }

    /// Folds an event of a streaming list's initial state into the state
    /// collected so far (the end bookmark swaps it into the store); returns
    /// the event when it is not part of an initial state.
    fn fold_initial(
        &mut self,
        w: &mut OpenWatch<K>,
        event: WatchEvent<K>,
        now: Timestamp,
    ) -> Option<WatchEvent<K>> {
        let Some(state) = w.initial.as_mut() else {
            return Some(event);
        };
        match event {
            WatchEvent::Added(obj) | WatchEvent::Modified(obj) => {
                let obj = match &w.transform {
                    Some(t) => t(obj),
                    None => obj,
                };
                state.insert(object_key(&obj), obj);
            }
            WatchEvent::Deleted(obj) => {
                state.remove(&object_key(&obj));
            }
            WatchEvent::Bookmark(b) => {
                let end = b
                    .metadata
                    .annotations
                    .get(INITIAL_EVENTS_END)
                    .is_some_and(|v| v == "true");
                if !end || b.metadata.resource_version.is_empty() {
                    return None;
                }
                let items: Vec<K> = w
                    .initial
                    .take()
                    .map(|m| m.into_values().collect())
                    .unwrap_or_default();
                self.initial_state_complete(items, b.metadata.resource_version, now);
            }
            error @ WatchEvent::Error(_) => return Some(error),
        }
        None
    }

    /// A streaming list's initial state is in: it replaces the store.
    fn initial_state_complete(&mut self, items: Vec<K>, rv: String, now: Timestamp) {
        // Nothing undecodable: such an event falls back to a list.
        self.store.borrow_mut().replace_transformed(items, &rv, &[]);
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
    }

    /// Applies one event of a plain watch (or of a streaming list after its
    /// initial state; `initial` while that is still being collected, when
    /// only an ERROR comes here).
    fn apply_event(
        &mut self,
        event: WatchEvent<K>,
        initial: bool,
        now: Timestamp,
    ) -> Result<(), WatchEnd> {
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
                if initial {
                    return Err(self.watch_list_failed(e.into()));
                }
                if e.is_gone() {
                    self.record_error(&e.into());
                    return Err(WatchEnd::Gone);
                }
                return Err(WatchEnd::Failed(e.into()));
            }
        }
        Ok(())
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

    fn after_event(
        &self,
        rv: Option<String>,
        now: Timestamp,
        count: impl FnOnce(&mut ReflectorStatus),
    ) {
        self.update(|s| {
            count(s);
            s.resuming = false;
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
