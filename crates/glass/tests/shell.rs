//! A shell in a container at the front door: `pods/<name>/exec` passes to
//! kubectl only as a same-origin WebSocket with the token, in a run that is
//! neither `--read-only` nor `--no-exec`, with the exec subprotocols and
//! never a bearer token in one. A fake kubectl (tests/support); the real
//! one, the apiserver and kwok are in e2e/tests/shell.test.mjs.

mod support;

use hyper::StatusCode;
use kubectl_glass::gate::Mode;
use support::*;

const EXEC: &str =
    "/api/v1/namespaces/demo/pods/web-1/exec?command=%2Fbin%2Fsh&stdin=true&stdout=true&tty=true";

/// A WebSocket handshake for exec as the page sends it, plus `extra`.
fn shell_headers<'a>(extra: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut h = WEBSOCKET.to_vec();
    h.push((
        "sec-websocket-protocol",
        "v5.channel.k8s.io, v4.channel.k8s.io, base64url.bearer.authorization.k8s.io.c2VjcmV0",
    ));
    h.extend_from_slice(extra);
    h
}

#[tokio::test]
async fn a_shell_passes_as_a_same_origin_websocket_with_the_exec_subprotocols() {
    let kubectl = fake_kubectl().await;
    let port = door(&kubectl, Mode::new(false, false)).await;
    let origin = format!("http://{NAME}:{port}");
    let headers = shell_headers(&[("origin", &origin), ("sec-fetch-site", "same-origin")]);
    let a = ask(port, "GET", &api(EXEC), &headers).await;
    assert_eq!(a.status, StatusCode::SWITCHING_PROTOCOLS, "{}", a.body);
    let seen = kubectl.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].uri, EXEC, "the token stays here");
    assert_eq!(
        values(&seen[0].headers, "sec-websocket-protocol"),
        ["v5.channel.k8s.io, v4.channel.k8s.io"],
        "the exec subprotocols pass; a bearer token in one never does"
    );
}

#[tokio::test]
async fn a_shell_is_refused_without_an_upgrade_from_another_origin_and_for_other_connections() {
    let kubectl = fake_kubectl().await;
    let port = door(&kubectl, Mode::new(false, false)).await;
    let plain = ask(port, "GET", &api(EXEC), &[]).await;
    assert_eq!(plain.status, StatusCode::FORBIDDEN);
    assert!(plain.body.contains("only as a WebSocket"), "{}", plain.body);
    let post = ask(port, "POST", &api(EXEC), &shell_headers(&[])).await;
    assert_eq!(post.status, StatusCode::FORBIDDEN, "{}", post.body);
    for evil in [
        shell_headers(&[("origin", "http://evil.example")]),
        shell_headers(&[("sec-fetch-site", "cross-site")]),
        shell_headers(&[("sec-fetch-site", "same-site")]),
    ] {
        let a = ask(port, "GET", &api(EXEC), &evil).await;
        assert_eq!(a.status, StatusCode::FORBIDDEN, "{evil:?}: {}", a.body);
    }
    for other in [
        "/api/v1/namespaces/demo/pods/web-1/attach?stdin=true",
        "/api/v1/namespaces/demo/pods/web-1/portforward?ports=80",
        "/api/v1/namespaces/demo/services/web:80/proxy/",
        "/apis/x.io/v1/namespaces/demo/pods/web-1/exec",
    ] {
        let a = ask(port, "GET", &api(other), &shell_headers(&[])).await;
        assert_eq!(a.status, StatusCode::FORBIDDEN, "{other}: {}", a.body);
    }
    let no_token = ask(port, "GET", EXEC, &shell_headers(&[])).await;
    assert_eq!(no_token.status, StatusCode::NOT_FOUND);
    assert!(kubectl.seen().is_empty(), "{:?}", kubectl.seen());
}

#[tokio::test]
async fn read_only_and_no_exec_refuse_a_shell_at_the_door() {
    for (mode, flag) in [
        (Mode::new(true, false), "--read-only"),
        (Mode::new(false, true), "--no-exec"),
    ] {
        let kubectl = fake_kubectl().await;
        let port = door(&kubectl, mode).await;
        let a = ask(port, "GET", &api(EXEC), &shell_headers(&[])).await;
        assert_eq!(a.status, StatusCode::FORBIDDEN, "{flag}");
        assert!(a.body.contains(flag), "{flag}: {}", a.body);
        assert!(kubectl.seen().is_empty(), "{flag}: reached kubectl");
    }
}
