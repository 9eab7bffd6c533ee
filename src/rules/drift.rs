//! Drift: how the live object left the manifest `kubectl apply` last applied, for the fields that manifest sets, compared as the server stores them (a `null` is "absent", quantities by value, merge-keyed lists by key) so nothing the server merely normalised is called drift.

use kubeglass_kubectl::usage::quantity;
use serde_json::Value;

use crate::rules::versions::{FieldChange, Seg, get_at};

/// `kubectl apply`'s record of the manifest it last applied.
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// How the live object differs from what `kubectl apply` last applied, for
/// the fields that manifest sets (fields it leaves to the server or to
/// other writers are not drift): `old` is the applied value, `new` the live
/// one. None when there is no record, or it does not read as an object.
pub fn drift(object: &Value) -> Option<Vec<FieldChange>> {
    let text = object
        .pointer("/metadata/annotations")?
        .get(LAST_APPLIED)?
        .as_str()?;
    let applied: Value = serde_json::from_str(text).ok().filter(Value::is_object)?;
    let mut out = Vec::new();
    let mut walk = Walk {
        live: object,
        at: Vec::new(),
        out: &mut out,
    };
    walk.leaves(&applied, "", None, None);
    Some(out)
}

/// The key that names an item of the list at `key` where apply merges
/// that list item by item (strategic merge's `patchMergeKey`), for the
/// lists manifests set most; `item` is the applied item (a container's
/// ports are keyed by `containerPort`, a Service's by `port`).
fn merge_key(key: &str, item: &Value) -> Option<&'static str> {
    Some(match key {
        "containers"
        | "initContainers"
        | "ephemeralContainers"
        | "env"
        | "volumes"
        | "imagePullSecrets" => "name",
        "volumeMounts" => "mountPath",
        "volumeDevices" => "devicePath",
        "hostAliases" => "ip",
        "ports" if item.get("containerPort").is_some() => "containerPort",
        "ports" => "port",
        _ => return None,
    })
}

/// The maps whose values are resource quantities (requests, limits, a
/// quota's hard, a node's capacity …): `0.5` and `500m` are the same.
const QUANTITY_MAPS: [&str; 11] = [
    "limits",
    "requests",
    "hard",
    "used",
    "capacity",
    "allocatable",
    "default",
    "defaultRequest",
    "min",
    "max",
    "overhead",
];

/// True when `a` and `b` are the same quantity written two ways.
fn same_quantity(a: &Value, b: &Value) -> bool {
    let read = |v: &Value| match v {
        Value::String(s) => quantity::value(s),
        Value::Number(n) => n.as_f64(),
        _ => None,
    };
    match (read(a), read(b)) {
        (Some(x), Some(y)) => x == y || (x - y).abs() <= 1e-9 * x.abs().max(y.abs()),
        _ => false,
    }
}

/// One walk of the applied manifest beside the live object.
struct Walk<'a> {
    live: &'a Value,
    /// Where in the live object the walk is.
    at: Vec<Seg>,
    out: &'a mut Vec<FieldChange>,
}

