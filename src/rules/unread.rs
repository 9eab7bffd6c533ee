//! What an informer cannot read now, as a person is told: each object its last list could not decode, shown as its last good copy (stale) or left out (never read).
//!
//! The client keeps an object that stops decoding as the copy it last read
//! and names it stale (`kubeglass_client::cache::stale`); one it never read
//! is left out of the cache. The reflector's status names what the last
//! list could not decode (the first hundred, the rest counted); the
//! informer's stale set says which of those the cache still shows. The
//! problem line and the X-ray page tell the two apart with this.

use kubeglass_client::cache::{ReflectorStatus, Stale};

/// One object an informer cannot read now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unread {
    /// `namespace/name` (or `name`; `item 3` when the item had none).
    pub key: String,
    /// Why it did not decode (serde's words, already cut short).
    pub why: String,
    /// True when its last good copy is kept and shown, marked stale; false
    /// when it is left out (it never decoded).
    pub kept: bool,
}

/// The objects an informer with `status` and `stale` cannot read now: the
/// stale ones first, in key order, then those left out in the list's order,
/// at most `max`; and how many more there are.
///
/// The count is the larger of what the status counts (named and unnamed)
/// and what the two lists name: a stale object past the hundred the status
/// names is still counted once.
pub fn unread(status: &ReflectorStatus, stale: &Stale, max: usize) -> (Vec<Unread>, usize) {
    let left_out = status
        .undecodable
        .iter()
        .filter(|u| !stale.contains(&u.key));
    let named = stale.len() + left_out.clone().count();
    let total = named.max(status.undecodable.len() + status.undecodable_more);
    let kept = stale.iter().map(|(key, why)| Unread {
        key: key.to_string(),
        why: why.to_string(),
        kept: true,
    });
    let out = left_out.map(|u| Unread {
        key: u.key.clone(),
        why: u.error.clone(),
        kept: false,
    });
    let shown: Vec<Unread> = kept.chain(out).take(max).collect();
    let more = total - shown.len();
    (shown, more)
}

/// What a stale row or object says when pointed at: why it is shown as it
/// was last read.
pub fn stale_words(why: &str) -> String {
    format!(
        "Stale: the server's copy no longer reads as this view expects ({why}); \
         this is the last copy that did, kept until one that reads comes or \
         the object is deleted."
    )
}

impl std::fmt::Display for Unread {
    /// `ns/b: why`, or `ns/b (last good copy shown): why` for a stale one.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.kept {
            write!(f, "{} (last good copy shown): {}", self.key, self.why)
        } else {
            write!(f, "{}: {}", self.key, self.why)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kubeglass_client::rest::list::Undecodable;

    fn named(keys: &[&str]) -> ReflectorStatus {
        ReflectorStatus {
            undecodable: keys
                .iter()
                .map(|k| Undecodable {
                    key: k.to_string(),
                    error: format!("{k} is bad"),
                })
                .collect(),
            ..ReflectorStatus::default()
        }
    }

    #[test]
    fn stale_objects_come_first_and_the_rest_are_left_out_in_the_lists_order() {
        let status = named(&["ns/z", "ns/b", "ns/a"]);
        let mut stale = Stale::default();
        stale.mark("ns/b", "ns/b is bad");
        let (shown, more) = unread(&status, &stale, 10);
        let got: Vec<String> = shown.iter().map(ToString::to_string).collect();
        assert_eq!(
            got,
            [
                "ns/b (last good copy shown): ns/b is bad",
                "ns/z: ns/z is bad",
                "ns/a: ns/a is bad",
            ]
        );
        assert_eq!(more, 0);
    }

    #[test]
    fn past_the_limit_the_rest_are_counted_once() {
        let mut status = named(&["ns/a", "ns/b", "ns/c"]);
        status.undecodable_more = 4;
        let mut stale = Stale::default();
        for k in ["ns/a", "ns/x", "ns/y"] {
            stale.mark(k, "bad");
        }
        let (shown, more) = unread(&status, &stale, 2);
        assert_eq!(shown.len(), 2);
        assert!(shown.iter().all(|u| u.kept));
        // Seven the list could not read (three named, four counted), among
        // them the three stale ones.
        assert_eq!(shown.len() + more, 7);
        // With nothing counted beyond the names, the names are the count.
        status.undecodable_more = 0;
        let (_, more) = unread(&status, &stale, 2);
        assert_eq!(more, 3, "a, x, y stale and b, c left out: five");
    }

    #[test]
    fn a_stale_object_says_why_it_is_shown_as_last_read() {
        let words = stale_words("invalid type: integer `42`");
        assert!(words.starts_with("Stale: "), "{words}");
        assert!(words.contains("(invalid type: integer `42`)"), "{words}");
        assert!(words.contains("deleted"), "{words}");
    }

    #[test]
    fn nothing_unread_is_nothing() {
        let (shown, more) = unread(&ReflectorStatus::default(), &Stale::default(), 5);
        assert!(shown.is_empty());
        assert_eq!(more, 0);
    }
}
