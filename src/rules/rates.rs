//! Counters read on every tick, turned into rates per second (the X-ray page's events per second for each informer).

use std::collections::HashMap;

use crate::rules::time::Seconds;

/// The last reading of each counter, by key.
#[derive(Debug, Clone, Default)]
pub struct Rates {
    last: HashMap<String, (Seconds, u64)>,
}

impl Rates {
    /// Reads each `(key, total)` at `now` and returns, in the same order,
    /// how much each total grew per second since the last reading: 0 for a
    /// key read for the first time, when no time has passed, or when the
    /// counter went back (an informer made anew). Keys not read this time
    /// are forgotten.
    pub fn read(
        &mut self,
        now: Seconds,
        totals: impl IntoIterator<Item = (String, u64)>,
    ) -> Vec<f64> {
        let mut next = HashMap::new();
        let rates = totals
            .into_iter()
            .map(|(key, total)| {
                let rate = match self.last.get(&key) {
                    Some(&(then, before)) if now > then => {
                        total.saturating_sub(before) as f64 / (now - then)
                    }
                    _ => 0.0,
                };
                next.insert(key, (now, total));
                rate
            })
            .collect();
        self.last = next;
        rates
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(r: &mut Rates, now: Seconds, totals: &[(&str, u64)]) -> Vec<f64> {
        r.read(now, totals.iter().map(|(k, n)| (k.to_string(), *n)))
    }

    #[test]
    fn a_rate_is_the_growth_per_second_since_the_last_reading() {
        let mut r = Rates::default();
        assert_eq!(
            read(&mut r, 10.0, &[("pods", 100), ("events", 5)]),
            [0.0, 0.0],
            "first reading"
        );
        assert_eq!(
            read(&mut r, 12.0, &[("pods", 130), ("events", 5)]),
            [15.0, 0.0]
        );
        assert_eq!(
            read(&mut r, 12.0, &[("pods", 140)]),
            [0.0],
            "no time passed"
        );
        // "events" was not read last time: it starts again.
        assert_eq!(
            read(&mut r, 13.0, &[("events", 50), ("pods", 141)]),
            [0.0, 1.0]
        );
        assert_eq!(
            read(&mut r, 14.0, &[("pods", 3)]),
            [0.0],
            "a counter that went back"
        );
    }
}
