//! Port-forwards as the launcher runs them, against a stand-in kubectl (a
//! shell script that says what `kubectl port-forward` says, or fails as it
//! does). The real kubectl, apiserver and kwok are in
//! e2e/tests/forward.test.mjs.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use kubectl_glass::forward::Forwards;
use kubeglass_kubectl::forwards::{ForwardKind, ForwardRequest};

/// A kubectl that prints where it listens (a port made from the asked
/// one) and waits, or, for `service/broken`, fails as kubectl does.
fn fake_kubectl(dir: &tempfile::TempDir) -> PathBuf {
    let path = dir.path().join("kubectl");
    std::fs::write(
        &path,
        r#"#!/bin/sh
for a in "$@"; do last=$a; case "$a" in service/broken) echo 'error: services "broken" not found' >&2; exit 1;; esac; done
echo "Forwarding from 127.0.0.1:4${last#:} -> ${last#:}"
echo "Forwarding from [::1]:4${last#:} -> ${last#:}"
exec sleep 30
"#,
    )
    .expect("write");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

fn request(name: &str, port: u16) -> ForwardRequest {
    ForwardRequest {
        namespace: "shop".into(),
        kind: ForwardKind::Service,
        name: name.into(),
        port,
    }
}

#[tokio::test]
async fn a_forward_starts_is_listed_and_stops_and_a_failure_says_kubectls_words() {
    let dir = tempfile::tempdir().expect("dir");
    let f = Forwards::new(fake_kubectl(&dir), None, "test".into());
    let a = f.start(request("web", 8080)).await.expect("started");
    assert_eq!((a.id, a.local.as_str()), (1, "127.0.0.1:48080"));
    let b = f.start(request("api", 9090)).await.expect("started");
    assert_eq!(b.id, 2);
    assert_eq!(f.list().iter().map(|x| x.id).collect::<Vec<_>>(), [1, 2]);
    assert!(f.stop(1));
    assert!(!f.stop(1), "stopped once");
    assert_eq!(f.list().iter().map(|x| x.id).collect::<Vec<_>>(), [2]);
    let err = f
        .start(request("broken", 80))
        .await
        .expect_err("kubectl failed");
    assert_eq!(
        err.to_string(),
        r#"kubectl port-forward did not start: error: services "broken" not found"#
    );
    let bad = f
        .start(request("--address=0.0.0.0", 80))
        .await
        .expect_err("not a name");
    assert!(bad.to_string().contains("DNS-1123 subdomain"), "{bad}");
    let answer = f
        .answer(
            "POST",
            br#"{"namespace":"shop","kind":"node","name":"n","port":1}"#,
        )
        .await;
    assert_eq!(answer.status, 400);
    let listed = f.answer("GET", b"").await;
    assert_eq!((listed.status, listed.json), (200, true));
    assert!(listed.body.contains(r#""name":"api""#), "{}", listed.body);
    f.stop_all();
    assert!(f.list().is_empty());
}
