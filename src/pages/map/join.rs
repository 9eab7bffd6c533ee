//! When the map is joined again: not on every frame that brings a change
//! (under a stream of changes that is every frame, and a join of thousands
//! of pods would take each one), but at most once per three times the
//! last join took (a second at most), so a burst costs one join and the
//! frames between are the scrolling's. The time it took is shown.

use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use kubeglass_kubectl::map::graph::{Graph, build, near};
use kubeglass_kubectl::map::{EventMark, Item};
use leptos::prelude::*;

use crate::kube::Kube;

use super::feed::Feed;

/// How long a join may wait, at most, after a change.
const MOST_WAIT_MS: f64 = 1000.0;

/// Every item the feed holds, shared, and the Events' marks; None once
/// the map has gone.
fn gather(feed: &Feed) -> Option<(Vec<Arc<Item>>, Vec<EventMark>)> {
    let mut items = Vec::new();
    for rows in &feed.rows {
        rows.try_with_untracked(|m| items.extend(m.values().cloned()))?;
    }
    let events = feed.events.try_with_untracked(|m| m.values().flatten().cloned().collect())?;
    Some((items, events))
}

/// The joined map and how long its last join took (ms), kept up with the
/// feed: the whole namespace's, or `wanted`'s neighbourhood to `depth`.
pub struct Joined {
    /// The map (None while `wanted` is not on it).
    pub graph: RwSignal<Option<Arc<Graph>>>,
    /// The last join's time, in ms.
    pub took: RwSignal<Option<f64>>,
}

/// Joins `feed` into the map now and after each change, paced.
pub fn follow(kube: &Kube, feed: Feed, wanted: Option<String>, depth: u8) -> Joined {
    let joined = Joined { graph: RwSignal::new(None), took: RwSignal::new(None) };
    let (graph, took) = (joined.graph, joined.took);
    let (rows, events) = (feed.rows.clone(), feed.events);
    let clock = kube.clock();
    let join = Rc::new(move || {
        let start = clock.now().as_secs_f64();
        let Some((items, marks)) = gather(&feed) else { return };
        let g = build(items.iter().map(Arc::as_ref), marks.iter(), wanted.as_deref());
        let shown = match &wanted {
            Some(id) => near(&g, id, usize::from(depth)),
            None => Some(g),
        };
        // The join's own time: the drawing it sets off is the frames'.
        let ms = (clock.now().as_secs_f64() - start) * 1000.0;
        let _ = graph.try_set(shown.map(Arc::new));
        let _ = took.try_set(Some(ms));
    });
    let pending = Rc::new(Cell::new(false));
    let (kube, clock) = (kube.clone(), kube.clock());
    Effect::new(move |_| {
        for r in &rows {
            r.track();
        }
        events.track();
        if pending.replace(true) {
            return;
        }
        let wait = took.get_untracked().map_or(0.0, |t| (t * 3.0).min(MOST_WAIT_MS));
        let (join, pending, clock) = (join.clone(), pending.clone(), clock.clone());
        kube.spawn(async move {
            if wait >= 1.0 {
                clock.sleep(Duration::from_millis(wait as u64)).await;
            }
            pending.set(false);
            join();
        });
    });
    joined
}
