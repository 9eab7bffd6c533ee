//! A node's drain as the person's action: `kubectl drain`
//! (`kubeglass_kubectl::drain`) recorded as Events from `kubeglass`, one as
//! it starts and one as it ends (Drained, or DrainFailed with why), the end
//! in words. The object page's Drain and the bulk bar's both run it.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use kubeglass_client::k8s_openapi::api::core::v1::ObjectReference;
use kubeglass_kubectl::drain::{DrainEnd, DrainOptions, PodKey, PodState, Report, drain};

use super::Actions;
use crate::kube::Kube;
use crate::rules::drain::end_words;

/// Drains `node`, telling `report` every step, and records its start and
/// end as Events on the node. Returns how it ended, and in words (the
/// class and the sentence `end_words` gives).
pub async fn drain_node(
    kube: &Kube,
    actions: Actions,
    node: &str,
    options: DrainOptions,
    mut report: impl FnMut(Report) + 'static,
) -> (DrainEnd, (&'static str, String)) {
    let node_ref = ObjectReference {
        api_version: Some("v1".into()),
        kind: Some("Node".into()),
        name: Some(node.to_string()),
        ..Default::default()
    };
    actions.record(
        &node_ref,
        false,
        "Drain",
        &format!("Draining node {node} (kubeglass)"),
    );
    // Where each pod stands last, for the words at the end.
    let states = Rc::new(RefCell::new(BTreeMap::<PodKey, PodState>::new()));
    let seen = states.clone();
    let end = drain(
        kube.client(),
        &kube.clock(),
        node,
        options,
        move |r: Report| {
            if let Report::Pod(key, state) = &r {
                seen.borrow_mut().insert(key.clone(), state.clone());
            }
            report(r);
        },
    )
    .await;
    let (gone, left) = {
        let states = states.borrow();
        let count = |f: fn(&PodState) -> bool| states.values().filter(|s| f(s)).count();
        (
            count(|s| *s == PodState::Gone),
            count(|s| matches!(s, PodState::Left(_))),
        )
    };
    let words = end_words(node, &end, gone, left);
    let drained = end == DrainEnd::Drained;
    actions.record(
        &node_ref,
        !drained,
        if drained { "Drained" } else { "DrainFailed" },
        &words.1,
    );
    (end, words)
}
