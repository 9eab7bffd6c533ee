//! The ports a pod, Service or Deployment offers to a port-forward: TCP
//! only (kubectl port-forward forwards nothing else), each once, labelled
//! as `kubectl describe` shows them (`8080/TCP http`).

use kubeglass_kubectl::forwards::ForwardKind;
use serde_json::Value;

/// The object's ports to forward, with their labels, in its order.
pub fn forward_ports(kind: ForwardKind, object: &Value) -> Vec<(u16, String)> {
    let entries: Vec<&Value> = match kind {
        ForwardKind::Pod => container_ports(&object["spec"]),
        ForwardKind::Deployment => container_ports(&object["spec"]["template"]["spec"]),
        ForwardKind::Service => object["spec"]["ports"]
            .as_array()
            .map(|a| a.iter().collect())
            .unwrap_or_default(),
    };
    let field = match kind {
        ForwardKind::Service => "port",
        _ => "containerPort",
    };
    let mut out: Vec<(u16, String)> = Vec::new();
    for e in entries {
        let protocol = e["protocol"].as_str().unwrap_or("TCP");
        let Some(port) = e[field]
            .as_u64()
            .and_then(|p| u16::try_from(p).ok())
            .filter(|p| *p > 0)
        else {
            continue;
        };
        if protocol != "TCP" || out.iter().any(|(p, _)| *p == port) {
            continue;
        }
        let label = match e["name"].as_str() {
            Some(n) if !n.is_empty() => format!("{port}/TCP {n}"),
            _ => format!("{port}/TCP"),
        };
        out.push((port, label));
    }
    out
}

fn container_ports(pod_spec: &Value) -> Vec<&Value> {
    pod_spec["containers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["ports"].as_array())
        .flatten()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tcp_ports_once_each_with_their_names() {
        let pod = json!({"spec": {"containers": [
            {"name": "web", "ports": [{"containerPort": 8080, "name": "http"}, {"containerPort": 53, "protocol": "UDP"}]},
            {"name": "side", "ports": [{"containerPort": 9090}, {"containerPort": 8080}]},
        ]}});
        assert_eq!(
            forward_ports(ForwardKind::Pod, &pod),
            [
                (8080, "8080/TCP http".to_string()),
                (9090, "9090/TCP".to_string())
            ]
        );
        let svc = json!({"spec": {"ports": [{"port": 80, "targetPort": 8080, "name": "web"}, {"port": 70000}]}});
        assert_eq!(
            forward_ports(ForwardKind::Service, &svc),
            [(80, "80/TCP web".to_string())]
        );
        let deploy = json!({"spec": {"template": {"spec": {"containers": [{"ports": [{"containerPort": 3000}]}]}}}});
        assert_eq!(
            forward_ports(ForwardKind::Deployment, &deploy),
            [(3000, "3000/TCP".to_string())]
        );
        assert!(forward_ports(ForwardKind::Service, &json!({"spec": {}})).is_empty());
    }
}
