//! A list's body cut into its items as the bytes arrive.
//!
//! A LIST answer is one JSON object whose `items` (a Table's `rows`) array
//! holds every object. Decoding it needs the whole body, so the tab used to
//! wait for the last byte of a 160 MB answer before it decoded the first
//! pod. [`Splitter`] reads the bytes as they come, chunk by chunk, split
//! anywhere, and tells apart the list's frame (everything but the items)
//! from each item, whose bytes are complete as soon as its closing brace
//! arrives. It only tracks strings, escapes and nesting; whether the bytes
//! are JSON is left to the decoder that reads each piece.

/// One piece of a chunk, as [`Splitter::feed`] hands it out.
#[derive(Debug, PartialEq, Eq)]
pub enum Piece<'a> {
    /// Bytes of the list's frame: everything outside the items array's
    /// elements (the array's brackets stay, so the frame reads as a list
    /// with no items).
    Frame(&'a [u8]),
    /// Bytes of one item; `done` when they are its last.
    Item {
        /// The bytes, in order after the item's earlier pieces.
        bytes: &'a [u8],
        /// These are the item's last bytes.
        done: bool,
    },
}

/// Where the splitter is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// In the frame.
    Frame,
    /// In the items array, between elements (whitespace and commas, dropped).
    Gap,
    /// In an element of the items array.
    Item,
}

/// What an element of the items array is, which says where it ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// An object or array: ends with the bracket that closes it.
    Container,
    /// A string: ends with its closing quote.
    Text,
    /// A number, `true`, `false` or `null`: ends before the next separator.
    Scalar,
}

/// Tells a list's frame from its items, over a body that arrives in chunks.
#[derive(Debug)]
pub struct Splitter {
    /// The top-level key whose array holds the items.
    items_key: &'static [u8],
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// The outermost container is an object (only then has it keys).
    top_object: bool,
    /// At depth 1, the next string is a key.
    expect_key: bool,
    reading_key: bool,
    /// How many bytes of the key being read, and whether they all match.
    key_len: usize,
    key_matches: bool,
    /// The key just read is the items key, so its value is the items.
    key_is_items: bool,
    value_is_items: bool,
    mode: Mode,
    shape: Shape,
}

impl Splitter {
    /// A splitter for a plain list (`items`) or a Table (`rows`).
    pub fn new(table: bool) -> Self {
        Self {
            items_key: if table { b"rows" } else { b"items" },
            depth: 0,
            in_string: false,
            escaped: false,
            top_object: false,
            expect_key: false,
            reading_key: false,
            key_len: 0,
            key_matches: false,
            key_is_items: false,
            value_is_items: false,
            mode: Mode::Frame,
            shape: Shape::Container,
        }
    }

    /// True when the bytes so far end between values, not inside an item,
    /// a string or an open container.
    pub fn at_rest(&self) -> bool {
        self.depth == 0 && !self.in_string && self.mode == Mode::Frame
    }

    fn key_bytes(&mut self, bytes: &[u8]) {
        if !self.reading_key {
            return;
        }
        let end = self.key_len + bytes.len();
        self.key_matches = self.key_matches
            && end <= self.items_key.len()
            && self.items_key[self.key_len..end] == *bytes;
        self.key_len = end;
    }

