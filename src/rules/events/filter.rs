//! What the event stream is filtered by: exact menus, the involved object's name, and free text in the app's one filter grammar.

use crate::rules::filter::{Filter, Test, contains_any_case};

use super::EventRow;

/// What the event stream is filtered by; an empty field matches everything.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EventFilter {
    /// `Normal` or `Warning`.
    pub type_: String,
    /// Exact reason.
    pub reason: String,
    /// Exact namespace of the Event.
    pub namespace: String,
    /// Exact kind of the involved object.
    pub kind: String,
    /// Part of the involved object's name (case-insensitive).
    pub object: String,
    /// Part of the reason, namespace, object, message or source (any
    /// case), or `/pattern/` (the one filter grammar).
    pub text: String,
}

impl EventFilter {
    /// A test of whether a row passes every field that is set, for many
    /// rows: the search terms are read once, and ASCII terms are compared
    /// without allocating. The free text is read with the one filter
    /// grammar (`/pattern/` through `compile`); a pattern that does not
    /// compile passes nothing (the box says why).
    pub fn matcher(
        &self,
        compile: impl Fn(&str) -> Result<Test, String>,
    ) -> impl Fn(&EventRow) -> bool + '_ {
        let object = self.object.to_lowercase();
        let text = Filter::parse(&self.text);
        let all = text == Filter::All;
        let test = text.test(compile);
        move |e: &EventRow| {
            let exact = |want: &str, have: &str| want.is_empty() || want == have;
            exact(&self.type_, &e.type_)
                && exact(&self.reason, &e.reason)
                && exact(&self.namespace, &e.namespace)
                && exact(&self.kind, &e.involved.kind)
                && contains_any_case(&e.involved.name, &object)
                && (all
                    || test.as_ref().is_ok_and(|t| {
                        [&e.reason, &e.namespace, &e.object, &e.message, &e.source]
                            .iter()
                            .any(|f| t(f))
                    }))
        }
    }
}
