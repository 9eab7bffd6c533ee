//! Integration scenarios against a real apiserver, shared by the native tests
//! (kubeglass-native) and the in-browser tests (kubeglass-web), so both
//! platforms prove the same things. Each takes a client for a `kubectl proxy`
//! in front of the local cluster of `hack/` (with the demo workload applied)
//! and panics with a message on failure.

use std::rc::Rc;
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube_core::params::{DeleteParams, ListParams, Patch, PatchParams, PostParams, WatchParams};
use kube_core::watch::WatchEvent;
use kube_core::{ApiResource, DynamicObject, GroupVersionKind};
use serde_json::json;

use kubeglass_client::api::Api;
use kubeglass_client::clock::Clock;
use kubeglass_client::discovery::DiscoveryClient;
use kubeglass_client::rest::RestClient;
use kubeglass_client::rest::table::IncludeObject;

/// The namespace scenarios write to (created by `hack/cluster.sh`).
pub const NAMESPACE: &str = "default";

fn unique(clock: &dyn Clock, prefix: &str) -> String {
    format!("{prefix}-{}", clock.now().as_millis() % 100_000_000)
}

fn cm(name: &str, labels: serde_json::Value) -> ConfigMap {
    serde_json::from_value(json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": name, "labels": labels}, "data": {"step": "1", "html": "<b>text</b>"}}))
    .expect("configmap")
}

/// ConfigMap create, get, update (and a stale update's conflict), every patch
/// type, and delete.
pub async fn configmap_crud(client: &RestClient, clock: &dyn Clock) {
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), NAMESPACE);
    let name = unique(clock, "crud");
    let created = api
        .create(&PostParams::default(), &cm(&name, json!({"suite": "crud"})))
        .await
        .expect("create");
    let got = api.get(&name).await.expect("get");
    assert_eq!(got.metadata.uid, created.metadata.uid);

    let mut changed = got.clone();
    changed
        .data
        .get_or_insert_default()
        .insert("step".into(), "2".into());
    let updated = api
        .replace(&name, &PostParams::default(), &changed)
        .await
        .expect("update");
    let err = api
        .replace(&name, &PostParams::default(), &changed)
        .await
        .expect_err("a stale resourceVersion conflicts");
    assert!(err.api().is_some_and(|a| a.is_conflict()), "{err}");

    let pp = PatchParams::default();
    api.patch(&name, &pp, &Patch::Merge(json!({"data": {"merge": "yes"}})))
        .await
        .expect("merge patch");
    api.patch(
        &name,
        &pp,
        &Patch::Strategic(json!({"data": {"strategic": "yes"}})),
    )
    .await
    .expect("strategic merge patch");
    let jp: Patch<serde_json::Value> = Patch::Json(
        serde_json::from_value(json!([{"op": "add", "path": "/data/json", "value": "yes"}]))
            .expect("json patch"),
    );
    api.patch(&name, &pp, &jp).await.expect("json patch");
    let applied = api
        .patch(
            &name,
            &PatchParams::apply("kubeglass-tests").force(),
            &Patch::Apply(json!({"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": name}, "data": {"applied": "yes"}})),
        )
        .await
        .expect("server-side apply");
    let data = applied.data.unwrap_or_default();
    for k in ["step", "merge", "strategic", "json", "applied"] {
        assert!(
            data.contains_key(k),
            "{k} missing after the patches: {data:?}"
        );
    }
    assert_ne!(
        applied.metadata.resource_version,
        updated.metadata.resource_version
    );

    api.delete(&name, &DeleteParams::default())
        .await
        .expect("delete");
    assert!(
        api.get_opt(&name)
            .await
            .expect("get after delete")
            .is_none()
    );
}

/// A paginated list: limit=2 over 10 objects gives 5 pages and all 10.
pub async fn paginated_list(client: &RestClient, clock: &dyn Clock) {
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), NAMESPACE);
    let run = unique(clock, "page");
    for i in 0..10 {
        api.create(
            &PostParams::default(),
            &cm(&format!("{run}-{i}"), json!({"page-run": run})),
        )
        .await
        .expect("create");
    }
    let mut params = ListParams::default()
        .labels(&format!("page-run={run}"))
        .limit(2);
    let mut pages = 0;
    let mut names = Vec::new();
    loop {
        let page = api.list(&params).await.expect("list page");
        pages += 1;
        assert!(page.items.len() <= 2);
        names.extend(page.items.into_iter().filter_map(|c| c.metadata.name));
        match page.metadata.continue_.filter(|c| !c.is_empty()) {
            Some(token) => params = params.continue_token(&token),
            None => break,
        }
    }
    names.sort();
    names.dedup();
    assert_eq!(names.len(), 10, "{names:?}");
    assert_eq!(pages, 5);
    api.delete_collection(
        &DeleteParams::default(),
        &ListParams::default().labels(&format!("page-run={run}")),
    )
    .await
    .expect("deletecollection");
    let left = api
        .list(&ListParams::default().labels(&format!("page-run={run}")))
        .await
        .expect("list after");
    assert!(left.items.is_empty());
}

