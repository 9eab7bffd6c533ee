//! The holder's memory of its watch's recent events, for followers that
//! catch up: every event after `covered_from`, as long as it fits.

use std::collections::VecDeque;

/// Most events kept (a follower further behind watches alone).
pub const RING_EVENTS: usize = 1_000;
/// Most bytes of events kept.
pub const RING_BYTES: usize = 4 << 20;

/// Recent events of one watch, oldest first.
#[derive(Debug)]
pub struct Ring {
    events: VecDeque<(Option<u64>, String)>,
    bytes: usize,
    /// Every event after this version is in the ring.
    covered_from: u64,
    /// The newest version the ring has heard of.
    last: u64,
}

impl Ring {
    /// An empty ring for a watch opened from version `from`.
    pub fn new(from: u64) -> Self {
        Self {
            events: VecDeque::new(),
            bytes: 0,
            covered_from: from,
            last: from,
        }
    }

    /// The ring for a watch opened again from `from`: the same ring when
    /// `from` is where it had got to (the holder's reflector watching on
    /// after its watch timed out), else a new one.
    pub fn resume(self, from: u64) -> Self {
        if from == self.last {
            self
        } else {
            Ring::new(from)
        }
    }

    /// Keeps an event (forgetting the oldest past the bounds).
    pub fn push(&mut self, rv: Option<u64>, line: String) {
        if let Some(rv) = rv {
            self.last = self.last.max(rv);
        }
        self.bytes += line.len();
        self.events.push_back((rv, line));
        while self.events.len() > RING_EVENTS || self.bytes > RING_BYTES {
            let Some((rv, line)) = self.events.pop_front() else {
                break;
            };
            self.bytes -= line.len();
            if let Some(rv) = rv {
                self.covered_from = self.covered_from.max(rv);
            }
        }
    }

    /// The events after version `from`, in order; None when some of them
    /// are no longer kept. An event without a version (an `ERROR`) is
    /// handed on after `from` whatever it follows.
    pub fn after(&self, from: u64) -> Option<Vec<String>> {
        if from < self.covered_from {
            return None;
        }
        Some(
            self.events
                .iter()
                .filter(|(rv, _)| rv.is_none_or(|rv| rv > from))
                .map(|(_, l)| l.clone())
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn after_a_version_it_covers() {
        let mut r = Ring::new(10);
        r.push(Some(11), "a".into());
        r.push(Some(12), "b".into());
        r.push(None, "err".into());
        assert_eq!(r.after(10).expect("covered"), ["a", "b", "err"]);
        assert_eq!(r.after(11).expect("covered"), ["b", "err"]);
        // A follower whose list is newer than the watch has got to.
        assert_eq!(r.after(50).expect("covered"), ["err"]);
        assert_eq!(r.after(9), None);
    }

    #[test]
    fn a_watch_opened_again_from_where_it_got_to_keeps_its_ring() {
        let mut r = Ring::new(10);
        r.push(Some(11), "a".into());
        r.push(Some(12), "b".into());
        let mut r = r.resume(12);
        r.push(Some(13), "c".into());
        assert_eq!(r.after(10).expect("covered"), ["a", "b", "c"]);
        // From elsewhere: what came between is not known.
        let r = r.resume(20);
        assert_eq!(r.after(13), None);
        assert_eq!(r.after(20).expect("covered"), Vec::<String>::new());
    }

    #[test]
    fn forgetting_the_oldest_moves_what_it_covers() {
        let mut r = Ring::new(0);
        for i in 1..=(RING_EVENTS as u64 + 5) {
            r.push(Some(i), format!("e{i}"));
        }
        assert_eq!(r.after(4), None);
        assert_eq!(r.after(5).expect("covered").len(), RING_EVENTS);
        let mut big = Ring::new(0);
        big.push(Some(1), "x".repeat(RING_BYTES));
        big.push(Some(2), "y".into());
        assert_eq!(big.after(0), None);
        assert_eq!(big.after(1).expect("covered"), ["y"]);
    }
}
