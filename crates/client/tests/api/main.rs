//! Every verb, option, content type and error path of `Api<K>` against the
//! scripted fake API server (each request is checked: method, path, query,
//! headers and body).

use std::rc::Rc;
use std::time::Duration;

use futures::StreamExt;
use futures::executor::block_on;
use http::Method;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kubeglass_client::api::{Api, Deleted};
use kubeglass_client::kube_core::params::{
    DeleteParams, ListParams, Patch, PatchParams, PostParams, Preconditions, PropagationPolicy,
    VersionMatch, WatchParams,
};
use kubeglass_client::kube_core::subresource::LogParams;
use kubeglass_client::kube_core::watch::WatchEvent;
use kubeglass_client::kube_core::{ApiResource, DynamicObject, GroupVersionKind};
use kubeglass_client::rest::table::IncludeObject;
use kubeglass_client::rest::{Error, RestClient};
use kubeglass_client::transport::TransportError;
use kubeglass_testing::{FakeApiServer, Reply};
use serde_json::json;

mod content;
mod retries;
mod secrets;
mod verbs;

const CMS: &str = "/api/v1/namespaces/shop/configmaps";

fn setup() -> (FakeApiServer, Api<ConfigMap>) {
    let server = FakeApiServer::new();
    let api = Api::namespaced(RestClient::new(Rc::new(server.clone())), "shop");
    (server, api)
}

fn cm_json(name: &str, rv: &str) -> serde_json::Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap",
           "metadata": {"name": name, "namespace": "shop", "resourceVersion": rv}, "data": {"k": "v"}})
}

fn cm(name: &str) -> ConfigMap {
    serde_json::from_value(cm_json(name, "")).expect("configmap")
}
