use super::*;

/// Each line's runs as (ink, text), plain runs left out.
fn inked(text: &str) -> Vec<Vec<(Ink, String)>> {
    let all: Vec<&str> = lines(text).collect();
    ink_lines(text)
        .into_iter()
        .zip(all)
        .map(|(runs, line)| {
            runs.into_iter()
                .filter(|r| r.ink != Ink::Plain)
                .map(|r| (r.ink, line[r.start..r.end].to_string()))
                .collect()
        })
        .collect()
}

fn s(ink: Ink, t: &str) -> (Ink, String) {
    (ink, t.to_string())
}

#[test]
fn keys_values_and_comments_take_their_inks() {
    let got = inked("replicas: 3 # three\nname: \"web: one\"\npaused: false\nimage: r.io/a:1\n");
    assert_eq!(
        got[0],
        vec![
            s(Ink::Key, "replicas"),
            s(Ink::Punct, ":"),
            s(Ink::Num, "3"),
            s(Ink::Comment, "# three")
        ]
    );
    assert_eq!(
        got[1],
        vec![
            s(Ink::Key, "name"),
            s(Ink::Punct, ":"),
            s(Ink::Str, "\"web: one\"")
        ]
    );
    assert_eq!(
        got[2],
        vec![
            s(Ink::Key, "paused"),
            s(Ink::Punct, ":"),
            s(Ink::Lit, "false")
        ]
    );
    // Only ": " (or a colon at the end) ends a key: a URL's colons do not.
    assert_eq!(
        got[3],
        vec![
            s(Ink::Key, "image"),
            s(Ink::Punct, ":"),
            s(Ink::Str, "r.io/a:1")
        ]
    );
    // The text's trailing newline makes an empty last line, as in the text area.
    assert_eq!(got.len(), 5);
    assert!(got[4].is_empty());
}

#[test]
fn lists_quoted_keys_anchors_and_document_markers() {
    let got =
        inked("---\n- name: a\n- - 1.5e3\n\"a b\": &x 0x1F\nref: *x\nt: !!str 12\n# all comment\n");
    assert_eq!(got[0], vec![s(Ink::Punct, "---")]);
    assert_eq!(
        got[1],
        vec![
            s(Ink::Punct, "-"),
            s(Ink::Key, "name"),
            s(Ink::Punct, ":"),
            s(Ink::Str, "a")
        ]
    );
    assert_eq!(
        got[2],
        vec![s(Ink::Punct, "-"), s(Ink::Punct, "-"), s(Ink::Num, "1.5e3")]
    );
    assert_eq!(
        got[3],
        vec![
            s(Ink::Key, "\"a b\""),
            s(Ink::Punct, ":"),
            s(Ink::Meta, "&x"),
            s(Ink::Num, "0x1F")
        ]
    );
    assert_eq!(
        got[4],
        vec![s(Ink::Key, "ref"), s(Ink::Punct, ":"), s(Ink::Meta, "*x")]
    );
    assert_eq!(
        got[5],
        vec![
            s(Ink::Key, "t"),
            s(Ink::Punct, ":"),
            s(Ink::Meta, "!!str"),
            s(Ink::Num, "12")
        ]
    );
    assert_eq!(got[6], vec![s(Ink::Comment, "# all comment")]);
}

#[test]
fn a_block_scalar_is_a_string_to_its_end() {
    let text = "data:\n  script: |-\n    key: not a key\n\n    # not a comment\n  next: 1\n";
    let got = inked(text);
    assert_eq!(
        got[1],
        vec![
            s(Ink::Key, "script"),
            s(Ink::Punct, ":"),
            s(Ink::Punct, "|-")
        ]
    );
    assert_eq!(got[2], vec![s(Ink::Str, "    key: not a key")]);
    assert!(got[3].is_empty(), "a blank line inside it");
    assert_eq!(got[4], vec![s(Ink::Str, "    # not a comment")]);
    // Back at the key's own indent: the block has ended.
    assert_eq!(
        got[5],
        vec![s(Ink::Key, "next"), s(Ink::Punct, ":"), s(Ink::Num, "1")]
    );
}

#[test]
fn numbers_are_told_from_strings_that_look_like_them() {
    for n in [
        "0", "-12", "+3.25", ".5", "1e10", "6.02E+23", "0o17", ".inf", "-.inf",
    ] {
        assert_eq!(inked(&format!("v: {n}"))[0][2], s(Ink::Num, n), "{n}");
    }
    for w in ["1.2.3", "e5", "0x", "12Mi", "300m", "."] {
        assert_eq!(inked(&format!("v: {w}"))[0][2], s(Ink::Str, w), "{w}");
    }
}

#[test]
fn runs_cover_every_line_end_to_end() {
    let text = "a: b\n  - \"unclosed\n#\n\t: x\n--- # doc\nk:v\n";
    for (runs, line) in ink_lines(text).iter().zip(lines(text)) {
        let mut at = 0;
        for r in runs {
            assert_eq!(r.start, at, "{line:?}: {runs:?}");
            assert!(r.end > r.start);
            at = r.end;
        }
        assert_eq!(at, line.len(), "{line:?}");
    }
}

#[test]
fn search_finds_every_match_either_case_with_columns_of_the_text() {
    let text = "Image: a\nimages:\n  - IMAGE é image\n";
    let hits = find(text, "image");
    let at: Vec<(usize, usize)> = hits.iter().map(|h| (h.line, h.start)).collect();
    assert_eq!(at, vec![(0, 0), (1, 0), (2, 4), (2, 13)]);
    assert!(find(text, "").is_empty());
    assert!(find(text, "nothing").is_empty());
    // "é" is two bytes and one UTF-16 unit: the text area's offsets.
    assert_eq!(utf16_range(text, hits[3]), (9 + 8 + 12, 9 + 8 + 17));
    assert_eq!(utf16_range(text, hits[1]), (9, 14));
}

#[test]
fn painting_marks_matches_and_bad_lines_and_keys_lines_by_what_they_show() {
    let text = "a: image\nb: x\nb: x\nc: image";
    let hits = find(text, "image");
    let painted = paint(text, &hits, Some(1), &[2]);
    let marked: Vec<(usize, Mark, String)> = painted
        .iter()
        .enumerate()
        .flat_map(|(n, l)| {
            l.pieces
                .iter()
                .filter(|p| p.mark != Mark::None)
                .map(move |p| (n, p.mark, p.text.clone()))
        })
        .collect();
    assert_eq!(
        marked,
        vec![
            (0, Mark::Hit, "image".to_string()),
            (3, Mark::Current, "image".to_string())
        ]
    );
    assert!(painted[1].bad && !painted[0].bad && !painted[2].bad);
    // The same text twice still has two keys; an unchanged line keeps its key.
    let again = paint("b: x\nb: x", &[], None, &[]);
    assert_ne!(again[0].key, again[1].key);
    assert_eq!(
        paint("b: x\nb: x\nz: 1", &[], None, &[])[1].key,
        again[1].key
    );
    // A match inside a run splits it where the match begins and ends.
    let cut = paint(
        "name: web-image-1",
        &find("name: web-image-1", "image"),
        None,
        &[],
    );
    let texts: Vec<&str> = cut[0].pieces.iter().map(|p| p.text.as_str()).collect();
    assert_eq!(texts, vec!["name", ":", " ", "web-", "image", "-1"]);
}
