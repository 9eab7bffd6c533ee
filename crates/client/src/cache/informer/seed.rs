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

/// A saved list read back: its items, version and columns, or why not
/// (no version; an item that did not read, which a save never writes).
fn read_back<K>(
    page: crate::rest::list::ListPage<K>,
) -> Result<(Vec<K>, String, Vec<TableColumn>), String> {
    if let Some(bad) = page.undecodable.first() {
        return Err(format!(
            "{} saved items do not read, the first {bad}",
            page.undecodable.len()
        ));
    }
    let rv = page
        .metadata
        .resource_version
        .filter(|v| !v.is_empty())
        .ok_or("a saved list has no resourceVersion")?;
    Ok((page.items, rv, page.columns))
}

/// A Table informer's seed is saved as the Table the server would have
/// sent: `meta.k8s.io/v1`, the columns, each row's cells and its object's
/// metadata, and the version in the list's metadata, so reading it back
/// is the same decode as a list.
mod table {
    use serde::Serialize;
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
        metadata: super::wire::Meta<'a>,
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
                            metadata: super::wire::Meta(&r.metadata),
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
            // Read as a list answer is, by the same decoder: no second
            // decoder of every row type in the wasm.
            let page = crate::rest::list::decode_list_page_with::<TableRowObject>(
                text.as_bytes(),
                true,
                &|r| r,
            )
            .map_err(|e| e.to_string())?;
            super::read_back(page).map(|(items, rv, columns)| Seed {
                items,
                resource_version: rv,
                columns,
            })
        }
    }
}

/// Any other informer's seed is saved as the List the server would have
/// sent: the items as cached (after the informer's transform) and the
/// version in the list's metadata.
mod list {
    use kube_core::DynamicObject;
    use serde::Serialize;

    use super::{Checkpoint, Seed};

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Saved<'a> {
        api_version: &'static str,
        kind: &'static str,
        metadata: SavedMeta<'a>,
        items: Vec<super::wire::Object<'a>>,
    }

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct SavedMeta<'a> {
        resource_version: &'a str,
    }

    impl Checkpoint<DynamicObject> {
        /// The checkpoint as a List's JSON.
        pub fn to_list_json(&self) -> Result<String, String> {
            serde_json::to_string(&Saved {
                api_version: "v1",
                kind: "List",
                metadata: SavedMeta {
                    resource_version: &self.resource_version,
                },
                items: self.items.iter().map(|o| super::wire::Object(o)).collect(),
            })
            .map_err(|e| e.to_string())
        }
    }

    impl Seed<DynamicObject> {
        /// A seed from a List's JSON ([`Checkpoint::to_list_json`]), or
        /// what is wrong with it.
        pub fn from_list_json(text: &str) -> Result<Self, String> {
            // Read as a list answer is, by the same decoder.
            let page = crate::rest::list::decode_list_page_with::<DynamicObject>(
                text.as_bytes(),
                false,
                &|o| o,
            )
            .map_err(|e| e.to_string())?;
            super::read_back(page).map(|(items, rv, _)| Seed {
                items,
                resource_version: rv,
                columns: Vec::new(),
            })
        }
    }
}

/// Objects written by hand rather than through k8s-openapi's `Serialize`,
/// whose timestamps go through jiff's strftime (tens of kilobytes of wasm
/// for what is one fixed format here). Each writes what the server would
/// have sent for it, managedFields left out (a saved cache never holds them).
mod wire {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
    use kube_core::DynamicObject;
    use serde::ser::{Serialize, SerializeMap, Serializer};

    /// An object's metadata.
    pub(super) struct Meta<'a>(pub(super) &'a ObjectMeta);

    /// A dynamic object: its type, its metadata ([`Meta`]) and the rest.
    pub(super) struct Object<'a>(pub(super) &'a DynamicObject);

    impl Serialize for Meta<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let m = self.0;
            let mut map = s.serialize_map(None)?;
            if let Some(v) = &m.annotations {
                map.serialize_entry("annotations", v)?;
            }
            if let Some(t) = &m.creation_timestamp {
                map.serialize_entry("creationTimestamp", &rfc3339(t))?;
            }
            if let Some(v) = &m.deletion_grace_period_seconds {
                map.serialize_entry("deletionGracePeriodSeconds", v)?;
            }
            if let Some(t) = &m.deletion_timestamp {
                map.serialize_entry("deletionTimestamp", &rfc3339(t))?;
            }
            if let Some(v) = &m.finalizers {
                map.serialize_entry("finalizers", v)?;
            }
            if let Some(v) = &m.generate_name {
                map.serialize_entry("generateName", v)?;
            }
            if let Some(v) = &m.generation {
                map.serialize_entry("generation", v)?;
            }
            if let Some(v) = &m.labels {
                map.serialize_entry("labels", v)?;
            }
            if let Some(v) = &m.name {
                map.serialize_entry("name", v)?;
            }
            if let Some(v) = &m.namespace {
                map.serialize_entry("namespace", v)?;
            }
            if let Some(v) = &m.owner_references {
                map.serialize_entry("ownerReferences", v)?;
            }
            if let Some(v) = &m.resource_version {
                map.serialize_entry("resourceVersion", v)?;
            }
            if let Some(v) = &m.self_link {
                map.serialize_entry("selfLink", v)?;
            }
            if let Some(v) = &m.uid {
                map.serialize_entry("uid", v)?;
            }
            map.end()
        }
    }

    impl Serialize for Object<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let o = self.0;
            let mut map = s.serialize_map(None)?;
            if let Some(t) = &o.types {
                map.serialize_entry("apiVersion", &t.api_version)?;
                map.serialize_entry("kind", &t.kind)?;
            }
            map.serialize_entry("metadata", &Meta(&o.metadata))?;
            if let Some(rest) = o.data.as_object() {
                for (k, v) in rest {
                    if !matches!(k.as_str(), "apiVersion" | "kind" | "metadata") {
                        map.serialize_entry(k, v)?;
                    }
                }
            }
            map.end()
        }
    }

    /// A timestamp as the API writes one: `2006-01-02T15:04:05Z`, in UTC,
    /// to the second.
    pub(super) fn rfc3339(t: &Time) -> String {
        let secs = t.0.as_second();
        let (days, day_secs) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
        let (y, m, d) = civil_from_days(days);
        format!(
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
            day_secs / 3600,
            day_secs % 3600 / 60,
            day_secs % 60
        )
    }

    /// The proleptic Gregorian date `days` after 1970-01-01 (Howard
    /// Hinnant's `civil_from_days`).
    fn civil_from_days(days: i64) -> (i64, u32, u32) {
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        let y = yoe + era * 400 + i64::from(m <= 2);
        (y, m, d)
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn timestamps_are_written_as_the_api_writes_them() {
            for text in [
                "1970-01-01T00:00:00Z",
                "2000-02-29T23:59:59Z",
                "2026-12-07T08:04:26Z",
                "1969-12-31T23:59:59Z",
                "2400-03-01T12:00:00Z",
            ] {
                let t: Time = serde_json::from_value(serde_json::json!(text)).expect("a Time");
                assert_eq!(rfc3339(&t), text);
            }
        }
    }
}
