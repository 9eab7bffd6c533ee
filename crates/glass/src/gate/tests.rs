//! The gate's rules, case by case.

use super::*;

const TOKEN: &str = "0123456789abcdef0123456789abcdef";

const OURS: &str = "k0123456789abcdef.localhost:47123";

/// Most cases: `--read-only` or not, with `--no-exec` (no shell passes);
/// the shell's own cases below use `super::route` with its mode.
fn route(rest: &str, method: &str, read_only: bool) -> Result<Route, Refusal> {
    super::route(rest, method, Mode::new(read_only, true))
}

/// The same for upgrades: not read-only, no shell.
fn upgrade(rest: &str, method: &str, protocol: &str) -> Result<(), Refusal> {
    super::upgrade(rest, method, protocol, Mode::new(false, true))
}

const SHELL: Mode = Mode {
    read_only: false,
    exec: true,
};
const EXEC: &str = "/api/v1/namespaces/demo/pods/web-1/exec?command=sh&stdin=true&tty=true";

#[test]
fn a_shell_passes_only_as_a_websocket_in_a_run_that_allows_it() {
    assert_eq!(
        Mode::new(true, false),
        Mode {
            read_only: true,
            exec: false
        }
    );
    assert!(!Mode::new(false, true).exec);
    assert_eq!(super::route(EXEC, "GET", SHELL), Ok(Route::Exec));
    assert_eq!(super::upgrade(EXEC, "GET", "websocket", SHELL), Ok(()));
    // Only a GET (a POST is SPDY's), only the core API's pods, nothing after.
    assert!(super::route(EXEC, "POST", SHELL).is_err());
    assert!(super::upgrade(EXEC, "POST", "websocket", SHELL).is_err());
    assert!(super::upgrade(EXEC, "GET", "SPDY/3.1", SHELL).is_err());
    for other in [
        "/api/v1/namespaces/demo/pods/web-1/attach?stdin=true",
        "/api/v1/namespaces/demo/pods/web-1/portforward?ports=80",
        "/api/v1/namespaces/demo/pods/web-1/proxy/",
        "/api/v1/namespaces/demo/services/web:80/proxy/",
        "/api/v1/nodes/n/proxy/configz",
        "/apis/x.io/v1/namespaces/demo/pods/web-1/exec",
        "/api/v1/namespaces/demo/pods/web-1/exec/more",
        "/api/v1/pods/web-1/exec",
    ] {
        assert!(super::route(other, "GET", SHELL).is_err(), "{other}");
        assert!(
            super::upgrade(other, "GET", "websocket", SHELL).is_err(),
            "{other}"
        );
    }
    // --read-only and --no-exec: refused, saying which.
    for (mode, flag) in [
        (Mode::new(true, false), "--read-only"),
        (Mode::new(false, true), "--no-exec"),
    ] {
        let why = super::route(EXEC, "GET", mode)
            .expect_err("refused")
            .to_string();
        assert!(
            why.contains("--no-exec") && why.contains("--read-only"),
            "{why}"
        );
        let why = super::upgrade(EXEC, "GET", "websocket", mode)
            .expect_err("refused")
            .to_string();
        assert!(why.contains(flag), "{flag}: {why}");
    }
}

#[test]
fn only_our_host_and_port_are_answered() {
    assert!(host_is_ours(Some(OURS), OURS));
    assert!(host_is_ours(
        Some("K0123456789ABCDEF.LocalHost:47123"),
        OURS
    ));
    for bad in [
        "127.0.0.1:47123",
        "localhost:47123",
        "[::1]:47123",
        "evil.example:47123",
        "k0123456789abcdef.localhost",
        "k0123456789abcdef.localhost:47124",
        "k0123456789abcdef.localhost:047123",
        "x.k0123456789abcdef.localhost:47123",
        "k0123456789abcdef.localhost.evil.example:47123",
        "k0123456789abcdef.localhost:47123:47123",
    ] {
        assert!(!host_is_ours(Some(bad), OURS), "{bad}");
    }
    assert!(!host_is_ours(None, OURS));
}

#[test]
fn programs_may_use_the_address_and_browsers_may_not() {
    assert!(host_is_our_address(Some("127.0.0.1:47123"), 47123));
    for bad in [
        "127.0.0.1:47124",
        "localhost:47123",
        "[::1]:47123",
        "127.0.0.1",
    ] {
        assert!(!host_is_our_address(Some(bad), 47123), "{bad}");
    }
    assert!(!from_a_browser(|_| false));
    assert!(!from_a_browser(|n| n == "sec-fetch-mode"), "Node's fetch");
    for h in ["origin", "sec-fetch-site", "sec-fetch-dest"] {
        assert!(from_a_browser(|n| n == h), "{h}");
    }
}

