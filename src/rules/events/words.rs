//! The words around events: where an object's Events live, and the paused stream's counts in a sentence.

/// The namespace that holds an object's Events: its own, or `default` for a
/// cluster-scoped object (where the kubelet and the controllers record a
/// Node's or a PersistentVolume's).
pub fn events_namespace(object_namespace: Option<&str>) -> &str {
    object_namespace.unwrap_or("default")
}

/// How many events a stream holds, in words.
pub fn held_words(n: usize) -> String {
    match n {
        0 => "no events".to_string(),
        1 => "1 event".to_string(),
        n => format!("{n} events"),
    }
}

/// The paused stream's line: how many events (passing the filter) arrived
/// since the pause.
pub fn arrived_words(n: usize) -> String {
    match n {
        0 => "paused: nothing new yet".to_string(),
        1 => "paused: 1 event arrived".to_string(),
        n => format!("paused: {n} events arrived"),
    }
}
