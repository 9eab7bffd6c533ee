//! Work queues (client-go util/workqueue): fair, stingy, delaying and rate limited.
//!
//! Guarantees, as in client-go: items come out in the order they were added;
//! an item added many times before it is processed is processed once; an item
//! added while being processed goes back in after `done` and is never handed
//! to two workers at once. Timers run on the injected clock, so tests step
//! time instead of sleeping.

mod delaying;
pub mod metrics;
mod queue;
pub mod rate_limiter;

pub use delaying::{DelayingQueue, RateLimitingQueue};
pub use metrics::QueueMetrics;
pub use queue::Queue;
pub use rate_limiter::{
    Bucket, ItemExponential, ItemFastSlow, MaxOf, RateLimiter, WithMaxWait,
    default_controller_rate_limiter,
};
