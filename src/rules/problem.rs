//! Failures as a person reads them: forbidden, not found, unreachable and invalid each get their own words.
//!
//! The client's errors and an informer's last failure (its HTTP code) are
//! sorted into a [`Problem`] at the edge of the app, and a component says
//! what could not be done with [`Problem::explain`]: "You cannot list nodes
//! cluster-wide", not "backing off".

use kubeglass_client::cache::{ReflectorStatus, Stale};
use kubeglass_client::rest::Error;

use super::unread::unread;

/// What kind of failure it was, with the server's or browser's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// 401 or 403: the API answered, and refused.
    Forbidden(String),
    /// 404: no such object, or the server does not serve that resource.
    NotFound(String),
    /// No answer: the proxy or the API cannot be reached.
    Unreachable(String),
    /// The request itself is wrong (a bad name, 400, 422).
    Invalid(String),
    /// Anything else (5xx, an answer that cannot be read).
    Other(String),
    /// The list worked, but some objects in it could not be read as the
    /// view expects (named in the text); every other object is shown.
    Unreadable(String),
}

impl From<kubeglass_client::names::NameError> for Problem {
    /// A namespace or name that cannot be part of a request path: the
    /// request is invalid (as [`Problem::from_error`] sorts it).
    fn from(e: kubeglass_client::names::NameError) -> Self {
        Problem::Invalid(e.to_string())
    }
}

impl Problem {
    /// Sorts a client error.
    pub fn from_error(e: &Error) -> Self {
        let text = e.to_string();
        match e {
            Error::Transport(_) => Problem::Unreachable(text),
            Error::Api(a) => Self::from_code(a.code, text),
            Error::InvalidName(_) | Error::Request(_) | Error::SecretData(_) => {
                Problem::Invalid(text)
            }
            Error::Decode(_) | Error::WatchDecode(_) => Problem::Other(text),
        }
    }

    /// Sorts an answer with HTTP `code`.
    pub fn from_code(code: u16, text: String) -> Self {
        match code {
            401 | 403 => Problem::Forbidden(text),
            404 => Problem::NotFound(text),
            400 | 422 => Problem::Invalid(text),
            _ => Problem::Other(text),
        }
    }

    /// An informer's latest failure, if it has one now; else the objects
    /// its last list could not read, if any (those in `stale` are shown as
    /// their last good copy, and the words say so).
    pub fn from_status(s: &ReflectorStatus, stale: &Stale) -> Option<Self> {
        let Some(text) = s.last_error.clone() else {
            return unreadable(s, stale);
        };
        Some(if s.unreachable {
            Problem::Unreachable(text)
        } else {
            match s.last_error_code {
                Some(code) => Self::from_code(code, text),
                None => Problem::Other(text),
            }
        })
    }

    /// The server's or browser's own words.
    pub fn detail(&self) -> &str {
        match self {
            Problem::Forbidden(t)
            | Problem::NotFound(t)
            | Problem::Unreachable(t)
            | Problem::Invalid(t)
            | Problem::Other(t)
            | Problem::Unreadable(t) => t,
        }
    }

    /// A short word for a badge or a test id: `forbidden`, `not-found`,
    /// `unreachable`, `invalid`, `failed`.
    pub fn word(&self) -> &'static str {
        match self {
            Problem::Forbidden(_) => "forbidden",
            Problem::NotFound(_) => "not-found",
            Problem::Unreachable(_) => "unreachable",
            Problem::Invalid(_) => "invalid",
            Problem::Other(_) => "failed",
            Problem::Unreadable(_) => "unreadable",
        }
    }

    /// One sentence saying that `doing` (`list nodes cluster-wide`) could
    /// not be done, and why, in words that tell the kinds apart.
    pub fn explain(&self, doing: &str) -> String {
        match self {
            Problem::Forbidden(_) => format!("You cannot {doing}: your account is not allowed to."),
            Problem::NotFound(_) => format!("Could not {doing}: the server has no such thing."),
            Problem::Unreachable(_) => {
                format!("Could not {doing}: the Kubernetes API cannot be reached.")
            }
            Problem::Invalid(_) => format!("Could not {doing}: the request is not valid."),
            Problem::Other(_) => format!("Could not {doing}."),
            Problem::Unreadable(_) => format!(
                "Some objects could not be read (trying to {doing}); every other one is shown and kept live."
            ),
        }
    }
}

/// How many objects, at most, a problem line names.
const NAMED: usize = 5;