/// Server-side Tables: kubectl's pod columns, and the demo CRD's printer columns.
pub async fn tables(client: &RestClient) {
    let pods: Api<Pod> = Api::namespaced(client.clone(), "demo-shop");
    let t = pods
        .list_table(&ListParams::default(), IncludeObject::Metadata)
        .await
        .expect("pod table");
    let cols: Vec<&str> = t
        .column_definitions
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    for c in ["Name", "Ready", "Status", "Restarts", "Age"] {
        assert!(cols.contains(&c), "pod table columns {cols:?} lack {c}");
    }
    assert!(!t.rows.is_empty(), "demo-shop has pods");
    assert!(
        t.rows.iter().all(|r| r.uid().is_some()),
        "rows carry metadata"
    );
    // One page as cacheable rows (what a table view shows before its informer syncs).
    let page = pods
        .list_table_rows(&ListParams::default().limit(1))
        .await
        .expect("one page of pod rows");
    assert_eq!(page.rows.len(), 1);
    let row = &page.rows[0];
    assert_eq!(row.metadata.namespace.as_deref(), Some("demo-shop"));
    assert!(
        t.rows
            .iter()
            .any(|r| r.uid() == row.metadata.uid.as_deref())
    );
    assert_eq!(row.metadata.managed_fields, None, "managedFields skipped");
    assert!(
        page.metadata.continue_.is_some_and(|c| !c.is_empty()),
        "more pages follow"
    );
    assert!(
        page.metadata.remaining_item_count.is_some_and(|n| n >= 1),
        "the server says how many rows remain: {:?}",
        page.metadata.remaining_item_count
    );

    let ar = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("demo.kubeglass.dev", "v1alpha1", "Database"),
        "databases",
    );
    let dbs = Api::<DynamicObject>::dynamic(client.clone(), &ar, None);
    // Databases other tests create at the same time carry kubeglass-test.
    let t = dbs
        .list_table(
            &ListParams::default().labels("!kubeglass-test"),
            IncludeObject::None,
        )
        .await
        .expect("CRD table");
    let cols: Vec<(&str, i32)> = t
        .column_definitions
        .iter()
        .map(|c| (c.name.as_str(), c.priority))
        .collect();
    for c in [
        ("Engine", 0),
        ("Version", 0),
        ("Size", 0),
        ("Replicas", 1),
        ("Age", 0),
    ] {
        assert!(cols.contains(&c), "CRD table columns {cols:?} lack {c:?}");
    }
    assert_eq!(t.rows.len(), 12, "a dozen demo databases");
    let engine = t.column("Engine").expect("engine column");
    assert!(
        t.rows
            .iter()
            .all(|r| ["postgres", "mysql", "redis"].contains(&&*r.cell_text(engine)))
    );
}

/// A watch sees a create, an update and a delete, in order.
pub async fn watch_sees_changes(client: &RestClient, clock: &dyn Clock) {
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), NAMESPACE);
    let rv = api
        .list(&ListParams::default().limit(1))
        .await
        .expect("list")
        .metadata
        .resource_version
        .expect("list rv");
    let name = unique(clock, "watched");
    let mut events = api
        .watch(&WatchParams::default().timeout(60), &rv)
        .await
        .expect("watch");
    api.create(&PostParams::default(), &cm(&name, json!({})))
        .await
        .expect("create");
    api.patch(
        &name,
        &PatchParams::default(),
        &Patch::Merge(json!({"data": {"step": "2"}})),
    )
    .await
    .expect("patch");
    api.delete(&name, &DeleteParams::default())
        .await
        .expect("delete");
    let mut seen = Vec::new();
    while seen.len() < 3 {
        let next =
            futures::future::select(events.next(), clock.sleep(Duration::from_secs(30))).await;
        let event = match next {
            futures::future::Either::Left((Some(e), _)) => e.expect("watch event"),
            futures::future::Either::Left((None, _)) => panic!("watch ended after {seen:?}"),
            futures::future::Either::Right(_) => panic!("no event within 30 s after {seen:?}"),
        };
        let (what, obj) = match event {
            WatchEvent::Added(o) => ("added", o),
            WatchEvent::Modified(o) => ("modified", o),
            WatchEvent::Deleted(o) => ("deleted", o),
            _ => continue,
        };
        if obj.metadata.name.as_deref() == Some(name.as_str()) {
            seen.push(what);
        }
    }
    assert_eq!(seen, ["added", "modified", "deleted"]);
}

