//! Server-side tables (`meta.k8s.io/v1 Table`): kubectl's columns for any resource.
//!
//! Asking with `Accept: application/json;as=Table;v=v1;g=meta.k8s.io` makes the
//! server render the rows exactly as `kubectl get` does, CRD
//! `additionalPrinterColumns` included, so no per-kind code is needed. A watch
//! with the same header carries a one-row Table in each event.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ListMeta;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;

/// The `Accept` header for tables (v1, with plain JSON as a last resort).
pub const TABLE_ACCEPT: &str = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

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
}

/// One table row as a cacheable object: the row's cells plus the metadata
/// of the object it shows, so a Table-format informer can key, diff and
/// index rows like any other object.
///
/// It deserializes from a bare row (as found in a listed Table's `rows`)
/// or from a Table holding one row (as a Table-format watch event carries).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TableRowObject {
    /// The row object's metadata (`includeObject=Metadata`).
    pub metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
    /// The row: cells, and the object as sent.
    pub row: TableRow,
}

impl<'de> Deserialize<'de> for TableRowObject {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        let value = Value::deserialize(d)?;
        let row_value = match value.get("rows") {
            Some(Value::Array(rows)) => rows
                .first()
                .cloned()
                .ok_or_else(|| D::Error::custom("a table event without rows"))?,
            _ => value,
        };
        let row: TableRow = serde_json::from_value(row_value).map_err(D::Error::custom)?;
        let metadata = row
            .metadata()
            .cloned()
            .ok_or_else(|| D::Error::custom("a table row without its object's metadata"))
            .and_then(|m| serde_json::from_value(m).map_err(D::Error::custom))?;
        Ok(Self { metadata, row })
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

/// A listed Table with its rows still undecoded, for the reflector.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TablePage {
    #[serde(default)]
    pub metadata: ListMeta,
    #[serde(default)]
    pub column_definitions: Vec<TableColumn>,
    #[serde(default)]
    pub rows: Vec<Value>,
}