#[test]
fn the_token_must_be_the_whole_first_segment() {
    assert_eq!(
        strip_token(&format!("/{TOKEN}/api/v1"), TOKEN),
        Some("/api/v1")
    );
    assert_eq!(strip_token(&format!("/{TOKEN}"), TOKEN), Some(""));
    assert_eq!(strip_token(&format!("/{TOKEN}x/api"), TOKEN), None);
    assert_eq!(strip_token(&format!("/{}/api", &TOKEN[..31]), TOKEN), None);
    assert_eq!(strip_token("/api/v1", TOKEN), None);
    assert_eq!(strip_token("/", TOKEN), None);
    assert_eq!(strip_token("", TOKEN), None);
}

#[test]
fn another_origin_or_site_is_refused_and_programs_pass() {
    let ours = format!("http://{OURS}");
    assert!(same_origin(Some(&ours), Some("same-origin"), OURS));
    assert!(!same_origin(Some("http://127.0.0.1:47123"), None, OURS));
    assert!(!same_origin(Some("http://localhost:47123"), None, OURS));
    assert!(!same_origin(Some(&format!("https://{OURS}")), None, OURS));
    assert!(same_origin(None, Some("none"), OURS));
    assert!(same_origin(None, None, OURS));
    assert!(!same_origin(Some("http://127.0.0.1:8080"), None, OURS));
    assert!(!same_origin(Some("null"), None, OURS));
    assert!(!same_origin(Some("https://evil.example"), None, OURS));
    assert!(!same_origin(None, Some("same-site"), OURS), "another port");
    assert!(!same_origin(None, Some("cross-site"), OURS));
}

#[test]
fn the_store_takes_a_get_of_the_whole_and_a_put_or_delete_of_a_key_in_every_mode() {
    for ro in [false, true] {
        assert_eq!(route("/glass/storage", "GET", ro), Ok(Route::Storage));
        assert_eq!(
            route("/glass/storage/kubeglass.theme", "PUT", ro),
            Ok(Route::StorageKey("kubeglass.theme".into()))
        );
        assert_eq!(
            route("/glass/storage/kubeglass.theme", "DELETE", ro),
            Ok(Route::StorageKey("kubeglass.theme".into()))
        );
    }
    assert!(matches!(
        route("/glass/storage", "PUT", false),
        Err(Refusal::Path(_))
    ));
    assert!(matches!(
        route("/glass/storage/k", "GET", false),
        Err(Refusal::Path(_))
    ));
    assert_eq!(
        route("/glass/storage/kubeglass.discovery.v2%2001ab", "PUT", false),
        Ok(Route::StorageKey("kubeglass.discovery.v2 01ab".into()))
    );
    for bad in [
        "/glass/storage/a%2Fb",
        "/glass/storage/a/b",
        "/glass/storage/..",
        "/glass/storage/",
        "/glass/storage/%FF",
    ] {
        assert!(
            matches!(route(bad, "PUT", false), Err(Refusal::Path(_))),
            "{bad}"
        );
    }
    assert_eq!(
        route("/glass/storagex", "GET", false),
        Err(Refusal::NotFound)
    );
}

#[test]
fn saved_tables_take_a_get_or_put_of_one_and_a_get_or_delete_of_all_in_every_mode() {
    for ro in [false, true] {
        assert_eq!(route("/glass/saved", "GET", ro), Ok(Route::Saved));
        assert_eq!(route("/glass/saved", "DELETE", ro), Ok(Route::Saved));
        for m in ["GET", "PUT"] {
            assert_eq!(
                route("/glass/saved/table.api.v1.pods.00ff", m, ro),
                Ok(Route::SavedKey("table.api.v1.pods.00ff".into()))
            );
        }
    }
    assert!(matches!(
        route("/glass/saved", "PUT", false),
        Err(Refusal::Path(_))
    ));
    assert!(matches!(
        route("/glass/saved/k", "DELETE", false),
        Err(Refusal::Path(_))
    ));
    for bad in [
        "/glass/saved/a%2Fb",
        "/glass/saved/a/b",
        "/glass/saved/..",
        "/glass/saved/",
        "/glass/saved/.hidden",
    ] {
        assert!(
            matches!(route(bad, "PUT", false), Err(Refusal::Path(_))),
            "{bad}"
        );
    }
    assert_eq!(route("/glass/savedx", "GET", false), Err(Refusal::NotFound));
}

#[test]
fn the_app_and_its_redirect() {
    assert_eq!(route("", "GET", false), Ok(Route::ToApp));
    assert_eq!(route("/ui", "GET", true), Ok(Route::ToApp));
    assert_eq!(route("/ui/", "GET", true), Ok(Route::App(String::new())));
    assert_eq!(
        route("/ui/main.css?x=1", "GET", true),
        Ok(Route::App("main.css".into()))
    );
    assert_eq!(route("/healthz", "GET", false), Err(Refusal::NotFound));
    assert_eq!(route("/logs/", "GET", false), Err(Refusal::NotFound));
}

