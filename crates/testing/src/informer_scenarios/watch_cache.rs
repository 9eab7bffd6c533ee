//! The relist that follows a 410 when an informer's version has left the
//! apiserver's watch cache (no compaction): exactly one LIST, counted by
//! the apiserver itself.

use std::rc::Rc;
use std::time::Duration;

use kube_core::params::{DeleteParams, PostParams};
use kube_core::{ApiResource, DynamicObject, GroupVersionKind};
use serde_json::json;

use super::{control, with_informer};
use kubeglass_client::api::Api;
use kubeglass_client::cache::{InformerOptions, SharedInformer};
use kubeglass_client::clock::Clock;
use kubeglass_client::rest::RestClient;

/// LISTs of `group` the apiserver has answered so far, from its own
/// `apiserver_request_total` (any code).
async fn lists_served(admin: &RestClient, group: &str) -> u64 {
    let req = http::Request::get("/metrics")
        .body(Vec::new())
        .expect("metrics request");
    let body = admin.send_raw(req).await.expect("the apiserver's /metrics");
    let text = String::from_utf8_lossy(&body);
    let group = format!("group=\"{group}\"");
    text.lines()
        .filter(|l| l.starts_with("apiserver_request_total{"))
        .filter(|l| l.contains(&group) && l.contains("verb=\"LIST\""))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum::<f64>() as u64
}

/// The relist loop after a 410 (the issue measured ~10 LISTs a second):
/// an informer is cut off (its proxy killed) for longer than the watch
/// cache keeps events, while its resource changes enough that the
/// informer's resourceVersion leaves the cache, with **no** etcd
/// compaction. Back online, the watch at the old version gets 410; the
/// relist must be answered by the watch cache ("not older than"), not as an
/// Exact read of the old revision from etcd, so it takes exactly one LIST,
/// counted by the apiserver itself, and an object created afterwards
/// arrives through the new watch.
///
/// The resource is a CRD made for this run (its own watch cache, starting
/// at 100 events, and its own request counter). The cache keeps events for
/// 75 s before it evicts them when full, so the outage is a fixed 80 s: a
/// property of the server's cache, not an event the test could await.
pub async fn informer_relists_once_when_its_version_left_the_watch_cache(
    via: &RestClient,
    admin: &RestClient,
    control_client: &RestClient,
    clock: Rc<dyn Clock>,
) -> u64 {
    let (crd_api, crd_name, api, group) = probe_crd(admin, &*clock).await;
    let informer = SharedInformer::new(
        via.clone(),
        clock.clone(),
        InformerOptions::<DynamicObject>::new(api.path()),
    );
    // As in the app, whoever sees the proxy back (its prober there, this
    // test here) cuts the connection backoff short.
    let reconnect = kubeglass_client::reconnect::Reconnect::new();
    informer.set_reconnect(reconnect.clone());
    let result = with_informer(&informer, async {
        informer.wait_synced().await;
        let relists_before = informer.snapshot().relists;
        control(control_client, "/proxy/stop").await;
        clock.sleep(Duration::from_secs(80)).await;
        for step in 1..=300 {
            let patch = json!({"step": step});
            api.patch(
                "p-0",
                &kube_core::params::PatchParams::default(),
                &kube_core::params::Patch::Merge(&patch),
            )
            .await
            .map_err(|e| format!("patch while the proxy is down: {e}"))?;
        }
        let before = lists_served(admin, &group).await;
        control(control_client, "/proxy/start").await;
        reconnect.notify();
        api.create(&PostParams::default(), &probe(&group, "after"))
            .await
            .map_err(|e| format!("create after the proxy returned: {e}"))?;
        let end = clock.now() + Duration::from_secs(30);
        while informer.lister().get("after").is_none() {
            if clock.now() > end {
                return Err(format!(
                    "an object created after the proxy returned never arrived: {} LISTs since, status {:?}",
                    lists_served(admin, &group).await - before,
                    informer.snapshot()
                ));
            }
            clock.sleep(Duration::from_millis(100)).await;
        }
        let lists = lists_served(admin, &group).await - before;
        Ok::<_, String>((lists, informer.snapshot().relists - relists_before))
    })
    .await;
    let _ = crd_api.delete(&crd_name, &DeleteParams::default()).await;
    let (lists, relists) = result.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(relists, 1, "one relist after the 410");
    assert_eq!(
        lists, 1,
        "exactly one LIST reached the apiserver, then a watch"
    );
    lists
}

/// A cluster-scoped CRD made for this run (`probes.<group>`), serving,
/// with five probes `p-0`…`p-4`: the CRD's API, its name, the probes' API
/// and the group.
async fn probe_crd(
    admin: &RestClient,
    clock: &dyn Clock,
) -> (Api<DynamicObject>, String, Api<DynamicObject>, String) {
    let group = format!(
        "relist{}.test.kubeglass.dev",
        clock.now().as_millis() % 100_000_000
    );
    let crds = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("apiextensions.k8s.io", "v1", "CustomResourceDefinition"),
        "customresourcedefinitions",
    );
    let crd_api: Api<DynamicObject> = Api::all_with(admin.clone(), &crds);
    let crd_name = format!("probes.{group}");
    let crd: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": crd_name},
        "spec": {"group": group, "scope": "Cluster",
            "names": {"plural": "probes", "singular": "probe", "kind": "Probe", "listKind": "ProbeList"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}
    }))
    .expect("crd");
    crd_api
        .create(&PostParams::default(), &crd)
        .await
        .expect("create the probe CRD");
    let probes =
        ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk(&group, "v1", "Probe"), "probes");
    let api: Api<DynamicObject> = Api::all_with(admin.clone(), &probes);
    // Established: the first create succeeds once the CRD serves.
    let end = clock.now() + Duration::from_secs(30);
    loop {
        match api
            .create(&PostParams::default(), &probe(&group, "p-0"))
            .await
        {
            Ok(_) => break,
            Err(e) if clock.now() < end => {
                let _ = e;
                clock.sleep(Duration::from_millis(200)).await;
            }
            Err(e) => panic!("the probe CRD never served: {e}"),
        }
    }
    for i in 1..5 {
        api.create(&PostParams::default(), &probe(&group, &format!("p-{i}")))
            .await
            .expect("seed");
    }
    (crd_api, crd_name, api, group)
}

/// A probe object of `group` called `name`.
fn probe(group: &str, name: &str) -> DynamicObject {
    serde_json::from_value(json!({"apiVersion": format!("{group}/v1"), "kind": "Probe",
        "metadata": {"name": name}, "step": 0}))
    .expect("probe")
}
