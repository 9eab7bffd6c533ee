//! Work queue metrics under client-go's names.

use std::fmt::Write;
use std::time::Duration;

/// Bucket upper bounds in seconds for queue latency and work duration
/// (client-go: 10^-8 s to 10 s, ×10).
pub const DURATION_BUCKETS: [f64; 10] = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0];

/// A histogram of durations.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Histogram {
    /// Observations.
    pub count: u64,
    /// Sum of observations in seconds.
    pub sum: f64,
    /// Cumulative counts at or under each bound of [`DURATION_BUCKETS`].
    pub buckets: [u64; 10],
}

impl Histogram {
    /// Adds `other`'s observations into this one (the same buckets).
    pub fn merge(&mut self, other: &Histogram) {
        self.count += other.count;
        self.sum += other.sum;
        for (b, o) in self.buckets.iter_mut().zip(other.buckets.iter()) {
            *b += o;
        }
    }

    fn observe(&mut self, d: Duration) {
        let s = d.as_secs_f64();
        self.count += 1;
        self.sum += s;
        for (i, b) in DURATION_BUCKETS.iter().enumerate() {
            if s <= *b {
                self.buckets[i] += 1;
            }
        }
    }
}

/// What one queue did; the X-ray page shows it and can print it for Prometheus.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueueMetrics {
    /// The queue's name (the `name` label).
    pub name: String,
    /// `workqueue_depth`: items waiting.
    pub depth: usize,
    /// `workqueue_adds_total`: adds that queued something.
    pub adds: u64,
    /// `workqueue_queue_duration_seconds`: time from add to get.
    pub queue_latency: Histogram,
    /// `workqueue_work_duration_seconds`: time from get to done.
    pub work_duration: Histogram,
    /// `workqueue_unfinished_work_seconds`: time spent so far on items in progress.
    pub unfinished_work_seconds: f64,
    /// `workqueue_longest_running_processor_seconds`.
    pub longest_running_processor_seconds: f64,
    /// `workqueue_retries_total`: delayed adds (every `add_after`, rate-limited re-adds included).
    pub retries: u64,
}

impl QueueMetrics {
    pub(crate) fn new(name: &str) -> Self {
        Self {
            name: name.to_string(),
            ..Self::default()
        }
    }

    pub(crate) fn observe_queue_latency(&mut self, d: Duration) {
        self.queue_latency.observe(d);
    }

    pub(crate) fn observe_work_duration(&mut self, d: Duration) {
        self.work_duration.observe(d);
    }

    /// Prometheus text format.
    pub fn prometheus(&self) -> String {
        let n = &self.name;
        let mut out = String::new();
        let _ = writeln!(out, "workqueue_depth{{name=\"{n}\"}} {}", self.depth);
        let _ = writeln!(out, "workqueue_adds_total{{name=\"{n}\"}} {}", self.adds);
        for (metric, h) in [
            ("workqueue_queue_duration_seconds", &self.queue_latency),
            ("workqueue_work_duration_seconds", &self.work_duration),
        ] {
            for (i, b) in DURATION_BUCKETS.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "{metric}_bucket{{name=\"{n}\",le=\"{b}\"}} {}",
                    h.buckets[i]
                );
            }
            let _ = writeln!(
                out,
                "{metric}_bucket{{name=\"{n}\",le=\"+Inf\"}} {}",
                h.count
            );
            let _ = writeln!(out, "{metric}_sum{{name=\"{n}\"}} {}", h.sum);
            let _ = writeln!(out, "{metric}_count{{name=\"{n}\"}} {}", h.count);
        }
        let _ = writeln!(
            out,
            "workqueue_unfinished_work_seconds{{name=\"{n}\"}} {}",
            self.unfinished_work_seconds
        );
        let _ = writeln!(
            out,
            "workqueue_longest_running_processor_seconds{{name=\"{n}\"}} {}",
            self.longest_running_processor_seconds
        );
        let _ = writeln!(
            out,
            "workqueue_retries_total{{name=\"{n}\"}} {}",
            self.retries
        );
        out
    }
}

#[cfg(test)]
mod merge_tests {
    use super::*;

    #[test]
    fn merged_histograms_count_both_sides_bucket_by_bucket() {
        let mut a = Histogram::default();
        let mut b = Histogram::default();
        a.observe(Duration::from_micros(5));
        b.observe(Duration::from_millis(500));
        b.observe(Duration::from_secs(20));
        let mut both = Histogram::default();
        for d in [5_000u64, 500_000_000, 20_000_000_000] {
            both.observe(Duration::from_nanos(d));
        }
        a.merge(&b);
        assert_eq!(a.count, 3);
        assert_eq!(a.buckets, both.buckets);
        assert!((a.sum - both.sum).abs() < 1e-9);
    }
}
