//! A client for one resource: every verb, typed (k8s-openapi kinds) or dynamic (any GVR, CRDs included).
//!
//! Requests are built with kube-core's `Request` (no I/O) and sent through the
//! [`RestClient`]. `Api<Pod>` is the typed client for pods; `Api<DynamicObject>`
//! with an [`ApiResource`] is the dynamic client for anything discovery finds.

use std::fmt::Debug;

use kube_core::params::{
    DeleteParams, GetParams, ListParams, Patch, PatchParams, PostParams, WatchParams,
};
use kube_core::{ApiResource, DynamicObject, ObjectList, PartialObjectMeta, Resource, Status};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::names::{
    NameError, validate_group, validate_name, validate_namespace, validate_plural, validate_version,
};
use crate::rest::table::{IncludeObject, METADATA_ACCEPT, Table, TablePage, TableRowObject};
use crate::rest::{Error, RestClient, WatchStream};
use crate::transport::Request;

mod subresources;

/// The group, version and plural of `dyntype`, checked as path segments.
fn check_resource<K: Resource>(dyntype: &K::DynamicType) -> Result<(), NameError> {
    validate_group(&K::group(dyntype))?;
    validate_version(&K::version(dyntype))?;
    validate_plural(&K::plural(dyntype))
}

/// What a delete answered: the object (still there while finalizers or a
/// grace period run) or a `Status` (gone).
#[derive(Debug, Clone)]
pub enum Deleted<T> {
    /// The object, now carrying a deletionTimestamp.
    Pending(T),
    /// The server's success status: the object is gone.
    Gone(Box<Status>),
}

/// `autoscaling/v1 Scale`, the `scale` subresource.
pub type Scale = k8s_openapi::api::autoscaling::v1::Scale;

/// A client for one resource in one namespace (or cluster-wide).
pub struct Api<K: Resource> {
    client: RestClient,
    /// The collection path, e.g. `/apis/apps/v1/namespaces/shop/deployments`.
    path: String,
    dyntype: K::DynamicType,
    /// Why the namespace or resource cannot be part of a path: every request
    /// of this client then fails before it is built.
    invalid: Option<NameError>,
}

impl<K: Resource> Clone for Api<K>
where
    K::DynamicType: Clone,
{
    fn clone(&self) -> Self {
        Self {
            client: self.client.clone(),
            path: self.path.clone(),
            dyntype: self.dyntype.clone(),
            invalid: self.invalid.clone(),
        }
    }
}

impl<K: Resource> Debug for Api<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Api").field("path", &self.path).finish()
    }
}

impl<K> Api<K>
where
    K: Resource<DynamicType = ()>,
{
    /// A typed client across all namespaces (or for a cluster-scoped kind).
    pub fn all(client: RestClient) -> Self {
        Self::all_with(client, &())
    }

    /// A typed client for one namespace.
    pub fn namespaced(client: RestClient, namespace: &str) -> Self {
        Self::namespaced_with(client, namespace, &())
    }
}

impl Api<DynamicObject> {
    /// A dynamic client for `resource` (as discovery describes it).
    pub fn dynamic(client: RestClient, resource: &ApiResource, namespace: Option<&str>) -> Self {
        match namespace {
            Some(ns) => Self::namespaced_with(client, ns, resource),
            None => Self::all_with(client, resource),
        }
    }
}

fn check(name: &str) -> Result<(), Error> {
    validate_name(name).map_err(Error::from)
}

impl<K: Resource> Api<K>
where
    K::DynamicType: Clone,
{
    /// A client across all namespaces for the resource `dyntype` describes.
    pub fn all_with(client: RestClient, dyntype: &K::DynamicType) -> Self {
        Self {
            client,
            path: K::url_path(dyntype, None),
            dyntype: dyntype.clone(),
            invalid: check_resource::<K>(dyntype).err(),
        }
    }

    /// A client for one namespace of the resource `dyntype` describes.
    /// A namespace that is not a DNS-1123 label makes a client whose every
    /// request fails with [`Error::InvalidName`], before any path is built.
    pub fn namespaced_with(client: RestClient, namespace: &str, dyntype: &K::DynamicType) -> Self {
        Self {
            client,
            path: K::url_path(dyntype, Some(namespace)),
            dyntype: dyntype.clone(),
            invalid: validate_namespace(namespace)
                .and_then(|()| check_resource::<K>(dyntype))
                .err(),
        }
    }

    /// Why this client cannot send anything (an invalid namespace or resource), if so.
    pub fn invalid(&self) -> Option<&NameError> {
        self.invalid.as_ref()
    }

    /// The collection path requests go to.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// What describes the resource (unit for typed clients, an `ApiResource` for dynamic ones).
    pub fn dyntype(&self) -> &K::DynamicType {
        &self.dyntype
    }

    fn request(&self) -> Result<kube_core::Request, Error> {
        match &self.invalid {
            Some(e) => Err(e.clone().into()),
            None => Ok(kube_core::Request::new(self.path.clone())),
        }
    }
}