/// Discovery finds the demo CRD, and a CRD created now shows up.
pub async fn discovery_finds_crds(client: &RestClient, clock: &dyn Clock) {
    let discovery = DiscoveryClient::new(client.clone());
    let d = discovery.fetch().await.expect("discovery");
    assert!(d.aggregated, "v1.37 serves aggregated discovery");
    let db = d
        .mapper()
        .resource_for("db")
        .expect("the demo CRD by short name");
    assert_eq!(db.group, "demo.kubeglass.dev");

    let suffix = unique(clock, "g");
    let group = format!("{suffix}.test.kubeglass.dev");
    let crd_name = format!("gadgets.{group}");
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    let crd: CustomResourceDefinition = serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": crd_name},
        "spec": {"group": group, "scope": "Namespaced",
                 "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
                 "versions": [{"name": "v1", "served": true, "storage": true,
                               "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}
    }))
    .expect("crd");
    crds.create(&PostParams::default(), &crd)
        .await
        .expect("create CRD");
    let query = format!("gadgets.{group}");
    let mut found = false;
    for _ in 0..100 {
        let d = discovery.fetch().await.expect("discovery");
        if d.mapper().resource_for(&query).is_some() {
            found = true;
            break;
        }
        clock.sleep(Duration::from_millis(200)).await;
    }
    crds.delete(&crd_name, &DeleteParams::default())
        .await
        .expect("delete CRD");
    assert!(found, "the new CRD appeared in discovery within 20 s");
}

/// The restricted user (view on demo-shop only) reads demo-shop and gets a
/// Forbidden error with the server's message elsewhere.
pub async fn restricted_user_is_forbidden(restricted: &RestClient) {
    let allowed: Api<Pod> = Api::namespaced(restricted.clone(), "demo-shop");
    allowed
        .list(&ListParams::default())
        .await
        .expect("the viewer may list pods in demo-shop");
    let everywhere: Api<Pod> = Api::all(restricted.clone());
    let err = everywhere
        .list(&ListParams::default())
        .await
        .expect_err("cluster-wide pods are forbidden");
    let api = err.api().expect("an API error");
    assert!(api.is_forbidden(), "{err}");
    assert!(
        api.message()
            .contains("User \"viewer\" cannot list resource \"pods\""),
        "the server's message is kept: {}",
        api.message()
    );
    let secrets: Api<ConfigMap> = Api::namespaced(restricted.clone(), "default");
    let err = secrets
        .create(&PostParams::default(), &cm("nope", json!({})))
        .await
        .expect_err("no writes");
    assert!(err.api().is_some_and(|a| a.is_forbidden()));
}

/// The events.k8s.io/v1 sink writes an Event and turns a repeat into a series.
pub async fn events_v1_sink(client: &RestClient, clock: Rc<dyn Clock>) {
    use k8s_openapi::api::core::v1::{Event, EventSource, ObjectReference};
    use kubeglass_client::record::{ApiSink, EventSink, EventsApi};
    let discovery = DiscoveryClient::new(client.clone())
        .fetch()
        .await
        .expect("discovery");
    let sink = ApiSink::for_server(client.clone(), &discovery, clock.clone());
    assert_eq!(
        sink.api(),
        EventsApi::EventsV1,
        "v1.37 offers events.k8s.io/v1"
    );
    let name = unique(clock.as_ref(), "kubeglass-test");
    let event = Event {
        metadata: kube_core::ObjectMeta {
            name: Some(name.clone()),
            namespace: Some(NAMESPACE.into()),
            ..Default::default()
        },
        involved_object: ObjectReference {
            api_version: Some("v1".into()),
            kind: Some("ConfigMap".into()),
            namespace: Some(NAMESPACE.into()),
            name: Some(name.clone()),
            ..Default::default()
        },
        reason: Some("Tested".into()),
        message: Some("written by the events.k8s.io/v1 sink".into()),
        type_: Some("Normal".into()),
        source: Some(EventSource {
            component: Some("kubeglass".into()),
            host: None,
        }),
        reporting_component: Some("kubeglass".into()),
        reporting_instance: Some("kubeglass".into()),
        ..Default::default()
    };
    sink.create(&event).await.expect("create");
    let patched = sink
        .patch(
            NAMESPACE,
            &name,
            json!({"count": 2, "message": "written twice"}),
        )
        .await
        .expect("patch into a series");
    assert_eq!(patched.count, Some(2));
    let v1: Api<k8s_openapi::api::events::v1::Event> = Api::namespaced(client.clone(), NAMESPACE);
    let got = v1.get(&name).await.expect("get");
    assert_eq!(got.reporting_controller.as_deref(), Some("kubeglass"));
    assert_eq!(got.series.map(|s| s.count), Some(2));
    assert_eq!(
        got.note.as_deref(),
        Some("written by the events.k8s.io/v1 sink"),
        "note is immutable in events.k8s.io/v1"
    );
    v1.delete(&name, &DeleteParams::default())
        .await
        .expect("delete");
}
