//! The changes store records what happened, and only that: an object
//! that stops decoding was not deleted.

use kubeglass_client::discovery::ResourceInfo;

use super::*;
use crate::kube::stores::changes::ChangeStore;
use crate::kube::subscribe::watch_problem;
use crate::rules::changes::Op;

const PATH: &str = "/api/v1/configmaps";

/// ConfigMaps as discovery (loaded by the rig) has them.
fn configmaps(rig: &Rig) -> ResourceInfo {
    let discovery = rig
        .kube
        .discovered
        .get_untracked()
        .and_then(Result::ok)
        .expect("discovery loaded");
    discovery
        .resources
        .iter()
        .find(|r| r.group.is_empty() && r.plural == "configmaps")
        .expect("configmaps discovered")
        .clone()
}

/// The store's rows as `op name`.
fn rows(store: &ChangeStore) -> Vec<String> {
    store.with(|t| {
        t.entries()
            .map(|e| format!("{} {}", e.op.word(), e.subject.name))
            .collect()
    })
}

// Issue #39, item 3: a relist names b as undecodable (its labels are now a
// string). The informer keeps its last good copy, so the store records
// no deletion; when a copy that reads comes, that is an update.
#[test]
fn an_object_that_stops_decoding_is_not_recorded_as_deleted() {
    let mut rig = rig();
    let info = configmaps(&rig);
    let feed = expect_list_and_watch(
        &rig.server,
        PATH,
        "10",
        vec![config_map("a", "5"), config_map("b", "6")],
    );
    let store = ChangeStore::new();
    let watch = store.record(&rig.kube, &info).expect("recording");
    rig.run();
    assert!(watch.has_synced());
    let mut bad_b = config_map("b", "12");
    bad_b["metadata"]["labels"] = json!("corrupted");
    rig.server
        .expect_get(PATH)
        .query("resourceVersion", "10")
        .no_query("watch")
        .reply(Reply::json(
            200,
            json!({"apiVersion": "v1", "kind": "List",
                   "metadata": {"resourceVersion": "12"},
                   "items": [config_map("a", "5"), bad_b.clone()]}),
        ));
    let (reply, feed2) = Reply::stream();
    rig.server
        .expect_get(PATH)
        .query("watch", "true")
        .query("resourceVersion", "12")
        .reply(reply);
    // The event does not decode: the watch ends and, after the backoff, the
    // informer relists.
    feed.event("MODIFIED", bad_b);
    rig.run();
    rig.advance(Duration::from_secs(2));
    assert_eq!(watch.snapshot().relists, 1);
    assert_eq!(
        rows(&store),
        [] as [&str; 0],
        "a deletion that never happened"
    );
    assert!(watch.stale().contains("ns/b"), "{:?}", watch.stale());
    assert!(watch.indexer().borrow().get("ns/b").is_some());
    // The views' problem line names it, as shown from its last good copy.
    let problem = watch_problem(&watch.snapshot()).expect("b is named");
    assert_eq!(problem.word(), "unreadable");
    assert!(
        problem
            .detail()
            .starts_with("1 object: ns/b (last good copy shown): "),
        "{}",
        problem.detail()
    );

    feed2.event("MODIFIED", config_map("b", "13"));
    rig.run();
    assert_eq!(rows(&store), ["updated b"]);
    let entry = store.with(|t| t.entries().next().cloned()).expect("a row");
    assert_eq!(entry.op, Op::Updated);
    assert!(watch.stale().is_empty());
    assert_eq!(watch_problem(&watch.snapshot()), None);
    rig.server.verify();
}
