//! A cache that outlives the tab: an informer seeded from a saved state
//! watches from the seed's version instead of listing; one the server no
//! longer has costs exactly one list; a checkpoint is what may be saved.

use futures::FutureExt;
use kubeglass_client::cache::Seed;

use super::*;

fn seed_of(rv: &str, items: &[(&str, &str)]) -> Seed<ConfigMap> {
    Seed {
        items: items
            .iter()
            .map(|(n, v)| serde_json::from_value(cm(n, v)).expect("a ConfigMap"))
            .collect(),
        resource_version: rv.into(),
        columns: vec![],
    }
}

fn seeded(server: &FakeApiServer, seed: Seed<ConfigMap>) -> Harness {
    let clock = FakeClock::new(Duration::from_secs(1_700_000_000));
    let options = InformerOptions::new(PATH)
        .seeded_from(Box::new(move || async move { Some(seed) }.boxed_local()));
    let informer = SharedInformer::new(
        RestClient::new(Rc::new(server.clone())),
        Rc::new(clock.clone()),
        options,
    );
    Harness {
        pool: LocalPool::new(),
        clock,
        informer,
    }
}

// The seed is the initial state at once; the first request is a watch
// from its version, and what changed meanwhile arrives on it. No list.
#[test]
fn a_seeded_informer_watches_from_the_seed_and_never_lists_while_it_is_valid() {
    let server = FakeApiServer::new();
    let watch = expect_watch(&server, "40");
    let mut h = seeded(&server, seed_of("40", &[("a", "30"), ("b", "40")]));
    let rec = Rc::new(RefCell::new(Recorder::default()));
    h.informer.add_handler(record(&rec), None);
    h.start();
    let informer = h.informer.clone();
    assert!(
        h.pool
            .run_until(async move { informer.wait_seeded().await })
    );
    assert!(h.informer.has_synced(), "a seed is the initial state");
    assert_eq!(
        rec.borrow().lines,
        ["add ns/a@30 initial", "add ns/b@40 initial"]
    );
    let status = h.informer.snapshot().reflector;
    assert!(status.resuming, "not confirmed by the server yet");
    assert_eq!((status.lists, status.watches, status.resumes), (0, 1, 1));
    assert!(
        h.informer.checkpoint().is_none(),
        "nothing to save before the server confirms the seed"
    );
    // Deleted and changed while nobody watched: the watch from 40 says so.
    watch.event("DELETED", cm("a", "41"));
    watch.event("MODIFIED", cm("b", "42"));
    h.settle();
    assert_eq!(
        h.cached(),
        BTreeMap::from([("ns/b".to_string(), "42".to_string())])
    );
    let status = h.informer.snapshot().reflector;
    assert!(!status.resuming);
    assert_eq!(status.lists, 0, "{:#?}", server.log());
    let saved = h.informer.checkpoint().expect("consistent now");
    assert_eq!(saved.resource_version, "42");
    assert_eq!(saved.items.len(), 1);
    server.verify();

    // Stopped (a hidden tab's pause) and run again: a watch from where it
    // was, still no list.
    let again = expect_watch(&server, "42");
    h.pool = LocalPool::new();
    watch.close();
    h.start();
    again.event("ADDED", cm("c", "43"));
    h.settle();
    let status = h.informer.snapshot().reflector;
    assert_eq!(
        (status.lists, status.resumes),
        (0, 2),
        "{:#?}",
        server.log()
    );
    assert!(h.cached().contains_key("ns/c"));
    server.verify();
}

// Nothing changed since the seed: the watch stays quiet, and after the
// quiet moment the cache counts as confirmed.
#[test]
fn a_quiet_resumed_watch_confirms_the_seed_after_a_moment() {
    let server = FakeApiServer::new();
    let _watch = expect_watch(&server, "40");
    let mut h = seeded(&server, seed_of("40", &[("a", "30")]));
    h.start();
    assert!(h.informer.snapshot().reflector.resuming);
    h.clock.advance(Duration::from_millis(999));
    h.settle();
    assert!(h.informer.snapshot().reflector.resuming);
    h.clock.advance(Duration::from_millis(1));
    h.settle();
    assert!(!h.informer.snapshot().reflector.resuming);
    assert_eq!(
        h.informer.checkpoint().expect("saved").resource_version,
        "40"
    );
    server.verify();
}

