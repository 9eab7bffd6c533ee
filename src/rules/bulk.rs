//! Actions on many objects at once: which verbs a kind offers, what each needs allowed, what it asks the person, the one confirmation's words, and each object's fate.

use kubeglass_kubectl::access::{AccessQuery, Verdict};
use kubeglass_kubectl::actions::ActionKind;

use crate::rules::labels::{parse_annotation_changes, parse_label_changes};
use crate::rules::objects::{KindActions, parse_replicas};

/// How many names the confirmation lists before "and N more".
pub const NAMES_SHOWN: usize = 5;

/// A verb for the marked rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BulkVerb {
    Scale,
    Restart,
    Cordon,
    Uncordon,
    Drain,
    Label,
    Annotate,
    Delete,
}

/// What a verb asks the person for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// Nothing.
    None,
    /// A replica count.
    Replicas,
    /// Label changes (`key=value key2-`).
    Labels,
    /// Annotation changes, one a line.
    Annotations,
    /// A drain's boxes and timeout.
    Drain,
}

/// What the confirmation will do to each allowed object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Work {
    /// One action through the action queue.
    Queue(ActionKind),
    /// A node's drain (its own steps, one node after another).
    Drain,
}

impl BulkVerb {
    /// The verbs `kind` offers, in the bar's order.
    pub fn offered(kind: &KindActions) -> Vec<Self> {
        let mut v = Vec::new();
        if kind.scale {
            v.push(Self::Scale);
        }
        if kind.patch && kind.restart {
            v.push(Self::Restart);
        }
        if kind.patch && kind.cordon {
            v.extend([Self::Cordon, Self::Uncordon, Self::Drain]);
        }
        if kind.patch {
            v.extend([Self::Label, Self::Annotate]);
        }
        if kind.delete {
            v.push(Self::Delete);
        }
        v
    }

    /// A short name (test ids, styles).
    pub fn name(self) -> &'static str {
        match self {
            Self::Scale => "scale",
            Self::Restart => "restart",
            Self::Cordon => "cordon",
            Self::Uncordon => "uncordon",
            Self::Drain => "drain",
            Self::Label => "label",
            Self::Annotate => "annotate",
            Self::Delete => "delete",
        }
    }

    /// The button's words.
    pub fn button(self) -> &'static str {
        match self {
            Self::Scale => "Scale…",
            Self::Restart => "Restart rollout",
            Self::Cordon => "Cordon",
            Self::Uncordon => "Uncordon",
            Self::Drain => "Drain…",
            Self::Label => "Label…",
            Self::Annotate => "Annotate…",
            Self::Delete => "Delete…",
        }
    }

    /// The verb as a phrase before the objects ("restart the rollout of").
    pub fn doing(self) -> &'static str {
        match self {
            Self::Scale => "scale",
            Self::Restart => "restart the rollout of",
            Self::Cordon => "cordon",
            Self::Uncordon => "uncordon",
            Self::Drain => "drain",
            Self::Label => "label",
            Self::Annotate => "annotate",
            Self::Delete => "delete",
        }
    }

    /// What it asks for.
    pub fn input(self) -> Input {
        match self {
            Self::Scale => Input::Replicas,
            Self::Label => Input::Labels,
            Self::Annotate => Input::Annotations,
            Self::Drain => Input::Drain,
            _ => Input::None,
        }
    }

    /// The review each object must pass (its namespace and name filled in
    /// per object): the verb on `group`/`plural`, as kubectl would need it.
    pub fn access(self, group: &str, plural: &str) -> AccessQuery {
        let (verb, sub) = match self {
            Self::Delete => ("delete", None),
            Self::Scale => ("update", Some("scale")),
            _ => ("patch", None),
        };
        AccessQuery {
            verb: verb.into(),
            group: group.into(),
            resource: plural.into(),
            subresource: sub.map(str::to_string),
            ..Default::default()
        }
    }

    /// A review that must pass once for all of them: a drain evicts pods
    /// in any namespace (`create pods/eviction`).
    pub fn access_once(self) -> Option<AccessQuery> {
        (self == Self::Drain).then(|| AccessQuery {
            verb: "create".into(),
            resource: "pods".into(),
            subresource: Some("eviction".into()),
            ..Default::default()
        })
    }

    /// The work for each object, from what the person typed (`text`), or
    /// what is wrong with it.
    pub fn work(self, text: &str) -> Result<Work, String> {
        let kind = match self {
            Self::Scale => ActionKind::Scale(parse_replicas("Scale", text)?),
            Self::Restart => ActionKind::RestartRollout,
            Self::Cordon => ActionKind::Cordon(true),
            Self::Uncordon => ActionKind::Cordon(false),
            Self::Drain => return Ok(Work::Drain),
            Self::Label => ActionKind::Labels(parse_label_changes(text)?),
            Self::Annotate => ActionKind::Annotations(parse_annotation_changes(text)?),
            Self::Delete => ActionKind::Delete,
        };
        Ok(Work::Queue(kind))
    }
}

