//! A terminal for a shell in a container: the screen `vt100` keeps
//! (cells, colours, cursor, scrollback) read out as lines of styled runs
//! for the page to draw as text, the keys a person presses as the bytes a
//! terminal sends (`keys`), and which shell to try (`shell`).
//!
//! Drawn as text in the page's own DOM rather than by a JavaScript
//! terminal: the page's Content-Security-Policy stays `style-src 'self'`
//! (xterm.js writes `<style>` elements), and it weighs less.

pub mod keys;
pub mod shell;

use std::num::NonZeroU16;

/// Lines kept above the screen.
pub const SCROLLBACK: usize = 5000;

/// A colour as the program asked for it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Colour {
    /// The theme's own foreground or background.
    #[default]
    Default,
    /// One of the 16 named colours (the theme's), or of the 256-colour
    /// cube and greys above them.
    Idx(u8),
    /// True colour.
    Rgb(u8, u8, u8),
}

impl Colour {
    fn of(c: vt100::Color) -> Self {
        match c {
            vt100::Color::Default => Colour::Default,
            vt100::Color::Idx(i) => Colour::Idx(i),
            vt100::Color::Rgb(r, g, b) => Colour::Rgb(r, g, b),
        }
    }

    /// The class of the 16 named colours (`ansi-fg-3`, `ansi-bg-3` for a
    /// background), the log view's, on the same dark ground.
    pub fn class(self, background: bool) -> Option<String> {
        match self {
            Colour::Idx(i) if i < 16 => {
                Some(format!("ansi-{}-{i}", if background { "bg" } else { "fg" }))
            }
            _ => None,
        }
    }

    /// A CSS colour for the others (`#rrggbb`), set through the CSSOM.
    pub fn css(self) -> Option<String> {
        let (r, g, b) = match self {
            Colour::Rgb(r, g, b) => (r, g, b),
            Colour::Idx(i) if (16..232).contains(&i) => {
                let level = |v: u8| if v == 0 { 0 } else { 55 + 40 * v };
                let i = i - 16;
                (level(i / 36), level((i / 6) % 6), level(i % 6))
            }
            Colour::Idx(i) if i >= 232 => {
                let v = 8 + 10 * (i - 232);
                (v, v, v)
            }
            _ => return None,
        };
        Some(format!("#{r:02x}{g:02x}{b:02x}"))
    }
}

/// How a run of cells is drawn.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Style {
    /// The text's colour (already swapped with `bg` when inverse).
    pub fg: Colour,
    /// The background.
    pub bg: Colour,
    /// Inverse video: the theme's defaults swap too (`t-inv-fg`, `t-inv-bg`).
    pub inverse: bool,
    /// Bold.
    pub bold: bool,
    /// Dim.
    pub dim: bool,
    /// Italic.
    pub italic: bool,
    /// Underlined.
    pub underline: bool,
    /// The cursor is on this cell.
    pub cursor: bool,
}

impl Style {
    fn of(cell: &vt100::Cell) -> Self {
        let (mut fg, mut bg) = (Colour::of(cell.fgcolor()), Colour::of(cell.bgcolor()));
        if cell.inverse() {
            std::mem::swap(&mut fg, &mut bg);
        }
        Style {
            fg,
            bg,
            inverse: cell.inverse(),
            bold: cell.bold(),
            dim: cell.dim(),
            italic: cell.italic(),
            underline: cell.underline(),
            cursor: false,
        }
    }

    /// The run's classes: colours from the theme, attributes, the cursor.
    pub fn classes(&self) -> String {
        let mut c = vec!["t"];
        let fg = self.fg.class(false);
        let bg = self.bg.class(true);
        // Inverse: a side left to the theme takes the other side's default.
        let flags = [
            (self.inverse && self.fg == Colour::Default, "t-inv-fg"),
            (self.inverse && self.bg == Colour::Default, "t-inv-bg"),
            (self.bold, "t-bold"),
            (self.dim, "t-dim"),
            (self.italic, "t-italic"),
            (self.underline, "t-under"),
            (self.cursor, "t-cursor"),
        ];
        c.extend(flags.iter().filter(|(on, _)| *on).map(|(_, n)| *n));
        let mut s = c.join(" ");
        for extra in [fg, bg].into_iter().flatten() {
            s.push(' ');
            s.push_str(&extra);
        }
        s
    }
}

