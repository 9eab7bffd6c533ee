//! The session file, read once as the app starts, through the host.

use super::*;
use crate::kube::stores::session::SessionState;
use crate::rules::session::SESSION_FILE;

/// What `read` saw: the session's namespace, and whether `loaded` was set.
type Seen = Rc<RefCell<Vec<(Option<String>, bool)>>>;

/// Starts reading the session with `file` beside the page; returns the
/// state and what `read` saw, with whether `loaded` was already set then.
fn start(rig: &mut Rig, file: Result<Option<String>, String>) -> (SessionState, Seen) {
    rig.files.borrow_mut().insert(SESSION_FILE, file);
    let seen: Seen = Rc::default();
    let loaded: Rc<Cell<Option<RwSignal<bool>>>> = Rc::default();
    let (s, l) = (seen.clone(), loaded.clone());
    let state = SessionState::start(&rig.kube.host, move |session| {
        let was = l.get().is_some_and(|l| l.get_untracked());
        s.borrow_mut()
            .push((session.and_then(|s| s.namespace.clone()), was));
    });
    loaded.set(Some(state.loaded));
    assert!(
        !state.loaded.get_untracked(),
        "read before the page could draw"
    );
    rig.run();
    (state, seen)
}

#[test]
fn the_launchers_file_is_read_before_anything_depends_on_it() {
    let mut rig = rig();
    let (state, seen) = start(
        &mut rig,
        Ok(Some(
            r#"{"context": "prod-eu", "cluster": "eks", "namespace": "shop", "readOnly": true}"#
                .into(),
        )),
    );
    assert_eq!(
        *seen.borrow(),
        [(Some("shop".to_string()), false)],
        "`read` must see the namespace before `loaded` is set"
    );
    assert!(state.loaded.get_untracked());
    assert!(state.read_only(), "a read-only proxy draws no action");
    assert_eq!(
        state.session.get_untracked().map(|s| s.context),
        Some("prod-eu".into())
    );
}

#[test]
fn no_file_is_a_plain_proxy_session_that_may_write() {
    let mut rig = rig();
    let (state, seen) = start(&mut rig, Ok(None));
    assert_eq!(*seen.borrow(), [(None, false)]);
    assert!(state.loaded.get_untracked());
    assert!(!state.read_only());
    assert!(state.error.get_untracked().is_none());
}

#[test]
fn a_broken_or_unreadable_file_says_why_and_offers_no_actions() {
    for (file, words) in [
        (Ok(Some("{\"context\": ".to_string())), SESSION_FILE),
        (
            Ok(Some(r#"{"context": "", "cluster": "c"}"#.to_string())),
            "the context is empty",
        ),
        (Err(format!("{SESSION_FILE}: HTTP 500")), "HTTP 500"),
    ] {
        let mut rig = rig();
        let (state, seen) = start(&mut rig, file);
        let error = state.error.get_untracked().expect("an error is shown");
        assert!(error.contains(words), "{error}");
        assert!(state.read_only(), "a file that may have said read-only");
        assert_eq!(*seen.borrow(), [(None, false)]);
        assert!(state.loaded.get_untracked());
    }
}
