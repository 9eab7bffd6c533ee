//! The informer machinery: reflector (list + watch) → queue → indexer → handlers.
//!
//! - [`reflector`]: keeps a queue or store in step with the server; [`pager`] reads its lists.
//! - [`fifo`]: client-go's DeltaFIFO and in-order FIFO between reflector and processor.
//! - [`indexer`]: the cache with secondary indexes; [`lister`] reads it.
//! - [`informer`]: shared informers with event handlers; [`factory`] shares them.
//! - [`store`]: a simple diffing store for a single consumer.
//! - [`stale`]: objects kept as their last good copy when the server's copy no longer decodes.

pub mod factory;
pub mod fifo;
pub mod indexer;
pub mod informer;
pub mod lister;
pub mod pager;
pub mod reflector;
pub mod stale;
pub mod store;

pub use factory::{InformerFactory, InformerKey, InformerRef};
pub use fifo::{
    Delta, DeltaFifo, DeltaObject, DeltaType, InformerQueue, Popped, RealFifo, Tombstone,
};
pub use indexer::{IndexFunc, Indexer};
pub use informer::{
    InformerOptions, InformerSnapshot, Notification, QueueKind, SharedInformer,
    drop_managed_fields, redact_secret_metadata,
};
pub use lister::{LabelSelector, Lister};
pub use reflector::{ListFrom, Reflector, ReflectorConfig, ReflectorState, ReflectorStatus};
pub use stale::Stale;
pub use store::{Change, ReflectorStore, Store, object_key};
