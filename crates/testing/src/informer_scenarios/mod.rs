//! Informer scenarios against the real apiserver, shared by the native and
//! in-browser integration tests: heavy churn, a `kubectl proxy` killed and
//! restarted mid-watch, and etcd compacted while the watch is down.
//!
//! The fault scenarios need `hack/test-control.py` (started by `make
//! test`): `control` is a client for it, `via` a client for the proxy it
//! owns, `admin` a client for a proxy that stays up.

use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::Duration;

use futures::future::{Either, select};
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, PodTemplate};
use kube_core::Resource;
use kube_core::params::{DeleteParams, ListParams, PostParams};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::json;

use kubeglass_client::api::Api;
use kubeglass_client::cache::{InformerOptions, Notification, SharedInformer, object_key};
use kubeglass_client::clock::Clock;
use kubeglass_client::rest::RestClient;

mod watch_cache;
pub use watch_cache::informer_relists_once_when_its_version_left_the_watch_cache;

type View = BTreeMap<String, String>;

fn view<K: Resource>(objs: impl IntoIterator<Item = impl AsRef<K>>) -> View {
    objs.into_iter()
        .map(|o| {
            let o = o.as_ref();
            (
                object_key(o),
                o.meta().resource_version.clone().unwrap_or_default(),
            )
        })
        .collect()
}

/// Runs `body` while `informer` runs; returns what `body` returns.
async fn with_informer<K, T>(
    informer: &SharedInformer<K>,
    body: impl std::future::Future<Output = T>,
) -> T
where
    K: Resource + DeserializeOwned + Clone + 'static,
{
    let run = Box::pin(informer.run());
    let body = Box::pin(body);
    match select(body, run).await {
        Either::Left((out, _)) => out,
        Either::Right(((), _)) => unreachable!("an informer runs until dropped"),
    }
}

/// Polls until the informer's cache equals a fresh LIST (names and
/// resourceVersions), for up to `secs`; returns the last difference seen.
async fn converge<K>(
    informer: &SharedInformer<K>,
    api: &Api<K>,
    clock: &dyn Clock,
    secs: u64,
) -> Result<View, String>
where
    K: Resource + DeserializeOwned + Clone + Serialize + std::fmt::Debug + 'static,
    K::DynamicType: Default + Clone,
{
    let end = clock.now() + Duration::from_secs(secs);
    loop {
        let truth = view::<K>(
            api.list(&ListParams::default())
                .await
                .map_err(|e| format!("fresh LIST: {e}"))?
                .items
                .iter()
                .map(|o| Rc::new(o.clone())),
        );
        let cached = view::<K>(informer.indexer().borrow().list());
        if cached == truth {
            return Ok(truth);
        }
        if clock.now() > end {
            let missing: Vec<_> = truth
                .keys()
                .filter(|k| !cached.contains_key(*k))
                .take(5)
                .collect();
            let extra: Vec<_> = cached
                .keys()
                .filter(|k| !truth.contains_key(*k))
                .take(5)
                .collect();
            return Err(format!(
                "cache ({}) never matched the server ({}): missing {missing:?}, extra {extra:?}; status {:?}",
                cached.len(),
                truth.len(),
                informer.snapshot()
            ));
        }
        clock.sleep(Duration::from_millis(250)).await;
    }
}

/// Polls `cond` every 50 ms until it holds, or fails after `secs` seconds
/// saying what it waited for.
async fn wait_for(
    clock: &dyn Clock,
    secs: u64,
    what: &str,
    cond: impl Fn() -> bool,
) -> Result<(), String> {
    let deadline = clock.now() + Duration::from_secs(secs);
    while !cond() {
        if clock.now() > deadline {
            return Err(format!("waited {secs}s for {what}"));
        }
        clock.sleep(Duration::from_millis(50)).await;
    }
    Ok(())
}