impl Walk<'_> {
    /// Compares `applied`, found at `path` (the live object's path) under
    /// the key `own` of a map itself under the key `map`, with the live
    /// value there.
    fn leaves(&mut self, applied: &Value, path: &str, own: Option<&str>, map: Option<&str>) {
        let here = get_at(self.live, &self.at);
        match applied {
            // A null in a manifest sets nothing (`creationTimestamp: null`
            // in what `kubectl create --dry-run -o yaml` writes), and an
            // empty map sets nothing either (`strategy: {}`, `annotations: {}`).
            Value::Null => {}
            Value::Object(m) if m.is_empty() => {}
            Value::Object(m) => {
                for (k, v) in m {
                    self.at.push(Seg::Key(k.clone()));
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    self.leaves(v, &p, Some(k), own);
                    self.at.pop();
                }
            }
            Value::Array(items) => match here.and_then(Value::as_array) {
                Some(live) => self.list(items, live, path, own),
                None => self.differs(applied, path),
            },
            v if here == Some(v) => {}
            v if map.is_some_and(|k| QUANTITY_MAPS.contains(&k))
                && here.is_some_and(|h| same_quantity(v, h)) => {}
            v => self.differs(v, path),
        }
    }

    /// A list: item by merge key where apply merges it so, else item by
    /// index when both are as long, else whole.
    fn list(&mut self, items: &[Value], live: &[Value], path: &str, parent: Option<&str>) {
        let keyed = items.iter().all(|i| {
            parent
                .and_then(|k| merge_key(k, i))
                .is_some_and(|key| i.get(key).is_some())
        });
        if keyed {
            for item in items {
                let Some(key) = parent.and_then(|k| merge_key(k, item)) else {
                    continue;
                };
                let name = &item[key];
                match live.iter().position(|l| l.get(key) == Some(name)) {
                    Some(j) => {
                        self.at.push(Seg::Index(j));
                        self.leaves(item, &format!("{path}[{j}]"), None, None);
                        self.at.pop();
                    }
                    None => {
                        let shown = name.as_str().map_or_else(|| name.to_string(), String::from);
                        self.out.push(FieldChange {
                            path: format!("{path}[{key}={shown}]"),
                            at: self.at.clone(),
                            old: Some(item.clone()),
                            new: None,
                        });
                    }
                }
            }
        } else if items.len() == live.len() {
            for (i, item) in items.iter().enumerate() {
                self.at.push(Seg::Index(i));
                self.leaves(item, &format!("{path}[{i}]"), None, None);
                self.at.pop();
            }
        } else {
            self.differs(&Value::Array(items.to_vec()), path);
        }
    }

    fn differs(&mut self, applied: &Value, path: &str) {
        let here = get_at(self.live, &self.at).cloned();
        self.out.push(FieldChange {
            path: path.to_string(),
            at: self.at.clone(),
            old: Some(applied.clone()),
            new: here,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// What the server stores for `applied`, applied by `kubectl apply`.
    fn stored(applied: &Value) -> Value {
        let mut live = applied.clone();
        live["metadata"]["annotations"] = json!({LAST_APPLIED: applied.to_string()});
        live
    }

    fn paths(d: &[FieldChange]) -> Vec<&str> {
        d.iter().map(|c| c.path.as_str()).collect()
    }

    /// `kubectl create deployment web --image=nginx:1.27 --port=8080
    /// --replicas=2 --dry-run=client -o yaml | kubectl set env --local -f -
    /// FOO=bar MODE=fast -o yaml | kubectl set resources --local -f -
    /// --limits=cpu=0.5,memory=256Mi --requests=cpu=250m,memory=0.125Gi -o
    /// yaml`, as JSON (kubectl's own quantities already normalised).
    fn made_by_kubectl() -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"creationTimestamp": null, "labels": {"app": "web"}, "name": "web"},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}}, "strategy": {},
                "template": {"metadata": {"creationTimestamp": null, "labels": {"app": "web"}},
                    "spec": {"containers": [{
                        "env": [{"name": "FOO", "value": "bar"}, {"name": "MODE", "value": "fast"}],
                        "image": "nginx:1.27", "name": "nginx",
                        "ports": [{"containerPort": 8080}],
                        "resources": {"limits": {"cpu": "500m", "memory": "256Mi"},
                            "requests": {"cpu": "250m", "memory": "128Mi"}}}]}}},
            "status": {}})
    }

    #[test]
    fn a_manifest_kubectl_made_has_no_drift_as_the_server_stores_it() {
        let applied = made_by_kubectl();
        let mut live = stored(&applied);
        // What the server and its controllers add or normalise.
        live["metadata"]["creationTimestamp"] = json!("2026-12-06T10:00:00Z");
        live["spec"]["strategy"] =
            json!({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%"}});
        live["spec"]["template"]["metadata"]["creationTimestamp"] = Value::Null;
        live["spec"]["template"]["spec"]["containers"][0]["ports"][0]["protocol"] = json!("TCP");
        live["spec"]["template"]["spec"]["containers"][0]["terminationMessagePath"] =
            json!("/dev/termination-log");
        live["status"] = json!({"replicas": 2});
        assert_eq!(paths(&drift(&live).expect("a record")), Vec::<&str>::new());
    }

    #[test]
    fn quantities_compare_by_value() {
        let mut applied = made_by_kubectl();
        let resources = &mut applied["spec"]["template"]["spec"]["containers"][0]["resources"];
        resources["limits"]["cpu"] = json!(0.5);
        resources["requests"]["memory"] = json!("0.125Gi");
        let mut live = stored(&applied);
        let r = &mut live["spec"]["template"]["spec"]["containers"][0]["resources"];
        r["limits"]["cpu"] = json!("500m");
        r["requests"]["memory"] = json!("128Mi");
        assert_eq!(paths(&drift(&live).expect("a record")), Vec::<&str>::new());
        live["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["cpu"] =
            json!("600m");
        assert_eq!(
            paths(&drift(&live).expect("a record")),
            ["spec.template.spec.containers[0].resources.limits.cpu"]
        );
        // Only in maps of quantities: elsewhere text is text.
        let mut applied = made_by_kubectl();
        applied["metadata"]["labels"]["version"] = json!("1");
        let mut live = stored(&applied);
        live["metadata"]["labels"]["version"] = json!("1.0");
        assert_eq!(
            paths(&drift(&live).expect("a record")),
            ["metadata.labels.version"]
        );
    }

    #[test]
    fn lists_apply_merges_by_key_compare_by_key() {
        let applied = made_by_kubectl();
        let mut live = stored(&applied);
        let c = &mut live["spec"]["template"]["spec"]["containers"];
        // A sidecar injected in front, and env reordered with one added.
        let nginx = c[0].clone();
        *c = json!([{"name": "proxy", "image": "envoy"}, nginx]);
        c[1]["env"] = json!([{"name": "INJECTED", "value": "1"},
            {"name": "MODE", "value": "fast"}, {"name": "FOO", "value": "bar"}]);
        assert_eq!(paths(&drift(&live).expect("a record")), Vec::<&str>::new());
        live["spec"]["template"]["spec"]["containers"][1]["env"][1]["value"] = json!("slow");
        live["spec"]["template"]["spec"]["containers"][1]["ports"] =
            json!([{"containerPort": 9090}]);
        assert_eq!(
            paths(&drift(&live).expect("a record")),
            [
                "spec.template.spec.containers[1].env[1].value",
                "spec.template.spec.containers[1].ports[containerPort=8080]"
            ]
        );
        // A Service's ports, by port.
        let svc = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
            "spec": {"ports": [{"name": "80-8080", "port": 80, "protocol": "TCP", "targetPort": 8080},
                {"name": "443-8443", "port": 443, "protocol": "TCP", "targetPort": 8443}]}});
        let mut live = stored(&svc);
        live["spec"]["ports"] = json!([
            {"name": "443-8443", "port": 443, "protocol": "TCP", "targetPort": 8443},
            {"name": "80-8080", "port": 80, "protocol": "TCP", "targetPort": 8081}]);
        assert_eq!(
            paths(&drift(&live).expect("a record")),
            ["spec.ports[1].targetPort"]
        );
    }

    #[test]
    fn drift_is_where_the_live_object_left_the_applied_manifest() {
        let applied = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web"}, "annotations": {}},
            "spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "c", "image": "web:1"}]}}}});
        let mut live = applied.clone();
        live["metadata"]["annotations"] = json!({LAST_APPLIED: applied.to_string()});
        live["metadata"]["resourceVersion"] = json!("9");
        live["metadata"]["labels"]["added"] = json!("by-someone");
        live["spec"]["strategy"] = json!({"type": "RollingUpdate"});
        live["status"] = json!({"replicas": 1});
        assert_eq!(
            drift(&live).expect("a record"),
            [],
            "the server's and others' fields are not drift"
        );
        live["spec"]["replicas"] = json!(3);
        live["spec"]["template"]["spec"]["containers"][0]["image"] = json!("web:2");
        live["metadata"]["labels"]
            .as_object_mut()
            .expect("labels")
            .remove("app");
        let d = drift(&live).expect("a record");
        let seen: Vec<(&str, Option<&Value>, Option<&Value>)> = d
            .iter()
            .map(|c| (c.path.as_str(), c.old.as_ref(), c.new.as_ref()))
            .collect();
        assert_eq!(
            seen,
            [
                ("metadata.labels.app", Some(&json!("web")), None),
                ("spec.replicas", Some(&json!(1)), Some(&json!(3))),
                (
                    "spec.template.spec.containers[0].image",
                    Some(&json!("web:1")),
                    Some(&json!("web:2"))
                ),
            ]
        );
        assert_eq!(drift(&applied), None, "no record");
        let mut broken = applied.clone();
        broken["metadata"]["annotations"] = json!({LAST_APPLIED: "{not json"});
        assert_eq!(drift(&broken), None);
    }
}
