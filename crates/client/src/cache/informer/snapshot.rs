//! What the X-ray page shows about an informer.

use super::super::reflector::ReflectorStatus;
use super::super::stale::Stale;

/// Counters of the processor side, for the X-ray page.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProcessorStats {
    /// Units of work popped.
    pub popped: u64,
    /// Notifications handed to handlers.
    pub notifications: u64,
    /// Relists applied.
    pub replaces: u64,
    /// Largest number of units popped in one turn.
    pub largest_batch: usize,
    /// Turns that took over 100 ms with more than 10 units waiting.
    pub slow_turns: u64,
    /// What the last slow turn looked like, for a log line.
    pub last_slow: Option<String>,
}

/// Everything the X-ray page shows about one informer.
#[derive(Debug, Clone, PartialEq)]
pub struct InformerSnapshot {
    /// The reflector's state and counters.
    pub reflector: ReflectorStatus,
    /// The processor's counters.
    pub processor: ProcessorStats,
    /// Objects in the cache.
    pub objects: usize,
    /// Units of work waiting in the queue.
    pub queued: usize,
    /// Registered handlers.
    pub handlers: usize,
    /// True once the first list has been applied and delivered.
    pub synced: bool,
    /// Watches re-opened after the first.
    pub watch_restarts: u64,
    /// Lists after the first.
    pub relists: u64,
    /// The objects held as their last good copy because the server's copy
    /// no longer decodes ([`super::SharedInformer::stale`]).
    pub stale: Stale,
}

impl InformerSnapshot {
    /// A short word for the state: "listing", "watching", "backing off", "stopped", "idle".
    pub fn state_label(&self) -> &'static str {
        self.reflector.state.label()
    }
}
