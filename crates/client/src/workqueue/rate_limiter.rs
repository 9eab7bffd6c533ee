//! Rate limiters as values: each answers "how long until this item may go again" and can forget.

use std::collections::HashMap;
use std::hash::Hash;
use std::time::Duration;

use crate::clock::Timestamp;
use crate::rest::limiter::TokenBucket;

/// Decides how long an item waits before it is retried.
pub trait RateLimiter<T> {
    /// Records one more failure of `item` at `now` and returns its delay.
    fn when(&mut self, item: &T, now: Timestamp) -> Duration;
    /// Forgets `item`'s failures (it succeeded).
    fn forget(&mut self, item: &T);
    /// How many times `item` has been rate limited since the last forget.
    fn num_requeues(&self, item: &T) -> u32;
}

/// Per item: `base × 2^failures`, capped at `max` (client-go: 5 ms to 1000 s).
#[derive(Debug, Clone)]
pub struct ItemExponential<T> {
    base: Duration,
    max: Duration,
    failures: HashMap<T, u32>,
}

impl<T: Eq + Hash + Clone> ItemExponential<T> {
    /// Delays from `base`, doubling, up to `max`.
    pub fn new(base: Duration, max: Duration) -> Self {
        Self {
            base,
            max,
            failures: HashMap::new(),
        }
    }
}

impl<T: Eq + Hash + Clone> RateLimiter<T> for ItemExponential<T> {
    fn when(&mut self, item: &T, _now: Timestamp) -> Duration {
        let n = self.failures.entry(item.clone()).or_insert(0);
        let exp = *n;
        *n = n.saturating_add(1);
        // 2^exp overflows quickly: compute in f64 and cap.
        let secs = self.base.as_secs_f64() * 2f64.powi(exp.min(1023) as i32);
        if !secs.is_finite() || secs >= self.max.as_secs_f64() {
            self.max
        } else {
            Duration::from_secs_f64(secs)
        }
    }

    fn forget(&mut self, item: &T) {
        self.failures.remove(item);
    }

    fn num_requeues(&self, item: &T) -> u32 {
        self.failures.get(item).copied().unwrap_or(0)
    }
}

/// Per item: `fast` for the first `max_fast_attempts` failures, `slow` after.
#[derive(Debug, Clone)]
pub struct ItemFastSlow<T> {
    fast: Duration,
    slow: Duration,
    max_fast_attempts: u32,
    attempts: HashMap<T, u32>,
}

impl<T: Eq + Hash + Clone> ItemFastSlow<T> {
    /// `fast` delays for `max_fast_attempts` failures, then `slow`.
    pub fn new(fast: Duration, slow: Duration, max_fast_attempts: u32) -> Self {
        Self {
            fast,
            slow,
            max_fast_attempts,
            attempts: HashMap::new(),
        }
    }
}

impl<T: Eq + Hash + Clone> RateLimiter<T> for ItemFastSlow<T> {
    fn when(&mut self, item: &T, _now: Timestamp) -> Duration {
        let n = self.attempts.entry(item.clone()).or_insert(0);
        *n = n.saturating_add(1);
        if *n <= self.max_fast_attempts {
            self.fast
        } else {
            self.slow
        }
    }

    fn forget(&mut self, item: &T) {
        self.attempts.remove(item);
    }

    fn num_requeues(&self, item: &T) -> u32 {
        self.attempts.get(item).copied().unwrap_or(0)
    }
}

/// One token bucket for all items (client-go's default: 10 qps, burst 100).
#[derive(Debug, Clone)]
pub struct Bucket {
    bucket: TokenBucket,
}

impl Bucket {
    /// `qps` per second with bursts of `burst`.
    pub fn new(qps: f64, burst: u32) -> Self {
        Self {
            bucket: TokenBucket::new(qps, burst),
        }
    }
}

impl<T> RateLimiter<T> for Bucket {
    fn when(&mut self, _item: &T, now: Timestamp) -> Duration {
        self.bucket.reserve(now)
    }
    fn forget(&mut self, _item: &T) {}
    fn num_requeues(&self, _item: &T) -> u32 {
        0
    }
}

/// The longest delay of several limiters.
pub struct MaxOf<T> {
    limiters: Vec<Box<dyn RateLimiter<T>>>,
}

impl<T> MaxOf<T> {
    /// Combines `limiters`.
    pub fn new(limiters: Vec<Box<dyn RateLimiter<T>>>) -> Self {
        Self { limiters }
    }
}

impl<T> RateLimiter<T> for MaxOf<T> {
    fn when(&mut self, item: &T, now: Timestamp) -> Duration {
        self.limiters
            .iter_mut()
            .map(|l| l.when(item, now))
            .max()
            .unwrap_or_default()
    }
    fn forget(&mut self, item: &T) {
        for l in &mut self.limiters {
            l.forget(item);
        }
    }
    fn num_requeues(&self, item: &T) -> u32 {
        self.limiters
            .iter()
            .map(|l| l.num_requeues(item))
            .max()
            .unwrap_or(0)
    }
}

/// Another limiter's delay, but never more than `max_wait`.
pub struct WithMaxWait<T> {
    inner: Box<dyn RateLimiter<T>>,
    max_wait: Duration,
}

impl<T> WithMaxWait<T> {
    /// Caps `inner` at `max_wait`.
    pub fn new(inner: Box<dyn RateLimiter<T>>, max_wait: Duration) -> Self {
        Self { inner, max_wait }
    }
}

impl<T> RateLimiter<T> for WithMaxWait<T> {
    fn when(&mut self, item: &T, now: Timestamp) -> Duration {
        self.inner.when(item, now).min(self.max_wait)
    }
    fn forget(&mut self, item: &T) {
        self.inner.forget(item);
    }
    fn num_requeues(&self, item: &T) -> u32 {
        self.inner.num_requeues(item)
    }
}

/// client-go's `DefaultControllerRateLimiter`: the longer of per-item
/// exponential (5 ms ×2 up to 1000 s) and an overall bucket (10 qps, burst 100).
pub fn default_controller_rate_limiter<T: Eq + Hash + Clone + 'static>() -> MaxOf<T> {
    MaxOf::new(vec![
        Box::new(ItemExponential::new(
            Duration::from_millis(5),
            Duration::from_secs(1000),
        )),
        Box::new(Bucket::new(10.0, 100)),
    ])
}