#[test]
fn the_page_can_ask_the_launcher_to_stop_in_every_mode_by_post_only() {
    for ro in [false, true] {
        assert_eq!(route("/glass/stop", "POST", ro), Ok(Route::Stop));
        assert!(route("/glass/stop", "GET", ro).is_err());
    }
    assert_eq!(
        route("/glass/stop/x", "POST", false),
        Err(Refusal::NotFound)
    );
}

#[test]
fn connect_subresources_never_pass_whatever_the_spelling() {
    for path in [
        "/api/v1/namespaces/a/pods/b/exec?command=sh",
        "/api/v1/namespaces/a/pods/b/attach",
        "/api/v1/namespaces/a/pods/b/portforward",
        "/api/v1/namespaces/a/pods/b/proxy/metrics",
        "/api/v1/namespaces/a/services/b:80/proxy/",
        "/api/v1/nodes/n/proxy/configz",
        "/api/v1/namespaces/a/pods/b/%65xec",
        "/apis/x.io/v1/namespaces/a/things/b/proxy",
    ] {
        for ro in [false, true] {
            assert!(route(path, "GET", ro).is_err(), "{path} read_only={ro}");
            assert!(route(path, "POST", ro).is_err(), "{path} read_only={ro}");
        }
    }
    for odd in [
        "/api/v1/namespaces/a/pods/b/../b/exec",
        "/api//v1/pods",
        "/api/v1/namespaces/a/pods/b%2Fexec",
        "/api/v1/./pods",
    ] {
        assert!(
            matches!(route(odd, "GET", false), Err(Refusal::Path(_))),
            "{odd}"
        );
    }
}

#[test]
fn watches_and_followed_logs_may_become_websockets() {
    for ok in [
        "/api/v1/namespaces?watch=true",
        "/api/v1/pods?watch=1&resourceVersion=5",
        "/api/v1/namespaces/demo/configmaps?resourceVersion=0&watch=true",
        "/apis/apps/v1/namespaces/demo/deployments?watch=true&sendInitialEvents=true",
        "/apis/x.io/v1/things?w%61tch=true",
        "/api/v1/namespaces/demo/pods/web-1/log?follow=true&container=app",
        "/api/v1/namespaces/demo/pods/web-1/log?tailLines=10&follow=1",
    ] {
        assert_eq!(upgrade(ok, "GET", "websocket"), Ok(()), "{ok}");
        assert_eq!(upgrade(ok, "GET", " WebSocket"), Ok(()), "{ok}");
    }
}

#[test]
fn nothing_else_may_become_a_websocket() {
    for path in [
        "/api/v1/pods",
        "/api/v1/pods?watch=false",
        "/api/v1/pods?watch=false&watch=true",
        "/api/v1/pods?follow=true",
        "/api/v1/namespaces/demo/pods/web-1?watch=true",
        "/api/v1/watch/namespaces/demo/pods?watch=true",
        "/api/v1/watch/pods",
        "/api/v1/namespaces/demo/pods/web-1/log",
        "/api/v1/namespaces/demo/pods/web-1/log?follow=0",
        "/api/v1/namespaces/demo/pods/web-1/exec?command=sh&watch=true",
        "/api/v1/namespaces/demo/pods/web-1/attach?follow=true",
        "/api/v1/namespaces/demo/pods/web-1/portforward?ports=80",
        "/api/v1/namespaces/demo/services/web:80/proxy/?watch=true",
        "/api/v1/nodes/n/proxy/logs/?follow=true",
        "/apis/subresources.kubevirt.io/v1/namespaces/a/virtualmachineinstances/v/console",
        "/apis/subresources.kubevirt.io/v1/namespaces/a/virtualmachineinstances/v/vnc?watch=1",
        "/apis/x.io/v1/namespaces/a/pods/b/log?follow=true",
        "/api/v1/namespaces/demo/pods/web-1/status?watch=true",
        "/api/v1?watch=true",
        "/apis?watch=true",
        "/version?watch=true",
        "/openapi/v3?watch=true",
    ] {
        let got = upgrade(path, "GET", "websocket");
        assert!(
            matches!(got, Err(Refusal::Upgrade(_) | Refusal::Path(_))),
            "{path}: {got:?}"
        );
    }
    let watch = "/api/v1/pods?watch=true";
    for protocol in ["SPDY/3.1", "h2c", ""] {
        let got = upgrade(watch, "GET", protocol);
        assert!(matches!(got, Err(Refusal::Upgrade(_))), "{protocol}");
    }
    let log = "/api/v1/namespaces/demo/pods/web-1/log?follow=true";
    for path in [watch, log] {
        let got = upgrade(path, "POST", "websocket");
        assert!(matches!(got, Err(Refusal::Upgrade(_))), "POST {path}");
    }
    let why = upgrade(
        "/apis/k.io/v1/namespaces/a/vms/v/console",
        "GET",
        "websocket",
    )
    .expect_err("a console")
    .to_string();
    assert!(
        why.contains("console") && why.contains("only watches"),
        "{why}"
    );
    assert_eq!(Refusal::Upgrade(String::new()).status(), 403);
}

