//! The reflector's watch steps: opening a watch or a streaming list, and
//! what comes after a watch ends.

use std::collections::HashMap;

use futures::FutureExt;
use kube_core::Resource;
use kube_core::params::WatchParams;
use serde::de::DeserializeOwned;

use super::{ListFrom, OpenWatch, Phase, Reflector, ReflectorState};
use crate::cache::pager::as_table;
use crate::rest::Error;

/// How a watch ended.
pub(super) enum WatchEnd {
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

/// How a stream that simply ended counts: before a streaming list's initial
/// state was complete, it must be asked for again.
pub(super) fn ended(unsynced: bool, delivered: bool) -> WatchEnd {
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
    /// Opens a plain watch from the last resourceVersion.
    pub(super) async fn open_watch(&mut self) -> Phase<K> {
        let Some(rv) = self.last_rv() else {
            return Phase::List(ListFrom::Any);
        };
        self.update(|s| {
            s.state = ReflectorState::Watching;
            s.watches += 1;
        });
        let started = self.clock.now();
        match self.open(&rv, false).await {
            Ok(watch) => Phase::Watching(watch),
            Err(end) => self.after_watch(end, started),
        }
    }

    /// Opens a streaming list from the last resourceVersion ("" = latest).
    pub(super) async fn open_watch_list(&mut self) -> Phase<K> {
        self.update(|s| {
            s.state = ReflectorState::Listing;
            s.watches += 1;
        });
        let rv = self.last_rv().unwrap_or_default();
        let started = self.clock.now();
        match self.open(&rv, true).await {
            Ok(watch) => Phase::Watching(watch),
            Err(end) => self.after_watch_list(end, started, &rv, false),
        }
    }

    /// Sends the watch request (the one I/O) and holds what its reads need.
    async fn open(&mut self, rv: &str, initial: bool) -> Result<OpenWatch<K>, WatchEnd> {
        let started = self.clock.now();
        let min = self.config.min_watch_timeout;
        let timeout = self.jitter.between(min, min * 2);
        let params = WatchParams {
            label_selector: self.config.label_selector.clone(),
            field_selector: self.config.field_selector.clone(),
            timeout: Some(timeout.as_secs() as u32),
            bookmarks: true,
            send_initial_events: initial,
        };
        let collection = kube_core::Request::new(self.config.url_path.clone());
        let request = if self.config.metadata_only {
            collection.watch_metadata(&params, rv)
        } else if self.config.table {
            collection.watch(&params, rv).map(as_table)
        } else {
            collection.watch(&params, rv)
        };
        let request = request.map_err(|e| WatchEnd::Failed(e.into()))?;
        let answered = self.client.watch::<K>(request).await;
        if self.status.borrow().unreachable && !answered.as_ref().is_err_and(Error::is_connect) {
            // The server answers again after it could not be reached: the
            // backoff grown by the outage starts over, so the relist a 410
            // now calls for waits 800 ms, not the outage's 30-60 s. (A
            // deliberate deviation: client-go's backoff resets only after
            // 2 minutes without failures.)
            self.backoff.reset();
        }
        let stream = match answered {
            Ok(s) => s,
            Err(e) if initial => return Err(self.watch_list_failed(e)),
            Err(e) if e.api().is_some_and(|a| a.is_gone()) => {
                self.record_error(&e);
                return Err(WatchEnd::Gone);
            }
            Err(e) => return Err(WatchEnd::Failed(e)),
        };
        // The server answered: whatever failed before is over.
        self.update(|s| s.unreachable = false);
        let now = self.clock.now();
        Ok(OpenWatch {
            stream,
            deadline: self.clock.sleep(timeout + self.config.watch_grace).fuse(),
            // A streaming list checks for a quiet spell before its end
            // bookmark; a resumed watch for a quiet moment that says it
            // has caught up.
            idle_check: if !initial && self.status.borrow().resuming {
                self.clock.sleep(self.config.resume_quiet).fuse()
            } else {
                self.clock.sleep(self.config.watch_list_idle).fuse()
            },
            last_activity: now,
            delivered: false,
            started,
            streaming: initial,
            from: rv.to_owned(),
            initial: initial.then(HashMap::new),
            transform: initial.then(|| self.store.borrow().transform()).flatten(),
        })
    }

    /// How a streaming list that failed before its initial state ends.
    pub(super) fn watch_list_failed(&self, e: Error) -> WatchEnd {
        match WatchListFailure::of(&e) {
            WatchListFailure::VersionUnavailable => {
                self.record_error(&e);
                WatchEnd::Gone
            }
            WatchListFailure::Retry => WatchEnd::Failed(e),
            WatchListFailure::FallBack => WatchEnd::FallBack(e),
        }
    }

    /// What follows the end of a plain watch opened at `started`.
    pub(super) fn after_watch(
        &mut self,
        end: WatchEnd,
        started: crate::clock::Timestamp,
    ) -> Phase<K> {
        match end {
            // client-go waits its backoff before every ListAndWatch,
            // the relist after a 410 included: a server whose watch
            // cache keeps saying 410 is never listed in a hot loop.
            WatchEnd::Gone => Phase::Backoff {
                delay: self.backoff.next_delay(self.clock.now()),
                then: Box::new(self.relist_phase()),
            },
            // Only a streaming list ends these ways.
            WatchEnd::Unsynced { .. } | WatchEnd::FallBack(_) => Phase::Watch,
            WatchEnd::Closed { delivered } => {
                let lasted = self.clock.now().saturating_sub(started);
                if !delivered && lasted < self.config.min_watch_duration {
                    let e = Error::Decode(format!(
                        "watch closed after {} ms without any event",
                        lasted.as_millis()
                    ));
                    self.fail_then(&e, Phase::Watch)
                } else {
                    Phase::Watch
                }
            }
            WatchEnd::Failed(e) => self.fail_then(&e, Phase::Watch),
            WatchEnd::Undecodable(e) => {
                let relist = self.relist_phase();
                self.fail_then(&e, relist)
            }
        }
    }

    /// What follows the end of a streaming list opened at `started` from
    /// `rv`, `synced` if it had delivered its initial state.
    pub(super) fn after_watch_list(
        &mut self,
        end: WatchEnd,
        started: crate::clock::Timestamp,
        rv: &str,
        synced: bool,
    ) -> Phase<K> {
        let lasted = self.clock.now().saturating_sub(started);
        let at_once = lasted < self.config.min_watch_duration;
        match end {
            // Synced, then the stream went on as a plain watch and ended.
            WatchEnd::Closed { delivered } if !delivered && at_once => {
                let e = Error::Decode("watch closed at once without any event".into());
                self.fail_then(&e, Phase::Watch)
            }
            WatchEnd::Closed { .. } => Phase::Watch,
            // Synced, then the stream (now a plain watch) sent an event that
            // does not decode: list again, as after a plain watch.
            WatchEnd::Undecodable(e) => {
                let relist = self.relist_phase();
                self.fail_then(&e, relist)
            }
            WatchEnd::Failed(e) if synced => self.fail_then(&e, Phase::Watch),
            WatchEnd::Failed(e) => self.fail_then(&e, Phase::WatchList),
            // Before sync, the version asked from is too old (or newer
            // than the server has seen): ask for the latest state at
            // once, as client-go's watchList does. (Asked with no
            // version and still told so, the server is broken: back off.)
            WatchEnd::Gone if !synced && !rv.is_empty() => {
                self.update(|s| s.last_resource_version = None);
                Phase::WatchList
            }
            // After sync the resumed watch expired: a new ListAndWatch,
            // after the backoff, streams the state from the last version.
            WatchEnd::Gone => Phase::Backoff {
                delay: self.backoff.next_delay(self.clock.now()),
                then: Box::new(Phase::WatchList),
            },
            WatchEnd::Unsynced { delivered } if !delivered && at_once => {
                let e = Error::Decode("streaming list closed at once without any event".into());
                self.fail_then(&e, Phase::WatchList)
            }
            WatchEnd::Unsynced { .. } => Phase::WatchList,
            WatchEnd::FallBack(e) => {
                self.record_error(&e);
                let why = e.to_string();
                self.update(|s| {
                    s.watch_list_fallbacks += 1;
                    s.last_fallback = Some(why);
                });
                match self.last_rv() {
                    Some(rv) => Phase::List(ListFrom::NotOlderThan(rv)),
                    None => Phase::List(ListFrom::Any),
                }
            }
        }
    }
}
