//! List pages that survive a bad item: every item that decodes is kept, and the rest are named.
//!
//! One object the view cannot decode (a CRD whose stored objects no longer
//! match the schema the view expects, a conversion webhook's bad answer)
//! must not cost the view every other object of its resource. client-go
//! fails the whole list and retries it forever; a dashboard shows the rest
//! and names the bad ones. The common case pays nothing: the page is
//! decoded in one pass as before, and only when that fails is it read again
//! item by item.

use std::marker::PhantomData;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ListMeta;
use serde::de::{DeserializeOwned, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::Error;
use super::split::{Piece, Splitter};
use super::table::TableColumn;

/// Longest error text kept for one item: serde quotes the offending value
/// whole, and a cluster's value may be megabytes long.
pub const MAX_ERROR_CHARS: usize = 300;

/// `text` cut to [`MAX_ERROR_CHARS`] characters, with `…` where it was cut.
pub fn clip(text: &str) -> String {
    match text.char_indices().nth(MAX_ERROR_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// One listed item that did not decode as the view's type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undecodable {
    /// `namespace/name` (or `name`) when the item has them, else its
    /// position in the page (`item 3`).
    pub key: String,
    /// serde's description of what did not fit, cut to [`MAX_ERROR_CHARS`].
    pub error: String,
}

impl std::fmt::Display for Undecodable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.key, self.error)
    }
}

/// One page of a list: its metadata, the items that decoded and the ones that did not.
#[derive(Debug)]
pub struct ListPage<K> {
    /// resourceVersion and continue token of the list.
    pub metadata: ListMeta,
    /// The items (or Table rows) that decoded, in the server's order.
    pub items: Vec<K>,
    /// A Table's columns (empty for plain lists).
    pub columns: Vec<TableColumn>,
    /// The items that did not decode.
    pub undecodable: Vec<Undecodable>,
}

/// Decodes one LIST answer (a plain list, or a Table when `table`).
///
/// The error is for a body that is not a list at all (not JSON, cut short,
/// no list frame); a list whose frame reads but some items do not returns
/// those items in [`ListPage::undecodable`].
pub fn decode_list_page<K: DeserializeOwned + Clone>(
    body: &[u8],
    table: bool,
) -> Result<ListPage<K>, Error> {
    decode_list_page_with(body, table, &|k| k)
}

/// [`decode_list_page`], each item passed through `each` as soon as it is
/// decoded (an informer's transform), so a list of 10,000 whole objects
/// trimmed to a few fields holds one whole object at a time, not 10,000.
pub fn decode_list_page_with<K: DeserializeOwned + Clone>(
    body: &[u8],
    table: bool,
    each: &dyn Fn(K) -> K,
) -> Result<ListPage<K>, Error> {
    let mut decoder = ListDecoder::new(table, each);
    decoder.push(body);
    decoder.finish()
}

/// Decodes a LIST answer as its bytes arrive: each item is decoded (and
/// passed through `each`) as soon as its last byte is in, so the decode
/// runs while the rest of the body is still on its way, and the body is
/// never held whole. Feed it with [`ListDecoder::push`], then
/// [`ListDecoder::finish`]; an item that does not decode is named in
/// [`ListPage::undecodable`] and the rest are kept.
pub struct ListDecoder<'a, K> {
    split: Splitter,
    got: Collected<'a, K>,
}

/// What a [`ListDecoder`] has so far.
struct Collected<'a, K> {
    table: bool,
    each: &'a dyn Fn(K) -> K,
    /// The body without its items' bytes.
    frame: Vec<u8>,
    /// The bytes of an item that began in an earlier chunk.
    partial: Vec<u8>,
    items: Vec<K>,
    undecodable: Vec<Undecodable>,
    /// Items seen, decoded or not (to name an item by its position).
    seen: usize,
}

impl<'a, K: DeserializeOwned> ListDecoder<'a, K> {
    /// A decoder of a plain list, or of a Table's rows when `table`.
    pub fn new(table: bool, each: &'a dyn Fn(K) -> K) -> Self {
        Self {
            split: Splitter::new(table),
            got: Collected {
                table,
                each,
                frame: Vec::new(),
                partial: Vec::new(),
                items: Vec::new(),
                undecodable: Vec::new(),
                seen: 0,
            },
        }
    }

