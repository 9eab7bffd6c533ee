//! ANSI colour as CSS classes, never markup: a line's plain text (other control and bidi characters drawn visibly), its styles, and the pieces drawn with the filter's matches highlighted.

/// One piece of a drawn line: text and the classes that colour it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// The text, drawn as text (never markup).
    pub text: String,
    /// Space-separated classes (`ansi-fg-1`, `ansi-bold`, `log-match` …).
    pub class: String,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Style {
    fg: Option<u8>,
    bg: Option<u8>,
    bold: bool,
    dim: bool,
    italic: bool,
    underline: bool,
}

impl Style {
    fn class(&self) -> String {
        let mut c = Vec::new();
        if let Some(f) = self.fg {
            c.push(format!("ansi-fg-{f}"));
        }
        if let Some(b) = self.bg {
            c.push(format!("ansi-bg-{b}"));
        }
        for (on, name) in [
            (self.bold, "ansi-bold"),
            (self.dim, "ansi-dim"),
            (self.italic, "ansi-italic"),
            (self.underline, "ansi-underline"),
        ] {
            if on {
                c.push(name.to_string());
            }
        }
        c.join(" ")
    }

    /// Applies one SGR sequence's parameters.
    fn apply(&mut self, params: &str) {
        let mut it = params.split(';').map(|p| {
            if p.is_empty() {
                0
            } else {
                p.parse::<u16>().unwrap_or(u16::MAX)
            }
        });
        while let Some(p) = it.next() {
            match p {
                0 => *self = Style::default(),
                1 => self.bold = true,
                2 => self.dim = true,
                3 => self.italic = true,
                4 => self.underline = true,
                22 => (self.bold, self.dim) = (false, false),
                23 => self.italic = false,
                24 => self.underline = false,
                30..=37 => self.fg = Some((p - 30) as u8),
                90..=97 => self.fg = Some((p - 90 + 8) as u8),
                39 => self.fg = None,
                40..=47 => self.bg = Some((p - 40) as u8),
                100..=107 => self.bg = Some((p - 100 + 8) as u8),
                49 => self.bg = None,
                38 | 48 => {
                    let colour = match it.next() {
                        Some(5) => it.next().map(nearest_of_256),
                        Some(2) => {
                            let (r, g, b) = (it.next(), it.next(), it.next());
                            match (r, g, b) {
                                (Some(r), Some(g), Some(b)) => Some(nearest_rgb(r, g, b)),
                                _ => None,
                            }
                        }
                        _ => None,
                    };
                    if p == 38 {
                        self.fg = colour;
                    } else {
                        self.bg = colour;
                    }
                }
                _ => {}
            }
        }
    }
}

/// One of the 16 basic colours closest to xterm's colour `n`.
fn nearest_of_256(n: u16) -> u8 {
    match n {
        0..=15 => n as u8,
        16..=231 => {
            let n = n - 16;
            let level = |v: u16| if v == 0 { 0 } else { 55 + v * 40 };
            nearest_rgb(level(n / 36), level(n / 6 % 6), level(n % 6))
        }
        232..=255 => {
            let v = 8 + (n - 232) * 10;
            nearest_rgb(v, v, v)
        }
        _ => 7,
    }
}

/// One of the 16 basic colours closest to an RGB colour.
fn nearest_rgb(r: u16, g: u16, b: u16) -> u8 {
    const BASIC: [(u16, u16, u16); 16] = [
        (0, 0, 0),
        (205, 49, 49),
        (13, 188, 121),
        (229, 229, 16),
        (36, 114, 200),
        (188, 63, 188),
        (17, 168, 205),
        (229, 229, 229),
        (102, 102, 102),
        (241, 76, 76),
        (35, 209, 139),
        (245, 245, 67),
        (59, 142, 234),
        (214, 112, 214),
        (41, 184, 219),
        (255, 255, 255),
    ];
    let d = |(x, y, z): (u16, u16, u16)| {
        let (dr, dg, db) = (
            i32::from(x) - i32::from(r),
            i32::from(y) - i32::from(g),
            i32::from(z) - i32::from(b),
        );
        dr * dr + dg * dg + db * db
    };
    (0..16u8).min_by_key(|i| d(BASIC[*i as usize])).unwrap_or(7)
}

