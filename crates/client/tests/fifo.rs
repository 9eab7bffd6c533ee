//! DeltaFIFO and the in-order FIFO, with client-go's DeltaFIFO test cases
//! ported by name (the name of each client-go test is in the comment).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use futures::FutureExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kubeglass_client::cache::fifo::{KnownObjects, Wakeup};
use kubeglass_client::cache::{
    DeltaFifo, DeltaObject, DeltaType, InformerQueue, Popped, RealFifo, ReflectorStore,
};
use kubeglass_client::rest::list::Undecodable;

fn cm(name: &str, rv: &str) -> ConfigMap {
    let mut c = ConfigMap::default();
    c.metadata.namespace = Some("ns".into());
    c.metadata.name = Some(name.into());
    c.metadata.resource_version = Some(rv.into());
    c
}

fn key(name: &str) -> String {
    format!("ns/{name}")
}

/// What the consumer holds, for `knownObjects`.
#[derive(Default)]
struct Known(RefCell<BTreeMap<String, Rc<ConfigMap>>>);

impl Known {
    fn with(objs: &[ConfigMap]) -> Rc<Self> {
        let k = Self::default();
        for o in objs {
            k.0.borrow_mut().insert(
                key(o.metadata.name.as_deref().expect("present")),
                Rc::new(o.clone()),
            );
        }
        Rc::new(k)
    }
}

impl KnownObjects<ConfigMap> for Known {
    fn known_keys(&self) -> Vec<String> {
        self.0.borrow().keys().cloned().collect()
    }
    fn known(&self, key: &str) -> Option<Rc<ConfigMap>> {
        self.0.borrow().get(key).cloned()
    }
}

/// One delta as "Type:name@rv", tombstones as "Deleted:~name@rv", a
/// stale mark as "Stale:!key".
fn show(kind: DeltaType, object: &DeltaObject<ConfigMap>) -> String {
    let (mark, obj) = match object {
        DeltaObject::Object(o) => ("", Some(o.clone())),
        DeltaObject::Tombstone(t) => ("~", t.last_known.clone()),
        DeltaObject::Undecodable(u) => return format!("{kind:?}:!{}", u.key),
    };
    let name = obj
        .as_ref()
        .and_then(|o| o.metadata.name.clone())
        .unwrap_or_else(|| "?".into());
    let rv = obj
        .as_ref()
        .and_then(|o| o.metadata.resource_version.clone())
        .unwrap_or_default();
    format!("{kind:?}:{mark}{name}@{rv}")
}

fn pop(f: &mut DeltaFifo<ConfigMap>) -> (String, Vec<String>) {
    let (k, deltas) = f.pop().expect("something queued");
    (k, deltas.iter().map(|d| show(d.kind, &d.object)).collect())
}

// TestDeltaFIFO_basic: keys pop in the order they were first queued; every
// change since the last pop comes with them.
#[test]
fn delta_fifo_basic() {
    let mut f = DeltaFifo::new(None);
    f.add(cm("a", "1"));
    f.add(cm("b", "2"));
    f.update(cm("a", "3"));
    assert_eq!(f.len(), 2);
    assert_eq!(
        pop(&mut f),
        (key("a"), vec!["Added:a@1".into(), "Updated:a@3".into()])
    );
    assert_eq!(pop(&mut f), (key("b"), vec!["Added:b@2".into()]));
    assert!(f.pop().is_none());
}

// TestDeltaFIFO_addUpdate: a delete for something neither queued nor known is dropped.
#[test]
fn delta_fifo_add_update() {
    let mut f = DeltaFifo::new(None);
    f.add(cm("foo", "10"));
    f.update(cm("foo", "12"));
    f.delete(cm("bar", "15"));
    assert_eq!(f.list_keys(), [key("foo")]);
    assert_eq!(
        pop(&mut f).1,
        ["Added:foo@10".to_string(), "Updated:foo@12".to_string()]
    );
    assert!(f.pop().is_none());
}

