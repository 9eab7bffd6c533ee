//! Server-side tables (`meta.k8s.io/v1 Table`): kubectl's columns for any resource.
//!
//! Asking with `Accept: application/json;as=Table;v=v1;g=meta.k8s.io` makes the
//! server render the rows exactly as `kubectl get` does, CRD
//! `additionalPrinterColumns` included, so no per-kind code is needed. A watch
//! with the same header carries a one-row Table in each event.
//!
//! # Table rows
//!
//! Table rows (`TableRowObject`) are decoded straight from the response
//! bytes with `metadata.managedFields` skipped unread and the metadata kept
//! once; a pod row's managedFields are most of its bytes.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ListMeta;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;

/// The `Accept` header for tables (v1, with plain JSON as a last resort).
pub const TABLE_ACCEPT: &str = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

/// The `Accept` header for tables with no plain-JSON fallback: what core
/// Secrets are asked with, since the fallback would bring their data (see
/// [`crate::rest::secrets::table_accept_for`]).
pub const TABLE_ONLY_ACCEPT: &str = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io";

/// The annotation `kubectl apply` keeps a copy of the object in (a
/// Secret's data with it), dropped from every table row and from Secrets.
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// The `Accept` header for one object's metadata only.
pub const METADATA_ACCEPT: &str = "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io";

/// The `Accept` header for a list of metadata only.
pub const METADATA_LIST_ACCEPT: &str =
    "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io";

/// How much of each object a table row carries (`includeObject`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IncludeObject {
    /// No object.
    None,
    /// The object's metadata (`PartialObjectMetadata`); the server's default.
    #[default]
    Metadata,
    /// The whole object.
    Object,
}

impl IncludeObject {
    /// The query value.
    pub fn as_str(self) -> &'static str {
        match self {
            IncludeObject::None => "None",
            IncludeObject::Metadata => "Metadata",
            IncludeObject::Object => "Object",
        }
    }
}

/// One column of a table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TableColumn {
    /// Header text, e.g. `NAME`, `READY`.
    pub name: String,
    /// OpenAPI type: `string`, `integer`, `number`, `boolean`, `date`.
    #[serde(rename = "type", default)]
    pub type_: String,
    /// OpenAPI format hint, e.g. `name` for the name column.
    #[serde(default)]
    pub format: String,
    /// What the column means.
    #[serde(default)]
    pub description: String,
    /// 0 = shown by default; higher = only in wide output.
    #[serde(default)]
    pub priority: i32,
}

/// One row of a table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TableRow {
    /// One cell per column, as JSON values (strings, numbers, booleans or null).
    #[serde(default)]
    pub cells: Vec<Value>,
    /// The object (or its metadata) when asked for with `includeObject`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<Value>,
}

impl TableRow {
    /// The row object's `metadata`, when the row carries one.
    pub fn metadata(&self) -> Option<&Value> {
        self.object.as_ref()?.get("metadata")
    }

    /// `metadata.uid` of the row's object.
    pub fn uid(&self) -> Option<&str> {
        self.metadata()?.get("uid")?.as_str()
    }

    /// `metadata.name` of the row's object.
    pub fn name(&self) -> Option<&str> {
        self.metadata()?.get("name")?.as_str()
    }

    /// `metadata.namespace` of the row's object.
    pub fn namespace(&self) -> Option<&str> {
        self.metadata()?.get("namespace")?.as_str()
    }

    /// `metadata.resourceVersion` of the row's object.
    pub fn resource_version(&self) -> Option<&str> {
        self.metadata()?.get("resourceVersion")?.as_str()
    }

    /// A cell rendered as plain text (`<none>` for null, as kubectl does).
    pub fn cell_text(&self, i: usize) -> Cow<'_, str> {
        match self.cells.get(i) {
            Some(Value::String(s)) => Cow::Borrowed(s),
            Some(Value::Null) | None => Cow::Borrowed("<none>"),
            Some(v) => Cow::Owned(v.to_string()),
        }
    }
}

/// A `meta.k8s.io/v1 Table`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Table {
    /// `meta.k8s.io/v1`.
    #[serde(default)]
    pub api_version: String,
    /// `Table`.
    #[serde(default)]
    pub kind: String,
    /// resourceVersion and continue token of the list.
    #[serde(default)]
    pub metadata: ListMeta,
    /// The columns; a watch event's table may omit them after the first.
    #[serde(default)]
    pub column_definitions: Vec<TableColumn>,
    /// The rows.
    #[serde(default)]
    pub rows: Vec<TableRow>,
}

