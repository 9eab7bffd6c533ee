//! What tabs say to each other about one shared watch, as text on the bus.
//!
//! Three messages, each a type letter and fields on their own lines (a
//! watch event is one JSON line, so it never holds a newline):
//! - `e` an event the holder's watch delivered: `e\n<rv>\n<line>` (rv empty
//!   for an event without one, e.g. an `ERROR`);
//! - `c` a follower asking to catch up: `c\n<id>\n<rv>`, the version its
//!   cache is complete up to;
//! - `r` the holder's answer: `r\n<id>\nok\n<line>\n<line>…` (the events
//!   after that version, in order) or `r\n<id>\ngone` (it no longer has
//!   them all).

/// One message on a shared watch's channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    /// An event of the holder's watch, with its resourceVersion if it reads.
    Event {
        /// The event's resourceVersion as a number.
        rv: Option<u64>,
        /// The event, one JSON line.
        line: String,
    },
    /// A follower asks for the events after `from`.
    CatchUp {
        /// The follower's request id.
        id: String,
        /// The version the follower's cache is complete up to.
        from: u64,
    },
    /// The holder's answer to the catch-up `id`: the events after its
    /// version (None: not all of them are kept any more).
    Reply {
        /// The request answered.
        id: String,
        /// The events, in order.
        lines: Option<Vec<String>>,
    },
}

impl Message {
    /// The message as the bus carries it.
    pub fn encode(&self) -> String {
        match self {
            Message::Event { rv, line } => {
                let rv = rv.map(|r| r.to_string()).unwrap_or_default();
                format!("e\n{rv}\n{line}")
            }
            Message::CatchUp { id, from } => format!("c\n{id}\n{from}"),
            Message::Reply { id, lines: None } => format!("r\n{id}\ngone"),
            Message::Reply {
                id,
                lines: Some(lines),
            } => {
                let mut s = format!("r\n{id}\nok");
                for l in lines {
                    s.push('\n');
                    s.push_str(l);
                }
                s
            }
        }
    }

    /// Reads a message; None for anything else (another version's, or garbage).
    pub fn decode(text: &str) -> Option<Message> {
        let (kind, rest) = text.split_once('\n')?;
        match kind {
            "e" => {
                let (rv, line) = rest.split_once('\n')?;
                let rv = if rv.is_empty() {
                    None
                } else {
                    Some(rv.parse().ok()?)
                };
                Some(Message::Event {
                    rv,
                    line: line.to_owned(),
                })
            }
            "c" => {
                let (id, from) = rest.split_once('\n')?;
                Some(Message::CatchUp {
                    id: id.to_owned(),
                    from: from.parse().ok()?,
                })
            }
            "r" => {
                let mut parts = rest.split('\n');
                let id = parts.next()?.to_owned();
                let lines = match parts.next()? {
                    "gone" => None,
                    "ok" => Some(parts.map(str::to_owned).collect()),
                    _ => return None,
                };
                Some(Message::Reply { id, lines })
            }
            _ => None,
        }
    }
}

/// The resourceVersion of one watch event's object as a number: its own
/// `metadata`, or for a Table event its row's object's. None when it has
/// none or it is not a number (an `ERROR` event's Status).
pub fn event_rv(line: &str) -> Option<u64> {
    // Read as a `Value`, which the app decodes elsewhere anyway: a typed
    // reader of its own would add its code to the first page for nothing.
    let event: serde_json::Value = serde_json::from_slice(line.as_bytes()).ok()?;
    let object = event.get("object")?;
    let rv = object
        .pointer("/metadata/resourceVersion")
        .or_else(|| object.pointer("/rows/0/object/metadata/resourceVersion"))?;
    rv.as_str()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_read_back() {
        for m in [
            Message::Event {
                rv: Some(12),
                line: r#"{"type":"ADDED","object":{}}"#.into(),
            },
            Message::Event {
                rv: None,
                line: r#"{"type":"ERROR"}"#.into(),
            },
            Message::CatchUp {
                id: "t1-3".into(),
                from: 40,
            },
            Message::Reply {
                id: "t1-3".into(),
                lines: Some(vec!["a".into(), "b".into()]),
            },
            Message::Reply {
                id: "t1-3".into(),
                lines: Some(vec![]),
            },
            Message::Reply {
                id: "t1-3".into(),
                lines: None,
            },
        ] {
            assert_eq!(Message::decode(&m.encode()), Some(m));
        }
        assert_eq!(Message::decode("x\n1"), None);
        assert_eq!(Message::decode("c\nid\nnot-a-number"), None);
    }

    #[test]
    fn versions_of_objects_tables_and_errors() {
        let plain = r#"{"type":"MODIFIED","object":{"kind":"Pod","metadata":{"name":"a","resourceVersion":"41"}}}"#;
        assert_eq!(event_rv(plain), Some(41));
        let table = r#"{"type":"ADDED","object":{"kind":"Table","metadata":{},"columnDefinitions":null,"rows":[{"cells":["a"],"object":{"kind":"PartialObjectMetadata","metadata":{"name":"a","resourceVersion":"7"}}}]}}"#;
        assert_eq!(event_rv(table), Some(7));
        let bookmark =
            r#"{"type":"BOOKMARK","object":{"kind":"Table","metadata":{"resourceVersion":"90"}}}"#;
        assert_eq!(event_rv(bookmark), Some(90));
        let error = r#"{"type":"ERROR","object":{"kind":"Status","code":410}}"#;
        assert_eq!(event_rv(error), None);
        assert_eq!(event_rv("not json"), None);
    }
}
