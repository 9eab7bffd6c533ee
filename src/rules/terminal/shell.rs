//! Which command a shell runs: one the person typed, or the first of
//! `/bin/bash` and `/bin/sh` that the container has, tried in that order
//! as people do by hand with `kubectl exec`.

use kubeglass_client::remotecommand::Exit;

/// The shells tried when no command is typed, in order.
pub const SHELLS: [&str; 2] = ["/bin/bash", "/bin/sh"];

/// What to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// The first shell of [`SHELLS`] the container has; the index of the
    /// one tried now.
    Auto(usize),
    /// The person's command, split at spaces (no quoting: it is not run
    /// by a shell).
    Typed(Vec<String>),
}

impl Choice {
    /// From the command box: empty is [`Choice::Auto`].
    pub fn from_box(text: &str) -> Self {
        let words: Vec<String> = text.split_whitespace().map(str::to_string).collect();
        if words.is_empty() {
            Choice::Auto(0)
        } else {
            Choice::Typed(words)
        }
    }

    /// The command to send.
    pub fn command(&self) -> Vec<String> {
        match self {
            Choice::Auto(i) => vec![SHELLS[(*i).min(SHELLS.len() - 1)].to_string()],
            Choice::Typed(words) => words.clone(),
        }
    }

    /// The next shell to try after `exit`, when this one was never found
    /// and printed nothing; None when there is none left or it ran.
    pub fn next(&self, exit: &Exit, printed: bool) -> Option<Choice> {
        match self {
            Choice::Auto(i) if !printed && exit.not_found() && i + 1 < SHELLS.len() => {
                Some(Choice::Auto(i + 1))
            }
            _ => None,
        }
    }
}
