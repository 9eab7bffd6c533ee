//! Injected time: a passive clock that tells the time and a full clock that can also sleep and draw random numbers.
//!
//! The core never calls `Instant::now` or `SystemTime::now` (clippy forbids it
//! in this crate): tests step a fake clock instead of sleeping, and the browser
//! supplies `Date.now()` and `setTimeout`. Randomness comes the same way: the
//! platform that gives the time also gives [`Entropy`] (the browser's
//! `crypto.getRandomValues`, the operating system's on native), so jitter
//! spreads retries apart across informers and tabs that fail together.

use std::time::Duration;

use futures::future::LocalBoxFuture;

/// A point in time: the duration since the Unix epoch.
pub type Timestamp = Duration;

/// Tells the time; enough for ages and the event correlator.
pub trait PassiveClock {
    /// The current wall-clock time as a duration since the Unix epoch.
    fn now(&self) -> Timestamp;
}

/// Random numbers from the platform, for jitter.
///
/// Not for secrets: it only has to differ between informers, tabs and
/// machines, so that clients that fail in the same instant do not retry in
/// the same instant (client-go's `wait.Jitter` draws from `math/rand`,
/// randomly seeded).
pub trait Entropy {
    /// A random 64-bit value; every call gives a new one.
    fn random_u64(&self) -> u64;
}

/// Tells the time, waits and draws random numbers; what the reflector,
/// delaying queue and resync need.
pub trait Clock: PassiveClock + Entropy {
    /// A future that completes once `duration` has passed on this clock.
    fn sleep(&self, duration: Duration) -> LocalBoxFuture<'static, ()>;
}

/// A small pseudo-random source for jitter, seeded from the platform's [`Entropy`].
///
/// Jitter only needs to spread retries apart; it does not need cryptographic
/// quality. The seed must differ between sources made in the same instant,
/// so it comes from the entropy, never from the time.
#[derive(Debug, Clone)]
pub struct Jitter {
    state: u64,
}

impl Jitter {
    /// A source seeded with `seed` (any value; zero is remapped).
    pub fn new(seed: u64) -> Self {
        Self {
            state: (seed ^ 0x9E37_79B9_7F4A_7C15) | 1,
        }
    }

    /// A source seeded from the platform's entropy.
    pub fn from_entropy(entropy: &dyn Entropy) -> Self {
        Self::new(entropy.random_u64())
    }

    /// The next value, uniform in `[0, 1)`.
    pub fn next_f64(&mut self) -> f64 {
        // xorshift64*
        let mut x = self.state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state = x;
        let r = x.wrapping_mul(0x2545_F491_4F6C_DD1D);
        (r >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A duration uniform in `[low, high]`.
    pub fn between(&mut self, low: Duration, high: Duration) -> Duration {
        if high <= low {
            return low;
        }
        low + (high - low).mul_f64(self.next_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jitter_stays_in_range_and_varies() {
        let mut j = Jitter::new(42);
        let values: Vec<f64> = (0..1000).map(|_| j.next_f64()).collect();
        assert!(values.iter().all(|v| (0.0..1.0).contains(v)));
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        assert!((0.4..0.6).contains(&mean), "mean {mean} is not near 0.5");
        let low = Duration::from_secs(300);
        let high = Duration::from_secs(600);
        for _ in 0..100 {
            let d = j.between(low, high);
            assert!(d >= low && d <= high);
        }
    }
}
