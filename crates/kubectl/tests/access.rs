//! `can_i` against the scripted fake server: an answer is allowed or denied,
//! and a failure to ask is an error, never "denied".

use std::rc::Rc;

use futures::executor::block_on;
use http::Method;
use kubeglass_client::rest::{Error, RestClient};
use kubeglass_client::transport::TransportError;
use kubeglass_kubectl::access::{Access, AccessQuery, REVIEW_PATH, can_i};
use kubeglass_testing::{FakeApiServer, Reply};
use serde_json::json;

fn scale_query() -> AccessQuery {
    AccessQuery {
        verb: "update".into(),
        group: "apps".into(),
        resource: "deployments".into(),
        namespace: Some("shop".into()),
        name: Some("web".into()),
        subresource: Some("scale".into()),
    }
}

fn review(allowed: bool, reason: &str) -> serde_json::Value {
    json!({"kind": "SelfSubjectAccessReview", "apiVersion": "authorization.k8s.io/v1",
           "status": {"allowed": allowed, "reason": reason}})
}

#[test]
fn the_review_asks_exactly_the_question_and_reads_the_answer() {
    let server = FakeApiServer::new();
    let client = RestClient::new(Rc::new(server.clone()));
    let spec = json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
        "spec": {"resourceAttributes": {"verb": "update", "group": "apps", "resource": "deployments",
            "name": "web", "namespace": "shop", "subresource": "scale"}}});
    server
        .expect(Method::POST, REVIEW_PATH)
        .body(spec.clone())
        .reply(Reply::json(201, review(true, "")));
    server
        .expect(Method::POST, REVIEW_PATH)
        .body(spec)
        .reply(Reply::json(201, review(false, "no RBAC policy matched")));
    assert_eq!(
        block_on(can_i(&client, &scale_query())).expect("asked"),
        Access::Allowed
    );
    assert_eq!(
        block_on(can_i(&client, &scale_query())).expect("asked"),
        Access::Denied {
            reason: Some("no RBAC policy matched".into())
        }
    );
    server.verify();
}

#[test]
fn a_failure_to_ask_is_an_error_not_a_denial() {
    let server = FakeApiServer::new();
    let client = RestClient::new(Rc::new(server.clone()));
    server
        .expect(Method::POST, REVIEW_PATH)
        .reply(Reply::status(
            403,
            "Forbidden",
            "selfsubjectaccessreviews is forbidden",
        ));
    server
        .expect(Method::POST, REVIEW_PATH)
        .reply(Reply::json(201, json!({"kind": "Status"})));
    assert!(matches!(
        block_on(can_i(&client, &scale_query())),
        Err(Error::Api(_))
    ));
    assert!(matches!(
        block_on(can_i(&client, &scale_query())),
        Err(Error::Decode(_))
    ));
    // The proxy cannot be reached.
    server
        .expect(Method::POST, REVIEW_PATH)
        .reply(Reply::Fail(TransportError::Connect(
            "connection refused".into(),
        )));
    assert!(matches!(
        block_on(can_i(&client, &scale_query())),
        Err(e) if e.is_connect()
    ));
}

#[test]
fn may_create_reads_the_rules_review_of_the_namespace() {
    use kubeglass_kubectl::access::{RULES_PATH, may_create_in};
    let server = FakeApiServer::new();
    let client = RestClient::new(Rc::new(server.clone()));
    let spec = json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectRulesReview",
        "spec": {"namespace": "shop"}});
    let rules = |verbs: serde_json::Value, incomplete: bool| {
        json!({"kind": "SelfSubjectRulesReview", "status": {"incomplete": incomplete,
            "resourceRules": [{"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]},
                              {"verbs": ["create"], "apiGroups": ["authorization.k8s.io"], "resources": ["selfsubjectaccessreviews", "selfsubjectrulesreviews"]},
                              {"verbs": verbs, "apiGroups": ["apps"], "resources": ["deployments"]}]}})
    };
    for (verbs, incomplete, want) in [
        (json!(["create"]), false, true),
        (json!(["*"]), false, true),
        (json!(["watch"]), false, false),
        (json!(["watch"]), true, true),
    ] {
        server
            .expect(Method::POST, RULES_PATH)
            .body(spec.clone())
            .reply(Reply::json(201, rules(verbs.clone(), incomplete)));
        assert_eq!(
            block_on(may_create_in(&client, "shop")).expect("asked"),
            want,
            "{verbs} incomplete={incomplete}"
        );
    }
    server
        .expect(Method::POST, RULES_PATH)
        .reply(Reply::json(201, json!({"kind": "SelfSubjectRulesReview"})));
    assert!(
        block_on(may_create_in(&client, "shop")).is_err(),
        "no status is not a no"
    );
    server.verify();
}