/// The confirmation's question: "Delete 50 configmaps: a, b, c, d, e and
/// 45 more?" (`plural` is the resource's plural).
pub fn question(verb: BulkVerb, plural: &str, names: &[String]) -> String {
    let mut doing = verb.doing().to_string();
    if let Some(first) = doing.get(..1) {
        doing.replace_range(..1, &first.to_uppercase());
    }
    let count = names.len();
    let what = if count == 1 {
        singular(plural)
    } else {
        plural.to_string()
    };
    let shown = names
        .iter()
        .take(NAMES_SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    let more = count.saturating_sub(NAMES_SHOWN);
    if more > 0 {
        format!("{doing} {count} {what}: {shown} and {more} more?")
    } else {
        format!("{doing} {count} {what}: {shown}?")
    }
}

/// A plural's singular, as a question reads it (`pods` → `pod`).
fn singular(plural: &str) -> String {
    if let Some(s) = plural.strip_suffix("ies") {
        format!("{s}y")
    } else if let Some(s) = plural.strip_suffix("sses") {
        format!("{s}ss")
    } else {
        plural.strip_suffix('s').unwrap_or(plural).to_string()
    }
}

/// Where one object stands in a bulk action.
#[derive(Debug, Clone, PartialEq)]
pub enum Fate {
    /// Its review is being asked.
    Checking,
    /// Allowed: it will be sent when the person confirms.
    Allowed,
    /// Waiting in the action queue (or for its turn to drain).
    Queued,
    /// Being done (a drain's progress), in words.
    Running(String),
    /// Done, in words.
    Done(String),
    /// Refused, and why: by the review (`sent` false: nothing was sent)
    /// or by the cluster when it was sent.
    Refused {
        /// Whether a write was sent.
        sent: bool,
        /// Why.
        why: String,
    },
    /// Sent and failed, and why.
    Failed(String),
}

impl Fate {
    /// A short name (tests, styles).
    pub fn state(&self) -> &'static str {
        match self {
            Fate::Checking => "checking",
            Fate::Allowed => "allowed",
            Fate::Queued => "queued",
            Fate::Running(_) => "running",
            Fate::Done(_) => "done",
            Fate::Refused { .. } => "refused",
            Fate::Failed(_) => "failed",
        }
    }

    /// Its words.
    pub fn words(&self) -> String {
        match self {
            Fate::Checking => "checking what you may do…".into(),
            Fate::Allowed => "will be sent".into(),
            Fate::Queued => "queued".into(),
            Fate::Running(w) | Fate::Done(w) | Fate::Failed(w) => w.clone(),
            Fate::Refused { sent: false, why } => format!("not sent: {why}"),
            Fate::Refused { sent: true, why } => why.clone(),
        }
    }
}

/// The fate a review's verdict gives `key` (`namespace/name` or `name`)
/// for `verb` on `plural`.
pub fn fate_of_verdict(verdict: &Verdict, verb: BulkVerb, plural: &str, key: &str) -> Fate {
    let refused = |why: String| Fate::Refused { sent: false, why };
    let place = match key.split_once('/') {
        Some((ns, _)) => format!(" in {ns}"),
        None => String::new(),
    };
    match verdict {
        Verdict::Allowed => Fate::Allowed,
        Verdict::Denied { reason } => refused(format!(
            "you may not {} {plural}{place}{}",
            verb.doing(),
            reason
                .as_deref()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default()
        )),
        Verdict::NotAsked => refused(format!(
            "not asked: more than {} objects needed asking one by one",
            kubeglass_kubectl::access::MAX_NAMED
        )),
        Verdict::Unknown(e) => refused(format!("the cluster could not be asked ({e})")),
    }
}

/// How many are done, refused, failed, and not over yet.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub allowed: usize,
    pub done: usize,
    pub refused: usize,
    pub failed: usize,
    pub pending: usize,
}

/// Counts `fates`.
pub fn tally<'a>(fates: impl IntoIterator<Item = &'a Fate>) -> Tally {
    let mut t = Tally::default();
    for f in fates {
        match f {
            Fate::Allowed => t.allowed += 1,
            Fate::Done(_) => t.done += 1,
            Fate::Refused { .. } => t.refused += 1,
            Fate::Failed(_) => t.failed += 1,
            Fate::Checking | Fate::Queued | Fate::Running(_) => t.pending += 1,
        }
    }
    t
}

