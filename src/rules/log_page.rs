//! What a log page tells the person: where each stream is in its life, the one message above the lines (most important first) and the quiet note under the toolbar.

use crate::rules::logs::stream_problem;
use crate::rules::pods::State;
use crate::rules::problem::Problem;

/// Where a stream is in its life.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamState {
    /// Asked for, no answer yet.
    Opening,
    /// Lines are arriving (or may).
    Open,
    /// The log ended: not followed, or the container stopped.
    Ended,
    /// Refused or broken, in words.
    Failed(Problem),
}

/// Whether a pod's stream may open: the previous container's log always
/// may; the current one once the container has run, or before its state is
/// known (try). A container still waiting is waited for.
pub fn may_open(previous: bool, container: Option<&State>) -> bool {
    previous || container.is_none_or(State::has_run)
}

/// What a pod's log page knows when it chooses what to say.
#[derive(Debug, Clone, Copy)]
pub struct PodLogFacts<'a> {
    /// The pod's namespace and name.
    pub namespace: &'a str,
    pub pod: &'a str,
    /// "container web of pod shop-1": what the stream reads.
    pub what: &'a str,
    /// Why the pod itself cannot be watched, if it cannot.
    pub pod_problem: Option<&'a Problem>,
    /// The pod is not in the cluster (its informer has synced without it).
    pub missing: bool,
    /// The page has had the pod at some time.
    pub seen: bool,
    /// The stream's state; none before it is opened.
    pub stream: Option<&'a StreamState>,
    /// The stream may open: the container has run (or is not known yet, or
    /// the previous one is asked for).
    pub ready: bool,
    /// The chosen container's state, when known.
    pub container: Option<&'a State>,
}

/// The one message above the lines, as (the problem's word, the text), in
/// this order: the pod may not be read; it is not there; it went (the lines
/// loaded stay); its stream failed; its container has not started.
pub fn pod_log_message(f: &PodLogFacts) -> Option<(&'static str, String)> {
    if let Some(p) = f.pod_problem.filter(|p| matches!(p, Problem::Forbidden(_))) {
        return Some((
            p.word(),
            format!("{} {}", p.explain("read this pod"), p.detail()),
        ));
    }
    if f.missing && !f.seen {
        return Some((
            "not-found",
            format!(
                "There is no pod “{}” in {} now (deleted, or never there).",
                f.pod, f.namespace
            ),
        ));
    }
    if f.missing {
        return Some((
            "gone",
            "The pod is gone; the lines loaded stay.".to_string(),
        ));
    }
    match f.stream {
        Some(StreamState::Failed(p)) => Some((
            p.word(),
            format!("{} {}", stream_problem(p, f.what), p.detail()),
        )),
        None if !f.ready => f.container.map(|s| {
            (
                "waiting",
                format!(
                    "{} has not started yet ({}), so it has no log; it opens when the container starts.",
                    f.what,
                    s.describe(0.0)
                ),
            )
        }),
        _ => None,
    }
}

/// The note under the toolbar for a stream that is opening or has ended:
/// a followed log that ends means the container stopped.
pub fn stream_note(
    stream: Option<&StreamState>,
    follow: bool,
    previous: bool,
) -> Option<&'static str> {
    match stream? {
        StreamState::Ended if follow && !previous => Some("The log ended: the container stopped."),
        StreamState::Ended => Some("Loaded; not following."),
        StreamState::Opening => Some("Opening the log…"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts<'a>() -> PodLogFacts<'a> {
        PodLogFacts {
            namespace: "shop",
            pod: "web-1",
            what: "container app of pod web-1",
            pod_problem: None,
            missing: false,
            seen: true,
            stream: Some(&StreamState::Open),
            ready: true,
            container: None,
        }
    }

    fn word(f: PodLogFacts) -> Option<&'static str> {
        pod_log_message(&f).map(|(w, _)| w)
    }

    #[test]
    fn the_most_important_message_wins() {
        let forbidden = Problem::Forbidden("pods is forbidden".into());
        let failed = StreamState::Failed(Problem::Invalid(
            "container \"app\" in pod \"web-1\" is waiting to start".into(),
        ));
        assert_eq!(word(facts()), None, "a stream that reads says nothing");
        // Forbidden beats a missing pod (a pod one may not read looks absent).
        let f = PodLogFacts {
            pod_problem: Some(&forbidden),
            missing: true,
            seen: false,
            ..facts()
        };
        let (w, text) = pod_log_message(&f).expect("a message");
        assert_eq!(w, "forbidden");
        assert!(text.starts_with("You cannot read this pod"), "{text}");
        assert!(
            text.ends_with("pods is forbidden"),
            "the server's words: {text}"
        );
        // Other failures to watch the pod are the informer's to say.
        let unreachable = Problem::Unreachable("reset".into());
        assert_eq!(
            word(PodLogFacts {
                pod_problem: Some(&unreachable),
                ..facts()
            }),
            None
        );
        // Never there, then gone: the lines loaded stay.
        let f = PodLogFacts {
            missing: true,
            seen: false,
            stream: Some(&failed),
            ..facts()
        };
        let (w, text) = pod_log_message(&f).expect("a message");
        assert_eq!(w, "not-found");
        assert_eq!(
            text,
            "There is no pod “web-1” in shop now (deleted, or never there)."
        );
        assert_eq!(
            word(PodLogFacts {
                missing: true,
                stream: Some(&failed),
                ..facts()
            }),
            Some("gone")
        );
        // The stream's failure, in the log's words, not "invalid request".
        let (w, text) = pod_log_message(&PodLogFacts {
            stream: Some(&failed),
            ..facts()
        })
        .expect("a message");
        assert_eq!(w, "invalid");
        assert!(
            text.starts_with("container app of pod web-1 has not started yet"),
            "{text}"
        );
    }

    #[test]
    fn a_container_that_has_not_run_is_waited_for() {
        let waiting = State::Waiting("ContainerCreating".into());
        let f = PodLogFacts {
            stream: None,
            ready: false,
            container: Some(&waiting),
            ..facts()
        };
        let (w, text) = pod_log_message(&f).expect("a message");
        assert_eq!(w, "waiting");
        assert_eq!(
            text,
            "container app of pod web-1 has not started yet (Waiting: ContainerCreating), so it has no log; it opens when the container starts."
        );
        assert!(!may_open(false, Some(&waiting)), "waited for");
        assert!(may_open(true, Some(&waiting)), "its previous log is there");
        assert!(may_open(false, None), "not known yet: try");
        assert!(may_open(false, Some(&State::Running(None))));
        // Once ready, the stream opens and the message goes.
        assert_eq!(
            word(PodLogFacts {
                stream: None,
                ready: true,
                ..f
            }),
            None
        );
    }

    #[test]
    fn the_note_says_why_a_log_ended() {
        let ended = Some(&StreamState::Ended);
        assert_eq!(
            stream_note(ended, true, false),
            Some("The log ended: the container stopped.")
        );
        assert_eq!(
            stream_note(ended, false, false),
            Some("Loaded; not following.")
        );
        assert_eq!(
            stream_note(ended, true, true),
            Some("Loaded; not following."),
            "a previous log always ends"
        );
        assert_eq!(
            stream_note(Some(&StreamState::Opening), true, false),
            Some("Opening the log…")
        );
        assert_eq!(stream_note(Some(&StreamState::Open), true, false), None);
        assert_eq!(stream_note(None, true, false), None);
    }
}