// TestDeltaFIFO_transformer: the transform sees every object queued; tombstones are left alone.
#[test]
fn delta_fifo_transformer() {
    let known = Known::with(&[cm("gone", "1")]);
    let mut f = DeltaFifo::new(Some(known)).with_transform(Rc::new(|mut o: ConfigMap| {
        o.data = Some([("transformed".to_string(), "yes".to_string())].into());
        o
    }));
    f.add(cm("a", "1"));
    f.replace(vec![cm("b", "2")], "3");
    let mut tombstones = 0;
    while let Some((_, deltas)) = f.pop() {
        for d in deltas {
            match &d.object {
                DeltaObject::Object(o) => {
                    assert_eq!(o.data.as_ref().expect("present")["transformed"], "yes")
                }
                DeltaObject::Undecodable(u) => panic!("nothing was unreadable: {u:?}"),
                DeltaObject::Tombstone(t) => {
                    tombstones += 1;
                    let data = &t.last_known.as_ref().expect("present").data;
                    if t.key == key("gone") {
                        // Known objects were transformed when cached; not again.
                        assert!(data.is_none());
                    } else {
                        // "a" was only queued: its newest queued (transformed) state.
                        assert_eq!(t.key, key("a"));
                        assert_eq!(data.as_ref().expect("present")["transformed"], "yes");
                    }
                }
            }
        }
    }
    assert_eq!(tombstones, 2);
}

// TestDeltaFIFO_enqueueingWithLister: with known objects, a resync queues
// Sync for each known key that has nothing queued.
#[test]
fn delta_fifo_enqueueing_with_lister() {
    let known = Known::with(&[cm("foo", "5"), cm("bar", "6"), cm("baz", "7")]);
    let mut f = DeltaFifo::new(Some(known));
    f.add(cm("foo", "10"));
    f.update(cm("bar", "15"));
    f.delete(cm("baz", "20"));
    f.resync();
    let mut got = Vec::new();
    while let Some((_, deltas)) = f.pop() {
        got.push(
            deltas
                .iter()
                .map(|d| show(d.kind, &d.object))
                .collect::<Vec<_>>()
                .join(","),
        );
    }
    assert_eq!(got, ["Added:foo@10", "Updated:bar@15", "Deleted:baz@20"]);
}

// TestDeltaFIFO_addReplace: Add then Replace of the same object keeps both deltas.
#[test]
fn delta_fifo_add_replace() {
    let mut f = DeltaFifo::new(None);
    f.add(cm("foo", "10"));
    f.replace(vec![cm("foo", "15")], "0");
    assert_eq!(
        pop(&mut f).1,
        ["Added:foo@10".to_string(), "Replaced:foo@15".to_string()]
    );
}

// TestDeltaFIFO_Resync: every known object is re-delivered as Sync.
#[test]
fn delta_fifo_resync() {
    let mut f = DeltaFifo::new(Some(Known::with(&[cm("foo", "5")])));
    f.resync();
    assert_eq!(pop(&mut f).1, ["Sync:foo@5".to_string()]);
}

// TestDeltaFIFO_ResyncNonExisting: a queued delete wins over a resync.
#[test]
fn delta_fifo_resync_non_existing() {
    let mut f = DeltaFifo::new(Some(Known::with(&[cm("foo", "5")])));
    f.delete(cm("foo", "10"));
    f.resync();
    assert_eq!(pop(&mut f).1, ["Deleted:foo@10".to_string()]);
    assert!(f.pop().is_none());
}

// TestDeltaFIFO_DeleteExistingNonPropagated: deletes of a queued object are
// queued once; consecutive deletes collapse.
#[test]
fn delta_fifo_delete_existing_non_propagated() {
    let mut f = DeltaFifo::new(None);
    f.add(cm("foo", "5"));
    f.delete(cm("foo", "6"));
    f.delete(cm("foo", "6"));
    assert_eq!(
        pop(&mut f).1,
        ["Added:foo@5".to_string(), "Deleted:foo@6".to_string()]
    );
}

// delta_fifo.go isDeletionDup: of two deletes in a row the older is kept,
// unless it is a tombstone.
#[test]
fn delta_fifo_consecutive_deletes_keep_the_older_unless_a_tombstone() {
    let mut f = DeltaFifo::new(None);
    f.add(cm("foo", "5"));
    f.delete(cm("foo", "6"));
    f.delete(cm("foo", "7"));
    assert_eq!(
        pop(&mut f).1,
        ["Added:foo@5".to_string(), "Deleted:foo@6".to_string()]
    );
    // A relist that misses foo queues a tombstone; a real delete after it
    // carries more, so it replaces the tombstone.
    let mut f = DeltaFifo::new(Some(Known::with(&[cm("foo", "5")])));
    f.replace(vec![], "8");
    f.delete(cm("foo", "9"));
    assert_eq!(pop(&mut f).1, ["Deleted:foo@9".to_string()]);
}