/// A line's text without escape sequences, and where each style starts in
/// it (byte offset into the plain text). Other control characters are
/// drawn visibly ([`push_visible`]).
pub fn strip_ansi(line: &str) -> (String, Vec<(usize, String)>) {
    let mut plain = String::with_capacity(line.len());
    let mut styles = Vec::new();
    let mut style = Style::default();
    let mut rest = line;
    while let Some(i) = rest.find('\x1b') {
        push_visible(&mut plain, &rest[..i]);
        let esc = &rest[i + 1..];
        if let Some(csi) = esc.strip_prefix('[') {
            // Parameters and intermediates, then one final byte @..~.
            let end = csi
                .bytes()
                .position(|b| (0x40..=0x7e).contains(&b))
                .unwrap_or(csi.len());
            if csi.as_bytes().get(end) == Some(&b'm') {
                style.apply(&csi[..end]);
                let class = style.class();
                match styles.last_mut() {
                    Some((at, c)) if *at == plain.len() => *c = class,
                    _ => styles.push((plain.len(), class)),
                }
            }
            rest = csi.get(end + 1..).unwrap_or("");
        } else if let Some(osc) = esc.strip_prefix(']') {
            // An operating system command (a window title, a hyperlink):
            // dropped up to its BEL or ESC \.
            let end = osc.find(['\x07', '\x1b']).unwrap_or(osc.len());
            let skip = if osc[end..].starts_with("\x1b\\") {
                2
            } else {
                1
            };
            rest = osc.get(end + skip..).unwrap_or("");
        } else {
            // Another escape (a charset switch…): drop ESC and the next character.
            let mut chars = esc.chars();
            chars.next();
            rest = chars.as_str();
        }
    }
    push_visible(&mut plain, rest);
    (plain, styles)
}

/// True for the characters that reorder the text around them (bidi
/// embeddings, overrides, isolates and marks) or break its line: drawn as
/// they are, they can make a line read as something it is not.
fn is_invisible_format(c: char) -> bool {
    matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{2028}' | '\u{2029}')
        // Zero-width characters (space, non-joiner, joiner, word joiner,
        // the invisible operators, the BOM) and the tag characters, which
        // draw nothing and can hide text inside a line.
        || matches!(c, '\u{200b}'..='\u{200d}' | '\u{2060}'..='\u{2064}' | '\u{feff}' | '\u{e0000}'..='\u{e007f}')
}

/// Appends `text` with its control characters drawn visibly, as `cat -v`
/// draws them: C0 as `^X` (a tab stays a tab), DEL as `^?`, C1 as `M-^X`;
/// and the bidi, line-breaking, zero-width and tag characters as `<U+202E>`.
pub fn push_visible(out: &mut String, text: &str) {
    if !text
        .chars()
        .any(|c| (c.is_control() && c != '\t') || is_invisible_format(c))
    {
        out.push_str(text);
        return;
    }
    for c in text.chars() {
        let n = c as u32;
        match c {
            '\t' => out.push(c),
            '\u{7f}' => out.push_str("^?"),
            _ if n < 0x20 => {
                out.push('^');
                out.push(char::from(n as u8 + 0x40));
            }
            _ if (0x80..0xa0).contains(&n) => {
                out.push_str("M-^");
                out.push(char::from((n - 0x80) as u8 + 0x40));
            }
            _ if is_invisible_format(c) => out.push_str(&format!("<U+{n:04X}>")),
            _ => out.push(c),
        }
    }
}

/// The pieces of a line to draw: ANSI styles as classes, and `matches`
/// (byte ranges in the plain text) marked `log-match`.
pub fn pieces(plain: &str, styles: &[(usize, String)], matches: &[(usize, usize)]) -> Vec<Piece> {
    let mut cuts: Vec<usize> = vec![0, plain.len()];
    cuts.extend(styles.iter().map(|(at, _)| *at));
    for (a, b) in matches {
        cuts.push(*a);
        cuts.push(*b);
    }
    cuts.retain(|c| *c <= plain.len() && plain.is_char_boundary(*c));
    cuts.sort_unstable();
    cuts.dedup();
    let mut out: Vec<Piece> = Vec::new();
    for w in cuts.windows(2) {
        let (a, b) = (w[0], w[1]);
        if a == b {
            continue;
        }
        let style = styles
            .iter()
            .rev()
            .find(|(at, _)| *at <= a)
            .map(|(_, c)| c.as_str())
            .unwrap_or("");
        let hit = matches.iter().any(|(x, y)| *x <= a && b <= *y);
        let class = match (style.is_empty(), hit) {
            (true, false) => String::new(),
            (true, true) => "log-match".to_string(),
            (false, false) => style.to_string(),
            (false, true) => format!("{style} log-match"),
        };
        match out.last_mut() {
            Some(p) if p.class == class => p.text.push_str(&plain[a..b]),
            _ => out.push(Piece {
                text: plain[a..b].to_string(),
                class,
            }),
        }
    }
    out
}
