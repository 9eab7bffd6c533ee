//! Events per minute over the last half hour, and their sparkline.

use crate::rules::time::Seconds;

use super::EventIndex;

/// A sparkline of counts, oldest first, drawn `width` by `height` (SVG
/// units, y down) with a 2-unit margin top and bottom.
#[derive(Debug, Clone, PartialEq)]
pub struct Sparkline {
    /// An SVG polyline's `points`.
    pub points: String,
    /// The newest count.
    pub last: u32,
    /// The largest count (at least 1: an empty line is flat at the bottom).
    pub peak: u32,
}

impl Sparkline {
    /// Draws `counts` at `step` units apart in a line `height` units high.
    pub fn new(counts: &[u32], step: f64, height: f64) -> Sparkline {
        let peak = counts.iter().copied().max().unwrap_or(0).max(1);
        let points = counts
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let y = height - 2.0 - (height - 4.0) * f64::from(*n) / f64::from(peak);
                format!("{},{y:.1}", i as f64 * step)
            })
            .collect::<Vec<_>>()
            .join(" ");
        Sparkline {
            points,
            last: counts.last().copied().unwrap_or(0),
            peak,
        }
    }
}

/// Events per minute over the last `minutes` minutes before `now`, oldest
/// minute first, counted by last seen (the index is newest first, so the
/// count stops at the first older event).
pub fn per_minute(index: &EventIndex, now: Seconds, minutes: usize) -> Vec<u32> {
    let mut buckets = vec![0u32; minutes];
    for e in index.newest() {
        let ago = ((now - e.last_seen as f64) / 60.0).floor();
        if ago >= minutes as f64 {
            break;
        }
        if ago >= 0.0 {
            buckets[minutes - 1 - ago as usize] += 1;
        }
    }
    buckets
}
