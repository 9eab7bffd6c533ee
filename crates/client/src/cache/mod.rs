//! The informer machinery: reflector (list + watch) feeding a store that notifies listeners.

pub mod reflector;
pub mod store;

pub use reflector::{ListFrom, Reflector, ReflectorConfig, ReflectorState, ReflectorStatus};
pub use store::{Change, ReflectorStore, Store, object_key};
