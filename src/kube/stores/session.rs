//! The session as the app knows it: the launcher's file, read once at start, before any page is drawn.

use leptos::prelude::*;

use crate::kube::{Host, Kube};
use crate::rules::session::{SESSION_FILE, Session};

/// The session as the app knows it: `None` until read, or when there is none.
#[derive(Clone, Copy)]
pub struct SessionState {
    /// The parsed file.
    pub session: RwSignal<Option<Session>>,
    /// Why the file could not be read, when it exists but is broken.
    pub error: RwSignal<Option<String>>,
    /// The read has finished (whatever it found). Pages wait for it, so a
    /// read-only session never draws an action button, not even briefly.
    pub loaded: RwSignal<bool>,
}

impl SessionState {
    /// Reads the file beside the page once, in the background; `read` sees
    /// what it found before `loaded` is set, so what depends on it (the
    /// namespace the app opens in) is decided before any page is drawn.
    pub fn start(host: &Host, read: impl FnOnce(Option<&Session>) + 'static) -> Self {
        let state = Self {
            session: RwSignal::new(None),
            error: RwSignal::new(None),
            loaded: RwSignal::new(false),
        };
        let file = (host.read_beside)(SESSION_FILE);
        host.spawn(async move {
            match file.await {
                Ok(Some(text)) => match Session::parse(&text) {
                    Ok(s) => state.session.set(s),
                    Err(e) => state.error.set(Some(e.to_string())),
                },
                Ok(None) => {}
                Err(e) => state.error.set(Some(e)),
            }
            state.session.with_untracked(|s| read(s.as_ref()));
            state.loaded.set(true);
        });
        state
    }

    /// True when the session may not write (the proxy refuses writes), or
    /// when the file is there but could not be read: then it may have said
    /// so, and offering no actions is the safe reading. Read once,
    /// untracked: pages are drawn after the file was read.
    pub fn read_only(&self) -> bool {
        self.read_only_or_unread()
    }

    /// True when the launcher lets a shell through: a session that is
    /// neither `--read-only` nor `--no-exec`. Without a session (a plain
    /// `kubectl proxy`, whose default reject list refuses exec) or with an
    /// unreadable one, false. Read once, untracked.
    pub fn may_exec(&self) -> bool {
        self.error.with_untracked(Option::is_none)
            && self
                .session
                .with_untracked(|s| s.as_ref().is_some_and(|s| s.exec && !s.read_only))
    }

    /// True when `kubectl glass` serves this session and it may write: a
    /// port-forward is the launcher's to run, and never in `--read-only`.
    /// Read once, untracked.
    pub fn may_forward(&self) -> bool {
        self.error.with_untracked(Option::is_none)
            && self
                .session
                .with_untracked(|s| s.as_ref().is_some_and(|s| !s.read_only))
    }

    fn read_only_or_unread(&self) -> bool {
        self.error.with_untracked(Option::is_some)
            || self
                .session
                .with_untracked(|s| s.as_ref().is_some_and(|s| s.read_only))
    }
}

impl Kube {
    /// Reads the launcher's session file beside the page once (see
    /// [`SessionState::start`]); the app calls it before any page is drawn.
    pub fn read_session(&self, read: impl FnOnce(Option<&Session>) + 'static) -> SessionState {
        SessionState::start(&self.host, read)
    }
}
