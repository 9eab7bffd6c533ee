//! A few entries by key, in a vector.

/// A few entries by key, sorted, in a vector: a tab keeps a handful of
/// tables, and a map per value type would cost the wasm far more code.
#[derive(Debug, Clone, PartialEq)]
pub struct Keyed<V>(Vec<(String, V)>);

impl<V> Default for Keyed<V> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<V> Keyed<V> {
    fn find(&self, key: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(k, _)| k.as_str().cmp(key))
    }

    /// The value under `key`.
    pub fn get(&self, key: &str) -> Option<&V> {
        self.find(key).ok().map(|i| &self.0[i].1)
    }

    pub(super) fn get_mut(&mut self, key: &str) -> Option<&mut V> {
        self.find(key).ok().map(|i| &mut self.0[i].1)
    }

    pub(super) fn insert(&mut self, key: String, value: V) {
        match self.find(&key) {
            Ok(i) => self.0[i].1 = value,
            Err(i) => self.0.insert(i, (key, value)),
        }
    }

    pub(super) fn remove(&mut self, key: &str) {
        if let Ok(i) = self.find(key) {
            self.0.remove(i);
        }
    }

    pub(super) fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.0.iter_mut().map(|(_, v)| v)
    }

    /// Every entry, by key.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &V)> {
        self.0.iter().map(|(k, v)| (k, v))
    }
}
