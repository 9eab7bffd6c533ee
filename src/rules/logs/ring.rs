//! The loaded lines: a bounded ring in timestamp order as lines from several streams arrive, the oldest dropped (and counted).

use std::collections::VecDeque;

use super::LogLine;

/// counted), kept in timestamp order as lines from several streams arrive.
#[derive(Debug, Clone)]
pub struct LogRing {
    lines: VecDeque<LogLine>,
    cap: usize,
    dropped: u64,
}

/// How far back a late line may be placed among newer ones; further than
/// this it goes at the end (its stream is that far behind the others).
const REORDER_WINDOW: usize = 4_096;

impl LogRing {
    /// An empty ring holding at most `cap` lines.
    pub fn new(cap: usize) -> Self {
        Self {
            lines: VecDeque::new(),
            cap: cap.max(1),
            dropped: 0,
        }
    }

    /// Adds a line where its timestamp puts it among the last lines.
    pub fn push(&mut self, line: LogLine) {
        let mut at = self.lines.len();
        if let Some(t) = line.at {
            let floor = at.saturating_sub(REORDER_WINDOW);
            while at > floor && self.lines[at - 1].at.is_some_and(|prev| prev > t) {
                at -= 1;
            }
        }
        self.lines.insert(at, line);
        while self.lines.len() > self.cap {
            self.lines.pop_front();
            self.dropped += 1;
        }
    }

    /// Lines held.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Keeps at most `cap` lines from now on, dropping the oldest over it.
    pub fn set_cap(&mut self, cap: usize) {
        self.cap = cap.max(1);
        while self.lines.len() > self.cap {
            self.lines.pop_front();
            self.dropped += 1;
        }
    }

    /// True when no line is held.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Lines dropped to stay under the cap.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// The cap.
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// Line `i`, oldest first.
    pub fn get(&self, i: usize) -> Option<&LogLine> {
        self.lines.get(i)
    }

    /// Every line, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &LogLine> {
        self.lines.iter()
    }

    /// Forgets every line (a new query).
    pub fn clear(&mut self) {
        self.lines.clear();
        self.dropped = 0;
    }
}