/// The objects an informer cannot read now, in one line: `2 objects: ns/a
/// (last good copy shown): why; ns/b: why`.
fn unreadable(s: &ReflectorStatus, stale: &Stale) -> Option<Problem> {
    let (objects, more) = unread(s, stale, NAMED);
    if objects.is_empty() {
        return None;
    }
    let named: Vec<String> = objects.iter().map(ToString::to_string).collect();
    let total = objects.len() + more;
    let count = match total {
        1 => "1 object".to_string(),
        n => format!("{n} objects"),
    };
    let tail = if more > 0 {
        format!("; and {more} more")
    } else {
        String::new()
    };
    Some(Problem::Unreadable(format!(
        "{count}: {}{tail}",
        named.join("; ")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kubeglass_client::transport::TransportError;

    #[test]
    fn objects_a_list_could_not_read_are_named_when_nothing_else_failed() {
        use kubeglass_client::rest::list::Undecodable;
        let mut s = ReflectorStatus::default();
        let bad = |i: usize| Undecodable {
            key: format!("demo/bad-{i}"),
            error: "invalid type: string, expected a sequence".into(),
        };
        s.undecodable = vec![bad(1)];
        let p = Problem::from_status(&s, &Stale::default()).expect("a problem");
        assert_eq!(p.word(), "unreadable");
        assert_eq!(
            p.detail(),
            "1 object: demo/bad-1: invalid type: string, expected a sequence"
        );
        assert!(
            p.explain("list configmaps in demo")
                .contains("every other one is shown")
        );
        s.undecodable = (1..=7).map(bad).collect();
        let p = Problem::from_status(&s, &Stale::default()).expect("a problem");
        assert!(
            p.detail().starts_with("7 objects: demo/bad-1:"),
            "{}",
            p.detail()
        );
        assert!(p.detail().ends_with("; and 2 more"), "{}", p.detail());
        // Past what the status names, the count still tells them all.
        s.undecodable_more = 993;
        let p = Problem::from_status(&s, &Stale::default()).expect("a problem");
        assert!(p.detail().starts_with("1000 objects:"), "{}", p.detail());
        assert!(p.detail().ends_with("; and 995 more"), "{}", p.detail());
        s.undecodable_more = 0;
        // One read before is shown as it was last read, and the line says so.
        let mut stale = Stale::default();
        stale.mark("demo/bad-3", "invalid type: string, expected a sequence");
        let p = Problem::from_status(&s, &stale).expect("a problem");
        assert!(
            p.detail()
                .starts_with("7 objects: demo/bad-3 (last good copy shown): invalid type"),
            "{}",
            p.detail()
        );
        // A failure now comes first.
        s.last_error = Some("connection refused".into());
        s.unreachable = true;
        assert_eq!(
            Problem::from_status(&s, &Stale::default()).map(|p| p.word()),
            Some("unreachable")
        );
    }

    #[test]
    fn each_kind_of_failure_has_its_own_words() {
        let forbidden = Problem::from_code(403, "nodes is forbidden".into());
        assert_eq!(forbidden.word(), "forbidden");
        assert_eq!(
            forbidden.explain("list nodes cluster-wide"),
            "You cannot list nodes cluster-wide: your account is not allowed to."
        );
        assert_eq!(forbidden.detail(), "nodes is forbidden");
        let down =
            Problem::from_error(&Error::Transport(TransportError::Connect("refused".into())));
        assert_eq!(down.word(), "unreachable");
        assert!(down.explain("list pods").contains("cannot be reached"));
        assert_eq!(Problem::from_code(404, String::new()).word(), "not-found");
        assert_eq!(Problem::from_code(422, String::new()).word(), "invalid");
        assert_eq!(Problem::from_code(500, String::new()).word(), "failed");
        assert_eq!(
            Problem::from_error(&Error::Decode("x".into())).word(),
            "failed"
        );
        let bad_path =
            kubeglass_client::names::validate_namespace("prod/secrets").expect_err("a slash");
        assert_eq!(Problem::from(bad_path).word(), "invalid");
    }

    #[test]
    fn an_informers_status_is_sorted_by_its_code() {
        let mut s = ReflectorStatus::default();
        assert_eq!(Problem::from_status(&s, &Stale::default()), None);
        s.last_error = Some("pods is forbidden".into());
        s.last_error_code = Some(403);
        assert_eq!(
            Problem::from_status(&s, &Stale::default()).map(|p| p.word()),
            Some("forbidden")
        );
        s.last_error_code = None;
        s.unreachable = true;
        assert_eq!(
            Problem::from_status(&s, &Stale::default()).map(|p| p.word()),
            Some("unreachable")
        );
    }
}
