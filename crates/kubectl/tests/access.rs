//! `can_i` against the scripted fake server: an answer is allowed or denied,
//! and a failure to ask is an error, never "denied".

use std::rc::Rc;

use futures::executor::block_on;
use http::Method;
use kubeglass_client::rest::{Error, RestClient};
use kubeglass_client::testing::{FakeApiServer, Reply};
use kubeglass_client::transport::TransportError;
use kubeglass_kubectl::access::{Access, AccessQuery, REVIEW_PATH, can_i};
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
