//! Container logs in plain Rust, one idea a file: the log view's options and their URL (`options`), lines cut from a byte stream (`lines`), a bounded ring in timestamp order (`ring`), ANSI colour as classes and highlight (`ansi`), and the words and files made of them (`words`). The filter is the app's one grammar, `crate::rules::filter`.

mod ansi;
mod lines;
mod options;
mod ring;
mod words;

pub use ansi::*;
pub use lines::*;
pub use options::*;
pub use ring::*;
pub use words::*;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::filter::{Filter, Finder, find_text};
    use crate::rules::problem::Problem;

    fn query<'a>(pairs: &'a [(&'static str, String)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| pairs.iter().find(|(p, _)| *p == k).map(|(_, v)| v.clone())
    }

    #[test]
    fn only_what_the_request_asks_for_reopens_a_stream() {
        let o = LogOptions {
            container: Some("web".into()),
            tail: Tail::All,
            follow: false,
            ..LogOptions::default()
        };
        let viewed = LogOptions {
            timestamps: true,
            wrap: true,
            filter: "/err/".into(),
            keep: 10_000,
            ..o.clone()
        };
        assert_eq!(
            viewed.request_part(),
            o.request_part(),
            "the view's own options"
        );
        for asked in [
            LogOptions {
                previous: true,
                ..o.clone()
            },
            LogOptions {
                since_seconds: Some(60),
                ..o.clone()
            },
            LogOptions {
                since_time: Some("2026-12-03T10:00:00Z".into()),
                ..o.clone()
            },
            LogOptions {
                tail: Tail::Lines(10),
                ..o.clone()
            },
            LogOptions {
                follow: true,
                ..o.clone()
            },
            LogOptions {
                container: Some("sidecar".into()),
                ..o.clone()
            },
        ] {
            assert_ne!(asked.request_part(), o.request_part(), "{asked:?}");
        }
    }

    #[test]
    fn options_round_trip_through_the_url_and_defaults_stay_out() {
        assert!(LogOptions::default().to_query().is_empty());
        let o = LogOptions {
            container: Some("web".into()),
            previous: true,
            since_seconds: Some(300),
            since_time: Some("2026-12-01T10:00:00Z".into()),
            tail: Tail::All,
            timestamps: true,
            wrap: true,
            follow: false,
            filter: "/err(or)?/".into(),
            keep: 50_000,
        };
        let q = o.to_query();
        assert_eq!(LogOptions::from_query(query(&q)), o);
        let tail = LogOptions {
            tail: Tail::Lines(20),
            ..LogOptions::default()
        };
        assert_eq!(tail.to_query(), [("tail", "20".to_string())]);
        assert_eq!(LogOptions::from_query(query(&tail.to_query())), tail);
    }

    #[test]
    fn nonsense_in_the_url_is_ignored() {
        let q = [
            ("c", "../secrets".to_string()),
            ("tail", "-5".to_string()),
            ("since", "abc".to_string()),
            ("sinceTime", "yesterday".to_string()),
            ("follow", "maybe".to_string()),
            ("keep", "lots".to_string()),
        ];
        assert_eq!(LogOptions::from_query(query(&q)), LogOptions::default());
        // A cap outside the choices is brought inside them.
        let keep = |v: &str| LogOptions::from_query(query(&[("keep", v.to_string())])).keep;
        assert_eq!(keep("5"), KEEP_CHOICES[0]);
        assert_eq!(keep("999999999"), 1_000_000);
        assert_eq!(keep("123456"), 123_456);
    }

    #[test]
    fn params_ask_for_timestamps_and_never_follow_a_previous_log() {
        let p = LogOptions::default().params("web");
        assert_eq!(p.container.as_deref(), Some("web"));
        assert!(p.follow && p.timestamps);
        assert_eq!(p.tail_lines, Some(DEFAULT_TAIL));
        let prev = LogOptions {
            previous: true,
            tail: Tail::All,
            since_time: Some("2026-12-01T10:00:00Z".into()),
            ..LogOptions::default()
        }
        .params("web");
        assert!(prev.previous && !prev.follow);
        assert_eq!(prev.tail_lines, None);
        assert!(prev.since_time.is_some());
    }

    fn texts(lines: Vec<RawLine>) -> Vec<String> {
        lines.into_iter().map(|l| l.text).collect()
    }

    #[test]
    fn lines_survive_any_cut_of_the_stream() {
        let text = "one\r\ntwo ü€\nthree\n4";
        let bytes = text.as_bytes();
        for cut in 0..bytes.len() {
            let mut s = LineSplitter::default();
            let mut lines = s.push(&bytes[..cut]);
            lines.extend(s.push(&bytes[cut..]));
            lines.extend(s.finish());
            assert!(lines.iter().all(|l| l.cut.is_none()));
            assert_eq!(
                texts(lines),
                ["one", "two ü€", "three", "4"],
                "cut at {cut}"
            );
        }
        let mut s = LineSplitter::default();
        assert_eq!(texts(s.push(b"bad \xff\n")), ["bad \u{fffd}"]);
        assert_eq!(s.finish(), None);
    }

    #[test]
    fn a_long_line_keeps_its_first_bytes_and_counts_the_rest() {
        // Fed in pieces of every size, the bound holds and the length is whole.
        let line = format!("{}€tail", "a".repeat(9));
        let stream = format!("{line}\r\nshort\n{line}");
        for piece in 1..stream.len() {
            let mut s = LineSplitter::with_bound(10);
            let mut lines = Vec::new();
            for chunk in stream.as_bytes().chunks(piece) {
                lines.extend(s.push(chunk));
            }
            lines.extend(s.finish());
            let whole = line.len() as u64;
            // The bound falls inside `€`: only whole characters are kept.
            assert_eq!(
                lines,
                [
                    RawLine {
                        text: "a".repeat(9),
                        cut: Some(whole)
                    },
                    RawLine {
                        text: "short".into(),
                        cut: None
                    },
                    RawLine {
                        text: "a".repeat(9),
                        cut: Some(whole)
                    },
                ],
                "pieces of {piece}"
            );
        }
        // Exactly at the bound is not cut; one byte more is.
        let mut s = LineSplitter::with_bound(4);
        assert_eq!(
            s.push(b"abcd\r\nabcde\n")[..],
            [
                RawLine {
                    text: "abcd".into(),
                    cut: None
                },
                RawLine {
                    text: "abcd".into(),
                    cut: Some(5)
                },
            ]
        );
        // The default bound is 64 KiB, whatever arrives.
        let mut s = LineSplitter::default();
        let big = vec![b'x'; 3 * MAX_LINE_BYTES];
        assert!(s.push(&big).is_empty());
        let last = s.finish().expect("a line");
        assert_eq!(
            (last.text.len(), last.cut),
            (MAX_LINE_BYTES, Some(big.len() as u64))
        );
        let l = LogLine::from_raw(0, &last);
        assert_eq!(l.cut, Some(big.len() as u64));
        assert_eq!(
            cut_mark(10 << 20),
            " … [line cut: the first 64 KiB of 10.0 MiB kept]"
        );
        assert_eq!(bytes_in_words(512), "512 bytes");
        assert_eq!(bytes_in_words(1536), "1.5 KiB");
    }

    #[test]
    fn control_and_bidi_characters_are_drawn_visibly() {
        let (plain, _) = strip_ansi("a\x01b\tc\x7f \u{9b}31m \u{202e}txt.exe\u{2066}x\u{2069}");
        assert_eq!(plain, "a^Ab\tc^? M-^[31m <U+202E>txt.exe<U+2066>x<U+2069>");
        // Styles still start where their text does.
        let (plain, styles) = strip_ansi("\x01\x1b[31mred");
        assert_eq!(plain, "^Ared");
        assert_eq!(styles, [(2, "ansi-fg-1".to_string())]);
        assert_eq!(pieces(&plain, &styles, &[])[1].text, "red");
        // Zero-width and tag characters, which draw nothing.
        let (plain, _) = strip_ansi("ok\u{200b}\u{feff}\u{2060}x\u{e0041}\u{e007f}");
        assert_eq!(plain, "ok<U+200B><U+FEFF><U+2060>x<U+E0041><U+E007F>");
        // Plain text is untouched.
        assert_eq!(strip_ansi("Grüße → 世界").0, "Grüße → 世界");
    }

    #[test]
    fn a_line_keeps_its_time_apart_from_its_text() {
        let l = LogLine::parse(0, "2026-12-01T10:00:00.5Z GET / 200");
        assert_eq!(l.stamp.as_deref(), Some("2026-12-01T10:00:00.5Z"));
        assert_eq!(&*l.text, "GET / 200");
        assert!(l.at.is_some());
        let plain = LogLine::parse(0, "no time here");
        assert_eq!((plain.stamp, &*plain.text), (None, "no time here"));
        let word = LogLine::parse(0, "2 apples");
        assert_eq!(&*word.text, "2 apples");
    }

    fn at(source: u16, t: &str, text: &str) -> LogLine {
        LogLine::parse(source, &format!("2026-12-01T10:00:{t}Z {text}"))
    }

    #[test]
    fn the_ring_orders_streams_by_time_and_drops_the_oldest() {
        let mut r = LogRing::new(4);
        r.push(at(0, "01", "a1"));
        r.push(at(0, "03", "a3"));
        r.push(at(1, "02", "b2"));
        r.push(LogLine::parse(1, "no time"));
        let texts: Vec<&str> = r.iter().map(|l| &*l.text).collect();
        assert_eq!(texts, ["a1", "b2", "a3", "no time"]);
        r.push(at(0, "04", "a4"));
        assert_eq!((r.len(), r.dropped()), (4, 1));
        assert_eq!(&*r.get(0).expect("present").text, "b2");
        // A smaller cap drops the oldest at once, and counts them.
        let mut smaller = r.clone();
        smaller.set_cap(2);
        assert_eq!((smaller.len(), smaller.dropped()), (2, 3));
        assert_eq!(&*smaller.get(0).expect("present").text, "no time");
        // Equal times keep their arrival order.
        let mut r = LogRing::new(10);
        r.push(at(0, "05", "first"));
        r.push(at(1, "05", "second"));
        assert_eq!(&*r.get(1).expect("present").text, "second");
    }

    #[test]
    fn ansi_becomes_classes_and_markup_stays_text() {
        let (plain, styles) =
            strip_ansi("\x1b[1;31mERROR\x1b[0m <b>x</b> \x1b[38;5;46mok\x1b[39m\x1b]0;title\x07");
        assert_eq!(plain, "ERROR <b>x</b> ok");
        assert_eq!(
            strip_ansi("a\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ b\x01").0,
            "alink b^A"
        );
        let p = pieces(&plain, &styles, &[]);
        assert_eq!(
            p[0],
            Piece {
                text: "ERROR".into(),
                class: "ansi-fg-1 ansi-bold".into()
            }
        );
        assert_eq!(
            p[1],
            Piece {
                text: " <b>x</b> ".into(),
                class: String::new()
            }
        );
        assert_eq!(p[2].text, "ok");
        assert_eq!(p[2].class, "ansi-fg-2", "xterm 46 is nearest to green");
        // An unterminated sequence is dropped, not shown.
        assert_eq!(strip_ansi("a\x1b[31").0, "a");
        assert_eq!(strip_ansi("\x1b[38;2;250;250;250mw").1[0].1, "ansi-fg-15");
    }

    #[test]
    fn matches_are_highlighted_across_colours() {
        let (plain, styles) = strip_ansi("\x1b[32mINFO\x1b[0m request");
        let found = find_text(&plain, "fo re");
        assert_eq!(found, [(2, 7)]);
        let p = pieces(&plain, &styles, &found);
        let drawn: Vec<(&str, &str)> = p
            .iter()
            .map(|p| (p.text.as_str(), p.class.as_str()))
            .collect();
        assert_eq!(
            drawn,
            [
                ("IN", "ansi-fg-2"),
                ("FO", "ansi-fg-2 log-match"),
                (" re", "log-match"),
                ("quest", "")
            ]
        );
        assert_eq!(
            find_text("Ünïcode ERROR error", "error"),
            [(10, 15), (16, 21)]
        );
        assert!(find_text("abc", "abcd").is_empty());
    }

    #[test]
    fn the_filter_is_text_or_a_pattern() {
        let compile = |p: &str| -> Result<Finder, String> {
            if p == "(" {
                return Err("unbalanced".into());
            }
            let p = p.to_string();
            Ok(Box::new(move |h: &str| {
                h.find(&p)
                    .map(|i| vec![(i, i + p.len())])
                    .unwrap_or_default()
            }))
        };
        assert!(Filter::parse("").finder(compile).is_none());
        assert_eq!(
            Filter::parse("GET")
                .finder(compile)
                .expect("present")
                .expect("present")("a get b"),
            [(2, 5)]
        );
        assert_eq!(
            Filter::parse("/GET/")
                .finder(compile)
                .expect("present")
                .expect("present")("a get b"),
            []
        );
        assert!(
            Filter::parse("/(/")
                .finder(compile)
                .expect("present")
                .is_err()
        );
    }

    #[test]
    fn names_and_downloads() {
        assert_eq!(
            short_pod_name("frontend-7d9c-abcde", "frontend", Some("7d9c")),
            "abcde"
        );
        assert_eq!(
            short_pod_name("frontend-7d9c-abcde", "frontend", None),
            "7d9c-abcde"
        );
        assert_eq!(short_pod_name("db-0", "db", None), "0");
        assert_eq!(short_pod_name("other", "frontend", Some("7d9c")), "other");
        let mut r = LogRing::new(10);
        r.push(at(0, "01", "\x1b[31mred\x1b[0m"));
        r.push(at(1, "02", "b"));
        let names = ["a".to_string(), "b".to_string()];
        assert_eq!(
            download_text(&r, true, &names, LogText::Shown),
            "2026-12-01T10:00:01Z [a] red\n2026-12-01T10:00:02Z [b] b\n"
        );
        assert_eq!(
            download_text(&r, false, &names[..1], LogText::Shown),
            "red\nb\n"
        );
        // A download is exact: colour codes and control characters as sent;
        // a copy draws them; a cut line says so in both.
        let mut r = LogRing::new(10);
        r.push(at(0, "01", "\x1b[31mred\x1b[0m\u{202e}"));
        r.push(LogLine::from_raw(
            0,
            &RawLine {
                text: "long".into(),
                cut: Some(1 << 20),
            },
        ));
        assert_eq!(
            download_text(&r, false, &names[..1], LogText::Exact),
            "\x1b[31mred\x1b[0m\u{202e}\nlong … [line cut: the first 64 KiB of 1.0 MiB kept]\n"
        );
        assert_eq!(
            download_text(&r, false, &names[..1], LogText::Shown),
            "red<U+202E>\nlong … [line cut: the first 64 KiB of 1.0 MiB kept]\n"
        );
    }

    #[test]
    fn a_stream_that_cannot_be_read_is_said_in_words_of_its_kind() {
        let say = |p: Problem| stream_problem(&p, "container web of pod p");
        assert!(say(Problem::Forbidden(String::new())).contains("(pods/log)"));
        assert!(say(Problem::NotFound(String::new())).contains("is gone"));
        for kubelet in [
            "container \"web\" in pod \"p\" is waiting to start: image can't be pulled",
            "ContainerCreating",
        ] {
            assert_eq!(
                say(Problem::Invalid(kubelet.into())),
                "container web of pod p has not started yet, so it has no log.",
                "{kubelet}"
            );
        }
        assert!(
            say(Problem::Invalid(
                "previous terminated container \"web\" in pod \"p\" not found".into()
            ))
            .contains("has not restarted")
        );
        assert!(say(Problem::Invalid("bad sinceTime".into())).contains("the request is not valid"));
        assert!(say(Problem::Unreachable(String::new())).contains("cannot be reached"));
    }
}
