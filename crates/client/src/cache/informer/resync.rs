//! Per-handler resync: re-sends every object to the handlers that asked, on their own timers.

use std::collections::HashSet;
use std::rc::Rc;

use futures::FutureExt;
use kube_core::Resource;
use serde::de::DeserializeOwned;

use super::{Inner, SharedInformer};

impl<K> SharedInformer<K>
where
    K: Resource + DeserializeOwned + Clone + 'static,
{
    /// Sleeps until the earliest handler's resync is due. Each handler's
    /// due time is fixed when it is added or resynced, so a handler coming
    /// or going only changes which deadline is next: it never restarts the
    /// wait of the others (client-go's resync check runs on its own timer).
    pub(super) async fn resync_loop(inner: Rc<Inner<K>>) {
        loop {
            let next = inner
                .handlers
                .borrow()
                .iter()
                .filter(|h| h.resync.is_some())
                .map(|h| h.next_resync)
                .min();
            let changed = inner.handlers_changed.clone();
            match next {
                None => changed.wait().await,
                Some(at) if at <= inner.clock.now() => Self::resync_due(&inner),
                Some(at) => {
                    let sleep = inner.clock.sleep(at - inner.clock.now()).fuse();
                    let wait = changed.wait().fuse();
                    futures::pin_mut!(sleep, wait);
                    futures::select! {
                        () = sleep => Self::resync_due(&inner),
                        () = wait => {}
                    }
                }
            }
        }
    }

    fn resync_due(inner: &Rc<Inner<K>>) {
        let now = inner.clock.now();
        let mut due = HashSet::new();
        for h in inner.handlers.borrow_mut().iter_mut() {
            if let Some(p) = h.resync
                && h.next_resync <= now
            {
                due.insert(h.id);
                h.next_resync = now + p;
            }
        }
        if due.is_empty() {
            return;
        }
        *inner.resyncing.borrow_mut() = due;
        inner.queue.borrow_mut().resync();
    }
}