/// Appends `key=value` to a request's query.
pub fn with_query(mut request: Request, key: &str, value: &str) -> Request {
    let uri = request.uri().to_string();
    let sep = if uri.contains('?') { "&" } else { "?" };
    let encoded: String = form_urlencoded_pair(key, value);
    if let Ok(u) = format!("{uri}{sep}{encoded}").parse() {
        *request.uri_mut() = u;
    }
    request
}

pub(crate) fn form_urlencoded_pair(key: &str, value: &str) -> String {
    fn enc(s: &str) -> String {
        let mut out = String::with_capacity(s.len());
        for b in s.bytes() {
            match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                    out.push(b as char)
                }
                _ => out.push_str(&format!("%{b:02X}")),
            }
        }
        out
    }
    format!("{}={}", enc(key), enc(value))
}

/// Asks for a server-side Table, with plain JSON as a last resort except
/// for core Secrets (see [`crate::rest::secrets::table_accept_for`]).
pub fn with_table_accept(request: Request) -> Request {
    let accept = crate::rest::secrets::table_accept_for(request.uri().path());
    with_accept(request, accept)
}

/// Replaces a request's `Accept` header.
pub fn with_accept(mut request: Request, accept: &'static str) -> Request {
    request
        .headers_mut()
        .insert(http::header::ACCEPT, http::HeaderValue::from_static(accept));
    request
}

