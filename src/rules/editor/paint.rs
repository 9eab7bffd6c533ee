//! The editor's lines as the paint layer draws them: runs split where a search match begins and ends, each line keyed by what it shows so only changed lines are drawn again.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use super::{Hit, Ink, Run, ink_lines, lines};

/// Whether a piece of text is a search match, and the current one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mark {
    None,
    Hit,
    Current,
}

/// A run of one ink and one mark.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub ink: Ink,
    pub mark: Mark,
    pub text: String,
}

/// One line to draw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaintedLine {
    /// Stable while the line shows the same: its pieces, whether it is
    /// marked bad, and which repeat of such a line it is.
    pub key: u64,
    /// An error names this line.
    pub bad: bool,
    pub pieces: Vec<Piece>,
}

/// The text's lines coloured, with `hits` marked (`current` the index of
/// the current one in `hits`) and the 1-based lines in `bad` flagged.
pub fn paint(text: &str, hits: &[Hit], current: Option<usize>, bad: &[usize]) -> Vec<PaintedLine> {
    let inks = ink_lines(text);
    let mut seen: HashMap<u64, u64> = HashMap::new();
    let mut next_hit = 0;
    let mut out = Vec::with_capacity(inks.len());
    for ((n, line), runs) in lines(text).enumerate().zip(inks) {
        let first = next_hit;
        while next_hit < hits.len() && hits[next_hit].line == n {
            next_hit += 1;
        }
        let marks: Vec<(usize, usize, Mark)> = (first..next_hit)
            .map(|i| {
                let mark = if Some(i) == current {
                    Mark::Current
                } else {
                    Mark::Hit
                };
                (hits[i].start, hits[i].end, mark)
            })
            .collect();
        let pieces = split(line, &runs, &marks);
        let is_bad = bad.contains(&(n + 1));
        let mut h = DefaultHasher::new();
        (&pieces, is_bad).hash(&mut h);
        let base = h.finish();
        let repeat = seen.entry(base).or_insert(0);
        *repeat += 1;
        let mut h = DefaultHasher::new();
        (base, *repeat).hash(&mut h);
        out.push(PaintedLine {
            key: h.finish(),
            bad: is_bad,
            pieces,
        });
    }
    out
}

/// `runs` cut wherever a mark starts or ends.
fn split(line: &str, runs: &[Run], marks: &[(usize, usize, Mark)]) -> Vec<Piece> {
    let mut cuts: Vec<usize> = runs.iter().flat_map(|r| [r.start, r.end]).collect();
    cuts.extend(marks.iter().flat_map(|&(s, e, _)| [s, e]));
    cuts.retain(|&c| c <= line.len() && line.is_char_boundary(c));
    cuts.sort_unstable();
    cuts.dedup();
    cuts.windows(2)
        .filter(|w| w[1] > w[0])
        .map(|w| {
            let (a, b) = (w[0], w[1]);
            let ink = runs
                .iter()
                .find(|r| r.start <= a && a < r.end)
                .map_or(Ink::Plain, |r| r.ink);
            let mark = marks
                .iter()
                .find(|&&(s, e, _)| s <= a && a < e)
                .map_or(Mark::None, |&(_, _, m)| m);
            Piece {
                ink,
                mark,
                text: line[a..b].to_string(),
            }
        })
        .collect()
}