#[test]
fn read_only_is_an_allowlist_of_reads() {
    for ok in [
        "/api",
        "/apis",
        "/api/v1",
        "/apis/apps/v1",
        "/version",
        "/openapi/v3/apis/apps/v1",
        "/api/v1/pods?watch=1&resourceVersion=5",
        "/api/v1/namespaces",
        "/api/v1/namespaces/demo",
        "/api/v1/namespaces/demo/pods",
        "/api/v1/namespaces/demo/pods/web-1",
        "/api/v1/namespaces/demo/pods/web-1/log?follow=true",
        "/api/v1/watch/namespaces/demo/pods",
        "/apis/apps/v1/namespaces/demo/deployments/web/scale",
        "/apis/apps/v1/namespaces/demo/deployments/web/status",
        "/apis/metrics.k8s.io/v1beta1/nodes",
    ] {
        assert_eq!(route(ok, "GET", true), Ok(Route::Api), "{ok}");
    }
    for (path, method) in [
        ("/api/v1/namespaces/demo/configmaps", "POST"),
        ("/api/v1/namespaces/demo/configmaps/x", "PATCH"),
        ("/api/v1/namespaces/demo/configmaps/x", "patch"),
        ("/api/v1/namespaces/demo/configmaps/x", "DELETE"),
        ("/api/v1/namespaces/demo/pods", "HEAD"),
        (
            "/apis/subresources.kubevirt.io/v1/namespaces/a/virtualmachineinstances/v/console",
            "GET",
        ),
        ("/apis/x.io/v1/namespaces/a/things/b/status/deeper", "GET"),
        ("/api/v1/namespaces/a/pods/b/eviction", "GET"),
        ("/version/more", "GET"),
    ] {
        assert!(
            matches!(route(path, method, true), Err(Refusal::ReadOnly(_))),
            "{method} {path}: {:?}",
            route(path, method, true)
        );
    }
    // Without --read-only, writes pass (RBAC decides).
    assert_eq!(
        route("/api/v1/namespaces/demo/configmaps/x", "PATCH", false),
        Ok(Route::Api)
    );
    assert_eq!(
        route("/api/v1/namespaces/a/pods/b/eviction", "POST", false),
        Ok(Route::Api)
    );
}

#[test]
fn port_forwards_are_the_launchers_own_and_never_in_read_only() {
    assert_eq!(route("/glass/forwards", "GET", false), Ok(Route::Forwards));
    assert_eq!(route("/glass/forwards", "POST", false), Ok(Route::Forwards));
    assert_eq!(
        route("/glass/forwards/7", "DELETE", false),
        Ok(Route::StopForward(7))
    );
    for (path, method) in [
        ("/glass/forwards", "PUT"),
        ("/glass/forwards/7", "GET"),
        ("/glass/forwards/07", "DELETE"),
        ("/glass/forwards/x", "DELETE"),
        ("/glass/forwards/-1", "DELETE"),
    ] {
        assert!(
            matches!(route(path, method, false), Err(Refusal::Path(_))),
            "{method} {path}"
        );
    }
    assert_eq!(
        route("/glass/forwardsx", "GET", false),
        Err(Refusal::NotFound)
    );
    for (path, method) in [
        ("/glass/forwards", "GET"),
        ("/glass/forwards", "POST"),
        ("/glass/forwards/1", "DELETE"),
    ] {
        assert!(
            matches!(route(path, method, true), Err(Refusal::ReadOnly(_))),
            "{method} {path}"
        );
    }
}

#[test]
fn another_context_is_opened_by_its_number_with_a_get_in_every_mode() {
    for read_only in [false, true] {
        assert_eq!(route("/glass/open/0", "GET", read_only), Ok(Route::Open(0)));
        assert_eq!(
            route("/glass/open/12", "GET", read_only),
            Ok(Route::Open(12))
        );
    }
    for (path, method) in [
        ("/glass/open/1", "POST"),
        ("/glass/open/01", "GET"),
        ("/glass/open/+1", "GET"),
        ("/glass/open/prod", "GET"),
        ("/glass/open/", "GET"),
        ("/glass/open/1/x", "GET"),
    ] {
        assert!(
            matches!(route(path, method, false), Err(Refusal::Path(_))),
            "{method} {path}"
        );
    }
    assert_eq!(route("/glass/open", "GET", false), Err(Refusal::NotFound));
}
