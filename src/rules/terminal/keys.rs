//! The bytes a terminal sends for a key or a paste, as xterm does: what
//! readline, vi and less expect behind `TERM=xterm-256color`.

/// A key press as the browser reports it (`KeyboardEvent.key` and the
/// modifiers).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Key<'a> {
    /// `KeyboardEvent.key`: `a`, `Enter`, `ArrowUp`, …
    pub key: &'a str,
    /// Control.
    pub ctrl: bool,
    /// Alt (Option).
    pub alt: bool,
    /// Shift.
    pub shift: bool,
    /// Meta (Command, Windows): always the browser's.
    pub meta: bool,
}

/// The bytes for `k`, or None when the key is the browser's: Meta
/// shortcuts, Ctrl+V and Ctrl+Shift+V (paste, as in Windows Terminal: a
/// literal ^V is given up), Ctrl+Shift+C
/// (copy), a modifier alone. `app_cursor`: the program asked for
/// application cursor keys.
pub fn encode(k: Key<'_>, app_cursor: bool) -> Option<Vec<u8>> {
    let paste = k.ctrl && matches!(k.key, "V" | "v");
    let copy = k.ctrl && k.shift && matches!(k.key, "C" | "c");
    if k.meta || paste || copy {
        return None;
    }
    if let Some(b) = named(k, app_cursor) {
        return Some(b);
    }
    let mut chars = k.key.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else {
        return None;
    };
    let mut out = Vec::new();
    if k.alt {
        out.push(0x1b);
    }
    if k.ctrl {
        out.push(control(c)?);
        return Some(out);
    }
    let mut buf = [0u8; 4];
    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
    Some(out)
}

/// Ctrl with a character: the C0 control it names.
fn control(c: char) -> Option<u8> {
    match c {
        'a'..='z' => Some(c as u8 - b'a' + 1),
        'A'..='Z' => Some(c as u8 - b'A' + 1),
        '@' | ' ' | '2' => Some(0),
        '[' | '3' => Some(0x1b),
        '\\' | '4' => Some(0x1c),
        ']' | '5' => Some(0x1d),
        '^' | '6' => Some(0x1e),
        '_' | '-' | '7' => Some(0x1f),
        '?' | '8' => Some(0x7f),
        _ => None,
    }
}

/// The modifier parameter xterm adds to a cursor or function key
/// (`ESC [1;5A` for Ctrl+Up); None without modifiers.
fn modifier(k: Key<'_>) -> Option<u8> {
    let m = 1 + u8::from(k.shift) + 2 * u8::from(k.alt) + 4 * u8::from(k.ctrl);
    (m > 1).then_some(m)
}

fn named(k: Key<'_>, app_cursor: bool) -> Option<Vec<u8>> {
    let cursor = |letter: char| -> Vec<u8> {
        match modifier(k) {
            Some(m) => format!("\x1b[1;{m}{letter}").into_bytes(),
            None if app_cursor => format!("\x1bO{letter}").into_bytes(),
            None => format!("\x1b[{letter}").into_bytes(),
        }
    };
    let tilde = |n: u8| -> Vec<u8> {
        match modifier(k) {
            Some(m) => format!("\x1b[{n};{m}~").into_bytes(),
            None => format!("\x1b[{n}~").into_bytes(),
        }
    };
    let bytes = match k.key {
        "Enter" => b"\r".to_vec(),
        "Backspace" if k.ctrl => b"\x08".to_vec(),
        "Backspace" => b"\x7f".to_vec(),
        "Tab" if k.shift => b"\x1b[Z".to_vec(),
        "Tab" => b"\t".to_vec(),
        "Escape" => b"\x1b".to_vec(),
        "ArrowUp" => cursor('A'),
        "ArrowDown" => cursor('B'),
        "ArrowRight" => cursor('C'),
        "ArrowLeft" => cursor('D'),
        "Home" => cursor('H'),
        "End" => cursor('F'),
        "Insert" => tilde(2),
        "Delete" => tilde(3),
        "PageUp" => tilde(5),
        "PageDown" => tilde(6),
        "F1" => b"\x1bOP".to_vec(),
        "F2" => b"\x1bOQ".to_vec(),
        "F3" => b"\x1bOR".to_vec(),
        "F4" => b"\x1bOS".to_vec(),
        "F5" => tilde(15),
        "F6" => tilde(17),
        "F7" => tilde(18),
        "F8" => tilde(19),
        "F9" => tilde(20),
        "F10" => tilde(21),
        "F11" => tilde(23),
        "F12" => tilde(24),
        _ => return None,
    };
    Some(bytes)
}

/// The bytes of a paste: line ends as Enter sends them (`\r`), wrapped
/// when the program asked for bracketed paste (so a pasted line is not
/// run before the person looks at it); the end marker inside the text is
/// removed, so a paste cannot end the bracket early.
pub fn paste(text: &str, bracketed: bool) -> Vec<u8> {
    let body = text.replace("\r\n", "\r").replace('\n', "\r");
    if !bracketed {
        return body.into_bytes();
    }
    let body = body.replace("\x1b[201~", "");
    format!("\x1b[200~{body}\x1b[201~").into_bytes()
}
