//! The saved form of a cache: one header line (what, which collection,
//! when), then the Table or List the server would have sent; and the key
//! a collection's cache is saved under.

use kubeglass_client::cache::{Checkpoint, Seed};
use kubeglass_client::kube_core::DynamicObject;
use kubeglass_client::rest::table::TableRowObject;
use serde::{Deserialize, Serialize};

use crate::rules::time::Seconds;

/// The header line of a saved table.
#[derive(Debug, Serialize, Deserialize)]
struct Header {
    kubeglass: String,
    version: u32,
    path: String,
    saved: Seconds,
}

const WHAT: &str = "saved table";

/// An object type whose informers can be saved, and in which form.
pub trait Savable: Sized + Clone + 'static {
    /// The saved form: the Table or List as the server would send it.
    fn write(checkpoint: &Checkpoint<Self>) -> Result<String, String>;
    /// A saved form read back.
    fn read(text: &str) -> Result<Seed<Self>, String>;
}

impl Savable for TableRowObject {
    fn write(checkpoint: &Checkpoint<Self>) -> Result<String, String> {
        Ok(checkpoint.to_table_json())
    }
    fn read(text: &str) -> Result<Seed<Self>, String> {
        Seed::from_table_json(text)
    }
}

impl Savable for DynamicObject {
    fn write(checkpoint: &Checkpoint<Self>) -> Result<String, String> {
        checkpoint.to_list_json()
    }
    fn read(text: &str) -> Result<Seed<Self>, String> {
        Seed::from_list_json(text)
    }
}

/// The key a collection's table is saved under: readable, and within the
/// launcher's key rules (letters, digits, '.', '-', '_'). `form` tells
/// apart the caches of one collection: "table", "metadata", or the name
/// of the transform that cuts its objects.
pub fn key_of(form: &str, path: &str, labels: Option<&str>, fields: Option<&str>) -> String {
    let readable: String = path
        .trim_matches('/')
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '.'
            }
        })
        .take(80)
        .collect();
    // FNV-1a over the whole key, so selectors tell tables apart.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in [
        form,
        "\0",
        path,
        "\0",
        labels.unwrap_or(""),
        "\0",
        fields.unwrap_or(""),
    ]
    .iter()
    .flat_map(|s| s.bytes())
    {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    let form = if form == "table" { "table" } else { "list" };
    format!("{form}.{readable}.{h:016x}")
}

/// The text a checkpoint is saved as.
pub fn encode<K: Savable>(
    path: &str,
    saved: Seconds,
    checkpoint: &Checkpoint<K>,
) -> Result<String, String> {
    let header = Header {
        kubeglass: WHAT.into(),
        version: 1,
        path: path.into(),
        saved,
    };
    let mut text = serde_json::to_string(&header).map_err(|e| e.to_string())?;
    text.push('\n');
    text.push_str(&K::write(checkpoint)?);
    Ok(text)
}

/// A saved text read back: when it was saved and the seed, or what is
/// wrong with it.
pub fn decode<K: Savable>(path: &str, text: &str) -> Result<(Seconds, Seed<K>), String> {
    let (head, table) = text.split_once('\n').ok_or("no header line")?;
    // From bytes, as the client decodes every answer: one decoder in the wasm.
    let header: Header =
        serde_json::from_slice(head.as_bytes()).map_err(|e| format!("its header: {e}"))?;
    if header.kubeglass != WHAT || header.version != 1 {
        return Err(format!("not a saved table of this version ({head})"));
    }
    if header.path != path {
        return Err(format!("saved for {}, not {path}", header.path));
    }
    Ok((header.saved, K::read(table)?))
}
