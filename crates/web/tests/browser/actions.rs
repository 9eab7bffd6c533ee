//! An action through the browser: a scale survives a forced conflict and is recorded as an Event.

use super::*;

/// Passes requests through, but before the first PUT of a scale subresource
/// it changes the object through another client, so that PUT conflicts.
struct ConflictInjector {
    inner: Rc<FetchTransport>,
    injected: std::cell::Cell<bool>,
}

impl Transport for ConflictInjector {
    fn send(
        &self,
        request: kubeglass_client::transport::Request,
    ) -> futures::future::LocalBoxFuture<'_, Result<http::Response<Vec<u8>>, TransportError>> {
        Box::pin(async move {
            if request.method() == http::Method::PUT
                && request.uri().path().ends_with("/scale")
                && !self.injected.replace(true)
            {
                let other = RestClient::new(transport());
                let deploys: kubeglass_client::api::Api<k8s_openapi::api::apps::v1::Deployment> =
                    kubeglass_client::api::Api::namespaced(other, "demo-shop");
                let bump = serde_json::json!({"metadata": {"annotations": {"kubeglass.dev/conflict": js_sys::Date::now().to_string()}}});
                deploys
                    .patch(
                        "cart",
                        &Default::default(),
                        &kubeglass_client::kube_core::params::Patch::Merge(bump),
                    )
                    .await
                    .expect("bump the deployment");
            }
            self.inner.send(request).await
        })
    }

    fn stream(
        &self,
        request: kubeglass_client::transport::Request,
    ) -> futures::future::LocalBoxFuture<
        '_,
        Result<http::Response<kubeglass_client::transport::ByteStream>, TransportError>,
    > {
        self.inner.stream(request)
    }
}

#[wasm_bindgen_test]
async fn a_scale_action_survives_a_conflict_and_records_an_event() {
    use kubeglass_client::kube_core::{ApiResource, GroupVersionKind};
    use kubeglass_client::record::{ApiSink, EventBroadcaster};
    use kubeglass_kubectl::actions::{Action, ActionKind, ActionQueue, ActionResult};
    let injector = Rc::new(ConflictInjector {
        inner: transport(),
        injected: std::cell::Cell::new(false),
    });
    let client = RestClient::new(injector.clone());
    let clock: Rc<dyn Clock> = Rc::new(WebClock);
    let broadcaster = EventBroadcaster::new();
    let actions = ActionQueue::new(
        client.clone(),
        broadcaster.recorder("kubeglass", clock.clone()),
        clock.clone(),
    );
    let results = Rc::new(RefCell::new(Vec::new()));
    let r2 = results.clone();
    actions.on_result(move |_, r| r2.borrow_mut().push(r.clone()));
    kubeglass_web::spawn(actions.clone().run());
    kubeglass_web::spawn(broadcaster.run(Rc::new(ApiSink::new(admin())), clock.clone()));

    let deploys: kubeglass_client::api::Api<k8s_openapi::api::apps::v1::Deployment> =
        kubeglass_client::api::Api::namespaced(admin(), "demo-shop");
    let before = deploys
        .get_scale("cart")
        .await
        .expect("scale")
        .spec
        .and_then(|s| s.replicas)
        .unwrap_or(0);
    let target = if before == 3 { 2 } else { 3 };
    actions.submit(Action {
        resource: ApiResource::from_gvk_with_plural(
            &GroupVersionKind::gvk("apps", "v1", "Deployment"),
            "deployments",
        ),
        namespace: Some("demo-shop".into()),
        name: "cart".into(),
        kind: ActionKind::Scale(target),
    });
    let r3 = results.clone();
    assert!(
        eventually(20, move || !r3.borrow().is_empty()).await,
        "the action finished"
    );
    assert!(injector.injected.get(), "a conflict was forced");
    assert!(
        matches!(
            *results.borrow().as_slice(),
            [ActionResult::Done { attempts: 2, .. }]
        ),
        "retried once after the conflict: {:?}",
        results.borrow()
    );
    let now = deploys
        .get_scale("cart")
        .await
        .expect("scale")
        .spec
        .and_then(|s| s.replicas);
    assert_eq!(now, Some(target));

    // The Event is on the server, reported by kubeglass.
    assert!(
        a_scaled_event_from_kubeglass(target).await,
        "a Scaled event from kubeglass for demo-shop/cart"
    );
}

/// Looks for up to 10 s for the Scaled event of demo-shop/cart to `target`
/// replicas that kubeglass reported.
async fn a_scaled_event_from_kubeglass(target: i32) -> bool {
    let events: kubeglass_client::api::Api<k8s_openapi::api::core::v1::Event> =
        kubeglass_client::api::Api::namespaced(admin(), "demo-shop");
    let want = format!("to {target} replicas by kubeglass");
    let mut found = false;
    for _ in 0..100 {
        let list = events
            .list(
                &kubeglass_client::kube_core::params::ListParams::default()
                    .fields("involvedObject.name=cart,reason=Scaled"),
            )
            .await
            .expect("events");
        found = list.items.iter().any(|e| {
            e.reporting_component.as_deref() == Some("kubeglass")
                && e.message.as_deref().is_some_and(|m| m.contains(&want))
        });
        if found {
            break;
        }
        WebClock.sleep(Duration::from_millis(100)).await;
    }
    found
}
