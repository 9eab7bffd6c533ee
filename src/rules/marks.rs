//! A table's marked rows (k9s's marks): by key, so they survive sorting, filtering and live changes; rows that are deleted leave them.

use std::collections::HashSet;

/// The marked rows of one table, and the row a Shift-click extends from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Marks {
    keys: HashSet<String>,
    /// The row last marked or unmarked by itself.
    anchor: Option<String>,
}

impl Marks {
    /// How many rows are marked.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True when none is.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// True when `key` is marked.
    pub fn contains(&self, key: &str) -> bool {
        self.keys.contains(key)
    }

    /// The marked keys, in no order.
    pub fn iter(&self) -> impl Iterator<Item = &String> {
        self.keys.iter()
    }

    /// Marks `key`, or unmarks it if it was; it becomes the anchor.
    pub fn toggle(&mut self, key: &str) {
        if !self.keys.remove(key) {
            self.keys.insert(key.to_string());
        }
        self.anchor = Some(key.to_string());
    }

    /// Shift-click: marks every row from the anchor to `key` in `order`
    /// (the rows as shown), both ends included. With no anchor shown, it is
    /// a toggle of `key`.
    pub fn extend_to(&mut self, key: &str, order: &[String]) {
        let to = order.iter().position(|k| k == key);
        let from = self
            .anchor
            .as_deref()
            .and_then(|a| order.iter().position(|k| k == a));
        match (from, to) {
            (Some(a), Some(b)) => {
                let (lo, hi) = (a.min(b), a.max(b));
                self.keys.extend(order[lo..=hi].iter().cloned());
                self.anchor = Some(key.to_string());
            }
            _ => self.toggle(key),
        }
    }

    /// Marks every one of `keys` (all rows that match the filter).
    pub fn mark_all(&mut self, keys: impl IntoIterator<Item = String>) {
        self.keys.extend(keys);
    }

    /// Unmarks every row.
    pub fn clear(&mut self) {
        self.keys.clear();
        self.anchor = None;
    }

    /// Keeps only the marks `keep` says are still there (a deleted row
    /// leaves its mark); true when one went.
    pub fn retain(&mut self, keep: impl Fn(&str) -> bool) -> bool {
        let before = self.keys.len();
        self.keys.retain(|k| keep(k));
        if self
            .anchor
            .as_deref()
            .is_some_and(|a| !self.keys.contains(a) && !keep(a))
        {
            self.anchor = None;
        }
        self.keys.len() != before
    }

    /// The marked keys in `order` (as shown), then those the filter hides,
    /// by name.
    pub fn in_order(&self, order: &[String]) -> Vec<String> {
        let mut shown: Vec<String> = order
            .iter()
            .filter(|k| self.keys.contains(*k))
            .cloned()
            .collect();
        let seen: HashSet<&String> = shown.iter().collect();
        let mut hidden: Vec<String> = self
            .keys
            .iter()
            .filter(|k| !seen.contains(k))
            .cloned()
            .collect();
        hidden.sort();
        shown.extend(hidden);
        shown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn click_toggles_and_shift_click_marks_the_range_from_the_last_click() {
        let order = keys(&["a", "b", "c", "d", "e"]);
        let mut m = Marks::default();
        m.toggle("b");
        m.extend_to("d", &order);
        assert_eq!(m.in_order(&order), keys(&["b", "c", "d"]));
        // Upwards too, from the new anchor.
        m.extend_to("a", &order);
        assert_eq!(m.len(), 4);
        m.toggle("c");
        assert!(!m.contains("c"));
        // With no anchor, a Shift-click marks one.
        let mut n = Marks::default();
        n.extend_to("e", &order);
        assert_eq!(n.in_order(&order), keys(&["e"]));
    }

    #[test]
    fn marks_survive_a_new_order_and_deleted_rows_leave_them() {
        let mut m = Marks::default();
        m.mark_all(keys(&["ns/a", "ns/b", "ns/c"]));
        // Sorted the other way: the same marks, in the new order.
        let reversed = keys(&["ns/c", "ns/b", "ns/a"]);
        assert_eq!(m.in_order(&reversed), reversed);
        // Filtered: the hidden marks stay, after the shown ones.
        assert_eq!(
            m.in_order(&keys(&["ns/b"])),
            keys(&["ns/b", "ns/a", "ns/c"])
        );
        m.toggle("ns/b");
        m.toggle("ns/b");
        assert!(m.retain(|k| k != "ns/b"));
        assert_eq!(m.in_order(&reversed), keys(&["ns/c", "ns/a"]));
        assert!(!m.retain(|_| true));
        // The deleted anchor is forgotten: a Shift-click marks one.
        m.extend_to("ns/x", &keys(&["ns/a", "ns/x"]));
        assert_eq!(m.len(), 3);
        m.clear();
        assert!(m.is_empty());
    }
}