impl Table {
    /// The index of the column named `name` (case-insensitive).
    pub fn column(&self, name: &str) -> Option<usize> {
        self.column_definitions
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_a_pod_table_with_metadata_objects() {
        let body = serde_json::json!({
            "kind": "Table", "apiVersion": "meta.k8s.io/v1",
            "metadata": {"resourceVersion": "42"},
            "columnDefinitions": [
                {"name": "Name", "type": "string", "format": "name", "description": "Name must be unique", "priority": 0},
                {"name": "Ready", "type": "string", "format": "", "description": "", "priority": 0},
                {"name": "Restarts", "type": "string", "format": "", "description": "", "priority": 0},
                {"name": "IP", "type": "string", "format": "", "description": "", "priority": 1}
            ],
            "rows": [{"cells": ["web-1", "1/1", "0", null],
                      "object": {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                                 "metadata": {"name": "web-1", "namespace": "shop", "uid": "u-1", "resourceVersion": "41"}}}]
        });
        let t: Table = serde_json::from_value(body).expect("table");
        assert_eq!(t.metadata.resource_version.as_deref(), Some("42"));
        assert_eq!(t.column("ready"), Some(1));
        assert_eq!(t.column_definitions[3].priority, 1);
        let row = &t.rows[0];
        assert_eq!(row.uid(), Some("u-1"));
        assert_eq!(row.namespace(), Some("shop"));
        assert_eq!(row.cell_text(0), "web-1");
        assert_eq!(row.cell_text(3), "<none>");
        assert_eq!(row.resource_version(), Some("41"));
    }

    #[test]
    fn a_row_object_keeps_its_metadata_once_and_never_its_managed_fields_or_last_applied() {
        let object = serde_json::json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
            "metadata": {"name": "web-1", "namespace": "shop", "uid": "u-1", "resourceVersion": "41",
                "labels": {"app": "web"},
                "annotations": {"team": "shop",
                    "kubectl.kubernetes.io/last-applied-configuration": "{\"data\":{\"k\":\"c2VjcmV0\"}}"},
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": "rs-1"}],
                "managedFields": [{"manager": "kubectl", "operation": "Apply", "fieldsType": "FieldsV1",
                    "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:app": {}}}}}]}});
        let bare = serde_json::json!({"cells": ["web-1", "1/1"], "object": object});
        let event = serde_json::json!({"kind": "Table", "apiVersion": "meta.k8s.io/v1",
            "columnDefinitions": [], "rows": [bare.clone()]});
        for v in [bare, event] {
            let r: TableRowObject = serde_json::from_value(v).expect("a row");
            assert_eq!(r.metadata.name.as_deref(), Some("web-1"));
            assert_eq!(
                r.metadata
                    .labels
                    .as_ref()
                    .and_then(|l| l.get("app"))
                    .map(String::as_str),
                Some("web")
            );
            assert_eq!(
                r.metadata
                    .owner_references
                    .as_ref()
                    .map(|o| o[0].uid.as_str()),
                Some("rs-1")
            );
            assert_eq!(r.metadata.managed_fields, None);
            let a = r.metadata.annotations.as_ref().expect("annotations");
            assert_eq!(a.get("team").map(String::as_str), Some("shop"));
            assert!(!a.contains_key(super::LAST_APPLIED));
            assert_eq!(r.row.object, None);
            assert_eq!(r.row.cell_text(1), "1/1");
        }
        // From bytes, as the reflector reads a page.
        let page: TablePage<TableRowObject> = serde_json::from_str(
            r#"{"metadata": {"resourceVersion": "9"}, "columnDefinitions": [],
                "rows": [{"cells": ["a"], "object": {"metadata": {"name": "a", "managedFields": [{"x": [1, {"y": 2}]}]}}}]}"#,
        ).expect("a page");
        assert_eq!(page.rows[0].metadata.name.as_deref(), Some("a"));
        // Bad input is an error, not a panic.
        for bad in [
            serde_json::json!({"cells": ["x"]}),
            serde_json::json!({"kind": "Table", "rows": []}),
            serde_json::json!({"cells": ["x"], "object": {"metadata": {"name": 5}}}),
            serde_json::json!("row"),
        ] {
            assert!(serde_json::from_value::<TableRowObject>(bad).is_err());
        }
    }
}

