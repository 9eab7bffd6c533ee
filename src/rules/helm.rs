//! Helm releases as Helm 3 keeps them: one Secret per revision
//! (`sh.helm.release.v1.<release>.v<n>`, type `helm.sh/release.v1`), its
//! labels saying the release, revision, status and when it was modified,
//! and its `release` value the whole release: JSON, gzipped, base64
//! (inside the Secret's own base64).
//!
//! The list needs only the labels ([`Revision::from_labels`], from a
//! metadata-only watch, so no Secret data); a revision's chart, values,
//! notes and manifest are [`decode`]d from one Secret read when the person
//! asks. [`comparable`] makes two decoded revisions comparable field by
//! field: the chart, the values, and each manifest object by kind and name.

use std::collections::BTreeMap;
use std::io::Read;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::rules::create::documents;

/// The type of Helm 3's release Secrets (a field selector for the list).
pub const RELEASE_TYPE: &str = "helm.sh/release.v1";

/// The label every release Secret carries (a label selector for the list).
pub const OWNER_SELECTOR: &str = "owner=helm";

/// The most a release may unpack to: a Secret holds at most 1 MiB, and
/// gzip of JSON rarely passes 10:1; past this it is refused, not read (a
/// planted bomb of zeros would otherwise become gigabytes of parsed JSON).
pub const MAX_UNPACKED: u64 = 16 << 20;

/// One revision of a release, from its Secret's name and labels.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Revision {
    /// The namespace.
    pub namespace: String,
    /// The release's name (label `name`).
    pub release: String,
    /// The revision (label `version`).
    pub version: u64,
    /// `deployed`, `superseded`, `failed`, `pending-upgrade`… (label `status`).
    pub status: String,
    /// When Helm last wrote it, Unix seconds (label `modifiedAt`, which
    /// Helm sets on an update, else `createdAt`).
    pub modified: Option<i64>,
    /// The Secret's name.
    pub secret: String,
}

impl Revision {
    /// The revision a Secret's labels describe, or None when they are not
    /// Helm's (no `owner=helm`, no name, a version that is not a number).
    pub fn from_labels(
        namespace: &str,
        secret: &str,
        labels: &BTreeMap<String, String>,
    ) -> Option<Revision> {
        if labels.get("owner").map(String::as_str) != Some("helm") {
            return None;
        }
        Some(Revision {
            namespace: namespace.to_string(),
            release: labels.get("name").filter(|n| !n.is_empty())?.clone(),
            version: labels.get("version")?.parse().ok()?,
            status: labels
                .get("status")
                .cloned()
                .unwrap_or_else(|| "unknown".into()),
            modified: ["modifiedAt", "createdAt"]
                .iter()
                .find_map(|k| labels.get(*k)?.parse().ok()),
            secret: secret.to_string(),
        })
    }
}

/// A release: its revisions, newest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    /// The namespace.
    pub namespace: String,
    /// The name.
    pub name: String,
    /// Every revision kept, newest first.
    pub revisions: Vec<Revision>,
}

impl Release {
    /// The newest revision.
    pub fn latest(&self) -> &Revision {
        &self.revisions[0]
    }
}

/// The revisions grouped into releases, sorted by namespace and name.
pub fn releases<'a>(revisions: impl IntoIterator<Item = &'a Revision>) -> Vec<Release> {
    let mut by: BTreeMap<(String, String), Vec<Revision>> = BTreeMap::new();
    for r in revisions {
        by.entry((r.namespace.clone(), r.release.clone()))
            .or_default()
            .push(r.clone());
    }
    by.into_iter()
        .map(|((namespace, name), mut revisions)| {
            revisions.sort_by_key(|r| std::cmp::Reverse(r.version));
            Release {
                namespace,
                name,
                revisions,
            }
        })
        .collect()
}