    /// The next bytes of the body, which may end anywhere.
    pub fn push(&mut self, chunk: &[u8]) {
        let got = &mut self.got;
        self.split.feed(chunk, &mut |piece| got.take(piece));
    }

    /// How many items have been read so far, decoded or not.
    pub fn seen(&self) -> usize {
        self.got.seen
    }

    /// The page, once the body has ended: an error when the body is not a
    /// list, or ended inside it.
    pub fn finish(self) -> Result<ListPage<K>, Error> {
        let got = self.got;
        if !self.split.at_rest() {
            return Err(Error::Decode(format!(
                "the list ended early, after {} items",
                got.seen
            )));
        }
        let mut de = serde_json::Deserializer::from_slice(&got.frame);
        let mut page = Frame {
            table: got.table,
            each: got.each,
        }
        .deserialize(&mut de)
        .and_then(|page| de.end().map(|()| page))
        .map_err(|e| Error::Decode(e.to_string()))?;
        // Items the splitter left in the frame (only under a key it could
        // not read as the items key, such as an escaped one) come last.
        let mut items = got.items;
        items.append(&mut page.items);
        page.items = items;
        page.undecodable = got.undecodable;
        Ok(page)
    }
}

impl<K: DeserializeOwned> Collected<'_, K> {
    fn take(&mut self, piece: Piece<'_>) {
        match piece {
            Piece::Frame(bytes) => self.frame.extend_from_slice(bytes),
            Piece::Item { bytes, done: false } => self.partial.extend_from_slice(bytes),
            Piece::Item { bytes, done: true } if self.partial.is_empty() => self.decode(bytes),
            Piece::Item { bytes, done: true } => {
                let mut whole = std::mem::take(&mut self.partial);
                whole.extend_from_slice(bytes);
                self.decode(&whole);
                // Keep the buffer's room for the next item that spans chunks.
                whole.clear();
                self.partial = whole;
            }
        }
    }

    fn decode(&mut self, bytes: &[u8]) {
        self.seen += 1;
        match serde_json::from_slice::<K>(bytes) {
            Ok(item) => self.items.push((self.each)(item)),
            Err(e) => {
                let key = serde_json::from_slice::<Value>(bytes)
                    .ok()
                    .and_then(|v| item_key(&v, self.table))
                    .unwrap_or_else(|| format!("item {}", self.seen));
                self.undecodable.push(Undecodable {
                    key,
                    error: clip(&e.to_string()),
                });
            }
        }
    }
}

/// `namespace/name` of a listed item (a Table row's object), as far as it says.
fn item_key(value: &Value, table: bool) -> Option<String> {
    let meta = if table {
        value.get("object")?.get("metadata")?
    } else {
        value.get("metadata")?
    };
    let name = meta.get("name")?.as_str()?;
    Some(match meta.get("namespace").and_then(Value::as_str) {
        Some(ns) if !ns.is_empty() => format!("{ns}/{name}"),
        _ => name.to_string(),
    })
}

/// A list's frame read key by key: its metadata, a Table's columns, and
/// its items (a Table's rows) through [`Items`]. A plain list must have
/// `items` (null is none), as kube-core's `ObjectList` requires; a Table's
/// rows may be left out.
struct Frame<'a, K> {
    table: bool,
    each: &'a dyn Fn(K) -> K,
}