async fn namespace(admin: &RestClient, clock: &dyn Clock, prefix: &str) -> String {
    let name = format!("{prefix}-{}", clock.now().as_millis() % 100_000_000);
    let ns: Namespace =
        serde_json::from_value(json!({"metadata": {"name": name}})).expect("namespace");
    Api::<Namespace>::all(admin.clone())
        .create(&PostParams::default(), &ns)
        .await
        .expect("create the test namespace");
    name
}

async fn drop_namespace(admin: &RestClient, name: &str) {
    let _ = Api::<Namespace>::all(admin.clone())
        .delete(name, &DeleteParams::default())
        .await;
}

fn configmap(name: &str, step: u32) -> ConfigMap {
    serde_json::from_value(
        json!({"metadata": {"name": name, "labels": {"suite": "informer"}},
                                  "data": {"step": step.to_string(), "pad": "x".repeat(512)}}),
    )
    .expect("configmap")
}

fn podtemplate(name: &str) -> PodTemplate {
    serde_json::from_value(json!({"metadata": {"name": name},
        "template": {"spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}}}))
    .expect("podtemplate")
}

/// Records every notification onto a map (the replay check).
fn replaying<K>(informer: &SharedInformer<K>) -> Rc<std::cell::RefCell<View>>
where
    K: Resource + DeserializeOwned + Clone + 'static,
{
    let replay: Rc<std::cell::RefCell<View>> = Rc::default();
    let r = replay.clone();
    informer.add_handler(
        move |n: &Notification<K>| {
            let mut r = r.borrow_mut();
            match n {
                Notification::Added { object, .. } => {
                    r.insert(object_key(object.as_ref()), rv(object.as_ref()));
                }
                Notification::Updated { new, .. } => {
                    r.insert(object_key(new.as_ref()), rv(new.as_ref()));
                }
                Notification::Deleted { object, .. } => {
                    r.remove(&object_key(object.as_ref()));
                }
            }
        },
        None,
    );
    replay
}

fn rv<K: Resource>(o: &K) -> String {
    o.meta().resource_version.clone().unwrap_or_default()
}

async fn control(control: &RestClient, path: &str) {
    let req = http::Request::post(path)
        .body(Vec::new())
        .expect("control request");
    control
        .send_raw(req)
        .await
        .unwrap_or_else(|e| panic!("test control {path}: {e}"));
}

/// `count` objects of churn while an informer runs: creates, then updates
/// of a quarter, then deletes of another quarter. The cache must end equal
/// to a fresh LIST, the handler's replay too, with a single list.
pub async fn informer_converges_under_churn(
    admin: &RestClient,
    clock: Rc<dyn Clock>,
    count: u32,
    streaming: bool,
) {
    let ns = namespace(admin, clock.as_ref(), "churn").await;
    let api: Api<ConfigMap> = Api::namespaced(admin.clone(), &ns);
    let mut options = InformerOptions::<ConfigMap>::new(api.path());
    options.reflector.watch_list = streaming;
    let informer = SharedInformer::new(admin.clone(), clock.clone(), options);
    let replay = replaying(&informer);
    let result = with_informer(&informer, async {
        informer.wait_synced().await;
        let name = |i: u32| format!("cm-{i:05}");
        for chunk in (0..count).collect::<Vec<_>>().chunks(6) {
            let api = &api;
            let creates = chunk.iter().map(|i| async move {
                api.create(&PostParams::default(), &configmap(&name(*i), 1))
                    .await
            });
            for r in futures::future::join_all(creates).await {
                r.map_err(|e| format!("create: {e}"))?;
            }
        }
        let quarter = count / 4;
        for chunk in (0..quarter).collect::<Vec<_>>().chunks(6) {
            let api = &api;
            let updates = chunk.iter().map(|i| async move {
                api.replace(&name(*i), &PostParams::default(), &configmap(&name(*i), 2))
                    .await
            });
            for r in futures::future::join_all(updates).await {
                r.map_err(|e| format!("update: {e}"))?;
            }
        }
        for chunk in (quarter..2 * quarter).collect::<Vec<_>>().chunks(6) {
            let api = &api;
            let deletes = chunk
                .iter()
                .map(|i| async move { api.delete(&name(*i), &DeleteParams::default()).await });
            for r in futures::future::join_all(deletes).await {
                r.map_err(|e| format!("delete: {e}"))?;
            }
        }
        converge(&informer, &api, clock.as_ref(), 60).await
    })
    .await;
    drop_namespace(admin, &ns).await;
    let truth = result.unwrap_or_else(|e| panic!("{e}"));
    // kube-root-ca.crt is published into every namespace too.
    let ours = truth.keys().filter(|k| k.contains("/cm-")).count() as u32;
    assert_eq!(ours, count - count / 4, "objects left after the churn");
    assert_eq!(
        *replay.borrow(),
        truth,
        "the handler's replay equals the server"
    );
    let status = informer.snapshot();
    assert_eq!(
        status.reflector.lists + status.reflector.watch_lists,
        1,
        "one initial list, no relist: {status:?}"
    );
    assert!(
        status.reflector.added >= u64::from(count),
        "the watch delivered the creates: {status:?}"
    );
}

/// The proxy the informer talks to is killed mid-watch and restarted while
/// objects change; the informer resumes its watch from its resourceVersion
/// with no relist (counted: exactly one LIST request on that client).
pub async fn informer_resumes_after_proxy_restart(
    via: &RestClient,
    admin: &RestClient,
    control_client: &RestClient,
    clock: Rc<dyn Clock>,
) {
    let ns = namespace(admin, clock.as_ref(), "restart").await;
    let admin_api: Api<ConfigMap> = Api::namespaced(admin.clone(), &ns);
    for i in 0..20 {
        admin_api
            .create(
                &PostParams::default(),
                &configmap(&format!("before-{i}"), 1),
            )
            .await
            .expect("seed");
    }
    let informer = SharedInformer::new(
        via.clone(),
        clock.clone(),
        InformerOptions::<ConfigMap>::new(admin_api.path()),
    );
    let result = with_informer(&informer, async {
        informer.wait_synced().await;
        let watches_before = informer.snapshot().reflector.watches;
        control(control_client, "/proxy/stop").await;
        // The changes below must happen while the informer cannot see them:
        // wait until its watch has broken and a reconnect found nobody there.
        wait_for(
            clock.as_ref(),
            30,
            "the informer to find the proxy gone",
            || informer.snapshot().reflector.unreachable,
        )
        .await?;
        for i in 0..10 {
            admin_api
                .create(
                    &PostParams::default(),
                    &configmap(&format!("during-{i}"), 1),
                )
                .await
                .map_err(|e| format!("create while the proxy is down: {e}"))?;
        }
        for i in 0..5 {
            admin_api
                .delete(&format!("before-{i}"), &DeleteParams::default())
                .await
                .map_err(|e| format!("delete while the proxy is down: {e}"))?;
        }
        control(control_client, "/proxy/start").await;
        let truth = converge(&informer, &admin_api, clock.as_ref(), 60).await?;
        Ok::<_, String>((truth, watches_before))
    })
    .await;
    drop_namespace(admin, &ns).await;
    let (truth, watches_before) = result.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(truth.keys().filter(|k| k.contains("/during-")).count(), 10);
    let status = informer.snapshot();
    assert_eq!(status.reflector.lists, 1, "no relist: {status:?}");
    assert!(
        status.reflector.watches > watches_before,
        "the watch was re-opened: {status:?}"
    );
    assert!(
        status.reflector.errors >= 1,
        "the outage was seen: {status:?}"
    );
    let lists: u64 = via
        .metrics()
        .by_verb_code
        .iter()
        .filter(|((verb, _), _)| verb == "LIST")
        .map(|(_, s)| s.count)
        .sum();
    assert_eq!(lists, 1, "LIST requests through the restarted proxy");
}

/// etcd is compacted while the watch is down (proxy stopped): the informer's
/// watch gets 410 Gone on return, it relists, and the cache is right.
/// PodTemplates bypass the apiserver's watch cache (`hack/cluster.sh`), so
/// the 410 comes from etcd itself.
pub async fn informer_relists_after_compaction(
    via: &RestClient,
    admin: &RestClient,
    control_client: &RestClient,
    clock: Rc<dyn Clock>,
) {
    let ns = namespace(admin, clock.as_ref(), "compact").await;
    let admin_api: Api<PodTemplate> = Api::namespaced(admin.clone(), &ns);
    for i in 0..5 {
        admin_api
            .create(&PostParams::default(), &podtemplate(&format!("before-{i}")))
            .await
            .expect("seed");
    }
    let informer = SharedInformer::new(
        via.clone(),
        clock.clone(),
        InformerOptions::<PodTemplate>::new(admin_api.path()),
    );
    let replay = replaying(&informer);
    let result = with_informer(&informer, async {
        informer.wait_synced().await;
        control(control_client, "/proxy/stop").await;
        for i in 0..5 {
            admin_api
                .create(&PostParams::default(), &podtemplate(&format!("during-{i}")))
                .await
                .map_err(|e| format!("create while the proxy is down: {e}"))?;
        }
        for i in 0..2 {
            admin_api
                .delete(&format!("before-{i}"), &DeleteParams::default())
                .await
                .map_err(|e| format!("delete while the proxy is down: {e}"))?;
        }
        control(control_client, "/etcd/compact").await;
        control(control_client, "/proxy/start").await;
        converge(&informer, &admin_api, clock.as_ref(), 60).await
    })
    .await;
    drop_namespace(admin, &ns).await;
    let truth = result.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(truth.len(), 8);
    assert_eq!(
        *replay.borrow(),
        truth,
        "deletes missed during the outage were reported"
    );
    let status = informer.snapshot();
    assert!(status.relists >= 1, "a relist after 410: {status:?}");
}

/// A Table-format informer on the demo CRD (databases.demo.kubeglass.dev)
/// carries its printer columns, and a database created during the test
/// appears as a row with its cells filled in, live.
pub async fn table_informer_shows_crd_columns_live(admin: &RestClient, clock: Rc<dyn Clock>) {
    use kube_core::{ApiResource, DynamicObject, GroupVersionKind};
    use kubeglass_client::rest::table::TableRowObject;

    let ar = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("demo.kubeglass.dev", "v1alpha1", "Database"),
        "databases",
    );
    let ns = namespace(admin, clock.as_ref(), "tables").await;
    let api: Api<DynamicObject> = Api::namespaced_with(admin.clone(), &ns, &ar);
    let mut options = InformerOptions::<TableRowObject>::new(api.path());
    options.reflector = options.reflector.tables();
    let informer = SharedInformer::new(admin.clone(), clock.clone(), options);
    let result = with_informer(&informer, async {
        informer.wait_synced().await;
        let db: DynamicObject = serde_json::from_value(json!({
            "apiVersion": "demo.kubeglass.dev/v1alpha1", "kind": "Database",
            "metadata": {"name": "orders", "labels": {"kubeglass-test": "true"}},
            "spec": {"engine": "postgres", "version": "16", "sizeGiB": 20, "replicas": 2}}))
        .expect("database");
        api.create(&PostParams::default(), &db)
            .await
            .map_err(|e| format!("create: {e}"))?;
        let end = clock.now() + Duration::from_secs(30);
        loop {
            if let Some(row) = informer.lister().namespace(&ns).get("orders") {
                return Ok::<_, String>(row);
            }
            if clock.now() > end {
                return Err("the new database never appeared as a row".into());
            }
            clock.sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
    drop_namespace(admin, &ns).await;
    let row = result.unwrap_or_else(|e| panic!("{e}"));
    let columns: Vec<String> = informer.columns().iter().map(|c| c.name.clone()).collect();
    assert_eq!(
        columns,
        ["Name", "Engine", "Version", "Size", "Replicas", "Age"]
    );
    assert_eq!(row.row.cell_text(0), "orders");
    assert_eq!(row.row.cell_text(1), "postgres");
    assert_eq!(row.row.cell_text(3), "20");
}
