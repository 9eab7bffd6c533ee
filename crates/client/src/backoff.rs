//! Retry delays as values: an exponential backoff with jitter and a reset after a healthy spell.
//!
//! The numbers default to client-go's reflector backoff: 800 ms initial, factor
//! 2, cap 30 s, jitter 1.0, reset after 2 minutes without a failure.

use std::time::Duration;

use crate::clock::{Jitter, Timestamp};

/// Exponential backoff with jitter; call [`Backoff::next_delay`] after each failure.
#[derive(Debug, Clone)]
pub struct Backoff {
    /// The first delay.
    pub initial: Duration,
    /// Multiplier applied after each failure.
    pub factor: f64,
    /// Upper bound on the un-jittered delay.
    pub cap: Duration,
    /// Each delay `d` becomes `d + random(0..1) * jitter * d`.
    pub jitter: f64,
    /// A failure this long after the previous one starts again from `initial`.
    pub reset_after: Duration,
    /// The un-jittered delay the next failure will get.
    current: Duration,
    /// When the last failure was recorded; `None` before the first.
    last_failure: Option<Timestamp>,
    rng: Jitter,
}

impl Backoff {
    /// client-go's reflector backoff (800 ms, ×2, 30 s cap, jitter 1.0, reset after 2 min).
    pub fn reflector(seed: u64) -> Self {
        Self::new(
            Duration::from_millis(800),
            2.0,
            Duration::from_secs(30),
            1.0,
            Duration::from_secs(120),
            seed,
        )
    }

    /// A backoff with the given parameters; `seed` feeds the jitter.
    pub fn new(
        initial: Duration,
        factor: f64,
        cap: Duration,
        jitter: f64,
        reset_after: Duration,
        seed: u64,
    ) -> Self {
        Self {
            initial,
            factor,
            cap,
            jitter,
            reset_after,
            current: initial,
            last_failure: None,
            rng: Jitter::new(seed),
        }
    }

    /// Records a failure at `now` and returns how long to wait before retrying.
    pub fn next_delay(&mut self, now: Timestamp) -> Duration {
        if let Some(last) = self.last_failure
            && now.saturating_sub(last) >= self.reset_after
        {
            self.current = self.initial;
        }
        self.last_failure = Some(now);
        let base = self.current.min(self.cap);
        self.current = self.current.mul_f64(self.factor).min(self.cap);
        if self.jitter > 0.0 {
            base + base.mul_f64(self.jitter * self.rng.next_f64())
        } else {
            base
        }
    }

    /// The un-jittered delay the next failure would get.
    pub fn peek(&self) -> Duration {
        self.current.min(self.cap)
    }

    /// Forgets past failures.
    pub fn reset(&mut self) {
        self.current = self.initial;
        self.last_failure = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reflector_backoff_doubles_from_800ms_to_a_30s_cap() {
        let mut b = Backoff::reflector(1);
        b.jitter = 0.0;
        let t = Duration::from_secs(1000);
        let delays: Vec<u64> = (0..8)
            .map(|i| b.next_delay(t + Duration::from_secs(i)).as_millis() as u64)
            .collect();
        assert_eq!(delays, [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]);
    }

    #[test]
    fn jitter_adds_up_to_one_full_delay() {
        let mut b = Backoff::reflector(7);
        for i in 0..50 {
            b.reset();
            let d = b.next_delay(Duration::from_secs(i));
            assert!(d >= Duration::from_millis(800) && d <= Duration::from_millis(1600));
        }
    }

    #[test]
    fn resets_after_two_healthy_minutes() {
        let mut b = Backoff::reflector(1);
        b.jitter = 0.0;
        let t = Duration::from_secs(10);
        b.next_delay(t);
        b.next_delay(t);
        assert_eq!(b.next_delay(t), Duration::from_millis(3200));
        // 119 s later: still backing off.
        assert_eq!(
            b.next_delay(t + Duration::from_secs(119)),
            Duration::from_millis(6400)
        );
        // 120 s after the previous failure: back to the start.
        assert_eq!(
            b.next_delay(t + Duration::from_secs(239)),
            Duration::from_millis(800)
        );
    }
}