impl<'de, K: DeserializeOwned> DeserializeSeed<'de> for Frame<'_, K> {
    type Value = ListPage<K>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<ListPage<K>, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, K: DeserializeOwned> Visitor<'de> for Frame<'_, K> {
    type Value = ListPage<K>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(if self.table { "a Table" } else { "a list" })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ListPage<K>, A::Error> {
        let items_key = if self.table { "rows" } else { "items" };
        let mut page = ListPage {
            metadata: ListMeta::default(),
            items: Vec::new(),
            columns: Vec::new(),
            undecodable: Vec::new(),
        };
        let mut has_items = self.table;
        while let Some(key) = map.next_key::<String>()? {
            if key == items_key {
                page.items = map.next_value_seed(Items {
                    each: self.each,
                    kind: PhantomData,
                })?;
                has_items = true;
            } else if key == "metadata" {
                page.metadata = map.next_value::<Option<ListMeta>>()?.unwrap_or_default();
            } else if key == "columnDefinitions" && self.table {
                page.columns = map
                    .next_value::<Option<Vec<TableColumn>>>()?
                    .unwrap_or_default();
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        if !has_items {
            return Err(serde::de::Error::missing_field("items"));
        }
        Ok(page)
    }
}

/// A list's items, each through `each` as it is decoded; null is none.
struct Items<'a, K> {
    each: &'a dyn Fn(K) -> K,
    kind: PhantomData<K>,
}

impl<'de, K: DeserializeOwned> DeserializeSeed<'de> for Items<'_, K> {
    type Value = Vec<K>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Vec<K>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, K: DeserializeOwned> Visitor<'de> for Items<'_, K> {
    type Value = Vec<K>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an array of items")
    }

    fn visit_unit<E>(self) -> Result<Vec<K>, E> {
        Ok(Vec::new())
    }

    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Vec<K>, S::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element::<K>()? {
            items.push((self.each)(item));
        }
        Ok(items)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ConfigMap;
    use serde_json::json;

    #[test]
    fn a_bad_item_is_named_and_the_rest_are_kept() {
        let body = json!({"apiVersion": "v1", "kind": "ConfigMapList",
        "metadata": {"resourceVersion": "7"},
        "items": [
            {"metadata": {"name": "a", "namespace": "ns"}, "data": {"k": "v"}},
            {"metadata": {"name": "b", "namespace": "ns"}, "data": {"k": 42}},
            {"metadata": {"name": "c", "namespace": "ns"}},
        ]});
        let page: ListPage<ConfigMap> =
            decode_list_page(body.to_string().as_bytes(), false).expect("page");
        let names: Vec<_> = page
            .items
            .iter()
            .map(|c| c.metadata.name.clone().unwrap_or_default())
            .collect();
        assert_eq!(names, ["a", "c"]);
        assert_eq!(page.metadata.resource_version.as_deref(), Some("7"));
        assert_eq!(page.undecodable.len(), 1);
        assert_eq!(page.undecodable[0].key, "ns/b");
        assert!(
            page.undecodable[0].error.contains("invalid type"),
            "{}",
            page.undecodable[0]
        );
    }

    #[test]
    fn a_huge_bad_value_is_not_copied_whole_into_the_error() {
        let huge = "x".repeat(1_000_000);
        let body = json!({"metadata": {"resourceVersion": "1"},
            "items": [{"metadata": {"name": "a", "namespace": "ns", "labels": huge}}]});
        let page: ListPage<ConfigMap> =
            decode_list_page(body.to_string().as_bytes(), false).expect("page");
        let error = &page.undecodable[0].error;
        assert!(
            error.chars().count() <= MAX_ERROR_CHARS + 1,
            "{} chars",
            error.len()
        );
        assert!(error.starts_with("invalid type: string \"xxx") && error.ends_with('…'));
        assert_eq!(clip("short"), "short");
    }

    #[test]
    fn a_body_that_is_not_a_list_is_an_error() {
        for body in [&b"{\"items\": [{\"metadata\""[..], b"<html>", b"[1, 2]"] {
            let e = decode_list_page::<ConfigMap>(body, false).expect_err("no list");
            assert!(matches!(e, Error::Decode(_)), "{e}");
        }
    }

    #[test]
    fn a_table_row_without_a_name_is_named_by_position() {
        let body = json!({"kind": "Table", "metadata": {"resourceVersion": "3"},
            "columnDefinitions": [{"name": "Name", "type": "string"}],
            "rows": [{"cells": ["x"], "object": {"metadata": {"name": "x"}}}, "not a row"]});
        let page: ListPage<crate::rest::table::TableRowObject> =
            decode_list_page(body.to_string().as_bytes(), true).expect("page");
        assert_eq!(page.items.len(), 1);
        assert_eq!(page.columns.len(), 1);
        assert_eq!(page.undecodable[0].key, "item 2");
    }

    #[test]
    fn each_item_passes_the_transform_as_it_is_decoded() {
        let body = json!({"kind": "ConfigMapList", "metadata": {"resourceVersion": "9"},
            "extra": {"ignored": [1, 2]},
            "items": [{"metadata": {"name": "a", "namespace": "ns"}, "data": {"k": "v"}},
                      {"metadata": {"name": "b", "namespace": "ns"}, "data": {"k": "w"}}]});
        let seen = std::cell::Cell::new(0);
        let page: ListPage<ConfigMap> =
            decode_list_page_with(body.to_string().as_bytes(), false, &|mut c: ConfigMap| {
                seen.set(seen.get() + 1);
                c.data = None;
                c
            })
            .expect("page");
        assert_eq!(seen.get(), 2);
        assert!(page.items.iter().all(|c| c.data.is_none()));
        assert_eq!(page.metadata.resource_version.as_deref(), Some("9"));
    }

    #[test]
    fn items_are_decoded_as_their_bytes_arrive_and_the_body_is_not_kept() {
        let body = json!({"kind": "ConfigMapList", "metadata": {"resourceVersion": "4"},
            "items": [{"metadata": {"name": "a", "namespace": "ns"}, "data": {"k": "v"}},
                      {"metadata": {"name": "b", "namespace": "ns"}, "data": {"k": 7}},
                      {"metadata": {"name": "c", "namespace": "ns"}}]})
        .to_string();
        let whole: ListPage<ConfigMap> = decode_list_page(body.as_bytes(), false).expect("page");
        let cut = body.find("\"c\"").expect("c");
        for size in [1, 2, 3, 7, 64, body.len()] {
            let mut decoder = ListDecoder::new(false, &|k: ConfigMap| k);
            for chunk in body.as_bytes()[..cut].chunks(size) {
                decoder.push(chunk);
            }
            assert_eq!(
                decoder.seen(),
                2,
                "a and b are in before c's bytes (chunks of {size})"
            );
            assert!(
                decoder.got.frame.len() < 80,
                "the frame holds no item: {}",
                String::from_utf8_lossy(&decoder.got.frame)
            );
            for chunk in body.as_bytes()[cut..].chunks(size) {
                decoder.push(chunk);
            }
            let page = decoder.finish().expect("page");
            let names = |p: &ListPage<ConfigMap>| {
                p.items
                    .iter()
                    .map(|c| c.metadata.name.clone().unwrap_or_default())
                    .collect::<Vec<_>>()
            };
            assert_eq!(names(&page), ["a", "c"]);
            assert_eq!(names(&page), names(&whole));
            assert_eq!(page.undecodable, whole.undecodable);
            assert_eq!(page.undecodable[0].key, "ns/b");
            assert_eq!(page.metadata.resource_version.as_deref(), Some("4"));
        }
        let mut short = ListDecoder::<ConfigMap>::new(false, &|k| k);
        short.push(&body.as_bytes()[..cut]);
        let e = short.finish().expect_err("a body cut short");
        assert!(e.to_string().contains("ended early, after 2 items"), "{e}");
    }

    #[test]
    fn a_list_needs_its_items_but_null_is_none() {
        let status = json!({"kind": "Status", "apiVersion": "v1", "status": "Success"});
        let e = decode_list_page::<ConfigMap>(status.to_string().as_bytes(), false)
            .expect_err("a Status is not a list");
        assert!(matches!(e, Error::Decode(_)), "{e}");
        let null = json!({"metadata": {"resourceVersion": "2"}, "items": null});
        let page: ListPage<ConfigMap> =
            decode_list_page(null.to_string().as_bytes(), false).expect("page");
        assert!(page.items.is_empty());
        let trailing = b"{\"items\": []} {\"items\": []}";
        assert!(decode_list_page::<ConfigMap>(trailing, false).is_err());
        let table = json!({"kind": "Table", "metadata": {"resourceVersion": "3"}});
        let page: ListPage<crate::rest::table::TableRowObject> =
            decode_list_page(table.to_string().as_bytes(), true).expect("a Table may have no rows");
        assert!(page.items.is_empty());
    }
}
