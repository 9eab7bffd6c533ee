//! A cache that outlives the tab: an informer seeded from a saved state
//! starts with a watch from its version instead of a list, and a
//! checkpoint is what may be saved.
//!
//! A seed is the objects, the resourceVersion they are complete up to and
//! (for a Table informer) the columns. The informer takes it before its
//! first request: the processor hands the objects to every handler as the
//! initial state, the informer counts as synced, and the reflector opens a
//! watch from the seed's version ([`super::super::reflector::Reflector::first_phase`]).
//! While that version is valid the server sends only what changed since,
//! so no LIST is made; when it is not (410 Gone: compacted, or older than
//! the watch cache) the reflector lists once, as after any 410, and that
//! list replaces the seed, deletions included.
//!
//! Where seeds are kept, and which informers may have one, is the
//! program's choice; the app never saves Secrets (see its `stores`).

use std::rc::Rc;

use futures::future::LocalBoxFuture;

use crate::rest::table::TableColumn;

/// A saved state to start an informer from.
#[derive(Debug, Clone)]
pub struct Seed<K> {
    /// Every object, as the cache held them.
    pub items: Vec<K>,
    /// The version the objects are complete up to.
    pub resource_version: String,
    /// A Table informer's columns (empty otherwise).
    pub columns: Vec<TableColumn>,
}

/// Finds the seed for an informer as it starts (None: start with a list).
/// Called once, by the informer's first run, before any request.
pub type SeedLoader<K> = Box<dyn FnOnce() -> LocalBoxFuture<'static, Option<Seed<K>>>>;

/// What an informer holds, consistent with one version: worth saving.
#[derive(Debug, Clone)]
pub struct Checkpoint<K> {
    /// Every cached object.
    pub items: Vec<Rc<K>>,
    /// The version they are complete up to.
    pub resource_version: String,
    /// A Table informer's columns.
    pub columns: Vec<TableColumn>,
}

/// A Table informer's seed is saved as the Table the server would have
/// sent: `meta.k8s.io/v1`, the columns, each row's cells and its object's
/// metadata, and the version in the list's metadata, so reading it back
/// is the same decode as a list.
mod table {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ListMeta, ObjectMeta};
    use serde::{Deserialize, Serialize};
    use serde_json::Value;

    use super::{Checkpoint, Seed};
    use crate::rest::table::{TableColumn, TableRowObject};

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Saved<'a> {
        api_version: &'static str,
        kind: &'static str,
        metadata: SavedMeta<'a>,
        column_definitions: &'a [TableColumn],
        rows: Vec<SavedRow<'a>>,
    }

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct SavedMeta<'a> {
        resource_version: &'a str,
    }

    #[derive(Serialize)]
    struct SavedRow<'a> {
        cells: &'a [Value],
        object: SavedObject<'a>,
    }

    #[derive(Serialize)]
    struct SavedObject<'a> {
        metadata: &'a ObjectMeta,
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Read {
        #[serde(default)]
        kind: String,
        #[serde(default)]
        metadata: ListMeta,
        #[serde(default)]
        column_definitions: Vec<TableColumn>,
        #[serde(default)]
        rows: Vec<TableRowObject>,
    }

    impl Checkpoint<TableRowObject> {
        /// The checkpoint as a Table's JSON.
        pub fn to_table_json(&self) -> String {
            let saved = Saved {
                api_version: "meta.k8s.io/v1",
                kind: "Table",
                metadata: SavedMeta {
                    resource_version: &self.resource_version,
                },
                column_definitions: &self.columns,
                rows: self
                    .items
                    .iter()
                    .map(|r| SavedRow {
                        cells: &r.row.cells,
                        object: SavedObject {
                            metadata: &r.metadata,
                        },
                    })
                    .collect(),
            };
            // Only strings, numbers and maps of them: it cannot fail.
            serde_json::to_string(&saved).unwrap_or_default()
        }
    }

    impl Seed<TableRowObject> {
        /// A seed from a Table's JSON ([`Checkpoint::to_table_json`]); an
        /// error says what is wrong with it (not a Table, no version, a row
        /// without its object's metadata).
        pub fn from_table_json(text: &str) -> Result<Self, String> {
            let read: Read = serde_json::from_str(text).map_err(|e| e.to_string())?;
            if read.kind != "Table" {
                return Err(format!("a saved table has kind {:?}", read.kind));
            }
            let rv = read
                .metadata
                .resource_version
                .filter(|v| !v.is_empty())
                .ok_or("a saved table has no resourceVersion")?;
            Ok(Seed {
                items: read.rows,
                resource_version: rv,
                columns: read.column_definitions,
            })
        }
    }
}

/// Any other informer's seed is saved as the List the server would have
/// sent: the items as cached (after the informer's transform) and the
/// version in the list's metadata.
mod list {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ListMeta;
    use serde::de::DeserializeOwned;
    use serde::{Deserialize, Serialize};

    use super::{Checkpoint, Seed};

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Saved<'a, K> {
        api_version: &'static str,
        kind: &'static str,
        metadata: SavedMeta<'a>,
        items: Vec<&'a K>,
    }

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct SavedMeta<'a> {
        resource_version: &'a str,
    }

    #[derive(Deserialize)]
    struct Read<K> {
        #[serde(default)]
        metadata: ListMeta,
        items: Vec<K>,
    }

    impl<K: Serialize> Checkpoint<K> {
        /// The checkpoint as a List's JSON.
        pub fn to_list_json(&self) -> Result<String, String> {
            serde_json::to_string(&Saved {
                api_version: "v1",
                kind: "List",
                metadata: SavedMeta {
                    resource_version: &self.resource_version,
                },
                items: self.items.iter().map(AsRef::as_ref).collect(),
            })
            .map_err(|e| e.to_string())
        }
    }

    impl<K: DeserializeOwned> Seed<K> {
        /// A seed from a List's JSON ([`Checkpoint::to_list_json`]), or
        /// what is wrong with it.
        pub fn from_list_json(text: &str) -> Result<Self, String> {
            let read: Read<K> = serde_json::from_str(text).map_err(|e| e.to_string())?;
            let rv = read
                .metadata
                .resource_version
                .filter(|v| !v.is_empty())
                .ok_or("a saved list has no resourceVersion")?;
            Ok(Seed {
                items: read.items,
                resource_version: rv,
                columns: Vec::new(),
            })
        }
    }
}
