//! The same integration scenarios the native tests run (kubeglass_testing::scenarios and informer_scenarios), here through fetch and WebSocket in Chromium.

use super::*;

#[wasm_bindgen_test]
async fn scenario_configmap_crud() {
    scenarios::configmap_crud(&admin(), &WebClock).await;
}

#[wasm_bindgen_test]
async fn scenario_paginated_list() {
    scenarios::paginated_list(&admin(), &WebClock).await;
}

#[wasm_bindgen_test]
async fn scenario_tables() {
    scenarios::tables(&admin()).await;
}

#[wasm_bindgen_test]
async fn scenario_watch_sees_changes() {
    scenarios::watch_sees_changes(&admin(), &WebClock).await;
}

#[wasm_bindgen_test]
async fn scenario_watch_over_websocket() {
    let ws = Rc::new(WebSocketTransport::new(FetchTransport::new(
        PROXY,
        Duration::from_secs(20),
    )));
    let counts = ws.fetch().counts();
    scenarios::watch_sees_changes(&RestClient::new(ws.clone()), &WebClock).await;
    assert!(
        ws.websockets_enabled(),
        "the socket opened through kubectl proxy"
    );
    assert_eq!(counts.streams.get(), 0, "no fetch stream was used");
    assert!(
        eventually(5, || counts.websockets.get() == 0).await,
        "dropping the watch closed the socket"
    );
}

#[wasm_bindgen_test]
async fn scenario_discovery_finds_crds() {
    scenarios::discovery_finds_crds(&admin(), &WebClock).await;
}

#[wasm_bindgen_test]
async fn scenario_restricted_user_is_forbidden() {
    let restricted = RestClient::new(Rc::new(FetchTransport::new(
        RESTRICTED_PROXY,
        Duration::from_secs(20),
    )));
    scenarios::restricted_user_is_forbidden(&restricted).await;
}

#[wasm_bindgen_test]
async fn scenario_events_v1_sink() {
    scenarios::events_v1_sink(&admin(), Rc::new(WebClock)).await;
}

#[wasm_bindgen_test]
async fn informer_converges_under_churn_of_2000_objects() {
    informer_scenarios::informer_converges_under_churn(
        &RestClient::new(transport()),
        Rc::new(WebClock),
        2000,
        false,
    )
    .await;
}

// Streaming lists go over WebSocket in the browser (docs/kubectl-proxy.md).
#[wasm_bindgen_test]
async fn streaming_list_informer_converges_under_churn_over_websocket() {
    let ws = WebSocketTransport::new(FetchTransport::new(PROXY, Duration::from_secs(30)));
    informer_scenarios::informer_converges_under_churn(
        &RestClient::new(Rc::new(ws)),
        Rc::new(WebClock),
        400,
        true,
    )
    .await;
}

#[wasm_bindgen_test]
async fn informer_survives_proxy_restart_and_compaction() {
    let admin = RestClient::new(transport());
    let control = client_for(CONTROL);
    informer_scenarios::informer_resumes_after_proxy_restart(
        &client_for(FAULT_PROXY),
        &admin,
        &control,
        Rc::new(WebClock),
    )
    .await;
    informer_scenarios::informer_relists_after_compaction(
        &client_for(FAULT_PROXY),
        &admin,
        &control,
        Rc::new(WebClock),
    )
    .await;
}

#[wasm_bindgen_test]
async fn informer_relists_once_when_its_version_left_the_watch_cache() {
    let lists = informer_scenarios::informer_relists_once_when_its_version_left_the_watch_cache(
        &client_for(FAULT_PROXY),
        &RestClient::new(transport()),
        &client_for(CONTROL),
        Rc::new(WebClock),
    )
    .await;
    web_sys::console::log_1(&format!("LISTs after the proxy returned: {lists}").into());
}

#[wasm_bindgen_test]
async fn table_informer_shows_crd_columns_live() {
    informer_scenarios::table_informer_shows_crd_columns_live(
        &RestClient::new(transport()),
        Rc::new(WebClock),
    )
    .await;
}
