//! The front door's forward path in one process: the real `serve::serve`
//! on 127.0.0.1 in front of a fake kubectl proxy (hyper on a Unix socket,
//! answering with the headers kube-apiserver and a hostile one could send,
//! and recording every request that reached it). A fake: the real kubectl
//! and apiserver are in e2e/tests/launcher.test.mjs.

mod support;

use hyper::StatusCode;
use kubectl_glass::gate::Mode;
use support::*;

#[tokio::test]
async fn an_answer_from_the_cluster_is_never_stored_whatever_the_api_server_said() {
    let kubectl = fake_kubectl().await;
    let port = door(&kubectl, Mode::new(false, true)).await;
    let a = ask(port, "GET", &api("/api/v1/namespaces/demo/secrets/db"), &[]).await;
    assert_eq!(a.status, StatusCode::OK);
    assert_eq!(a.body, SECRET, "the body passes as it came");
    assert_eq!(
        values(&a.headers, "cache-control"),
        ["no-store"],
        "kube-apiserver's `no-cache, private` lets the browser keep it on disk"
    );
}

#[tokio::test]
async fn an_answer_from_the_cluster_cannot_become_a_page_or_act_on_the_origin() {
    let kubectl = fake_kubectl().await;
    let port = door(&kubectl, Mode::new(false, true)).await;
    let a = ask(port, "GET", &api("/api/v1/namespaces/demo/secrets/db"), &[]).await;
    assert_eq!(
        values(&a.headers, "content-security-policy"),
        ["sandbox; default-src 'none'"]
    );
    for gone in [
        "set-cookie",
        "clear-site-data",
        "refresh",
        "link",
        "access-control-allow-origin",
        "x-something-new",
    ] {
        assert_eq!(values(&a.headers, gone), Vec::<String>::new(), "{gone}");
    }
    for (kept, v) in [
        ("content-type", "application/json"),
        ("audit-id", "8f5c1c1e-1111-2222-3333-444455556666"),
        ("x-kubernetes-pf-flowschema-uid", "fs-uid"),
        ("x-kubernetes-pf-prioritylevel-uid", "pl-uid"),
        ("warning", "299 - \"v1 ComponentStatus is deprecated\""),
        ("retry-after", "1"),
        ("date", "Wed, 21 Oct 2026 07:28:00 GMT"),
    ] {
        assert_eq!(values(&a.headers, kept), [v], "{kept}");
    }
    // The door's own answers are no pages either.
    let refused = ask(port, "GET", "/api/v1/namespaces", &[]).await;
    assert_eq!(refused.status, StatusCode::NOT_FOUND);
    assert_eq!(
        values(&refused.headers, "content-security-policy"),
        ["sandbox; default-src 'none'"]
    );
    // A 101 carries what a handshake needs and nothing else.
    let socket = ask(port, "GET", &api("/api/v1/pods?watch=true"), WEBSOCKET).await;
    assert_eq!(socket.status, StatusCode::SWITCHING_PROTOCOLS);
    assert_eq!(values(&socket.headers, "set-cookie"), Vec::<String>::new());
    assert_eq!(values(&socket.headers, "upgrade"), ["websocket"]);
}