// TestDeltaFIFO_ReplaceMakesDeletions: keys known (or queued) but missing
// from the list get a tombstone carrying the last state known.
#[test]
fn delta_fifo_replace_makes_deletions() {
    let known = Known::with(&[cm("foo", "5"), cm("bar", "6"), cm("baz", "7")]);
    let mut f = DeltaFifo::new(Some(known));
    f.delete(cm("baz", "10"));
    f.add(cm("queued", "11"));
    f.replace(vec![cm("foo", "5")], "0");
    let mut got = BTreeMap::new();
    while let Some((k, deltas)) = f.pop() {
        got.insert(
            k,
            deltas
                .iter()
                .map(|d| show(d.kind, &d.object))
                .collect::<Vec<_>>(),
        );
    }
    assert_eq!(got[&key("foo")], ["Replaced:foo@5"]);
    assert_eq!(got[&key("bar")], ["Deleted:~bar@6"]);
    // Already deleted: no second deletion.
    assert_eq!(got[&key("baz")], ["Deleted:baz@10"]);
    // Only in the queue: its newest queued state goes into the tombstone.
    assert_eq!(
        got[&key("queued")],
        ["Added:queued@11", "Deleted:~queued@11"]
    );
}

// TestDeltaFIFO_ReplaceMakesDeletionsReplaced + TestDeltaFIFO_ReplaceDeltaType:
// Replaced by default, Sync in the old mode.
#[test]
fn delta_fifo_replace_delta_type() {
    let mut f = DeltaFifo::new(None);
    f.replace(vec![cm("foo", "5")], "0");
    assert_eq!(pop(&mut f).1, ["Replaced:foo@5".to_string()]);
    let mut old = DeltaFifo::new(None).without_replaced_deltas();
    old.replace(vec![cm("foo", "5")], "0");
    assert_eq!(pop(&mut old).1, ["Sync:foo@5".to_string()]);
}

// TestDeltaFIFO_UpdateResyncRace: an update queued before a resync is not joined by a Sync.
#[test]
fn delta_fifo_update_resync_race() {
    let mut f = DeltaFifo::new(Some(Known::with(&[cm("foo", "5")])));
    f.update(cm("foo", "6"));
    f.resync();
    assert_eq!(pop(&mut f).1, ["Updated:foo@6".to_string()]);
    assert!(f.pop().is_none());
}

// TestDeltaFIFO_HasSyncedCorrectOnDeletion: deletions queued by the first
// relist count towards the initial population.
#[test]
fn delta_fifo_has_synced_correct_on_deletion() {
    let mut f = DeltaFifo::new(Some(Known::with(&[
        cm("foo", "5"),
        cm("bar", "6"),
        cm("baz", "7"),
    ])));
    f.replace(vec![cm("foo", "5")], "0");
    for _ in 0..3 {
        assert!(!f.has_synced());
        f.pop().expect("queued");
    }
    assert!(f.has_synced());
}

// TestDeltaFIFO_detectLineJumpers: a re-added key keeps its place in line.
#[test]
fn delta_fifo_detect_line_jumpers() {
    let mut f = DeltaFifo::new(None);
    f.add(cm("foo", "10"));
    f.add(cm("bar", "1"));
    f.add(cm("foo", "11"));
    f.add(cm("foo", "13"));
    f.add(cm("zab", "30"));
    assert_eq!(pop(&mut f).0, key("foo"));
    f.add(cm("bar", "14"));
    f.add(cm("foo", "15"));
    assert_eq!(
        pop(&mut f).1,
        ["Added:bar@1".to_string(), "Added:bar@14".to_string()]
    );
    assert_eq!(pop(&mut f).0, key("zab"));
    assert_eq!(pop(&mut f).0, key("foo"));
}

