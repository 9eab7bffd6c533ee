//! `can_i` against the scripted fake server: an answer is allowed or denied,
//! and a failure to ask is an error, never "denied".

use std::rc::Rc;

use futures::executor::block_on;
use http::Method;
use kubeglass_client::access::{Access, AccessQuery, REVIEW_PATH, can_i};
use kubeglass_client::rest::{Error, RestClient};
use kubeglass_client::testing::{FakeApiServer, Reply};
use kubeglass_client::transport::TransportError;
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
