//! What the changes page shows: a namespace, a kind, a manager, the one filter grammar over the row's text, and whether status-only updates show.

use super::Entry;
use crate::rules::filter::{Filter, Test, contains_any_case};

/// A test of one row.
pub type RowTest = Box<dyn Fn(&Entry) -> bool>;

/// The changes page's filters; the default shows everything but status-only updates.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChangeFilter {
    /// One namespace, or empty for all (cluster-scoped objects show only then).
    pub namespace: String,
    /// One kind (`Deployment`), or empty for all.
    pub kind: String,
    /// Text found, in any case, in one of the row's managers; empty for all.
    pub manager: String,
    /// The free text (text or `/pattern/`), over the kind, namespace/name,
    /// what happened, the managers and the summary.
    pub text: String,
    /// Also show updates that changed only status (or nothing visible).
    pub status_only: bool,
}

impl ChangeFilter {
    /// A test of one row; the error of a pattern that does not compile.
    pub fn matcher(
        &self,
        compile: impl Fn(&str) -> Result<Test, String>,
    ) -> Result<RowTest, String> {
        let parsed = Filter::parse(&self.text);
        // No text: the row's text is not built (a frame tests every row).
        let any_text = parsed == Filter::All;
        let text = parsed.test(compile)?;
        let this = self.clone();
        let manager = self.manager.to_lowercase();
        Ok(Box::new(move |e: &Entry| {
            (this.status_only || !e.status_only)
                && (this.namespace.is_empty()
                    || e.subject.namespace.as_deref() == Some(this.namespace.as_str()))
                && (this.kind.is_empty() || e.subject.kind == this.kind)
                && (manager.is_empty() || e.by.iter().any(|m| contains_any_case(m, &manager)))
                && (any_text || text(&row_text(e)))
        }))
    }
}

/// The text the free filter reads: `Deployment shop/web updated kubectl (scale) spec.replicas 1 → 3`.
pub fn row_text(e: &Entry) -> String {
    let name = match &e.subject.namespace {
        Some(ns) => format!("{ns}/{}", e.subject.name),
        None => e.subject.name.clone(),
    };
    format!(
        "{} {name} {} {} {}",
        e.subject.kind,
        e.op.word(),
        e.by.join(" "),
        e.summary
    )
}