// The server no longer has the seed's version (compacted, or older than
// its watch cache): 410, then exactly one list, which replaces the seed,
// deletions included, and a watch from the list's version.
#[test]
fn a_seed_the_server_no_longer_has_costs_exactly_one_list() {
    let server = FakeApiServer::new();
    let gone = expect_watch(&server, "40");
    server
        .expect_get(PATH)
        .query("resourceVersion", "40")
        .reply(list("90", vec![cm("b", "80"), cm("c", "85")]));
    let _watch = expect_watch(&server, "90");
    let mut h = seeded(&server, seed_of("40", &[("a", "30"), ("b", "40")]));
    let rec = Rc::new(RefCell::new(Recorder::default()));
    h.informer.add_handler(record(&rec), None);
    h.start();
    gone.event(
        "ERROR",
        json!({"kind": "Status", "apiVersion": "v1", "status": "Failure",
               "reason": "Expired", "code": 410, "message": "too old resource version: 40 (60)"}),
    );
    h.settle();
    while h.clock.advance_to_next_timer().is_some() && server.log().len() < 3 {
        h.settle();
    }
    h.settle();
    let status = h.informer.snapshot().reflector;
    assert_eq!(status.lists, 1, "{:#?}", server.log());
    assert!(!status.resuming);
    assert_eq!(
        h.cached(),
        BTreeMap::from([
            ("ns/b".to_string(), "80".to_string()),
            ("ns/c".to_string(), "85".to_string()),
        ])
    );
    assert!(
        rec.borrow()
            .lines
            .contains(&"delete ns/a@30 unknown".to_string()),
        "{:?}",
        rec.borrow().lines
    );
    server.verify();
}

// An informer run again after a stop (a hidden tab's pause) resumes from
// where it was with a watch, not a list.
#[test]
fn an_informer_run_again_after_a_stop_resumes_with_a_watch() {
    let server = FakeApiServer::new();
    let first = expect_list_and_watch(&server, "10", vec![cm("a", "5")]);
    let mut h = Harness::new(&server, QueueKind::InOrder);
    let (run, stop) = futures::future::abortable({
        let i = h.informer.clone();
        async move { i.run().await }
    });
    h.pool
        .spawner()
        .spawn_local(async move {
            let _ = run.await;
        })
        .expect("spawn");
    h.settle();
    first.event("ADDED", cm("b", "12"));
    h.settle();
    stop.abort();
    h.settle();
    assert!(first.is_cancelled());
    let again = expect_watch(&server, "12");
    h.start();
    again.event("MODIFIED", cm("a", "13"));
    h.settle();
    let status = h.informer.snapshot().reflector;
    assert_eq!((status.lists, status.watches, status.resumes), (1, 2, 1));
    assert_eq!(h.cached().get("ns/a").map(String::as_str), Some("13"));
    server.verify();
}

// A Table informer's checkpoint is saved as a Table and read back whole.
#[test]
fn a_table_checkpoint_reads_back_as_the_same_seed() {
    use kubeglass_client::cache::Checkpoint;
    use kubeglass_client::rest::table::TableRowObject;
    let row: TableRowObject = serde_json::from_value(json!({
        "cells": ["web-1", "1/1", 3],
        "object": {"metadata": {"name": "web-1", "namespace": "ns", "uid": "u1",
                                "resourceVersion": "7", "labels": {"app": "web"},
                                "annotations": {"note": "a \"quoted\" line\n"},
                                "creationTimestamp": "2026-12-07T08:04:26Z",
                                "deletionTimestamp": "2026-12-07T09:00:00Z",
                                "deletionGracePeriodSeconds": 30,
                                "finalizers": ["kubeglass.dev/hold"], "generateName": "web-",
                                "generation": 2,
                                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                                     "name": "web", "uid": "u0", "controller": true}]}}
    }))
    .expect("a row");
    let columns = serde_json::from_value(json!([
        {"name": "Name", "type": "string", "format": "name", "description": "", "priority": 0}
    ]))
    .expect("columns");
    let saved = Checkpoint {
        items: vec![Rc::new(row.clone())],
        resource_version: "9".into(),
        columns,
    };
    let back = Seed::<TableRowObject>::from_table_json(&saved.to_table_json()).expect("reads");
    assert_eq!(back.resource_version, "9");
    assert_eq!(back.columns, saved.columns);
    assert_eq!(back.items, vec![row]);
    let err = Seed::<TableRowObject>::from_table_json(r#"{"kind":"Table","rows":[]}"#)
        .expect_err("no version");
    assert!(err.contains("no resourceVersion"), "{err}");
    assert!(Seed::<TableRowObject>::from_table_json("{").is_err());
}

// Any other informer's checkpoint (objects cut to a few fields) is saved
// as a List and read back whole.
#[test]
fn a_list_checkpoint_reads_back_as_the_same_seed() {
    use kubeglass_client::cache::Checkpoint;
    use kubeglass_client::kube_core::DynamicObject;
    let items: Vec<DynamicObject> = ["a", "b"]
        .iter()
        .map(|n| {
            serde_json::from_value(json!({
                "apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": n, "namespace": "ns", "uid": format!("u-{n}"),
                             "resourceVersion": "3", "creationTimestamp": "2026-01-02T03:04:05Z"},
                "spec": {"containers": [{"resources": {"requests": {"cpu": "100m"}}}]}
            }))
            .expect("a pod")
        })
        .collect();
    let saved = Checkpoint {
        items: items.iter().cloned().map(Rc::new).collect(),
        resource_version: "12".into(),
        columns: vec![],
    };
    let back = Seed::<DynamicObject>::from_list_json(&saved.to_list_json().expect("writes"))
        .expect("reads");
    assert_eq!(back.resource_version, "12");
    assert_eq!(back.items, items);
    let err = Seed::<DynamicObject>::from_list_json(r#"{"items":[]}"#).expect_err("no version");
    assert!(err.contains("no resourceVersion"), "{err}");
}
