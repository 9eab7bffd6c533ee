//! What the launcher prints about a kubeconfig's names: a context or
//! cluster name is the kubeconfig author's text, so it is escaped before it
//! reaches the terminal (an `ESC [` sequence, a newline, a carriage return
//! or a bidi override would otherwise drive or disguise what is shown).

/// `name` as the terminal may show it: control characters (C0, DEL, C1),
/// invisible and bidi formatting characters and backslashes escaped as Rust
/// writes them (`\u{1b}`, `\n`, `\u{202e}`, `\\`); everything else as is.
/// Quotes stay: they are harmless on a terminal.
pub fn shown(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        match c {
            '"' | '\'' => out.push(c),
            c => out.extend(c.escape_debug()),
        }
    }
    out
}

/// `name` shown and in double quotes, for a sentence.
pub fn quoted(name: &str) -> String {
    format!("\"{}\"", shown(name))
}

/// The `--all-contexts` table: each started context with its URL, then each
/// that did not start, aligned on the names as shown.
pub fn table(started: &[(&str, &str)], failed: &[String]) -> String {
    let names = |n: &str| shown(n);
    let width = started
        .iter()
        .map(|(n, _)| names(n).chars().count())
        .chain(failed.iter().map(|n| names(n).chars().count()))
        .max()
        .unwrap_or(0)
        .max("CONTEXT".len());
    let mut text = format!("{:width$}  URL\n", "CONTEXT");
    for (name, url) in started {
        text += &format!("{:width$}  {url}\n", names(name));
    }
    for name in failed {
        text += &format!("{:width$}  (did not start; see above)\n", names(name));
    }
    text
}

/// The heading for one context: where the app is and what the URL means.
pub fn heading(read_only: bool, context: &str, cluster: &str, url: &str, folder: &str) -> String {
    let ro = if read_only { " (read-only)" } else { "" };
    format!(
        "Kubeglass{ro} for context {} (cluster {}):\n  {url}\nThe URL is the key: anyone with it can use your cluster as you while this runs. Ctrl-C stops.\nPrivate folder: {folder}\n",
        quoted(context),
        quoted(cluster),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A context name a hostile kubeconfig could carry: it clears the
    /// screen, moves the cursor, colours, rings, starts a new line that
    /// looks like the launcher's own, and reverses text.
    const HOSTILE: &str =
        "prod\x1b[2J\x1b[H\x1b[31m\x07\r\nhttp://127.0.0.1:1/x\u{9b}0m\u{202e}dorp\\";

    fn raw_controls(s: &str) -> Vec<char> {
        s.chars()
            .filter(|c| c.is_control() && *c != '\n' || ('\u{200b}'..='\u{206f}').contains(c))
            .collect()
    }

    #[test]
    fn control_and_bidi_characters_in_a_name_are_escaped() {
        assert_eq!(
            shown(HOSTILE),
            r"prod\u{1b}[2J\u{1b}[H\u{1b}[31m\u{7}\r\nhttp://127.0.0.1:1/x\u{9b}0m\u{202e}dorp\\"
        );
        assert_eq!(shown("kind-dev"), "kind-dev");
        assert_eq!(shown("it's \"prod\""), "it's \"prod\"");
        assert_eq!(shown("zürich/東京"), "zürich/東京");
        assert_eq!(quoted("a\nb"), r#""a\nb""#);
    }

    #[test]
    fn the_heading_shows_no_raw_control_character_of_a_name() {
        let h = heading(
            true,
            HOSTILE,
            "c\x1b]0;title\x07",
            "http://127.0.0.1:47100/t/ui/",
            "/tmp/f",
        );
        assert_eq!(raw_controls(&h), Vec::<char>::new(), "{h:?}");
        assert_eq!(h.lines().count(), 4, "{h}");
        assert!(h.contains(r#"(cluster "c\u{1b}]0;title\u{7}")"#), "{h}");
    }

    #[test]
    fn the_table_escapes_names_and_aligns_on_what_is_shown() {
        let t = table(
            &[
                (HOSTILE, "http://127.0.0.1:47101/t/ui/"),
                ("dev", "http://127.0.0.1:47102/t/ui/"),
            ],
            &["bad\nname".to_string()],
        );
        assert_eq!(raw_controls(&t), Vec::<char>::new(), "{t:?}");
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 4, "{t}");
        let col = lines[1].find("  http").expect("url column");
        assert_eq!(lines[2].find("  http"), Some(col), "{t}");
        assert_eq!(
            lines[3],
            format!("{:col$}  (did not start; see above)", r"bad\nname")
        );
    }
}
