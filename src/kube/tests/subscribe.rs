//! The subscription builder: what a view gets, when, and what its watch
//! costs after it goes.

use kubeglass_client::kube_core::DynamicObject;

use super::*;
use crate::kube::Watch;
use crate::kube::subscribe::watch_problem;

const PATH: &str = "/api/v1/namespaces/ns/configmaps";
const SECRETS: &str = "/api/v1/namespaces/ns/secrets";

type Batches = Rc<RefCell<Vec<Vec<String>>>>;

/// Records each batch of keys a view is handed (sorted).
fn recorder(batches: &Batches) -> impl FnMut(Vec<String>) + 'static {
    let batches = batches.clone();
    move |mut keys| {
        keys.sort();
        batches.borrow_mut().push(keys);
    }
}

/// A view of the ConfigMaps at `PATH` that records each batch it is handed.
fn recorded(rig: &Rig) -> (Watch<DynamicObject>, Batches) {
    let batches = Batches::default();
    let mut record = recorder(&batches);
    let watch = rig
        .kube
        .subscribe("configmaps", PATH)
        .frames(move |_, keys| record(keys));
    (watch, batches)
}

#[test]
fn a_view_gets_its_changed_keys_once_per_frame_each_key_once() {
    let mut rig = rig();
    let feed = expect_list_and_watch(
        &rig.server,
        PATH,
        "10",
        vec![config_map("a", "5"), config_map("b", "6")],
    );
    let (watch, batches) = recorded(&rig);
    rig.run();
    assert!(
        batches.borrow().is_empty(),
        "a view must be handed changes at a frame, not as they come"
    );
    assert_eq!(rig.frame(), 1);
    assert_eq!(*batches.borrow(), [vec!["ns/a", "ns/b"]]);

    // Three versions of `a` and a new `c` between two frames: one batch,
    // each key once, and the cache already holds the latest.
    for rv in ["11", "12", "13"] {
        feed.event("MODIFIED", config_map("a", rv));
    }
    feed.event("ADDED", config_map("c", "14"));
    rig.run();
    assert_eq!(rig.frame(), 1, "one frame asked for, however many changes");
    assert_eq!(batches.borrow()[1], ["ns/a", "ns/c"]);
    let a = watch.indexer().borrow().get("ns/a").expect("a cached");
    assert_eq!(a.metadata.resource_version.as_deref(), Some("13"));
    assert!(
        a.metadata.managed_fields.is_none(),
        "managedFields are dropped unless the view asks for them"
    );
    assert!(watch.status().get_untracked().synced);
    assert_eq!(rig.frame(), 0, "no change, no frame");
}

#[test]
fn an_empty_list_reaches_the_view_once_so_it_knows_it_is_empty() {
    let mut rig = rig();
    let _feed = expect_list_and_watch(&rig.server, PATH, "3", Vec::new());
    let (_watch, batches) = recorded(&rig);
    rig.run();
    assert_eq!(*batches.borrow(), [Vec::<String>::new()]);
}

#[test]
fn rows_keep_a_signal_equal_to_the_cache() {
    let mut rig = rig();
    let feed = expect_list_and_watch(
        &rig.server,
        PATH,
        "10",
        vec![config_map("a", "5"), config_map("b", "6")],
    );
    let rows = RwSignal::new(BTreeMap::from([("stale".to_string(), String::new())]));
    let _watch = rig.kube.subscribe("configmap-rows", PATH).rows(rows, |o| {
        o.metadata.resource_version.clone().unwrap_or_default()
    });
    rig.frame();
    let seen = || rows.get_untracked().into_iter().collect::<Vec<_>>();
    assert_eq!(
        seen(),
        [("ns/a".into(), "5".into()), ("ns/b".into(), "6".into())]
    );
    feed.event("DELETED", config_map("a", "11"));
    feed.event("MODIFIED", config_map("b", "12"));
    rig.frame();
    assert_eq!(seen(), [("ns/b".to_string(), "12".to_string())]);
}

#[test]
fn a_whole_object_watch_lingers_a_minute_after_its_view_and_is_reused() {
    let mut rig = rig();
    let feed = expect_list_and_watch(&rig.server, PATH, "10", vec![config_map("a", "5")]);
    let watch = rig.kube.subscribe("configmaps", PATH).frames(|_, _| {});
    rig.frame();
    drop(watch);
    rig.advance(Duration::from_secs(30));
    assert!(
        !feed.is_cancelled(),
        "dropped at once: going back would relist"
    );
    // A view coming back within the minute shares it: no request at all
    // (the fake fails any it was not told to expect), and its first frame
    // replays the cache.
    let (again, batches) = recorded(&rig);
    rig.frame();
    assert_eq!(*batches.borrow(), [vec!["ns/a"]]);
    drop(again);
    rig.advance(Duration::from_secs(59));
    assert!(!feed.is_cancelled());
    rig.advance(Duration::from_secs(2));
    assert!(
        feed.is_cancelled(),
        "a minute after the last view went, the watch stops"
    );
}