#[tokio::test]
async fn earlier_origins_are_refused_so_a_browser_only_ever_uses_the_runs_name() {
    // 127.0.0.1:port and localhost:port are origins other pages may have
    // used (and planted a Service Worker on) before this run.
    let kubectl = fake_kubectl().await;
    let port = door(&kubectl, Mode::new(false, true)).await;
    let path = api("/api/v1/namespaces/demo/secrets/db");
    for earlier in ["localhost", "[::1]"] {
        let host = format!("{earlier}:{port}");
        let a = ask(port, "GET", &path, &[("host", &host)]).await;
        assert_eq!(a.status, StatusCode::MISDIRECTED_REQUEST, "{}", a.body);
        assert!(
            a.body.contains("only to the address kubectl glass printed"),
            "{}",
            a.body
        );
    }
    let address = format!("127.0.0.1:{port}");
    for browser in [
        ("sec-fetch-dest", "document"),
        ("sec-fetch-site", "none"),
        ("origin", "null"),
    ] {
        let a = ask(port, "GET", &path, &[("host", &address), browser]).await;
        assert_eq!(
            a.status,
            StatusCode::MISDIRECTED_REQUEST,
            "{browser:?}: {}",
            a.body
        );
        assert!(
            a.body.contains("open the URL kubectl glass printed"),
            "{}",
            a.body
        );
    }
    for earlier in ["127.0.0.1", "localhost"] {
        let origin = format!("http://{earlier}:{port}");
        let b = ask(port, "GET", &path, &[("origin", &origin)]).await;
        assert_eq!(b.status, StatusCode::FORBIDDEN, "{}", b.body);
    }
    assert!(kubectl.seen().is_empty(), "{:?}", kubectl.seen());
    let ours = ask(port, "GET", &path, &[]).await;
    assert_eq!(ours.status, StatusCode::OK);
    // A program (no Origin, no Sec-Fetch-Site or -Dest; Node's fetch sends
    // Sec-Fetch-Mode) may use the address.
    let program = ask(
        port,
        "GET",
        &path,
        &[("host", &address), ("sec-fetch-mode", "cors")],
    )
    .await;
    assert_eq!(program.status, StatusCode::OK, "{}", program.body);
}

