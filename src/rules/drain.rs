//! A drain in words: each pod's state as the progress table shows it (a
//! short state for tests and styles, and words), and how the drain ended.

use kubeglass_kubectl::drain::{DrainEnd, PodState};

/// A pod's state: a short name (`evicting`, `budget`, `gone`…) and words.
pub fn pod_words(s: &PodState) -> (&'static str, String) {
    match s {
        PodState::Waiting => ("waiting", "waiting".into()),
        PodState::Evicting => ("evicting", "evicting".into()),
        PodState::WaitingForBudget(n) => (
            "budget",
            format!(
                "waiting for budget: a PodDisruptionBudget refused {n} time{}",
                if *n == 1 { "" } else { "s" }
            ),
        ),
        PodState::Evicted => ("evicted", "evicted; waiting for it to go".into()),
        PodState::Gone => ("gone", "evicted and gone".into()),
        PodState::Left(l) => ("left", l.words().into()),
        PodState::Failed(w) => ("failed", format!("failed: {w}")),
    }
}

/// How the drain ended: a short name and words.
pub fn end_words(
    node: &str,
    end: &DrainEnd,
    evicted: usize,
    left: usize,
) -> (&'static str, String) {
    match end {
        DrainEnd::Drained => (
            "drained",
            format!(
                "{node} is drained: {evicted} pod{} evicted, {left} left alone. It stays cordoned until Uncordon.",
                if evicted == 1 { "" } else { "s" }
            ),
        ),
        DrainEnd::Refused(blocked) => (
            "refused",
            format!(
                "Nothing was evicted: {} ({node} stays cordoned)",
                blocked
                    .iter()
                    .map(|(k, bs)| format!(
                        "{k} {}",
                        bs.iter()
                            .map(|b| b.words())
                            .collect::<Vec<_>>()
                            .join(" and ")
                    ))
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
        ),
        DrainEnd::TimedOut(late) => (
            "timeout",
            format!(
                "The drain's time ran out with {} still there: {}",
                late.len(),
                late.join(", ")
            ),
        ),
        DrainEnd::Failed(w) => ("failed", format!("The drain failed: {w}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kubeglass_kubectl::drain::{Blocker, Left};

    #[test]
    fn states_and_ends_in_words() {
        assert_eq!(pod_words(&PodState::WaitingForBudget(2)).0, "budget");
        assert!(
            pod_words(&PodState::WaitingForBudget(1))
                .1
                .ends_with("refused 1 time")
        );
        assert_eq!(
            pod_words(&PodState::Left(Left::DaemonSet)).1,
            "left alone: a DaemonSet's pod"
        );
        assert_eq!(
            end_words("n1", &DrainEnd::Drained, 3, 1).1,
            "n1 is drained: 3 pods evicted, 1 left alone. It stays cordoned until Uncordon."
        );
        let refused = DrainEnd::Refused(vec![("shop/lone".into(), vec![Blocker::Unmanaged])]);
        assert!(
            end_words("n1", &refused, 0, 0)
                .1
                .contains("shop/lone declares no controller")
        );
    }
}