#[test]
fn a_table_watch_asks_for_kubectls_columns_and_stops_with_its_view() {
    let mut rig = rig();
    rig.server
        .expect_get(PATH)
        .header("accept", "as=Table")
        .query("includeObject", "Metadata")
        .reply(Reply::json(
            200,
            json!({"kind": "Table", "apiVersion": "meta.k8s.io/v1",
                   "metadata": {"resourceVersion": "7"},
                   "columnDefinitions": [{"name": "Name", "type": "string", "format": "name"},
                                         {"name": "Data", "type": "integer", "format": ""}],
                   "rows": [{"cells": ["a", 1],
                             "object": {"kind": "PartialObjectMetadata",
                                        "apiVersion": "meta.k8s.io/v1",
                                        "metadata": {"name": "a", "namespace": "ns",
                                                     "resourceVersion": "7"}}}]}),
        ));
    let (reply, feed) = Reply::stream();
    rig.server
        .expect_get(PATH)
        .header("accept", "as=Table")
        .query("watch", "true")
        .reply(reply);
    let batches = Batches::default();
    let mut record = recorder(&batches);
    let watch = rig
        .kube
        .subscribe("configmap-table", PATH)
        .table()
        .frames(move |_, keys| record(keys));
    rig.frame();
    assert_eq!(*batches.borrow(), [vec!["ns/a"]]);
    let row = watch.indexer().borrow().get("ns/a").expect("row cached");
    assert_eq!(row.row.cells.len(), 2, "the row keeps kubectl's cells");
    // A Table watch holds one of the browser's six HTTP/1.1 connections:
    // it stops as soon as its view goes.
    drop(watch);
    drop(row);
    rig.run();
    assert!(feed.is_cancelled());
}

#[test]
fn a_secrets_view_that_asked_for_nothing_caches_no_annotation_values() {
    let mut rig = rig();
    let secret = json!({"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadata",
        "metadata": {"name": "db", "namespace": "ns", "resourceVersion": "4",
                     "annotations": {"kubectl.kubernetes.io/last-applied-configuration":
                                         "{\"data\":{\"password\":\"aHVudGVyMg==\"}}",
                                     "team": "storage"}}});
    let _feed = expect_list_and_watch(&rig.server, SECRETS, "4", vec![secret]);
    let watch = rig
        .kube
        .subscribe("secret-names", SECRETS)
        .metadata_only()
        .frames(|_, _| {});
    rig.frame();
    let cached = watch.indexer().borrow().get("ns/db").expect("db cached");
    let text = serde_json::to_string(&*cached).expect("json");
    assert!(
        !text.contains("aHVudGVyMg==") && !text.contains("storage"),
        "a Secret's annotation values reached the cache: {text}"
    );
    let annotations = cached.metadata.annotations.clone().unwrap_or_default();
    assert!(
        annotations.contains_key("team"),
        "the keys stay: {annotations:?}"
    );
}

#[test]
fn a_view_asking_for_whole_secrets_is_refused_before_any_request() {
    let mut rig = rig();
    let asked = rig.server.log().len();
    let watch = rig.kube.subscribe("secrets", SECRETS).frames(|_, _| {});
    rig.frame();
    assert_eq!(
        rig.server.log().len(),
        asked,
        "a request that could bring back Secret data left the tab"
    );
    let problem = watch_problem(&watch.snapshot()).expect("the view is told why");
    assert!(format!("{problem:?}").contains("secret"), "{problem:?}");
}

#[test]
fn a_frame_asked_for_before_the_view_went_applies_nothing() {
    let mut rig = rig();
    let feed = expect_list_and_watch(&rig.server, PATH, "10", vec![config_map("a", "5")]);
    let (watch, batches) = recorded(&rig);
    rig.frame();
    assert_eq!(batches.borrow().len(), 1);
    // A change arrives and a frame is asked for; the view goes before it
    // is drawn (its signals are disposed by then: applying would panic).
    feed.event("MODIFIED", config_map("a", "11"));
    rig.run();
    drop(watch);
    assert_eq!(rig.frame(), 1, "the frame was asked for");
    assert_eq!(batches.borrow().len(), 1, "a gone view was handed a frame");
}
