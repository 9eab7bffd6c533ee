//! Routes round-trip, names are validated, and a route draws the page it names.

use super::*;

#[test]
fn routes_round_trip() {
    for r in [
        Route::Overview,
        Route::page("api"),
        Route::page("events"),
        Route::page("x-ray page"),
        Route::resource("pods", Some("demo-shop")),
        Route::Resource {
            resource: "databases.demo.kubeglass.dev".into(),
            namespace: None,
            labels: Some("app in (web,db)".into()),
            fields: Some("status.phase=Running".into()),
            columns: Some("IMAGE:.spec.containers[*].image,OK:.status.conditions[?(@.type==\"Ready\")].status".into()),
        },
        Route::Object {
            resource: "nodes".into(),
            namespace: None,
            name: "kwok-node-1".into(),
        },
        Route::Object {
            resource: "pods".into(),
            namespace: Some("ns".into()),
            name: "web-1".into(),
        },
        Route::Logs {
            namespace: "demo-shop".into(),
            target: LogTarget::Pod("web-1".into()),
            options: LogOptions::default(),
        },
        Route::Exec {
            namespace: "demo-shop".into(),
            pod: "web-1".into(),
            container: None,
        },
        Route::Exec {
            namespace: "demo-shop".into(),
            pod: "web-1".into(),
            container: Some("app".into()),
        },
        Route::Logs {
            namespace: "demo-shop".into(),
            target: LogTarget::Workload {
                resource: "deployments.apps".into(),
                name: "frontend".into(),
            },
            options: LogOptions {
                container: Some("web".into()),
                filter: "/GET \\/(cart|x)/ & more".into(),
                tail: crate::rules::logs::Tail::All,
                ..LogOptions::default()
            },
        },
    ] {
        assert_eq!(Route::parse(&r.href()), r);
    }
}

#[test]
fn the_api_is_the_parent_of_the_ui_folder() {
    assert_eq!(api_base_from("/0123abcd/ui/"), "/0123abcd");
    assert_eq!(api_base_from("/0123abcd/ui/index.html"), "/0123abcd");
    assert_eq!(api_base_from("/ui/"), "");
    assert_eq!(api_base_from("/"), "");
}

#[test]
fn hostile_namespaces_and_names_are_refused_with_a_reason() {
    let cases = [
        ("#/o/pods/prod%2Fsecrets%2Fdb%23/web", "DNS-1123"),
        ("#/o/pods/demo-shop/%252e%252e", "'%'"),
        ("#/o/pods/demo-shop/..", "path step"),
        ("#/o/namespaces/..", "path step"),
        ("#/r/pods?ns=Prod%20Shop", "DNS-1123"),
        ("#/o/pods/prod/secrets/db/x", "cannot contain '/'"),
        ("#/logs/demo-shop/..", "path step"),
        ("#/logs/demo%2Fshop/web", "DNS-1123"),
        ("#/logs/demo-shop/pods/web/x", "not a log link"),
        ("#/exec/demo-shop/..", "path step"),
        ("#/exec/demo-shop/web/a%3Fcommand%3Drm", "container:"),
        ("#/exec/demo-shop/web/app/x", "not a shell link"),
    ];
    for (hash, why) in cases {
        match Route::parse(hash) {
            Route::Invalid { reason } => assert!(reason.contains(why), "{hash}: {reason}"),
            other => panic!("{hash} parsed as {other:?}"),
        }
    }
    // A link built from cluster data with such a namespace is no link.
    let hostile = Route::Object {
        resource: "configmaps".into(),
        namespace: Some("prod/secrets/db#".into()),
        name: "x".into(),
    };
    assert_eq!(hostile.link(), None);
    let fine = Route::Object {
        resource: "configmaps".into(),
        namespace: Some("demo-shop".into()),
        name: "feature-flags".into(),
    };
    assert_eq!(
        fine.link().as_deref(),
        Some("#/o/configmaps/demo-shop/feature-flags")
    );
}

#[test]
fn map_routes_round_trip_and_refuse_what_is_wrong() {
    let deployment = MapFocus {
        resource: "deployments.apps".into(),
        namespace: Some("demo-shop".into()),
        name: "frontend".into(),
    };
    let node = MapFocus {
        resource: "nodes".into(),
        namespace: None,
        name: "kwok-node-1".into(),
    };
    for r in [
        Route::Map {
            focus: None,
            depth: map::DEFAULT_DEPTH,
        },
        Route::Map {
            focus: Some(deployment.clone()),
            depth: map::DEFAULT_DEPTH,
        },
        Route::Map {
            focus: Some(deployment),
            depth: 5,
        },
        Route::Map {
            focus: Some(node),
            depth: 1,
        },
    ] {
        assert_eq!(Route::parse(&r.href()), r, "{}", r.href());
    }
    assert_eq!(
        Route::Map {
            focus: None,
            depth: 3
        }
        .href(),
        "#/map"
    );
    for bad in [
        "#/map/pods/a/b/c",
        "#/map/pods/ns/p?depth=0",
        "#/map/pods/ns/p?depth=7",
        "#/map/pods/ns/p?depth=x",
        "#/map/pods/Bad_NS/p",
    ] {
        assert!(matches!(Route::parse(bad), Route::Invalid { .. }), "{bad}");
    }
}