/// Cells side by side with one style.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// The cells' text (a wide character once).
    pub text: String,
    /// How it is drawn.
    pub style: Style,
}

/// One row of the screen.
pub type Line = Vec<Run>;

/// The screen and what has scrolled off it.
pub struct Terminal {
    parser: vt100::Parser,
}

fn size(n: u16) -> NonZeroU16 {
    NonZeroU16::new(n.max(1)).unwrap_or(NonZeroU16::MIN)
}

impl Terminal {
    /// A blank screen of `rows` by `cols`.
    pub fn new(rows: u16, cols: u16) -> Self {
        Terminal {
            parser: vt100::Parser::new(size(rows), size(cols), SCROLLBACK),
        }
    }

    /// What the command wrote.
    pub fn feed(&mut self, bytes: &[u8]) {
        self.parser.process(bytes);
    }

    /// Changes the screen's size (at least one cell each way).
    pub fn resize(&mut self, rows: u16, cols: u16) {
        self.parser.set_size(size(rows), size(cols));
    }

    /// (rows, cols).
    pub fn size(&self) -> (u16, u16) {
        let (r, c) = self.parser.screen().size();
        (r.get(), c.get())
    }

    /// Looks `delta` lines further back (positive) or forward; 0 is the
    /// live screen. Returns how far back the view is.
    pub fn scroll_by(&mut self, delta: isize) -> usize {
        let now = self.parser.screen().scrollback();
        let want = now.saturating_add_signed(delta);
        self.parser.screen_mut().set_scrollback(want);
        self.parser.screen().scrollback()
    }

    /// Back to the live screen (a key was pressed).
    pub fn scroll_to_live(&mut self) {
        self.parser.screen_mut().set_scrollback(0);
    }

    /// How far back the view is (0: live).
    pub fn scrolled_back(&self) -> usize {
        self.parser.screen().scrollback()
    }

    /// Cursor keys send their application form (`ESC O A`).
    pub fn application_cursor(&self) -> bool {
        self.parser.screen().application_cursor()
    }

    /// A paste is wrapped in `ESC [200~ … ESC [201~`.
    pub fn bracketed_paste(&self) -> bool {
        self.parser.screen().bracketed_paste()
    }

    /// The screen's text, rows joined by newlines, trailing blanks cut.
    #[cfg(test)]
    pub fn text(&self) -> String {
        self.parser.screen().contents()
    }

    /// The rows in view as runs; the cursor's cell is its own run, unless
    /// the program hid it or the view is scrolled back.
    pub fn lines(&self) -> Vec<Line> {
        let screen = self.parser.screen();
        let (rows, cols) = self.size();
        let cursor =
            (!screen.hide_cursor() && screen.scrollback() == 0).then(|| screen.cursor_position());
        (0..rows)
            .map(|r| {
                let mut line: Line = Vec::new();
                for c in 0..cols {
                    let Some(cell) = screen.cell(r, c) else {
                        continue;
                    };
                    if cell.is_wide_continuation() {
                        continue;
                    }
                    let mut style = Style::of(cell);
                    style.cursor = cursor == Some((r, c));
                    let text = if cell.has_contents() {
                        cell.contents()
                    } else {
                        " "
                    };
                    match line.last_mut() {
                        Some(run) if run.style == style && !style.cursor => run.text.push_str(text),
                        _ => line.push(Run {
                            text: text.to_string(),
                            style,
                        }),
                    }
                }
                trim_end(&mut line);
                line
            })
            .collect()
    }
}

/// Drops trailing plain blanks (they draw as nothing), keeping the cursor.
fn trim_end(line: &mut Line) {
    while let Some(last) = line.last_mut() {
        if last.style != Style::default() {
            return;
        }
        let kept = last.text.trim_end_matches(' ').len();
        if kept > 0 {
            last.text.truncate(kept);
            return;
        }
        line.pop();
    }
}

#[cfg(test)]
mod tests;