#[tokio::test]
async fn the_store_is_read_whole_and_written_a_key_at_a_time_never_reaching_kubectl() {
    let kubectl = fake_kubectl().await;
    let port = door(&kubectl, Mode::new(true, false)).await;
    let store = |rest: &str| format!("/{TOKEN}/glass/storage{rest}");
    let origin = format!("http://{NAME}:{port}");
    let page = [
        ("origin", origin.as_str()),
        ("sec-fetch-site", "same-origin"),
    ];
    assert_eq!(ask(port, "GET", &store(""), &page).await.body, "{}");
    let put = ask_with_body(port, "PUT", &store("/kubeglass.theme"), &page, "dark").await;
    assert_eq!(put.status, StatusCode::NO_CONTENT, "{}", put.body);
    let whole = ask(port, "GET", &store(""), &page).await;
    assert_eq!(whole.status, StatusCode::OK);
    assert_eq!(whole.body, r#"{"kubeglass.theme":"dark"}"#);
    assert_eq!(values(&whole.headers, "cache-control"), ["no-store"]);
    // Another origin can neither read nor write it, even with the token.
    let evil = [
        ("origin", "http://127.0.0.1:8080"),
        ("sec-fetch-site", "cross-site"),
    ];
    assert_eq!(
        ask(port, "GET", &store(""), &evil).await.status,
        StatusCode::FORBIDDEN
    );
    let put = ask_with_body(port, "PUT", &store("/kubeglass.theme"), &evil, "light").await;
    assert_eq!(put.status, StatusCode::FORBIDDEN);
    // Without the token it is not there at all.
    let bare = ask(port, "GET", "/glass/storage", &page).await;
    assert_eq!(bare.status, StatusCode::NOT_FOUND);
    let gone = ask(port, "DELETE", &store("/kubeglass.theme"), &page).await;
    assert_eq!(gone.status, StatusCode::NO_CONTENT);
    assert_eq!(ask(port, "GET", &store(""), &page).await.body, "{}");
    let bad = ask_with_body(port, "PUT", &store("/a%2Fb"), &page, "x").await;
    assert_eq!(bad.status, StatusCode::FORBIDDEN, "{}", bad.body);
    assert!(kubectl.seen().is_empty(), "{:?}", kubectl.seen());
}

#[tokio::test]
async fn saved_tables_are_read_and_written_one_at_a_time_by_our_page_only_never_reaching_kubectl() {
    let kubectl = fake_kubectl().await;
    let port = door(&kubectl, Mode::new(true, false)).await;
    let saved = |rest: &str| format!("/{TOKEN}/glass/saved{rest}");
    let origin = format!("http://{NAME}:{port}");
    let page = [
        ("origin", origin.as_str()),
        ("sec-fetch-site", "same-origin"),
    ];
    // Never saved: empty and 204, not an error in the console.
    let none = ask(port, "GET", &saved("/table.pods.00ff"), &page).await;
    assert_eq!(
        (none.status, none.body.as_str()),
        (StatusCode::NO_CONTENT, "")
    );
    let put = ask_with_body(port, "PUT", &saved("/table.pods.00ff"), &page, "rows").await;
    assert_eq!(put.status, StatusCode::NO_CONTENT, "{}", put.body);
    let one = ask(port, "GET", &saved("/table.pods.00ff"), &page).await;
    assert_eq!((one.status, one.body.as_str()), (StatusCode::OK, "rows"));
    assert_eq!(values(&one.headers, "cache-control"), ["no-store"]);
    assert_eq!(
        ask(port, "GET", &saved(""), &page).await.body,
        r#"["table.pods.00ff"]"#
    );
    // Another origin can neither read nor write them, even with the token.
    let evil = [
        ("origin", "http://127.0.0.1:8080"),
        ("sec-fetch-site", "cross-site"),
    ];
    assert_eq!(
        ask(port, "GET", &saved("/table.pods.00ff"), &evil)
            .await
            .status,
        StatusCode::FORBIDDEN
    );
    let put = ask_with_body(port, "PUT", &saved("/table.pods.00ff"), &evil, "lies").await;
    assert_eq!(put.status, StatusCode::FORBIDDEN);
    let wipe = ask(port, "DELETE", &saved(""), &evil).await;
    assert_eq!(wipe.status, StatusCode::FORBIDDEN);
    let forget = ask(port, "DELETE", &saved(""), &page).await;
    assert_eq!(forget.status, StatusCode::NO_CONTENT);
    assert_eq!(ask(port, "GET", &saved(""), &page).await.body, "[]");
    assert!(kubectl.seen().is_empty(), "{:?}", kubectl.seen());
}

#[tokio::test]
async fn only_allowlisted_request_headers_reach_kubectl() {
    let kubectl = fake_kubectl().await;
    let port = door(&kubectl, Mode::new(false, true)).await;
    let sent = [
        (
            "accept",
            "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1",
        ),
        ("accept-encoding", "gzip"),
        ("user-agent", "Chromium"),
        ("origin", &*format!("http://{NAME}:{port}")),
        ("cookie", "a=b"),
        ("authorization", "Bearer someone-else"),
        ("proxy-authorization", "Basic eDp5"),
        ("impersonate-user", "system:admin"),
        ("impersonate-group", "system:masters"),
        ("impersonate-uid", "0"),
        ("impersonate-extra-scopes", "all"),
        ("x-remote-user", "admin"),
        ("x-forwarded-for", "10.0.0.1"),
        ("sec-fetch-site", "same-origin"),
        ("audit-id", "chosen-by-the-page"),
    ];
    let a = ask(port, "GET", &api("/api/v1/namespaces/demo/pods"), &sent).await;
    assert_eq!(a.status, StatusCode::OK);
    let seen = kubectl.seen();
    assert_eq!(seen.len(), 1);
    let mut names: Vec<&str> = seen[0].headers.keys().map(|k| k.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        ["accept", "accept-encoding", "host", "origin", "user-agent"],
        "{:?}",
        seen[0].headers
    );
    assert_eq!(values(&seen[0].headers, "host"), ["localhost"]);
    assert_eq!(
        seen[0].uri, "/api/v1/namespaces/demo/pods",
        "the token stays here"
    );
}

#[tokio::test]
async fn upgrades_pass_only_for_watches_and_followed_logs_in_every_mode() {
    for read_only in [false, true] {
        let kubectl = fake_kubectl().await;
        let port = door(&kubectl, Mode::new(read_only, true)).await;
        for ok in [
            "/api/v1/namespaces/demo/configmaps?watch=true&resourceVersion=0",
            "/api/v1/pods?watch=1",
            "/api/v1/namespaces/demo/pods/web-1/log?follow=true",
        ] {
            let a = ask(port, "GET", &api(ok), WEBSOCKET).await;
            assert_eq!(
                a.status,
                StatusCode::SWITCHING_PROTOCOLS,
                "{ok}: {}",
                a.body
            );
            assert_eq!(a.body, "hello", "{ok}: the two connections are joined");
        }
        let passed = kubectl.seen().len();
        assert_eq!(passed, 3, "read_only={read_only}");
        for refused in [
            "/apis/subresources.kubevirt.io/v1/namespaces/a/virtualmachineinstances/v/console",
            "/apis/subresources.kubevirt.io/v1/namespaces/a/virtualmachineinstances/v/vnc",
            "/api/v1/namespaces/demo/pods/web-1/log",
            "/api/v1/namespaces/demo/pods/web-1/log?follow=false",
            "/api/v1/namespaces/demo/pods",
            "/api/v1/namespaces/demo/pods?watch=false",
            "/api/v1/namespaces/demo/pods/web-1?watch=true",
            "/api/v1/watch/namespaces/demo/pods",
            "/api/v1/namespaces/demo/pods/web-1/exec?command=sh",
            "/api/v1/namespaces/demo/pods/web-1/attach",
            "/api/v1/namespaces/demo/pods/web-1/portforward?ports=80",
            "/api/v1/namespaces/demo/services/web:80/proxy/",
            "/api/v1/nodes/n/proxy/",
        ] {
            let a = ask(port, "GET", &api(refused), WEBSOCKET).await;
            assert_eq!(
                a.status,
                StatusCode::FORBIDDEN,
                "{refused} read_only={read_only}: {}",
                a.body
            );
        }
        let console = ask(
            port,
            "GET",
            &api(
                "/apis/subresources.kubevirt.io/v1/namespaces/a/virtualmachineinstances/v/console",
            ),
            WEBSOCKET,
        )
        .await;
        if !read_only {
            assert!(
                console.body.contains("upgrade refused")
                    && console.body.contains("only watches (watch=true on a list)"),
                "a clear body: {}",
                console.body
            );
        }
        let spdy = [("connection", "Upgrade"), ("upgrade", "SPDY/3.1")];
        let a = ask(port, "GET", &api("/api/v1/pods?watch=true"), &spdy).await;
        assert_eq!(a.status, StatusCode::FORBIDDEN, "SPDY: {}", a.body);
        let uris: Vec<String> = kubectl.seen().iter().map(|s| s.uri.clone()).collect();
        assert_eq!(
            uris.len(),
            passed,
            "read_only={read_only}: refused upgrades reached kubectl: {uris:?}"
        );
    }
}

#[tokio::test]
async fn the_menu_opens_another_context_by_a_redirect_only_for_our_own_page() {
    let kubectl = fake_kubectl().await;
    let other = "http://00112233445566778899aabbccddeeff.localhost:4242/ffeeddccbbaa99887766554433221100/ui/";
    let port = door_with(&kubectl, Mode::new(true, false), &["http://self/", other]).await;
    let page = [
        ("sec-fetch-site", "same-origin"),
        ("sec-fetch-mode", "navigate"),
        ("sec-fetch-dest", "document"),
    ];
    let a = ask(port, "GET", &format!("/{TOKEN}/glass/open/1"), &page).await;
    assert_eq!(a.status, StatusCode::SEE_OTHER, "{}", a.body);
    assert_eq!(values(&a.headers, "location"), [other]);
    assert_eq!(values(&a.headers, "cache-control"), ["no-store"]);
    assert_eq!(values(&a.headers, "referrer-policy"), ["no-referrer"]);
    // Another site's page, even knowing the token, gets no redirect (and
    // so never learns where it goes).
    for site in ["same-site", "cross-site"] {
        let a = ask(
            port,
            "GET",
            &format!("/{TOKEN}/glass/open/1"),
            &[
                ("sec-fetch-site", site),
                ("sec-fetch-mode", "navigate"),
                ("sec-fetch-dest", "document"),
            ],
        )
        .await;
        assert_eq!(a.status, StatusCode::FORBIDDEN, "{site}");
        assert_eq!(values(&a.headers, "location"), Vec::<String>::new());
    }
    let none = ask(port, "GET", &format!("/{TOKEN}/glass/open/2"), &page).await;
    assert_eq!(none.status, StatusCode::NOT_FOUND);
    assert_eq!(none.body, "this launcher serves no context 2");
    let no_token = ask(port, "GET", "/glass/open/1", &page).await;
    assert_eq!(no_token.status, StatusCode::NOT_FOUND);
    assert!(
        kubectl.seen.lock().expect("lock").is_empty(),
        "nothing reached kubectl"
    );
}
