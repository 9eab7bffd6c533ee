//! When the page in front has what it asked for: every running informer has its first list in, or is waiting out a failure.
//!
//! Work that can wait (the other pages' parts of the wasm) starts then, so
//! it does not share the connections and the main thread with the lists a
//! page is still paging through.

use std::rc::Rc;

use kubeglass_client::cache::reflector::ReflectorState;
use kubeglass_web::RequestFrame;

use crate::kube::Kube;

impl Kube {
    /// True when every running informer has synced, or is backing off
    /// after a failure (a list that is refused does not hold work back
    /// for ever). With no informer running, true.
    pub fn informers_settled(&self) -> bool {
        self.factory.snapshots().iter().all(|e| {
            !e.running
                || e.snapshot.synced
                || matches!(
                    e.snapshot.reflector.state,
                    ReflectorState::BackingOff { .. }
                )
        })
    }

    /// Calls `f` once [`Kube::informers_settled`] has held at two animation
    /// frames in a row: a page may start its informers in the task after a
    /// frame (the overview does, after its first paint), so one settled
    /// frame can come before they exist. A hidden tab draws no frames, so
    /// there `f` waits until the tab is shown.
    pub fn when_settled(&self, f: impl FnOnce() + 'static) {
        poll(self.clone(), self.host.frames.clone(), 0, Box::new(f));
    }
}

/// Checks at the next frame; `calm` is how many frames in a row were settled.
fn poll(kube: Kube, frames: RequestFrame, calm: u8, f: Box<dyn FnOnce()>) {
    let next = Rc::clone(&frames);
    frames(Box::new(move || {
        let calm = if kube.informers_settled() {
            calm + 1
        } else {
            0
        };
        if calm >= 2 {
            f();
        } else {
            poll(kube, next, calm, f);
        }
    }));
}
