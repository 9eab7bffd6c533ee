//! The terminal's screen, keys and shell choice.

use kubeglass_client::remotecommand::Exit;

use super::keys::{Key, encode, paste};
use super::shell::Choice;
use super::*;

fn key(k: &str) -> Key<'_> {
    Key {
        key: k,
        ..Key::default()
    }
}

#[test]
fn text_lands_on_the_screen_with_its_colours_and_the_cursor_after_it() {
    let mut t = Terminal::new(4, 20);
    t.feed(b"$ \x1b[31mred\x1b[0m \x1b[38;5;208morange\x1b[0m");
    let lines = t.lines();
    assert_eq!(lines.len(), 4);
    let row: Vec<(&str, Colour)> = lines[0]
        .iter()
        .map(|r| (r.text.as_str(), r.style.fg))
        .collect();
    assert_eq!(
        row,
        [
            ("$ ", Colour::Default),
            ("red", Colour::Idx(1)),
            (" ", Colour::Default),
            ("orange", Colour::Idx(208)),
            (" ", Colour::Default),
        ]
    );
    assert!(
        lines[0].last().expect("cursor").style.cursor,
        "the cursor is the cell after the text"
    );
    assert_eq!(Colour::Idx(1).class(false).as_deref(), Some("ansi-fg-1"));
    assert_eq!(Colour::Idx(208).css().as_deref(), Some("#ff8700"));
    assert_eq!(Colour::Idx(244).css().as_deref(), Some("#808080"));
    assert_eq!(Colour::Rgb(1, 2, 3).css().as_deref(), Some("#010203"));
    assert_eq!(Colour::Idx(3).css(), None, "the theme's own");
    assert!(lines[1].is_empty(), "blank rows draw nothing");
}

#[test]
fn inverse_swaps_colours_and_a_hidden_cursor_is_not_drawn() {
    let mut t = Terminal::new(2, 10);
    t.feed(b"\x1b[7;32mok\x1b[0m\x1b[?25l");
    let run = &t.lines()[0][0];
    assert_eq!(
        (run.text.as_str(), run.style.bg, run.style.fg),
        ("ok", Colour::Idx(2), Colour::Default)
    );
    assert_eq!(run.style.classes(), "t t-inv-fg ansi-bg-2");
    assert!(t.lines().iter().flatten().all(|r| !r.style.cursor));
}

#[test]
fn lines_scroll_into_the_scrollback_and_a_resize_keeps_the_text() {
    let mut t = Terminal::new(3, 10);
    for i in 0..10 {
        t.feed(format!("line {i}\r\n").as_bytes());
    }
    assert_eq!(t.text(), "line 8\nline 9");
    assert_eq!(t.scroll_by(5), 5);
    assert_eq!(t.lines()[0][0].text, "line 3");
    assert!(
        t.lines().iter().flatten().all(|r| !r.style.cursor),
        "no cursor while scrolled back"
    );
    t.scroll_to_live();
    assert_eq!(t.scrolled_back(), 0);
    t.resize(5, 40);
    assert_eq!(t.size(), (5, 40));
    assert!(t.text().contains("line 9"));
}

#[test]
fn keys_send_what_xterm_sends() {
    assert_eq!(encode(key("a"), false), Some(b"a".to_vec()));
    assert_eq!(encode(key("é"), false), Some("é".as_bytes().to_vec()));
    assert_eq!(encode(key("Enter"), false), Some(b"\r".to_vec()));
    assert_eq!(encode(key("Backspace"), false), Some(b"\x7f".to_vec()));
    assert_eq!(encode(key("ArrowUp"), false), Some(b"\x1b[A".to_vec()));
    assert_eq!(encode(key("ArrowUp"), true), Some(b"\x1bOA".to_vec()));
    assert_eq!(
        encode(
            Key {
                ctrl: true,
                ..key("ArrowLeft")
            },
            true
        ),
        Some(b"\x1b[1;5D".to_vec())
    );
    assert_eq!(encode(key("Delete"), false), Some(b"\x1b[3~".to_vec()));
    assert_eq!(encode(key("F5"), false), Some(b"\x1b[15~".to_vec()));
}

#[test]
fn control_and_alt_send_what_xterm_sends_and_the_browsers_keys_stay_its() {
    assert_eq!(
        encode(
            Key {
                ctrl: true,
                ..key("c")
            },
            false
        ),
        Some(vec![3])
    );
    assert_eq!(
        encode(
            Key {
                ctrl: true,
                ..key("D")
            },
            false
        ),
        Some(vec![4])
    );
    assert_eq!(
        encode(
            Key {
                ctrl: true,
                ..key("[")
            },
            false
        ),
        Some(vec![0x1b])
    );
    assert_eq!(
        encode(
            Key {
                alt: true,
                ..key("b")
            },
            false
        ),
        Some(b"\x1bb".to_vec())
    );
    assert_eq!(
        encode(
            Key {
                shift: true,
                ..key("Tab")
            },
            false
        ),
        Some(b"\x1b[Z".to_vec())
    );
    for browsers in [
        Key {
            meta: true,
            ..key("c")
        },
        Key {
            ctrl: true,
            shift: true,
            ..key("C")
        },
        Key {
            ctrl: true,
            shift: true,
            ..key("V")
        },
        Key {
            ctrl: true,
            ..key("v")
        },
        key("Shift"),
        key("Control"),
        key("Dead"),
    ] {
        assert_eq!(encode(browsers, false), None, "{browsers:?}");
    }
}

#[test]
fn a_paste_sends_returns_and_is_bracketed_when_asked_without_an_early_end() {
    assert_eq!(paste("ls\nid\r\n", false), b"ls\rid\r".to_vec());
    assert_eq!(
        paste("rm -rf /\x1b[201~\n", true),
        b"\x1b[200~rm -rf /\r\x1b[201~".to_vec()
    );
    let mut t = Terminal::new(2, 10);
    assert!(!t.bracketed_paste());
    t.feed(b"\x1b[?2004h");
    assert!(t.bracketed_paste());
}

#[test]
fn bash_then_sh_unless_a_command_is_typed() {
    let auto = Choice::from_box("  ");
    assert_eq!(auto.command(), ["/bin/bash"]);
    let missing = Exit::Failed {
        reason: "InternalError".into(),
        message: "cmd start: /bin/bash : fork/exec /bin/bash: no such file or directory".into(),
    };
    let next = auto.next(&missing, false).expect("sh next");
    assert_eq!(next.command(), ["/bin/sh"]);
    assert_eq!(next.next(&missing, false), None, "nothing after sh");
    assert_eq!(auto.next(&missing, true), None, "it printed: it ran");
    assert_eq!(auto.next(&Exit::Code(127), false), None);
    let typed = Choice::from_box("python3 -i");
    assert_eq!(typed.command(), ["python3", "-i"]);
    assert_eq!(
        typed.next(&missing, false),
        None,
        "a typed command is not replaced"
    );
}
