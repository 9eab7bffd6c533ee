//! DeltaFIFO: client-go's test cases by name, the wakeup, and keys a relist could not read.

use super::*;

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
