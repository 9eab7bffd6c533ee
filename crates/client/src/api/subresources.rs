//! The subresources: `status`, `scale` and a pod's `log`.

use std::fmt::Debug;

use kube_core::Resource;
use kube_core::params::{Patch, PatchParams, PostParams};
use kube_core::subresource::LogParams;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{Api, Scale, check};
use crate::rest::Error;
use crate::transport::ByteStream;

impl<K> Api<K>
where
    K: Resource + Clone + DeserializeOwned + Serialize + Debug + 'static,
    K::DynamicType: Clone,
{
    /// `GET` the `status` subresource.
    pub async fn get_status(&self, name: &str) -> Result<K, Error> {
        check(name)?;
        self.client
            .send_json(self.request()?.get_subresource("status", name)?)
            .await
    }

    /// `PATCH` the `status` subresource.
    pub async fn patch_status<P: Serialize + Debug>(
        &self,
        name: &str,
        params: &PatchParams,
        patch: &Patch<P>,
    ) -> Result<K, Error> {
        check(name)?;
        self.client
            .send_json(
                self.request()?
                    .patch_subresource("status", name, params, patch)?,
            )
            .await
    }

    /// `PUT` the `status` subresource.
    pub async fn replace_status(
        &self,
        name: &str,
        params: &PostParams,
        object: &K,
    ) -> Result<K, Error> {
        check(name)?;
        let body = serde_json::to_vec(object).map_err(|e| Error::Request(e.to_string()))?;
        self.client
            .send_json(
                self.request()?
                    .replace_subresource("status", name, params, body)?,
            )
            .await
    }

    /// `GET` the `scale` subresource.
    pub async fn get_scale(&self, name: &str) -> Result<Scale, Error> {
        check(name)?;
        self.client
            .send_json(self.request()?.get_subresource("scale", name)?)
            .await
    }

    /// Sets `spec.replicas` through the `scale` subresource (a merge patch).
    pub async fn scale(&self, name: &str, replicas: i32) -> Result<Scale, Error> {
        check(name)?;
        let patch = serde_json::json!({"spec": {"replicas": replicas}});
        self.client
            .send_json(self.request()?.patch_subresource(
                "scale",
                name,
                &PatchParams::default(),
                &Patch::Merge(&patch),
            )?)
            .await
    }
}

impl Api<k8s_openapi::api::core::v1::Pod> {
    /// A pod's log as text (`follow` must be false; see [`Api::log_stream`]).
    pub async fn logs(&self, name: &str, params: &LogParams) -> Result<String, Error> {
        check(name)?;
        let body = self
            .client
            .send_raw(self.request()?.logs(name, params)?)
            .await?;
        Ok(String::from_utf8_lossy(&body).into_owned())
    }

    /// A pod's log as a byte stream (with `follow: true`, it stays open).
    pub async fn log_stream(&self, name: &str, params: &LogParams) -> Result<ByteStream, Error> {
        check(name)?;
        self.client
            .stream_raw(self.request()?.logs(name, params)?)
            .await
    }
}