/// What one revision holds, decoded.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Decoded {
    /// The chart's name.
    pub chart: String,
    /// The chart's version.
    pub chart_version: String,
    /// The chart's appVersion.
    pub app_version: String,
    /// Helm's status and description (`Upgrade complete`).
    pub status: String,
    /// The description.
    pub description: String,
    /// When this revision was deployed.
    pub deployed: String,
    /// The chart's NOTES, rendered.
    pub notes: String,
    /// The values the person gave (`helm get values`).
    pub values: Value,
    /// The chart's own defaults.
    pub defaults: Value,
    /// The rendered manifest (`helm get manifest`).
    pub manifest: String,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Wire {
    info: WireInfo,
    chart: WireChart,
    config: Value,
    manifest: String,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct WireInfo {
    last_deployed: String,
    description: String,
    status: String,
    notes: String,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct WireChart {
    metadata: WireMeta,
    values: Value,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct WireMeta {
    name: String,
    version: String,
    app_version: String,
}

/// Decodes a release Secret's `release` value (the Secret's own base64
/// already undone): base64, then gzip when it starts with gzip's magic
/// (Helm always gzips; older tools did not), then the release's JSON.
/// At most [`MAX_UNPACKED`] bytes are unpacked.
pub fn decode(value: &[u8]) -> Result<Decoded, String> {
    use base64::Engine;
    let packed = base64::engine::general_purpose::STANDARD
        .decode(value.trim_ascii())
        .map_err(|e| format!("not base64: {e}"))?;
    let json = if packed.starts_with(&[0x1f, 0x8b, 0x08]) {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(packed.as_slice())
            .take(MAX_UNPACKED + 1)
            .read_to_end(&mut out)
            .map_err(|e| format!("not gzip: {e}"))?;
        if out.len() as u64 > MAX_UNPACKED {
            return Err(format!(
                "it unpacks to more than {} MiB; not read",
                MAX_UNPACKED >> 20
            ));
        }
        out
    } else {
        packed
    };
    let wire: Wire =
        serde_json::from_slice(&json).map_err(|e| format!("not a Helm release: {e}"))?;
    Ok(Decoded {
        chart: wire.chart.metadata.name,
        chart_version: wire.chart.metadata.version,
        app_version: wire.chart.metadata.app_version,
        status: wire.info.status,
        description: wire.info.description,
        deployed: wire.info.last_deployed,
        notes: wire.info.notes,
        values: wire.config,
        defaults: wire.chart.values,
        manifest: wire.manifest,
    })
}

/// A decoded revision as one JSON value, for a field-by-field diff of two:
/// the chart, the values, and the manifest's objects by `Kind ns/name` (a
/// document that does not read is kept as its text).
pub fn comparable(d: &Decoded) -> Value {
    let mut objects = serde_json::Map::new();
    if let Ok(docs) = documents(&d.manifest) {
        for (i, doc) in docs.into_iter().enumerate() {
            match doc {
                Ok(doc) => {
                    objects.insert(doc.label(doc.namespace.as_deref()), doc.object);
                }
                Err(e) => {
                    objects.insert(format!("document {}", i + 1), Value::String(e.message));
                }
            }
        }
    } else {
        objects.insert("text".into(), Value::String(d.manifest.clone()));
    }
    json!({
        "chart": format!("{}-{}", d.chart, d.chart_version),
        "appVersion": d.app_version,
        "values": d.values,
        "manifest": objects,
    })
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use base64::Engine;
    use serde_json::json;

    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    /// A release as Helm writes it: JSON, gzipped, base64.
    fn packed(release: &Value) -> Vec<u8> {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(release.to_string().as_bytes()).expect("gzip");
        let bytes = gz.finish().expect("gzip");
        base64::engine::general_purpose::STANDARD
            .encode(bytes)
            .into_bytes()
    }

    fn release(replicas: u32, image: &str) -> Value {
        json!({
            "name": "shop", "version": 2, "namespace": "demo-shop",
            "info": {"status": "deployed", "description": "Upgrade complete", "notes": "Open the shop.",
                     "last_deployed": "2026-12-07T10:00:00Z"},
            "chart": {"metadata": {"name": "shop", "version": "1.4.0", "appVersion": "2.0"},
                      "values": {"replicas": 1, "image": "shop:1"}},
            "config": {"replicas": replicas, "image": image},
            "manifest": format!("---\n# Source: shop/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shop-config\ndata:\n  image: {image}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: shop\nspec:\n  replicas: {replicas}\n"),
        })
    }

    #[test]
    fn a_revision_is_read_from_helms_labels_only() {
        let r = Revision::from_labels(
            "demo-shop",
            "sh.helm.release.v1.shop.v2",
            &labels(&[
                ("owner", "helm"),
                ("name", "shop"),
                ("version", "2"),
                ("status", "deployed"),
                ("modifiedAt", "1765000000"),
            ]),
        )
        .expect("a revision");
        assert_eq!(
            (r.release.as_str(), r.version, r.status.as_str(), r.modified),
            ("shop", 2, "deployed", Some(1765000000))
        );
        assert_eq!(
            Revision::from_labels("x", "s", &labels(&[("name", "shop"), ("version", "2")])),
            None,
            "not owned by helm"
        );
        assert_eq!(
            Revision::from_labels(
                "x",
                "s",
                &labels(&[("owner", "helm"), ("name", "shop"), ("version", "two")])
            ),
            None
        );
        let old = Revision::from_labels(
            "x",
            "s",
            &labels(&[("owner", "helm"), ("name", "a"), ("version", "1")]),
        )
        .expect("old helm");
        assert_eq!((old.status.as_str(), old.modified), ("unknown", None));
        // A revision never updated has only createdAt.
        let created = Revision::from_labels(
            "x",
            "s",
            &labels(&[
                ("owner", "helm"),
                ("name", "a"),
                ("version", "1"),
                ("createdAt", "1700000000"),
            ]),
        )
        .expect("a revision");
        assert_eq!(created.modified, Some(1700000000));
    }

    #[test]
    fn revisions_group_into_releases_newest_first() {
        let rev = |ns: &str, name: &str, v: u64| Revision {
            namespace: ns.into(),
            release: name.into(),
            version: v,
            status: "superseded".into(),
            modified: None,
            secret: format!("sh.helm.release.v1.{name}.v{v}"),
        };
        let all = [
            rev("b", "web", 1),
            rev("a", "web", 1),
            rev("a", "web", 3),
            rev("a", "web", 2),
            rev("a", "db", 1),
        ];
        let got: Vec<(String, String, Vec<u64>)> = releases(&all)
            .into_iter()
            .map(|r| {
                (
                    r.namespace,
                    r.name,
                    r.revisions.iter().map(|r| r.version).collect(),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("a".into(), "db".into(), vec![1]),
                ("a".into(), "web".into(), vec![3, 2, 1]),
                ("b".into(), "web".into(), vec![1]),
            ]
        );
    }

    #[test]
    fn a_release_decodes_from_base64_gzip_json_as_helm_writes_it() {
        let d = decode(&packed(&release(3, "shop:2"))).expect("decoded");
        assert_eq!(
            (
                d.chart.as_str(),
                d.chart_version.as_str(),
                d.app_version.as_str()
            ),
            ("shop", "1.4.0", "2.0")
        );
        assert_eq!(
            (d.status.as_str(), d.notes.as_str()),
            ("deployed", "Open the shop.")
        );
        assert_eq!(d.values, json!({"replicas": 3, "image": "shop:2"}));
        assert_eq!(d.defaults, json!({"replicas": 1, "image": "shop:1"}));
        assert!(d.manifest.contains("kind: Deployment"));
        // Not gzipped (older writers): read as JSON.
        let plain = base64::engine::general_purpose::STANDARD.encode(release(1, "a").to_string());
        assert_eq!(
            decode(plain.as_bytes()).expect("plain").values["image"],
            "a"
        );
    }

    #[test]
    fn what_is_not_a_release_says_so_and_a_bomb_is_not_unpacked() {
        assert!(decode(b"%%%").expect_err("bad").starts_with("not base64"));
        let not_json = base64::engine::general_purpose::STANDARD.encode("hello");
        assert!(
            decode(not_json.as_bytes())
                .expect_err("bad")
                .starts_with("not a Helm release")
        );
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&vec![b' '; (MAX_UNPACKED + 2) as usize])
            .expect("gzip");
        let bomb = base64::engine::general_purpose::STANDARD.encode(gz.finish().expect("gzip"));
        assert!(
            bomb.len() < 1 << 20,
            "a Secret could hold it: {} bytes",
            bomb.len()
        );
        assert_eq!(
            decode(bomb.as_bytes()).expect_err("refused"),
            "it unpacks to more than 16 MiB; not read"
        );
    }

    #[test]
    fn two_revisions_compare_by_values_and_manifest_object() {
        let a = comparable(&decode(&packed(&release(1, "shop:1"))).expect("a"));
        let b = comparable(&decode(&packed(&release(3, "shop:2"))).expect("b"));
        let changed: Vec<String> = crate::rules::versions::diff(&a, &b)
            .into_iter()
            .map(|c| c.path)
            .collect();
        assert!(
            changed
                .iter()
                .any(|p| p.contains("values") && p.contains("replicas")),
            "{changed:?}"
        );
        assert!(
            changed
                .iter()
                .any(|p| p.contains("Deployment shop") && p.contains("replicas")),
            "{changed:?}"
        );
        assert!(
            changed
                .iter()
                .any(|p| p.contains("ConfigMap shop-config") && p.contains("image")),
            "{changed:?}"
        );
        assert!(
            !changed.iter().any(|p| p.contains("chart")),
            "same chart: {changed:?}"
        );
    }
}