// A bulk action's reviews: one per namespace; where the namespace says no,
// each object there by name (a Role may name objects), at most the cap
// given; answers are kept, so asking again sends nothing.
#[test]
fn many_objects_are_asked_per_namespace_then_by_name_and_answers_are_kept() {
    use kubeglass_kubectl::access::{Reviews, Verdict};
    let server = FakeApiServer::new();
    let client = RestClient::new(Rc::new(server.clone()));
    let spec = |ns: &str, name: &str| {
        json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
            "spec": {"resourceAttributes": {"verb": "delete", "group": "", "resource": "configmaps",
                "name": name, "namespace": ns, "subresource": ""}}})
    };
    let answer = |ns: &str, name: &str, allowed: bool| {
        server
            .expect(Method::POST, REVIEW_PATH)
            .body(spec(ns, name))
            .reply(Reply::json(201, review(allowed, "")));
    };
    answer("open", "", true);
    answer("shut", "", false);
    answer("shut", "a", true);
    answer("shut", "b", false);
    let what = AccessQuery {
        verb: "delete".into(),
        resource: "configmaps".into(),
        ..Default::default()
    };
    let objects: Vec<(Option<String>, String)> = [
        ("open", "x"),
        ("shut", "a"),
        ("open", "y"),
        ("shut", "b"),
        ("shut", "c"),
    ]
    .iter()
    .map(|(ns, n)| (Some(ns.to_string()), n.to_string()))
    .collect();
    let reviews = Reviews::new(client);
    let verdicts = block_on(reviews.each(&what, &objects, 2));
    assert!(
        matches!(
            verdicts.as_slice(),
            [
                Verdict::Allowed,
                Verdict::Allowed,
                Verdict::Allowed,
                Verdict::Denied { reason: None },
                Verdict::NotAsked,
            ]
        ),
        "{verdicts:?}"
    );
    server.verify();
    // Asked again: every answer is kept; only "c" (never asked) goes out.
    answer("shut", "c", false);
    let again = block_on(reviews.each(&what, &objects, 10));
    let allowed: Vec<bool> = again.iter().map(Verdict::allowed).collect();
    assert_eq!(allowed, [true, true, true, false, false]);
    assert!(
        matches!(again[4], Verdict::Denied { reason: None }),
        "{again:?}"
    );
    server.verify();
    assert_eq!(reviews.kept(), 5);
}

// A failure to ask is kept apart from "no", and is not kept: the next
// time asks again.
#[test]
fn a_bulk_review_that_could_not_be_asked_is_unknown_and_asked_again() {
    use kubeglass_kubectl::access::{Reviews, Verdict};
    let server = FakeApiServer::new();
    let client = RestClient::new(Rc::new(server.clone()));
    server
        .expect(Method::POST, REVIEW_PATH)
        .reply(Reply::status(500, "InternalError", "etcd is away"));
    let what = AccessQuery {
        verb: "patch".into(),
        resource: "nodes".into(),
        ..Default::default()
    };
    let objects = vec![(None, "n1".to_string()), (None, "n2".to_string())];
    let reviews = Reviews::new(client);
    let verdicts = block_on(reviews.each(&what, &objects, 10));
    assert!(
        matches!(
            verdicts.as_slice(),
            [Verdict::Unknown(_), Verdict::Unknown(_)]
        ),
        "{verdicts:?}"
    );
    server.verify();
    server
        .expect(Method::POST, REVIEW_PATH)
        .reply(Reply::json(201, review(true, "")));
    let again = block_on(reviews.each(&what, &objects, 10));
    assert!(
        matches!(again.as_slice(), [Verdict::Allowed, Verdict::Allowed]),
        "{again:?}"
    );
    server.verify();
}
