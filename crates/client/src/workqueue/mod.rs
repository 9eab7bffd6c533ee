//! Work queues (client-go util/workqueue): fair, stingy, delaying and rate limited.
//!
//! Guarantees, as in client-go: items come out in the order they were added;
//! an item added many times before it is processed is processed once; an item
//! added while being processed goes back in after `done` and is never handed
//! to two workers at once. Timers run on the injected clock, so tests step
//! time instead of sleeping.
//!
//! # The queues
//!
//! `workqueue` follows client-go: a fair, stingy queue (an item added many times
//! before processing is processed once; one added while processing comes back
//! after `done` and never goes to two workers at once) with `shut_down` and
//! `shut_down_with_drain` (which `shut_down` ends, as in client-go); a delaying queue whose timers run on the injected
//! clock; rate limiters as values (per-item exponential 5 ms ×2 to 1000 s,
//! fast-slow, token bucket 10 qps burst 100, max-of, with-max-wait, and the
//! default controller limiter); metrics under client-go's names, printable as
//! Prometheus text.
//!
//! `workqueue_retries_total` counts every delayed add (`add_after`), as
//! client-go's `AddAfter` does.

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