    /// Inside an item, below its own brackets, only strings and brackets
    /// matter: skips to the bracket that closes the item's top level
    /// (returns its index) or to the chunk's end (returns its length).
    fn skip_inside(&mut self, chunk: &[u8], mut i: usize) -> usize {
        let n = chunk.len();
        while i < n {
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                    i += 1;
                    continue;
                }
                let Some(k) = chunk[i..].iter().position(|&c| c == b'"' || c == b'\\') else {
                    return n;
                };
                i += k;
                self.escaped = chunk[i] == b'\\';
                self.in_string = self.escaped;
                i += 1;
                continue;
            }
            match chunk[i] {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' if self.depth == 3 => return i,
                b'}' | b']' => self.depth -= 1,
                _ => {}
            }
            i += 1;
        }
        n
    }

    /// Hands out `chunk`'s pieces in order.
    pub fn feed(&mut self, chunk: &[u8], out: &mut dyn FnMut(Piece<'_>)) {
        let n = chunk.len();
        let mut start = 0;
        let mut i = 0;
        while i < n {
            if self.mode == Mode::Item && self.shape == Shape::Container && self.depth >= 3 {
                i = self.skip_inside(chunk, i);
                if i == n {
                    break;
                }
            }
            if self.in_string {
                match self.string_bytes(chunk, i, start, out) {
                    Some(next) => {
                        i = next;
                        continue;
                    }
                    None => break,
                }
            }
            self.structural(chunk, i, &mut start, out);
            i += 1;
        }
        match self.mode {
            Mode::Frame if start < n => out(Piece::Frame(&chunk[start..])),
            Mode::Item if start < n => out(Piece::Item {
                bytes: &chunk[start..],
                done: false,
            }),
            _ => {}
        }
    }

    /// Inside a string at `chunk[i]`: reads on to its closing quote or its
    /// next escape (a string item that ends there is handed out, from
    /// `start`). Returns where to go on from, or `None` when the chunk ends
    /// inside the string.
    #[inline]
    fn string_bytes(
        &mut self,
        chunk: &[u8],
        mut i: usize,
        start: usize,
        out: &mut dyn FnMut(Piece<'_>),
    ) -> Option<usize> {
        if self.escaped {
            self.escaped = false;
            return Some(i + 1);
        }
        let Some(k) = chunk[i..].iter().position(|&c| c == b'"' || c == b'\\') else {
            self.key_bytes(&chunk[i..]);
            return None;
        };
        self.key_bytes(&chunk[i..i + k]);
        i += k;
        if chunk[i] == b'\\' {
            // An escaped key is never taken for the items key.
            self.key_matches = false;
            self.escaped = true;
            return Some(i + 1);
        }
        self.in_string = false;
        if self.reading_key {
            self.reading_key = false;
            self.key_is_items = self.key_matches && self.key_len == self.items_key.len();
        }
        i += 1;
        if self.mode == Mode::Item && self.shape == Shape::Text && self.depth == 2 {
            out(Piece::Item {
                bytes: &chunk[start..i],
                done: true,
            });
            self.mode = Mode::Gap;
        }
        Some(i)
    }

    /// Outside any string, the byte `chunk[i]`: a quote, a bracket, a
    /// separator, a colon or part of a scalar. Moves `start` where a new
    /// piece begins.
    #[inline]
    fn structural(
        &mut self,
        chunk: &[u8],
        i: usize,
        start: &mut usize,
        out: &mut dyn FnMut(Piece<'_>),
    ) {
        let b = chunk[i];
        match b {
            b'"' => {
                if self.mode == Mode::Gap {
                    (self.mode, self.shape, *start) = (Mode::Item, Shape::Text, i);
                } else if self.mode == Mode::Frame && self.depth == 1 && self.expect_key {
                    (self.reading_key, self.expect_key) = (true, false);
                    (self.key_len, self.key_matches) = (0, true);
                }
                self.value_is_items = false;
                self.in_string = true;
            }
            b'{' | b'[' => self.open(chunk, i, start, out),
            b'}' | b']' => self.close(chunk, i, start, out),
            b',' | b' ' | b'\n' | b'\r' | b'\t' => {
                if self.mode == Mode::Item && self.shape == Shape::Scalar {
                    out(Piece::Item {
                        bytes: &chunk[*start..i],
                        done: true,
                    });
                    self.mode = Mode::Gap;
                }
                if b == b',' && self.mode == Mode::Frame && self.depth == 1 {
                    self.expect_key = self.top_object;
                }
            }
            b':' => {
                if self.mode == Mode::Frame && self.depth == 1 {
                    self.value_is_items = self.key_is_items;
                    self.key_is_items = false;
                }
            }
            _ => {
                if self.mode == Mode::Gap {
                    (self.mode, self.shape, *start) = (Mode::Item, Shape::Scalar, i);
                }
                self.value_is_items = false;
            }
        }
    }

    /// The opening bracket `chunk[i]`: an item begins, or the items array
    /// (the frame so far, up to its bracket, is handed out).
    #[inline]
    fn open(&mut self, chunk: &[u8], i: usize, start: &mut usize, out: &mut dyn FnMut(Piece<'_>)) {
        let b = chunk[i];
        if self.mode == Mode::Gap {
            (self.mode, self.shape, *start) = (Mode::Item, Shape::Container, i);
        }
        let opens_items =
            self.mode == Mode::Frame && self.depth == 1 && self.value_is_items && b == b'[';
        self.value_is_items = false;
        self.depth += 1;
        if self.depth == 1 {
            self.top_object = b == b'{';
            self.expect_key = self.top_object;
        }
        if opens_items {
            out(Piece::Frame(&chunk[*start..=i]));
            self.mode = Mode::Gap;
        }
    }

    /// The closing bracket `chunk[i]`: a scalar or container item ends, or
    /// the items array does (its bracket is the frame's).
    #[inline]
    fn close(&mut self, chunk: &[u8], i: usize, start: &mut usize, out: &mut dyn FnMut(Piece<'_>)) {
        if self.mode == Mode::Item && self.shape == Shape::Scalar {
            out(Piece::Item {
                bytes: &chunk[*start..i],
                done: true,
            });
            self.mode = Mode::Gap;
        }
        if self.mode == Mode::Gap {
            // The items array closes: its bracket is the frame's.
            (self.mode, *start) = (Mode::Frame, i);
        }
        self.depth = self.depth.saturating_sub(1);
        if self.mode == Mode::Item && self.shape == Shape::Container && self.depth == 2 {
            out(Piece::Item {
                bytes: &chunk[*start..=i],
                done: true,
            });
            self.mode = Mode::Gap;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The frame and the items of `body` fed in chunks of `size` bytes.
    fn split(body: &str, table: bool, size: usize) -> (String, Vec<String>, bool) {
        let mut s = Splitter::new(table);
        let mut frame = Vec::new();
        let mut items = Vec::new();
        let mut item = Vec::new();
        for chunk in body.as_bytes().chunks(size.max(1)) {
            s.feed(chunk, &mut |p| match p {
                Piece::Frame(b) => frame.extend_from_slice(b),
                Piece::Item { bytes, done } => {
                    item.extend_from_slice(bytes);
                    if done {
                        items.push(String::from_utf8(std::mem::take(&mut item)).expect("utf-8"));
                    }
                }
            });
        }
        assert!(
            item.is_empty() || !s.at_rest(),
            "a part item left over at rest"
        );
        (String::from_utf8(frame).expect("utf-8"), items, s.at_rest())
    }

    #[test]
    fn items_come_apart_from_the_frame_however_the_chunks_fall() {
        let body = r#"{"kind":"PodList","metadata":{"resourceVersion":"5","items":[9]},"items":[{"metadata":{"name":"a}\"{"},"x":[1,{"y":"]"}]}, "two" ,3.5e2,null,[true],{}] ,"rows":[1]}"#;
        let want_items = [
            r#"{"metadata":{"name":"a}\"{"},"x":[1,{"y":"]"}]}"#,
            r#""two""#,
            "3.5e2",
            "null",
            "[true]",
            "{}",
        ];
        let want_frame = r#"{"kind":"PodList","metadata":{"resourceVersion":"5","items":[9]},"items":[] ,"rows":[1]}"#;
        for size in 1..=body.len() {
            let (frame, items, rest) = split(body, false, size);
            assert_eq!(items, want_items, "chunks of {size}");
            assert_eq!(frame, want_frame, "chunks of {size}");
            assert!(rest);
        }
    }

    #[test]
    fn a_table_splits_its_rows_and_keeps_its_columns() {
        let body = r#"{"kind":"Table","columnDefinitions":[{"name":"Name"}],"rows":[{"cells":["a"]},{"cells":["b"]}],"items":[1]}"#;
        let (frame, items, rest) = split(body, true, 7);
        assert_eq!(items, [r#"{"cells":["a"]}"#, r#"{"cells":["b"]}"#]);
        assert_eq!(
            frame,
            r#"{"kind":"Table","columnDefinitions":[{"name":"Name"}],"rows":[],"items":[1]}"#
        );
        assert!(rest);
    }

    #[test]
    fn only_the_outer_objects_plain_items_key_is_split() {
        for body in [
            r#"[{"items":[1,2]}]"#,
            r#"{"it\u0065ms":[1,2]}"#,
            r#"{"i\"tems":[1,2]}"#,
            r#"{"itemsx":[1,2],"x":"items","y":{"items":[3]}}"#,
            r#"{"items":"[1,2]"}"#,
            r#"{"items":null}"#,
        ] {
            let (frame, items, rest) = split(body, false, 3);
            assert!(items.is_empty(), "{body}: {items:?}");
            assert_eq!(frame, body);
            assert!(rest, "{body}");
        }
    }

    #[test]
    fn a_body_cut_short_is_not_at_rest() {
        for body in [
            r#"{"items":[{"a":1}"#,
            r#"{"items":[{"a":"#,
            r#"{"items":["x"#,
            r#"{"x":"#,
            r#"{"items":[1"#,
        ] {
            let (_, _, rest) = split(body, false, 4);
            assert!(!rest, "{body}");
        }
    }
}
