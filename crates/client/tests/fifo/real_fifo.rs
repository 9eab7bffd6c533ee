//! The in-order FIFO (client-go's RealFIFO): arrival order, a relist as one entry, batches, resync, transforms, keys a relist could not read.

use super::*;

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

// The in-order FIFO hands the keys it could not read to the consumer with
// the relist, which keeps what it holds for them.
#[test]
fn real_fifo_replace_carries_what_it_could_not_read() {
    let mut f = RealFifo::new(None);
    f.replace_transformed(vec![cm("a", "1")], "7", &[unreadable("b")]);
    let got: Vec<String> = f.pop_batch(10).iter().map(describe).collect();
    assert_eq!(got, ["Replace(1 objects, unreadable ns/b)@7"]);
}