/// The confirmation's line of counts: while the reviews are asked, before
/// the person confirms, and as the results come.
pub fn tally_words(t: &Tally, started: bool, verb: BulkVerb) -> String {
    if !started && t.pending > 0 {
        let asked = t.allowed + t.refused;
        format!(
            "Checking what you may do: {asked} of {} asked",
            asked + t.pending
        )
    } else if !started {
        format!(
            "{} will be sent; {} you may not {} (not sent)",
            t.allowed,
            t.refused,
            verb.doing()
        )
    } else {
        format!(
            "{} done, {} refused, {} failed, {} to go",
            t.done,
            t.refused,
            t.failed,
            t.pending + t.allowed
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(delete: bool, patch: bool, scale: bool, restart: bool, cordon: bool) -> KindActions {
        KindActions {
            delete,
            patch,
            scale,
            restart,
            cordon,
            edit: false,
        }
    }

    #[test]
    fn each_kind_offers_only_its_verbs() {
        use BulkVerb::*;
        assert_eq!(
            BulkVerb::offered(&kind(true, true, true, true, false)),
            vec![Scale, Restart, Label, Annotate, Delete]
        );
        assert_eq!(
            BulkVerb::offered(&kind(true, true, false, false, true)),
            vec![Cordon, Uncordon, Drain, Label, Annotate, Delete]
        );
        assert_eq!(
            BulkVerb::offered(&kind(true, false, false, false, false)),
            vec![Delete]
        );
        assert!(BulkVerb::offered(&kind(false, false, false, false, false)).is_empty());
    }

    #[test]
    fn each_verb_asks_what_kubectl_would_need() {
        let q = BulkVerb::Scale.access("apps", "deployments");
        assert_eq!(
            (q.verb.as_str(), q.subresource.as_deref()),
            ("update", Some("scale"))
        );
        assert_eq!(BulkVerb::Delete.access("", "configmaps").verb, "delete");
        assert_eq!(BulkVerb::Annotate.access("", "configmaps").verb, "patch");
        assert_eq!(BulkVerb::Drain.access("", "nodes").verb, "patch");
        let evict = BulkVerb::Drain.access_once().expect("a drain evicts");
        assert_eq!(evict.subresource.as_deref(), Some("eviction"));
        assert_eq!(BulkVerb::Delete.access_once(), None);
    }

    #[test]
    fn what_is_typed_becomes_the_work_or_says_what_is_wrong() {
        assert_eq!(
            BulkVerb::Scale.work("3"),
            Ok(Work::Queue(ActionKind::Scale(3)))
        );
        assert!(BulkVerb::Scale.work("three").is_err());
        assert_eq!(
            BulkVerb::Label.work("tier=gold old-"),
            Ok(Work::Queue(ActionKind::Labels(vec![
                ("tier".into(), Some("gold".into())),
                ("old".into(), None)
            ])))
        );
        assert!(BulkVerb::Label.work("").is_err());
        assert_eq!(
            BulkVerb::Annotate.work("note=a, b"),
            Ok(Work::Queue(ActionKind::Annotations(vec![(
                "note".into(),
                Some("a, b".into())
            )])))
        );
        assert_eq!(
            BulkVerb::Delete.work(""),
            Ok(Work::Queue(ActionKind::Delete))
        );
        assert_eq!(BulkVerb::Drain.work(""), Ok(Work::Drain));
    }

    #[test]
    fn the_question_counts_and_names_the_first_few() {
        let names: Vec<String> = (0..50).map(|i| format!("shop/cm-{i}")).collect();
        assert_eq!(
            question(BulkVerb::Delete, "configmaps", &names),
            "Delete 50 configmaps: shop/cm-0, shop/cm-1, shop/cm-2, shop/cm-3, shop/cm-4 and 45 more?"
        );
        assert_eq!(
            question(BulkVerb::Restart, "deployments", &names[..1]),
            "Restart the rollout of 1 deployment: shop/cm-0?"
        );
        assert_eq!(
            question(BulkVerb::Cordon, "nodes", &["a".into(), "b".into()]),
            "Cordon 2 nodes: a, b?"
        );
        assert_eq!(singular("networkpolicies"), "networkpolicy");
        assert_eq!(singular("ingressclasses"), "ingressclass");
    }

    #[test]
    fn a_verdict_says_why_nothing_will_be_sent() {
        let denied = Verdict::Denied { reason: None };
        assert_eq!(
            fate_of_verdict(&denied, BulkVerb::Delete, "configmaps", "shop/a").words(),
            "not sent: you may not delete configmaps in shop"
        );
        assert_eq!(
            fate_of_verdict(&Verdict::Allowed, BulkVerb::Delete, "configmaps", "shop/a"),
            Fate::Allowed
        );
        let f = fate_of_verdict(&Verdict::NotAsked, BulkVerb::Cordon, "nodes", "n1");
        assert!(matches!(f, Fate::Refused { sent: false, .. }), "{f:?}");
        let t = tally(&[
            Fate::Allowed,
            Fate::Done("x".into()),
            Fate::Refused {
                sent: true,
                why: "no".into(),
            },
            Fate::Queued,
            Fate::Failed("y".into()),
        ]);
        assert_eq!(
            t,
            Tally {
                allowed: 1,
                done: 1,
                refused: 1,
                failed: 1,
                pending: 1
            }
        );
    }
}
