//! The editor's text, made ready to draw: YAML coloured line by line (keys, strings, numbers, literals, comments, anchors and tags, block scalars), the matches of a search, and the lines an error names, as runs of coloured text. Pure, so the editor component only draws.

mod find;
mod paint;
#[cfg(test)]
mod tests;

pub use find::{Hit, find, utf16_range};
pub use paint::{Mark, PaintedLine, Piece, paint};

/// What a run of text is, for its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ink {
    Plain,
    Key,
    Str,
    Num,
    /// `true`, `false`, `null`, `~`.
    Lit,
    Comment,
    /// `-`, `:`, `---`, `|`, `>`.
    Punct,
    /// Anchors, aliases and tags: `&a`, `*a`, `!!str`.
    Meta,
}

impl Ink {
    /// The CSS class that colours it.
    pub fn class(self) -> &'static str {
        match self {
            Ink::Plain => "ink",
            Ink::Key => "ink ink-key",
            Ink::Str => "ink ink-str",
            Ink::Num => "ink ink-num",
            Ink::Lit => "ink ink-lit",
            Ink::Comment => "ink ink-comment",
            Ink::Punct => "ink ink-punct",
            Ink::Meta => "ink ink-meta",
        }
    }
}

/// Bytes `start..end` of a line, in one ink.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    pub ink: Ink,
    pub start: usize,
    pub end: usize,
}

/// The text's lines as the text area shows them: split at each `\n`, so a
/// text ending in a newline has an empty last line.
pub fn lines(text: &str) -> impl Iterator<Item = &str> {
    text.split('\n')
}

/// Each line's runs, covering it end to end. A block scalar (`key: |`)
/// colours the lines under it, indented deeper than its key, as a string.
pub fn ink_lines(text: &str) -> Vec<Vec<Run>> {
    let mut out = Vec::new();
    // Inside a block scalar: the column of the key (or dash) that opened it.
    let mut block: Option<usize> = None;
    for line in lines(text) {
        let indent = line.len() - line.trim_start_matches(' ').len();
        if let Some(owner) = block
            && (line.trim().is_empty() || indent > owner)
        {
            out.push(whole(Ink::Str, line));
            continue;
        }
        let (runs, opens) = ink_line(line);
        block = opens;
        out.push(runs);
    }
    out
}

fn whole(ink: Ink, line: &str) -> Vec<Run> {
    if line.is_empty() {
        return Vec::new();
    }
    vec![Run {
        ink,
        start: 0,
        end: line.len(),
    }]
}

/// One line outside a block scalar: its runs, and the owner's column when
/// it opens a block scalar.
fn ink_line(line: &str) -> (Vec<Run>, Option<usize>) {
    let b = line.as_bytes();
    let mut runs = Vec::new();
    let mut push = |ink, start, end| {
        if end > start {
            runs.push(Run { ink, start, end });
        }
    };
    let mut i = line.len() - line.trim_start_matches(' ').len();
    let marker = line.starts_with("---") || line.starts_with("...");
    if marker && (b.len() == 3 || b[3] == b' ') {
        push(Ink::Punct, 0, 3);
        i = skip_spaces(b, 3);
    }
    let mut owner = i;
    while i < b.len() && b[i] == b'-' && (i + 1 == b.len() || b[i + 1] == b' ') {
        push(Ink::Punct, i, i + 1);
        owner = i;
        i = skip_spaces(b, i + 1);
    }
    if let Some(colon) = key_end(line, i) {
        push(Ink::Key, i, colon);
        push(Ink::Punct, colon, colon + 1);
        owner = i;
        i = skip_spaces(b, colon + 1);
    }
    let opens = value(line, i, &mut push);
    (fill(runs, line.len()), opens.then_some(owner))
}

fn skip_spaces(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
        i += 1;
    }
    i
}

/// Where a key starting at `i` ends (the index of its `:`), if one does.
fn key_end(line: &str, i: usize) -> Option<usize> {
    let b = line.as_bytes();
    let after = match b.get(i)? {
        b'"' | b'\'' => quoted_end(b, i)?,
        b'#' | b'[' | b'{' | b'&' | b'*' | b'!' | b'|' | b'>' => return None,
        _ => {
            let comment = line[i..].find(" #").map_or(b.len(), |c| c + i);
            let colon =
                (i..comment).find(|&j| b[j] == b':' && (j + 1 == b.len() || b[j + 1] == b' '))?;
            return Some(colon);
        }
    };
    let j = skip_spaces(b, after);
    (j < b.len() && b[j] == b':' && (j + 1 == b.len() || b[j + 1] == b' ')).then_some(j)
}

