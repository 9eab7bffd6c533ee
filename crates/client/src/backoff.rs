//! Retry delays as values: an exponential backoff with jitter that starts over periodically.
//!
//! The numbers default to client-go's reflector backoff: 800 ms initial, factor
//! 2, cap 30 s, jitter 1.0, and the reset of apimachinery's
//! `Backoff.DelayWithReset`: once 2 minutes have passed since the sequence
//! (re)started, the next delay is the initial one again, failures or not.

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
    /// A failure this long after the sequence (re)started starts it again
    /// from `initial` (apimachinery's `resetInterval`).
    pub reset_after: Duration,
    /// The un-jittered delay the next failure will get.
    current: Duration,
    /// When the current sequence started (apimachinery's `lastStart`): set
    /// by [`Backoff::start_at`], by the first failure, and at each reset.
    last_start: Option<Timestamp>,
    rng: Jitter,
}

impl Backoff {
    /// client-go's reflector backoff (800 ms, ×2, 30 s cap, jitter 1.0, reset every 2 min).
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
            last_start: None,
            rng: Jitter::new(seed),
        }
    }

    /// Starts the sequence's reset interval at `now` (client-go's backoff
    /// manager starts it when it is made).
    pub fn start_at(&mut self, now: Timestamp) {
        self.last_start = Some(now);
    }

    /// Records a failure at `now` and returns how long to wait before retrying.
    pub fn next_delay(&mut self, now: Timestamp) -> Duration {
        match self.last_start {
            Some(start) if now.saturating_sub(start) > self.reset_after => {
                self.current = self.initial;
                self.last_start = Some(now);
            }
            Some(_) => {}
            None => self.last_start = Some(now),
        }
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

    /// Forgets past failures; the next one starts a new sequence.
    pub fn reset(&mut self) {
        self.current = self.initial;
        self.last_start = None;
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

    // apimachinery's TestBackoffDelayWithResetExponential: the backoff
    // starts over once the reset interval has passed since the sequence
    // started, even while failures keep coming (client-go's reflector
    // takes its delays from Backoff.DelayWithReset(clock, 2 min)).
    #[test]
    fn backoff_delay_with_reset_exponential() {
        let mut b = Backoff::reflector(1);
        b.jitter = 0.0;
        let t = Duration::from_secs(1000);
        // A failure every 10 s: the delays grow to the cap…
        let delays: Vec<u64> = (0..=12)
            .map(|i| b.next_delay(t + Duration::from_secs(10 * i)).as_millis() as u64)
            .collect();
        assert_eq!(
            delays,
            [
                800, 1600, 3200, 6400, 12800, 25600, 30000, 30000, 30000, 30000, 30000, 30000,
                30000
            ]
        );
        // …and 2 minutes after the sequence started, one more failure
        // (10 s after the last) starts it again.
        assert_eq!(
            b.next_delay(t + Duration::from_secs(130)),
            Duration::from_millis(800)
        );
        // The next reset is 2 minutes after that one.
        assert_eq!(
            b.next_delay(t + Duration::from_secs(140)),
            Duration::from_millis(1600)
        );
        assert_eq!(
            b.next_delay(t + Duration::from_secs(251)),
            Duration::from_millis(800)
        );
    }

    #[test]
    fn the_reset_interval_counts_from_start_at_and_must_be_exceeded() {
        let mut b = Backoff::reflector(1);
        b.jitter = 0.0;
        let t = Duration::from_secs(10);
        b.start_at(t);
        b.next_delay(t + Duration::from_secs(60));
        b.next_delay(t + Duration::from_secs(60));
        assert_eq!(
            b.next_delay(t + Duration::from_secs(60)),
            Duration::from_millis(3200)
        );
        // Exactly 2 minutes after the start: not yet (apimachinery compares with >).
        assert_eq!(
            b.next_delay(t + Duration::from_secs(120)),
            Duration::from_millis(6400)
        );
        assert_eq!(
            b.next_delay(t + Duration::from_millis(120_001)),
            Duration::from_millis(800)
        );
        // reset() forgets the start: the next failure begins a new sequence.
        b.next_delay(t + Duration::from_secs(130));
        b.reset();
        assert_eq!(
            b.next_delay(t + Duration::from_secs(500)),
            Duration::from_millis(800)
        );
    }
}