// TestDeltaFIFO_KeyOf: a tombstone is keyed by its own key, also without an object.
#[test]
fn delta_fifo_key_of() {
    let known = Known::with(&[cm("x", "1")]);
    known.0.borrow_mut().clear();
    // "x" vanished from the consumer between ListKeys and GetByKey: the
    // tombstone still has its key, with no object.
    struct Racy;
    impl KnownObjects<ConfigMap> for Racy {
        fn known_keys(&self) -> Vec<String> {
            vec![key("x")]
        }
        fn known(&self, _: &str) -> Option<Rc<ConfigMap>> {
            None
        }
    }
    let mut f = DeltaFifo::new(Some(Rc::new(Racy)));
    f.replace(vec![], "0");
    let (k, deltas) = f.pop().expect("tombstone queued");
    assert_eq!(k, key("x"));
    match &deltas[0].object {
        DeltaObject::Tombstone(t) => {
            assert_eq!(t.key, key("x"));
            assert!(t.last_known.is_none());
        }
        other => panic!("expected a tombstone, got {other:?}"),
    }
}

// TestDeltaFIFO_HasSynced: false before the first relist and until all it queued is popped.
#[test]
fn delta_fifo_has_synced() {
    let mut f = DeltaFifo::new(None);
    assert!(!f.has_synced());
    f.replace(vec![cm("a", "1"), cm("b", "2")], "3");
    assert!(!f.has_synced());
    f.pop();
    assert!(!f.has_synced());
    f.pop();
    assert!(f.has_synced());
    // Later relists do not un-sync it.
    f.replace(vec![cm("c", "4")], "5");
    assert!(f.has_synced());
    // A queue that only ever saw events counts as populated and synced.
    let mut g = DeltaFifo::new(None);
    g.add(cm("a", "1"));
    assert!(g.has_synced());
}

// TestDeltaFIFO_PopShouldUnblockWhenClosed: a consumer waiting for work wakes when closed.
#[test]
fn delta_fifo_pop_should_unblock_when_closed() {
    let w = Wakeup::default();
    let mut wait = Box::pin(w.wait());
    assert!((&mut wait).now_or_never().is_none());
    w.close();
    assert!(wait.now_or_never().is_some());
    assert!(Box::pin(w.wait()).now_or_never().is_some());
}

#[test]
fn queueing_wakes_the_consumer() {
    let mut f = DeltaFifo::<ConfigMap>::new(None);
    let w = f.wakeup();
    assert!(Box::pin(w.wait()).now_or_never().is_none());
    f.add(cm("a", "1"));
    assert!(Box::pin(w.wait()).now_or_never().is_some());
}

fn describe(p: &Popped<ConfigMap>) -> String {
    match p {
        Popped::Deltas { deltas, .. } => deltas
            .iter()
            .map(|d| show(d.kind, &d.object))
            .collect::<Vec<_>>()
            .join(","),
        Popped::Replace {
            objects,
            resource_version,
            unreadable,
        } if unreadable.is_empty() => {
            format!("Replace({} objects)@{resource_version}", objects.len())
        }
        Popped::Replace {
            objects,
            resource_version,
            unreadable,
        } => {
            let keys: Vec<&str> = unreadable.iter().map(|u| u.key.as_str()).collect();
            format!(
                "Replace({} objects, unreadable {})@{resource_version}",
                objects.len(),
                keys.join(" ")
            )
        }
    }
}

// The in-order FIFO: every event in arrival order, the same key as often as it changed.
#[test]
fn real_fifo_keeps_every_event_in_order() {
    let mut f = RealFifo::new(None);
    f.add(cm("a", "1"));
    f.add(cm("b", "2"));
    f.update(cm("a", "3"));
    f.delete(cm("a", "4"));
    let got: Vec<String> = f.pop_batch(10).iter().map(describe).collect();
    assert_eq!(
        got,
        ["Added:a@1", "Added:b@2", "Updated:a@3", "Deleted:a@4"]
    );
}

// A relist is one unit: the consumer swaps it in at once.
#[test]
fn real_fifo_replace_is_one_atomic_entry_and_counts_for_sync() {
    let mut f = RealFifo::new(None);
    assert!(!f.has_synced());
    f.replace(vec![cm("a", "1"), cm("b", "2")], "7");
    f.add(cm("c", "8"));
    assert_eq!(f.len(), 2);
    assert!(!f.has_synced());
    let batch = f.pop_batch(1);
    assert_eq!(describe(&batch[0]), "Replace(2 objects)@7");
    assert!(f.has_synced());
    assert_eq!(describe(&f.pop_batch(5)[0]), "Added:c@8");
}

