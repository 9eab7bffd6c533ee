//! What a kind owns (a Deployment its ReplicaSets, a node its pods) and one owned object as a row.

use crate::rules::time::Seconds;
use kubeglass_client::discovery::ResourceInfo;
use kubeglass_client::rest::table::{TableColumn, TableRowObject};

/// Where the objects a kind owns live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Children {
    /// The child resource, as discovery resolves it (`replicasets.apps`).
    pub resource: &'static str,
    /// True for the pods on a node (found by field selector on
    /// `spec.nodeName`), false for owned objects (by owner reference).
    pub on_node: bool,
}

/// What objects of `info`'s kind own, if the app knows.
pub fn children_of(info: &ResourceInfo) -> Option<Children> {
    let owned = |resource| {
        Some(Children {
            resource,
            on_node: false,
        })
    };
    match (info.group.as_str(), info.plural.as_str()) {
        ("apps", "deployments") => owned("replicasets.apps"),
        ("apps", "replicasets" | "statefulsets" | "daemonsets") | ("batch", "jobs") => {
            owned("pods")
        }
        ("batch", "cronjobs") => owned("jobs.batch"),
        ("", "services") => owned("endpointslices.discovery.k8s.io"),
        ("", "nodes") => Some(Children {
            resource: "pods",
            on_node: true,
        }),
        _ => None,
    }
}

/// One owned object as the object page lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct OwnedRow {
    /// Its name.
    pub name: String,
    /// Its namespace.
    pub namespace: Option<String>,
    /// kubectl's columns for it, but the name and age: `Ready 1/1 · Status Running`.
    pub summary: String,
    /// When it was created.
    pub created: Option<Seconds>,
    /// Being deleted.
    pub deleting: bool,
}

impl OwnedRow {
    /// Reads one Table row, given the table's columns; rows sort by name.
    pub fn from_row(r: &TableRowObject, columns: &[TableColumn]) -> Self {
        let summary = columns
            .iter()
            .enumerate()
            .filter(|(_, c)| c.priority == 0 && c.name != "Name" && c.name != "Age")
            .map(|(i, c)| format!("{} {}", c.name, r.row.cell_text(i)))
            .collect::<Vec<_>>()
            .join(" · ");
        Self {
            name: r.metadata.name.clone().unwrap_or_default(),
            namespace: r.metadata.namespace.clone(),
            summary,
            created: r
                .metadata
                .creation_timestamp
                .as_ref()
                .map(|t| t.0.as_second() as f64),
            deleting: r.metadata.deletion_timestamp.is_some(),
        }
    }
}
