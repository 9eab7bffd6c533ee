//! Search in the editor's text: every match of a query, case-insensitive for ASCII letters, as lines and byte columns, and a match's place as the text area counts (UTF-16).

use super::lines;
use crate::rules::filter::find_text;

/// One match: bytes `start..end` of line `line` (0-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hit {
    pub line: usize,
    pub start: usize,
    pub end: usize,
}

/// Every match of `query` in `text`, in order, not overlapping; none for an
/// empty query. ASCII letters match either case (the filter grammar's
/// [`find_text`], line by line, so columns stay the text's own).
pub fn find(text: &str, query: &str) -> Vec<Hit> {
    lines(text)
        .enumerate()
        .flat_map(|(n, line)| {
            find_text(line, query)
                .into_iter()
                .map(move |(start, end)| Hit {
                    line: n,
                    start,
                    end,
                })
        })
        .collect()
}

/// Where `hit` is in `text` as a text area's selection counts it (UTF-16
/// code units from the start): its start and end.
pub fn utf16_range(text: &str, hit: Hit) -> (u32, u32) {
    let mut offset = 0usize;
    for (n, line) in lines(text).enumerate() {
        if n == hit.line {
            let units = |s: &str| s.encode_utf16().count();
            let start = offset + units(&line[..hit.start.min(line.len())]);
            let end = start + units(&line[hit.start.min(line.len())..hit.end.min(line.len())]);
            return (to_u32(start), to_u32(end));
        }
        offset += line.encode_utf16().count() + 1;
    }
    (to_u32(offset), to_u32(offset))
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