/// The index just past the quoted scalar starting at `i` (`""` escapes
/// with `\`, `''` doubles its quote), or None when it does not close on
/// this line.
fn quoted_end(b: &[u8], i: usize) -> Option<usize> {
    let q = b[i];
    let mut j = i + 1;
    while j < b.len() {
        if q == b'"' && b[j] == b'\\' {
            j += 2;
            continue;
        }
        if b[j] == q {
            if q == b'\'' && b.get(j + 1) == Some(&b'\'') {
                j += 2;
                continue;
            }
            return Some(j + 1);
        }
        j += 1;
    }
    None
}

/// Colours the value from `i` to the end of the line; true when it is a
/// block scalar's indicator (`|`, `>-`, `|2+`).
fn value(line: &str, mut i: usize, push: &mut impl FnMut(Ink, usize, usize)) -> bool {
    let b = line.as_bytes();
    // Anchors, aliases and tags, each up to a space.
    while i < b.len() && matches!(b[i], b'&' | b'*' | b'!') {
        let end = line[i..].find(' ').map_or(b.len(), |s| s + i);
        push(Ink::Meta, i, end);
        i = skip_spaces(b, end);
    }
    if i >= b.len() {
        return false;
    }
    if b[i] == b'#' {
        push(Ink::Comment, i, b.len());
        return false;
    }
    let mut opens = false;
    let end = match b[i] {
        b'|' | b'>' => {
            let mut j = i + 1;
            while j < b.len() && matches!(b[j], b'-' | b'+' | b'0'..=b'9') {
                j += 1;
            }
            push(Ink::Punct, i, j);
            opens = true;
            j
        }
        b'"' | b'\'' => {
            let end = quoted_end(b, i).unwrap_or(b.len());
            push(Ink::Str, i, end);
            end
        }
        _ => {
            let end = line[i..].find(" #").map_or(b.len(), |c| c + i);
            let word = line[i..end].trim_end();
            push(scalar_ink(word), i, i + word.len());
            end
        }
    };
    if let Some(c) = line[end..].find('#') {
        push(Ink::Comment, end + c, b.len());
    }
    opens
}

/// The ink of a plain scalar: a literal, a number, a flow collection
/// (left plain) or a string.
fn scalar_ink(word: &str) -> Ink {
    const LITERALS: [&str; 10] = [
        "true", "false", "null", "~", "True", "False", "Null", "TRUE", "FALSE", "NULL",
    ];
    if LITERALS.contains(&word) {
        Ink::Lit
    } else if is_number(word) {
        Ink::Num
    } else if word.starts_with(['[', '{']) {
        Ink::Plain
    } else {
        Ink::Str
    }
}

fn is_number(w: &str) -> bool {
    let w = w.strip_prefix(['-', '+']).unwrap_or(w);
    if let Some(hex) = w.strip_prefix("0x") {
        return !hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit());
    }
    if let Some(oct) = w.strip_prefix("0o") {
        return !oct.is_empty() && oct.chars().all(|c| ('0'..='7').contains(&c));
    }
    if matches!(w, ".inf" | ".Inf" | ".INF" | ".nan" | ".NaN" | ".NAN") {
        return true;
    }
    let (mantissa, exponent) = match w.find(['e', 'E']) {
        Some(e) => (&w[..e], Some(&w[e + 1..])),
        None => (w, None),
    };
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some((a, b)) => {
            (digits(a) || a.is_empty())
                && (digits(b) || b.is_empty())
                && !(a.is_empty() && b.is_empty())
        }
        None => digits(mantissa),
    };
    mantissa_ok && exponent.is_none_or(|e| digits(e.strip_prefix(['-', '+']).unwrap_or(e)))
}

/// `runs` with the gaps between them (and to `len`) filled as plain text.
fn fill(runs: Vec<Run>, len: usize) -> Vec<Run> {
    let mut out = Vec::with_capacity(runs.len() * 2 + 1);
    let mut at = 0;
    for r in runs {
        if r.start > at {
            out.push(Run {
                ink: Ink::Plain,
                start: at,
                end: r.start,
            });
        }
        at = r.end;
        out.push(r);
    }
    if len > at {
        out.push(Run {
            ink: Ink::Plain,
            start: at,
            end: len,
        });
    }
    out
}
