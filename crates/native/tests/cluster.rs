//! The client, natively, against the real apiserver through a real `kubectl
//! proxy` (started by `make test`; `KUBEGLASS_TEST_PROXY` and
//! `KUBEGLASS_TEST_RESTRICTED_PROXY` name them). The scenarios are the same
//! ones the in-browser tests run.

use std::rc::Rc;
use std::time::Duration;

use futures::executor::block_on;
use kubeglass_client::rest::RestClient;
use kubeglass_native::{NativeTransport, SystemClock};
use kubeglass_testing::{informer_scenarios, scenarios};

const NEEDS: &str = "needs the local cluster and kubectl proxy: run through `make test`";

fn client(var: &str) -> RestClient {
    let url = std::env::var(var).unwrap_or_else(|_| panic!("{var} is not set: {NEEDS}"));
    RestClient::new(Rc::new(NativeTransport::new(url, Duration::from_secs(30))))
}

fn admin() -> RestClient {
    client("KUBEGLASS_TEST_PROXY")
}

#[test]
#[ignore = "needs the local cluster and kubectl proxy: run through `make test`"]
fn configmap_crud() {
    block_on(scenarios::configmap_crud(&admin(), &SystemClock));
}

#[test]
#[ignore = "needs the local cluster and kubectl proxy: run through `make test`"]
fn paginated_list() {
    block_on(scenarios::paginated_list(&admin(), &SystemClock));
}

#[test]
#[ignore = "needs the local cluster and kubectl proxy: run through `make test`"]
fn tables() {
    block_on(scenarios::tables(&admin()));
}

#[test]
#[ignore = "needs the local cluster and kubectl proxy: run through `make test`"]
fn watch_sees_changes() {
    block_on(scenarios::watch_sees_changes(&admin(), &SystemClock));
}

#[test]
#[ignore = "needs the local cluster and kubectl proxy: run through `make test`"]
fn discovery_finds_crds() {
    block_on(scenarios::discovery_finds_crds(&admin(), &SystemClock));
}

#[test]
#[ignore = "needs the local cluster and kubectl proxy: run through `make test`"]
fn restricted_user_is_forbidden() {
    block_on(scenarios::restricted_user_is_forbidden(&client(
        "KUBEGLASS_TEST_RESTRICTED_PROXY",
    )));
}

#[test]
#[ignore = "needs the local cluster and kubectl proxy: run through `make test`"]
fn events_v1_sink() {
    block_on(scenarios::events_v1_sink(&admin(), Rc::new(SystemClock)));
}

#[test]
#[ignore = "needs the local cluster and kubectl proxy: run through `make test`"]
fn informer_converges_under_churn_of_2000_objects() {
    block_on(informer_scenarios::informer_converges_under_churn(
        &admin(),
        Rc::new(SystemClock),
        2000,
        false,
    ));
}

#[test]
#[ignore = "needs the local cluster and kubectl proxy: run through `make test`"]
fn streaming_list_informer_converges_under_churn() {
    block_on(informer_scenarios::informer_converges_under_churn(
        &admin(),
        Rc::new(SystemClock),
        400,
        true,
    ));
}

/// The fault proxy owned by hack/test-control.py is one: the tests that stop
/// it take turns.
static FAULT_PROXY: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Both fault scenarios share the proxy owned by hack/test-control.py, so
/// they run one after the other in one test.
#[test]
#[ignore = "needs the local cluster and kubectl proxy: run through `make test`"]
fn informer_survives_proxy_restart_and_compaction() {
    let _proxy = FAULT_PROXY.lock().unwrap_or_else(|e| e.into_inner());
    let via = client("KUBEGLASS_TEST_FAULT_PROXY");
    let control = client("KUBEGLASS_TEST_CONTROL");
    block_on(informer_scenarios::informer_resumes_after_proxy_restart(
        &via,
        &admin(),
        &control,
        Rc::new(SystemClock),
    ));
    let via = client("KUBEGLASS_TEST_FAULT_PROXY");
    block_on(informer_scenarios::informer_relists_after_compaction(
        &via,
        &admin(),
        &control,
        Rc::new(SystemClock),
    ));
}

#[test]
#[ignore = "needs the local cluster and kubectl proxy: run through `make test`"]
fn informer_relists_once_when_its_version_left_the_watch_cache() {
    // Shares the fault proxy with the test above: hold its lock.
    let _proxy = FAULT_PROXY.lock().unwrap_or_else(|e| e.into_inner());
    let via = client("KUBEGLASS_TEST_FAULT_PROXY");
    let lists = block_on(
        informer_scenarios::informer_relists_once_when_its_version_left_the_watch_cache(
            &via,
            &admin(),
            &client("KUBEGLASS_TEST_CONTROL"),
            Rc::new(SystemClock),
        ),
    );
    println!("LISTs after the proxy returned: {lists}");
}

#[test]
#[ignore = "needs the local cluster and kubectl proxy: run through `make test`"]
fn table_informer_shows_crd_columns_live() {
    block_on(informer_scenarios::table_informer_shows_crd_columns_live(
        &admin(),
        Rc::new(SystemClock),
    ));
}