#[test]
fn real_fifo_pops_in_batches_and_resyncs_what_is_known() {
    let mut f = RealFifo::new(Some(Known::with(&[cm("x", "1"), cm("y", "2")])));
    for i in 0..10 {
        f.add(cm(&format!("o{i}"), &i.to_string()));
    }
    assert_eq!(f.pop_batch(4).len(), 4);
    assert_eq!(f.pop_batch(100).len(), 6);
    assert!(f.pop_batch(100).is_empty());
    f.resync();
    let got: Vec<String> = f.pop_batch(10).iter().map(describe).collect();
    assert_eq!(got, ["Sync:x@1", "Sync:y@2"]);
}

// RealFIFO Resync: a key with an event still queued gets no Sync (the
// known state is older than the queued event, and would follow it).
#[test]
fn real_fifo_resync_skips_keys_already_queued() {
    let mut f = RealFifo::new(Some(Known::with(&[cm("x", "1"), cm("y", "2")])));
    f.update(cm("x", "3"));
    f.resync();
    let got: Vec<String> = f.pop_batch(10).iter().map(describe).collect();
    assert_eq!(got, ["Updated:x@3", "Sync:y@2"]);
    // A queued relist covers every key: no Sync at all.
    f.replace(vec![cm("x", "4")], "9");
    f.resync();
    let got: Vec<String> = f.pop_batch(10).iter().map(describe).collect();
    assert_eq!(got, ["Replace(1 objects)@9"]);
}

#[test]
fn real_fifo_transforms_before_queueing() {
    let mut f = RealFifo::new(None).with_transform(Rc::new(|mut o: ConfigMap| {
        o.metadata.managed_fields = None;
        o.metadata.labels = Some([("seen".to_string(), "1".to_string())].into());
        o
    }));
    f.replace(vec![cm("a", "1")], "2");
    match &f.pop_batch(1)[0] {
        Popped::Replace { objects, .. } => {
            assert_eq!(
                objects[0].metadata.labels.as_ref().expect("present")["seen"],
                "1"
            )
        }
        other => panic!("{other:?}"),
    }
}

/// The item of `name` a list held but could not decode.
fn unreadable(name: &str) -> Undecodable {
    Undecodable {
        key: key(name),
        error: "invalid type: integer `42`, expected a string".into(),
    }
}

// Not client-go's: a key the relist named but could not decode is still on
// the server, so it gets a stale mark, not a tombstone; a key it named that
// nothing held or queued gets nothing (there is no copy to keep).
#[test]
fn delta_fifo_replace_marks_what_it_could_not_read_stale_instead_of_deleting_it() {
    let known = Known::with(&[cm("kept", "1"), cm("gone", "2")]);
    let mut f = DeltaFifo::new(Some(known));
    f.add(cm("queued", "3"));
    f.replace_transformed(
        vec![],
        "9",
        &[
            unreadable("kept"),
            unreadable("queued"),
            unreadable("never"),
        ],
    );
    let mut got: Vec<(String, Vec<String>)> = std::iter::from_fn(|| f.pop())
        .map(|(k, d)| (k, d.iter().map(|d| show(d.kind, &d.object)).collect()))
        .collect();
    got.sort();
    assert_eq!(
        got,
        [
            (key("gone"), vec!["Deleted:~gone@2".to_string()]),
            (key("kept"), vec!["Stale:!ns/kept".to_string()]),
            (
                key("queued"),
                vec!["Added:queued@3".to_string(), "Stale:!ns/queued".to_string()]
            ),
        ]
    );
}

// The in-order FIFO hands the keys it could not read to the consumer with
// the relist, which keeps what it holds for them.
#[test]
fn real_fifo_replace_carries_what_it_could_not_read() {
    let mut f = RealFifo::new(None);
    f.replace_transformed(vec![cm("a", "1")], "7", &[unreadable("b")]);
    let got: Vec<String> = f.pop_batch(10).iter().map(describe).collect();
    assert_eq!(got, ["Replace(1 objects, unreadable ns/b)@7"]);
}