impl<K> Api<K>
where
    K: Resource + Clone + DeserializeOwned + Serialize + Debug + 'static,
    K::DynamicType: Clone,
{
    /// `GET` one object.
    pub async fn get(&self, name: &str) -> Result<K, Error> {
        check(name)?;
        self.client
            .send_json(self.request()?.get(name, &GetParams::default())?)
            .await
    }

    /// `GET` one object, or `None` when it does not exist.
    pub async fn get_opt(&self, name: &str) -> Result<Option<K>, Error> {
        match self.get(name).await {
            Ok(o) => Ok(Some(o)),
            Err(e) if e.api().is_some_and(|a| a.is_not_found()) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// `GET` one whole object, Secrets included: the only request the
    /// client lets through to a Secret's data (see [`crate::rest::secrets`]).
    /// Call it only when a person has asked to see the data, and keep the
    /// answer out of every cache.
    pub async fn reveal(&self, name: &str) -> Result<K, Error> {
        check(name)?;
        let mut req = self.request()?.get(name, &GetParams::default())?;
        req.extensions_mut().insert(crate::rest::secrets::Reveal);
        self.client.send_json(req).await
    }

    /// `GET` one object's metadata only (`PartialObjectMetadata`); a core
    /// Secret's annotation values are hidden
    /// ([`crate::rest::secrets::redact_metadata`]).
    pub async fn get_metadata(&self, name: &str) -> Result<PartialObjectMeta<K>, Error> {
        check(name)?;
        let req = self.request()?.get_metadata(name, &GetParams::default())?;
        let mut meta: PartialObjectMeta<K> = self
            .client
            .send_json(with_accept(req, METADATA_ACCEPT))
            .await?;
        self.redact_if_secrets(&mut meta.metadata);
        Ok(meta)
    }

    /// Hides a core Secret's annotation values in `meta` read from this
    /// collection (see [`crate::rest::secrets::redact_metadata`]): every
    /// one-off read of Secret metadata passes here, as every informer of
    /// Secrets passes through its transform.
    fn redact_if_secrets(
        &self,
        meta: &mut k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
    ) {
        if crate::rest::secrets::is_secrets_path(self.path()) {
            crate::rest::secrets::redact_metadata(meta);
        }
    }

    /// `LIST` one page with every list option (selectors, limit/continue,
    /// resourceVersion and its match, timeout).
    pub async fn list(&self, params: &ListParams) -> Result<ObjectList<K>, Error> {
        self.client.send_json(self.request()?.list(params)?).await
    }

    /// `LIST` metadata only (`PartialObjectMetadataList`, ~60% smaller for pods).
    pub async fn list_metadata(
        &self,
        params: &ListParams,
    ) -> Result<ObjectList<PartialObjectMeta<K>>, Error> {
        let mut list: ObjectList<PartialObjectMeta<K>> = self
            .client
            .send_json(self.request()?.list_metadata(params)?)
            .await?;
        for item in &mut list.items {
            self.redact_if_secrets(&mut item.metadata);
        }
        Ok(list)
    }

    /// `LIST` as a server-side Table: kubectl's columns, CRD printer columns included.
    pub async fn list_table(
        &self,
        params: &ListParams,
        include: IncludeObject,
    ) -> Result<Table, Error> {
        let req = with_query(
            self.request()?.list(params)?,
            "includeObject",
            include.as_str(),
        );
        self.client.send_json(with_table_accept(req)).await
    }

    /// `LIST` one page as a server-side Table, rows decoded as
    /// [`TableRowObject`]s (metadata without managedFields) — what a table
    /// view caches. A row that does not decode is left out of the page
    /// rather than failing it (the view's informer names such rows: see
    /// [`crate::rest::list`]).
    pub async fn list_table_rows(
        &self,
        params: &ListParams,
    ) -> Result<TablePage<TableRowObject>, Error> {
        let req = with_query(self.request()?.list(params)?, "includeObject", "Metadata");
        let body = self.client.send_raw(with_table_accept(req)).await?;
        let mut page = crate::rest::list::decode_list_page::<TableRowObject>(&body, true)?;
        for row in &mut page.items {
            self.redact_if_secrets(&mut row.metadata);
        }
        Ok(TablePage {
            metadata: page.metadata,
            column_definitions: page.columns,
            rows: page.items,
        })
    }

    /// `WATCH` from `resource_version` (bookmarks, selectors, timeout and
    /// streaming-list options come from `params`).
    pub async fn watch(
        &self,
        params: &WatchParams,
        resource_version: &str,
    ) -> Result<WatchStream<K>, Error> {
        self.client
            .watch(self.request()?.watch(params, resource_version)?)
            .await
    }

    /// `WATCH` metadata only.
    pub async fn watch_metadata(
        &self,
        params: &WatchParams,
        resource_version: &str,
    ) -> Result<WatchStream<PartialObjectMeta<K>>, Error> {
        self.client
            .watch(self.request()?.watch_metadata(params, resource_version)?)
            .await
    }

    /// `WATCH` as Tables: each event carries a one-row Table.
    pub async fn watch_table(
        &self,
        params: &WatchParams,
        resource_version: &str,
        include: IncludeObject,
    ) -> Result<WatchStream<Table>, Error> {
        let req = with_query(
            self.request()?.watch(params, resource_version)?,
            "includeObject",
            include.as_str(),
        );
        self.client.watch(with_table_accept(req)).await
    }

    /// `POST` a new object.
    pub async fn create(&self, params: &PostParams, object: &K) -> Result<K, Error> {
        let body = serde_json::to_vec(object).map_err(|e| Error::Request(e.to_string()))?;
        self.client
            .send_json(self.request()?.create(params, body)?)
            .await
    }

    /// `PUT` (update) an object; a stale resourceVersion answers 409 Conflict.
    pub async fn replace(&self, name: &str, params: &PostParams, object: &K) -> Result<K, Error> {
        check(name)?;
        let body = serde_json::to_vec(object).map_err(|e| Error::Request(e.to_string()))?;
        self.client
            .send_json(self.request()?.replace(name, params, body)?)
            .await
    }

    /// `PATCH` an object: JSON merge, JSON patch, strategic merge, or
    /// server-side apply (field manager and force in `params`).
    pub async fn patch<P: Serialize + Debug>(
        &self,
        name: &str,
        params: &PatchParams,
        patch: &Patch<P>,
    ) -> Result<K, Error> {
        check(name)?;
        self.client
            .send_json(self.request()?.patch(name, params, patch)?)
            .await
    }

    /// `DELETE` an object (propagation policy, preconditions and grace period in `params`).
    pub async fn delete(&self, name: &str, params: &DeleteParams) -> Result<Deleted<K>, Error> {
        check(name)?;
        let body = self
            .client
            .send_raw(self.request()?.delete(name, params)?)
            .await?;
        decode_deleted(&body)
    }

    /// `DELETE` every object matching the selectors in `list`.
    pub async fn delete_collection(
        &self,
        params: &DeleteParams,
        list: &ListParams,
    ) -> Result<Deleted<ObjectList<K>>, Error> {
        let body = self
            .client
            .send_raw(self.request()?.delete_collection(params, list)?)
            .await?;
        decode_deleted(&body)
    }
}

fn decode_deleted<T: DeserializeOwned>(body: &[u8]) -> Result<Deleted<T>, Error> {
    let value: serde_json::Value =
        serde_json::from_slice(body).map_err(|e| Error::Decode(e.to_string()))?;
    if value.get("kind").and_then(|k| k.as_str()) == Some("Status") {
        let status: Status =
            serde_json::from_value(value).map_err(|e| Error::Decode(e.to_string()))?;
        Ok(Deleted::Gone(Box::new(status)))
    } else {
        serde_json::from_value(value)
            .map(Deleted::Pending)
            .map_err(|e| Error::Decode(e.to_string()))
    }
}