/// One table row as a cacheable object: the row's cells plus the metadata
/// of the object it shows, so a Table-format informer can key, diff and
/// index rows like any other object.
///
/// It deserializes from a bare row (as found in a listed Table's `rows`)
/// or from a Table holding one row (as a Table-format watch event carries),
/// straight from the bytes: the row object's `metadata.managedFields` (most
/// of a row's bytes) are skipped unread, and the metadata is kept once, in
/// `metadata` — `row.object` is left empty.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TableRowObject {
    /// The row object's metadata (`includeObject=Metadata`), without managedFields.
    pub metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
    /// The row's cells (`object` is not kept: see `metadata`).
    pub row: TableRow,
}

/// A row as sent, its object's metadata read without managedFields.
#[derive(Deserialize)]
struct WireRow {
    #[serde(default)]
    cells: Vec<Value>,
    #[serde(default)]
    object: Option<WireRowObject>,
}

#[derive(Deserialize)]
struct WireRowObject {
    #[serde(default)]
    metadata: Option<LeanMeta>,
}

/// Either a bare row or a Table of rows (a watch event's object).
#[derive(Deserialize)]
struct RowOrTable {
    #[serde(default)]
    cells: Option<Vec<Value>>,
    #[serde(default)]
    object: Option<WireRowObject>,
    #[serde(default)]
    rows: Option<Vec<WireRow>>,
}

/// `ObjectMeta` read with `managedFields` skipped unparsed and the
/// last-applied annotation dropped.
struct LeanMeta(k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta);

impl<'de> Deserialize<'de> for LeanMeta {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = serde_json::Map<String, Value>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("object metadata")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<Self::Value, A::Error> {
                let mut out = serde_json::Map::new();
                while let Some(k) = m.next_key::<String>()? {
                    if k == "managedFields" {
                        m.next_value::<serde::de::IgnoredAny>()?;
                    } else if k == "annotations" {
                        // `kubectl apply`'s last-applied manifest is the
                        // largest annotation, no table shows it, and for a
                        // Secret it holds the data: never kept in a row.
                        let a: Option<serde_json::Map<String, Value>> = m.next_value()?;
                        if let Some(mut a) = a {
                            a.remove(LAST_APPLIED);
                            out.insert(k, Value::Object(a));
                        }
                    } else {
                        out.insert(k, m.next_value()?);
                    }
                }
                Ok(out)
            }
        }
        use serde::de::Error as _;
        let map = d.deserialize_map(Visit)?;
        serde_json::from_value(Value::Object(map))
            .map(LeanMeta)
            .map_err(D::Error::custom)
    }
}

impl<'de> Deserialize<'de> for TableRowObject {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        let either = RowOrTable::deserialize(d)?;
        let (cells, object) = match either.rows {
            Some(rows) => {
                let row = rows
                    .into_iter()
                    .next()
                    .ok_or_else(|| D::Error::custom("a table event without rows"))?;
                (row.cells, row.object)
            }
            None => (either.cells.unwrap_or_default(), either.object),
        };
        let metadata = object
            .and_then(|o| o.metadata)
            .ok_or_else(|| D::Error::custom("a table row without its object's metadata"))?
            .0;
        Ok(Self {
            metadata,
            row: TableRow {
                cells,
                object: None,
            },
        })
    }
}

impl kube_core::Resource for TableRowObject {
    type DynamicType = ();
    type Scope = kube_core::DynamicResourceScope;

    fn kind(_: &()) -> Cow<'_, str> {
        "TableRow".into()
    }
    fn group(_: &()) -> Cow<'_, str> {
        "meta.k8s.io".into()
    }
    fn version(_: &()) -> Cow<'_, str> {
        "v1".into()
    }
    fn plural(_: &()) -> Cow<'_, str> {
        "tablerows".into()
    }
    fn meta(&self) -> &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
        &self.metadata
    }
    fn meta_mut(&mut self) -> &mut k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
        &mut self.metadata
    }
}

/// A listed Table with its rows decoded as `K` (for the reflector, and
/// [`TableRowObject`] pages for views).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
#[serde(bound(deserialize = "K: serde::de::DeserializeOwned"))]
pub struct TablePage<K> {
    /// The list's resourceVersion, continue token and remaining item count.
    #[serde(default)]
    pub metadata: ListMeta,
    /// kubectl's columns.
    #[serde(default)]
    pub column_definitions: Vec<TableColumn>,
    /// The rows.
    #[serde(default = "Vec::new")]
    pub rows: Vec<K>,
}
