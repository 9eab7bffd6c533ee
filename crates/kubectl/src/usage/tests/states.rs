//! What a poll says: not served, forbidden or failed, the version kubectl reads, an invalid namespace.

use super::*;

#[test]
fn usage_not_served_is_said_and_asked_again_only_each_minute() {
    let mut r = rig();
    // No metrics-server: the group itself is not found.
    r.expect(
        GROUP,
        Reply::status(
            404,
            "NotFound",
            "the server could not find the requested resource",
        ),
    );
    let p = r.polls.poll(shop());
    r.pool.run_until_stalled();
    let PollState::NotServed(words) = p.state() else {
        panic!("{:?}", p.state());
    };
    assert!(words.contains("install metrics-server"), "{words}");
    assert!(words.contains("404"), "{words}");
    r.step(59);
    assert_eq!(r.discoveries(), 1, "not every 15 s");
    r.expect_group(&["v1beta1"]);
    r.expect(
        SHOP,
        Reply::status(503, "ServiceUnavailable", "service unavailable"),
    );
    r.step(1);
    assert_eq!((r.discoveries(), r.gets()), (2, 1));
    let PollState::NotServed(words) = p.state() else {
        panic!("{:?}", p.state());
    };
    assert!(
        words.contains("503") && words.contains("metrics-server"),
        "{words}"
    );
    assert_eq!(p.version(), None, "not served: asked again next time");
    r.expect_group(&["v1beta1"]);
    r.expect(SHOP, pods(vec![pod("web-1", "t1", "1", "1Gi")]));
    r.step(60);
    assert_eq!(
        p.state(),
        PollState::Fresh {
            at: now(120),
            items: 1
        }
    );
    r.expect(SHOP, pods(vec![]));
    r.step(15);
    assert_eq!(r.gets(), 3, "served again: back to every 15 s");
    assert_eq!(r.discoveries(), 3);
}

#[test]
fn usage_v1_is_read_where_the_server_serves_it() {
    let mut r = rig();
    r.expect_group(&["v1", "v1beta1"]);
    r.expect(
        "/apis/metrics.k8s.io/v1/nodes",
        Reply::json(
            200,
            json!({"kind": "NodeMetricsList", "apiVersion": "metrics.k8s.io/v1", "items": [
                {"metadata": {"name": "node-0"}, "usage": {"cpu": "12345678n", "memory": "1Gi"}}]}),
        ),
    );
    let p = r.polls.poll(Target::Nodes);
    r.pool.run_until_stalled();
    assert_eq!(p.version(), Some(Version::V1));
    assert_eq!(p.latest()[0].quantities.cpu.milli_value(), 13);
    r.expect(
        "/apis/metrics.k8s.io/v1/nodes",
        Reply::json(200, json!({"kind": "NodeMetricsList", "items": []})),
    );
    r.step(15);
    assert_eq!((r.discoveries(), r.gets()), (1, 2));
}

#[test]
fn usage_a_group_without_a_version_kubectl_reads_is_not_served() {
    let mut r = rig();
    r.expect_group(&["v2alpha1"]);
    let p = r.polls.poll(shop());
    r.pool.run_until_stalled();
    let PollState::NotServed(words) = p.state() else {
        panic!("{:?}", p.state());
    };
    assert!(
        words.contains("only as v2alpha1") && words.contains("v1 or v1beta1"),
        "{words}"
    );
    r.step(59);
    assert_eq!(r.discoveries(), 1);
    r.expect_group(&["v2alpha1", "v1beta1"]);
    r.expect(SHOP, pods(vec![]));
    r.step(1);
    assert_eq!(p.version(), Some(Version::V1beta1));
    assert_eq!(r.gets(), 1);
}

#[test]
fn usage_failures_are_said_and_the_last_good_sample_is_kept() {
    let mut r = rig();
    r.expect_group(&["v1beta1"]);
    r.expect(SHOP, pods(vec![pod("web-1", "t1", "400m", "320Mi")]));
    let p = r.polls.poll(shop());
    r.pool.run_until_stalled();
    let good = p.latest();
    let message = r#"pods.metrics.k8s.io is forbidden: User "viewer" cannot list"#;
    r.expect(SHOP, Reply::status(403, "Forbidden", message));
    r.step(15);
    assert_eq!(p.state(), PollState::Forbidden(message.into()));
    assert!(Rc::ptr_eq(&p.latest(), &good), "kept through a failure");
    r.step(59);
    assert_eq!(r.gets(), 2, "forbidden: asked each minute");
    let failures: [(Reply, &str); 3] = [
        (
            Reply::status(500, "InternalError", "etcd is sad"),
            "etcd is sad",
        ),
        (
            Reply::Fail(TransportError::Connect("refused".into())),
            "no answer",
        ),
        (
            Reply::json(200, json!({"kind": "Status"})),
            "not a PodMetricsList",
        ),
    ];
    for (i, (reply, words)) in failures.into_iter().enumerate() {
        r.expect(SHOP, reply);
        r.step(if i == 0 { 1 } else { 15 });
        let PollState::Failed(said) = p.state() else {
            panic!("{:?}", p.state());
        };
        assert!(said.contains(words), "{said}");
        assert_eq!(p.latest(), good);
    }
    let s = &r.polls.snapshots()[0];
    assert_eq!((s.polls, s.failures, s.objects, s.points), (5, 4, 1, 1));
    assert_eq!(r.discoveries(), 1, "only not served asks the version again");
    assert_eq!(s.last_took_ms, Some(0.0));
}

#[test]
fn usage_an_invalid_namespace_sends_nothing() {
    let mut r = rig();
    let p = r.polls.poll(Target::Pods(Some("../secrets".into())));
    r.step(600);
    assert_eq!(r.gets(), 0);
    let PollState::Failed(words) = p.state() else {
        panic!("{:?}", p.state());
    };
    assert!(words.contains("namespace"), "{words}");
}

#[test]
fn usage_the_version_is_kubectls_choice_the_first_it_reads_in_the_servers_order() {
    let first = |listed: &[&str]| Version::first_served(listed.iter().copied());
    assert_eq!(first(&["v1", "v1beta1"]), Some(Version::V1), "v1 preferred");
    assert_eq!(first(&["v1beta1"]), Some(Version::V1beta1));
    assert_eq!(first(&["v2alpha1", "v1beta1"]), Some(Version::V1beta1));
    // kubectl walks the server's list, not its own: a server that prefers
    // v1beta1 is read at v1beta1.
    assert_eq!(first(&["v1beta1", "v1"]), Some(Version::V1beta1));
    assert_eq!(first(&["v2"]), None);
    assert_eq!(first(&[]), None);
}
