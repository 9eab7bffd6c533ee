//! A token bucket: the client-side QPS/burst limit (and, later, the work queue's bucket limiter).

use std::time::Duration;

use crate::clock::Timestamp;

/// `qps` tokens a second, holding at most `burst`; each request takes one.
#[derive(Debug, Clone)]
pub struct TokenBucket {
    qps: f64,
    burst: f64,
    /// Tokens available at `last` (may be negative: reservations waiting).
    tokens: f64,
    /// When `tokens` was last brought up to date; `None` before the first use.
    last: Option<Timestamp>,
}

impl TokenBucket {
    /// A full bucket refilling at `qps` per second up to `burst`.
    pub fn new(qps: f64, burst: u32) -> Self {
        Self {
            qps: qps.max(f64::MIN_POSITIVE),
            burst: f64::from(burst.max(1)),
            tokens: f64::from(burst.max(1)),
            last: None,
        }
    }

    /// Takes a token at `now` and returns how long to wait before using it
    /// (zero while the burst lasts).
    pub fn reserve(&mut self, now: Timestamp) -> Duration {
        if let Some(last) = self.last {
            let elapsed = now.saturating_sub(last).as_secs_f64();
            self.tokens = (self.tokens + elapsed * self.qps).min(self.burst);
        }
        self.last = Some(now);
        self.tokens -= 1.0;
        if self.tokens >= 0.0 {
            Duration::ZERO
        } else {
            Duration::from_secs_f64(-self.tokens / self.qps)
        }
    }

    /// Takes a token at `now` if one is there; never goes into debt.
    pub fn try_take(&mut self, now: Timestamp) -> bool {
        if let Some(last) = self.last {
            let elapsed = now.saturating_sub(last).as_secs_f64();
            self.tokens = (self.tokens + elapsed * self.qps).min(self.burst);
        }
        self.last = Some(now);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }

    /// Tokens left now (negative while reservations wait).
    pub fn available(&self) -> f64 {
        self.tokens
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_burst_goes_at_once_then_one_per_interval() {
        let mut b = TokenBucket::new(10.0, 3);
        let t = Duration::from_secs(100);
        let waits: Vec<u64> = (0..6).map(|_| b.reserve(t).as_millis() as u64).collect();
        assert_eq!(waits, [0, 0, 0, 100, 200, 300]);
    }

    #[test]
    fn refills_over_time_up_to_the_burst() {
        let mut b = TokenBucket::new(2.0, 2);
        let t = Duration::from_secs(10);
        assert_eq!(b.reserve(t), Duration::ZERO);
        assert_eq!(b.reserve(t), Duration::ZERO);
        assert_eq!(b.reserve(t), Duration::from_millis(500));
        // An hour later the bucket holds 2, not 7200.
        let later = t + Duration::from_secs(3600);
        assert_eq!(b.reserve(later), Duration::ZERO);
        assert_eq!(b.reserve(later), Duration::ZERO);
        assert_eq!(b.reserve(later), Duration::from_millis(500));
    }
}
