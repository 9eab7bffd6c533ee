//! The one filter grammar every filter box reads: empty is everything, `/pattern/` a case-insensitive regular expression, anything else text found in any case.
//!
//! Tables, the event stream, the logs and the API page's search all read
//! their box with [`Filter::parse`], so `/^web-/` means the same wherever a
//! person types it, and a pattern that does not compile gets the same
//! error under every box. The regular expression engine is handed in (the
//! browser's `RegExp` in the app, `crate::platform::regex`; a stub in
//! tests), so this stays plain Rust, tested natively.

/// A compiled test of one text.
pub type Test = Box<dyn Fn(&str) -> bool>;

/// Where a filter matches in a text, as byte ranges; empty: no match.
pub type Finder = Box<dyn Fn(&str) -> Vec<(usize, usize)>>;

/// A filter box's text, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Filter {
    /// Empty: everything passes.
    All,
    /// Text found in any case (kept lowercased).
    Text(String),
    /// `/pattern/`: a case-insensitive regular expression.
    Pattern(String),
}

impl Filter {
    /// Reads a box: `/…/` with something between is a pattern, anything
    /// else (surrounding spaces kept) is text; empty is everything.
    pub fn parse(text: &str) -> Self {
        if text.is_empty() {
            return Filter::All;
        }
        match text.strip_prefix('/').and_then(|r| r.strip_suffix('/')) {
            Some(p) if !p.is_empty() => Filter::Pattern(p.to_string()),
            _ => Filter::Text(text.to_lowercase()),
        }
    }

    /// Why the box cannot be used, if it cannot: a pattern `compile`
    /// refuses. Shown under the box; the list then shows nothing.
    pub fn error(&self, compile: impl Fn(&str) -> Result<Test, String>) -> Option<String> {
        match self {
            Filter::Pattern(p) => compile(p).err(),
            _ => None,
        }
    }

    /// A test of one text; the error of a pattern that does not compile.
    pub fn test(&self, compile: impl Fn(&str) -> Result<Test, String>) -> Result<Test, String> {
        match self {
            Filter::All => Ok(Box::new(|_| true)),
            Filter::Text(needle) => {
                let needle = needle.clone();
                Ok(Box::new(move |hay| contains_any_case(hay, &needle)))
            }
            Filter::Pattern(p) => compile(p),
        }
    }

    /// Where it matches in a text, for highlighting: None for
    /// [`Filter::All`], the error of a pattern that does not compile.
    pub fn finder(
        &self,
        compile: impl Fn(&str) -> Result<Finder, String>,
    ) -> Option<Result<Finder, String>> {
        match self {
            Filter::All => None,
            Filter::Text(needle) => {
                let needle = needle.clone();
                Some(Ok(Box::new(move |hay: &str| find_text(hay, &needle))))
            }
            Filter::Pattern(p) => Some(compile(p)),
        }
    }
}

/// True when `hay` contains `needle` (already lowercase) in any case.
pub fn contains_any_case(hay: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return true;
    }
    if needle.is_ascii() {
        // ASCII bytes never occur inside a multi-byte UTF-8 sequence, so a
        // byte-wise match is a match of whole characters (ASCII letters in
        // any case).
        let n = needle.as_bytes();
        return hay
            .as_bytes()
            .windows(n.len())
            .any(|w| w.eq_ignore_ascii_case(n));
    }
    hay.to_lowercase().contains(needle)
}

/// Every place `needle` occurs in `hay`, ASCII letters in any case.
pub fn find_text(hay: &str, needle: &str) -> Vec<(usize, usize)> {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    let mut found = Vec::new();
    if n.is_empty() || n.len() > h.len() {
        return found;
    }
    let mut i = 0;
    while i + n.len() <= h.len() {
        // ASCII bytes never occur inside a multi-byte character, and a
        // match starts where the needle's first byte does, so a byte-wise
        // match is a match of whole characters.
        if h[i..i + n.len()].eq_ignore_ascii_case(n) && hay.is_char_boundary(i) {
            found.push((i, i + n.len()));
            i += n.len();
        } else {
            i += 1;
        }
    }
    found
}

/// A stand-in for the browser's RegExp in the models' tests: a literal, in
/// any case; a `(` does not compile.
#[cfg(test)]
pub fn literal_compile(p: &str) -> Result<Test, String> {
    if p.contains('(') {
        return Err("Unterminated group".into());
    }
    let p = p.to_lowercase();
    Ok(Box::new(move |t: &str| t.to_lowercase().contains(&p)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in for the browser's RegExp: a pattern is a literal, lowercase
    /// match; `(` does not compile.
    fn compile(p: &str) -> Result<Test, String> {
        if p.contains('(') {
            return Err(format!(
                "Invalid regular expression: /{p}/: Unterminated group"
            ));
        }
        let p = p.to_lowercase();
        Ok(Box::new(move |t| t.to_lowercase().contains(&p)))
    }

    #[test]
    fn one_grammar_empty_text_and_slashed_patterns() {
        assert_eq!(Filter::parse(""), Filter::All);
        assert_eq!(Filter::parse("Web"), Filter::Text("web".into()));
        assert_eq!(Filter::parse("/^web-/"), Filter::Pattern("^web-".into()));
        // A lone slash or an empty pattern is text, not a pattern.
        assert_eq!(Filter::parse("/"), Filter::Text("/".into()));
        assert_eq!(Filter::parse("//"), Filter::Text("//".into()));
        assert_eq!(Filter::parse("/var/log"), Filter::Text("/var/log".into()));
    }

    #[test]
    fn a_pattern_that_does_not_compile_is_the_one_error_and_matches_nothing() {
        let bad = Filter::parse("/web(/");
        let why = bad.error(compile).expect("an error");
        assert!(why.contains("Unterminated group"), "{why}");
        assert!(bad.test(compile).is_err());
        assert_eq!(Filter::parse("web").error(compile), None);
        let test = Filter::parse("WEB").test(compile).expect("text");
        assert!(test("frontend-web-1") && !test("db"));
        let all = Filter::All.test(compile).expect("all");
        assert!(all("anything"));
    }

    #[test]
    fn text_is_found_in_any_case_on_character_boundaries() {
        assert!(contains_any_case("Back-Off restarting", "back-off"));
        assert!(contains_any_case("x", ""));
        assert!(!contains_any_case("ba", "back"));
        assert!(contains_any_case("Größe ÜBER", "über"));
        assert!(!contains_any_case("é", "e"));
        assert_eq!(find_text("Error: error", "error"), [(0, 5), (7, 12)]);
        assert_eq!(find_text("é error", "error"), [(3, 8)]);
        let f = Filter::parse("ERR")
            .finder(|_| Err("unused".into()))
            .expect("a finder")
            .expect("text");
        assert_eq!(f("an error"), [(3, 6)]);
        assert!(Filter::All.finder(|_| Err("unused".into())).is_none());
    }
}
