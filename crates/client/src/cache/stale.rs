//! Objects a cache keeps as their last good copy because the server's copy no longer decodes.
//!
//! A list that cannot decode an item (a CRD whose stored objects no longer
//! fit the schema a view expects, a conversion webhook's bad answer) does
//! not say the object is gone: the server still has it. Deleting it would
//! tell every handler, and the change timeline, of a deletion that never
//! happened. So a cache keeps the copy it last decoded and names the key
//! here, with serde's words for why, until a copy that decodes arrives or
//! the server really deletes it (a DELETED event, or a later list without
//! it that does not name it either).

use std::collections::BTreeMap;
use std::sync::Arc;

/// The keys a cache holds as their last good copy, each with why the
/// server's copy did not decode.
///
/// Cloning is one reference count: a reader takes the set as it is, and
/// the writer copies it only when it changes while someone holds it. An
/// `Arc`, not an `Rc`, because a view keeps it in a signal (the informer's
/// snapshot), and the app's signals must be `Send + Sync`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stale(Arc<BTreeMap<String, String>>);

impl Stale {
    /// Why the object under `key` is stale, if it is.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(String::as_str)
    }

    /// True when the object under `key` is held as its last good copy.
    pub fn contains(&self, key: &str) -> bool {
        self.0.contains_key(key)
    }

    /// How many objects are stale.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when every object held is as the server has it.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Each stale key with why, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// Marks `key` stale because of `reason`.
    pub fn mark(&mut self, key: &str, reason: &str) {
        if self.get(key) != Some(reason) {
            Arc::make_mut(&mut self.0).insert(key.to_string(), reason.to_string());
        }
    }

    /// `key` is as the server has it again (a copy that decodes came), or
    /// gone; true when it was stale. Copies nothing when it was not.
    pub fn clear(&mut self, key: &str) -> bool {
        if !self.contains(key) {
            return false;
        }
        Arc::make_mut(&mut self.0).remove(key);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reader_keeps_the_set_it_took_while_the_writer_changes_it() {
        let mut stale = Stale::default();
        stale.mark("ns/b", "invalid type");
        let read = stale.clone();
        assert!(stale.clear("ns/b"));
        assert!(!stale.clear("ns/b"), "cleared twice");
        assert_eq!(read.get("ns/b"), Some("invalid type"));
        assert!(stale.is_empty());
    }

    #[test]
    fn an_unchanged_set_stays_the_same_allocation() {
        let mut stale = Stale::default();
        stale.mark("ns/b", "invalid type");
        let read = stale.clone();
        stale.mark("ns/b", "invalid type");
        stale.clear("ns/other");
        assert!(Arc::ptr_eq(&read.0, &stale.0));
    }
}
