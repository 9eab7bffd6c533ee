//! The create page's state: the text, its review (each document's target and the server's dry-run answer), whether to go on past bad documents, and what Create did.

use kubeglass_kubectl::actions::ActionKind;
use kubeglass_client::discovery::ResourceInfo;
use kubeglass_client::kube_core::ApiResource;
use serde_json::Value;
use leptos::prelude::*;

use crate::actions::{Actions, written};
use crate::kube::requests::edit::Refused;
use crate::kube::Kube;
use crate::kube::requests::create::{dry_run_create, target};
use crate::rules::create::{Doc, documents, review_create};
use crate::rules::edit::{EditError, Reviewed};
use crate::platform::spawn;

/// What the review found for one document.
#[derive(Clone, PartialEq)]
pub enum Found {
    /// Asking the server.
    Asking,
    /// The server would create it, storing these fields.
    WouldCreate(Vec<Reviewed>),
    /// It cannot be created: why, and the fields the server named with their line.
    Refused(String, Vec<(String, String, Option<usize>)>),
    /// It does not read as an object that can be sent.
    Unreadable(String),
}

/// One document under review.
#[derive(Clone, PartialEq)]
pub struct DocReview {
    /// `ConfigMap demo-shop/flags`, or the document's number when unread.
    pub label: String,
    pub found: Found,
    /// Where it goes and what is sent, when it read.
    pub send: Option<Send>,
}

/// A document that read, and where it goes.
#[derive(Clone, PartialEq)]
pub struct Send {
    pub info: ResourceInfo,
    pub namespace: Option<String>,
    pub doc: Doc,
}

/// A review: the text it was of, and each document's, or why the text does not read.
pub type Review = (String, Result<Vec<DocReview>, EditError>);

/// The page's signals (cheap to copy).
#[derive(Clone, Copy)]
pub struct CreateState {
    pub text: RwSignal<String>,
    /// The review, and the text it was of (a change to the text asks for a new one).
    pub review: RwSignal<Option<Review>>,
    /// Create the documents that passed even when others did not.
    pub go_on: RwSignal<bool>,
    /// The labels of what Create sent last (empty once the text is
    /// reviewed again).
    pub sent: RwSignal<Vec<String>>,
    /// Create: the documents that passed, written through the action
    /// queue; each one's own answer is held here (`value`), in order.
    pub creating: Action<Vec<Job>, Vec<Created>>,
}

/// One document's answer: its label, and created or why not.
pub type Created = (String, Result<(), Refused>);

/// One document Create sends: its label, where it goes, its name and the object.
pub type Job = (String, ApiResource, Option<String>, String, Value);

impl CreateState {
    pub fn new(actions: Actions) -> Self {
        let creating = Action::new_unsync_local(move |jobs: &Vec<Job>| {
            let answers: Vec<_> = jobs
                .iter()
                .map(|(label, resource, ns, name, object)| {
                    let answer = actions.submit(
                        resource.clone(),
                        ns.as_deref(),
                        name,
                        ActionKind::Create(object.clone()),
                    );
                    let label = label.clone();
                    async move { (label, written(answer.await)) }
                })
                .collect();
            futures::future::join_all(answers)
        });
        Self {
            text: RwSignal::new(String::new()),
            review: RwSignal::new(None),
            go_on: RwSignal::new(false),
            sent: RwSignal::new(Vec::new()),
            creating,
        }
    }

    /// Reads the text and asks the server for a dry run of each document.
    pub fn start_review(self, kube: &Kube, default_ns: &str) {
        let text = self.text.get_untracked();
        self.sent.set(Vec::new());
        let docs = match documents(&text) {
            Ok(d) => d,
            Err(e) => return self.review.set(Some((text, Err(e)))),
        };
        let reviews: Vec<DocReview> = docs
            .into_iter()
            .map(|d| first_look(kube, d, default_ns))
            .collect();
        self.review.set(Some((text.clone(), Ok(reviews.clone()))));
        for (i, r) in reviews.into_iter().enumerate() {
            let Some(Send {
                info,
                namespace,
                doc,
            }) = r.send
            else {
                continue;
            };
            let (kube, text, this) = (kube.clone(), text.clone(), self);
            spawn(async move {
                let found = match dry_run_create(&kube, &info, namespace.as_deref(), &doc.object)
                    .await
                {
                    Ok(result) => {
                        Found::WouldCreate(review_create(&doc.object, &result, is_secret(&info)))
                    }
                    Err(refused) => {
                        let causes = refused
                            .causes
                            .into_iter()
                            .map(|(field, message)| {
                                let line = doc.line_of(&field);
                                (field, message, line)
                            })
                            .collect();
                        Found::Refused(refused.problem.explain("create it"), causes)
                    }
                };
                this.review.update(|r| {
                    if let Some((t, Ok(docs))) = r
                        && *t == text
                        && let Some(d) = docs.get_mut(i)
                    {
                        d.found = found;
                    }
                });
            });
        }
    }

    /// Sends Create for every document the review passed (all must have,
    /// unless going on past errors); the action queue records each, and
    /// `creating` holds their answers.
    pub fn create(self) {
        let mut jobs: Vec<Job> = Vec::new();
        self.review.with_untracked(|r| {
            let Some((_, Ok(docs))) = r else { return };
            for d in docs {
                if let (
                    Found::WouldCreate(_),
                    Some(Send {
                        info,
                        namespace,
                        doc,
                    }),
                ) = (&d.found, &d.send)
                {
                    jobs.push((
                        d.label.clone(),
                        info.api_resource(),
                        namespace.clone(),
                        doc.name.clone(),
                        doc.object.clone(),
                    ));
                }
            }
        });
        self.sent.set(jobs.iter().map(|j| j.0.clone()).collect());
        self.creating.dispatch_local(jobs);
    }

    /// The lines (1-based) the review of the text as it is now names: where
    /// it does not read, or the fields the server refused.
    pub fn bad_lines(self) -> Vec<usize> {
        let text = self.text.get();
        self.review.with(|r| match r {
            Some((t, Err(e))) if *t == text => e.line.into_iter().collect(),
            Some((t, Ok(docs))) if *t == text => docs
                .iter()
                .flat_map(|d| match &d.found {
                    Found::Refused(_, causes) => causes.iter().filter_map(|c| c.2).collect(),
                    _ => Vec::new(),
                })
                .collect(),
            _ => Vec::new(),
        })
    }

    /// Whether Create may be pressed: a review of this very text, every
    /// answer in, at least one document passed, and none failed unless
    /// going on past them; not while a create is on its way.
    pub fn ready(self) -> bool {
        let text = self.text.get();
        let go_on = self.go_on.get();
        self.sent.with(Vec::is_empty)
            && self.review.with(|r| match r {
                Some((t, Ok(docs))) if *t == text && !docs.is_empty() => {
                    let passed = docs
                        .iter()
                        .filter(|d| matches!(d.found, Found::WouldCreate(_)))
                        .count();
                    let asking = docs.iter().any(|d| d.found == Found::Asking);
                    !asking && passed > 0 && (go_on || passed == docs.len())
                }
                _ => false,
            })
    }
}

/// A document's label and target before the server is asked.
fn first_look(kube: &Kube, doc: Result<Doc, EditError>, default_ns: &str) -> DocReview {
    let doc = match doc {
        Ok(d) => d,
        Err(e) => {
            return DocReview {
                label: "A document".into(),
                found: Found::Unreadable(e.to_string()),
                send: None,
            };
        }
    };
    match target(kube, &doc, default_ns) {
        Ok((info, namespace)) => DocReview {
            label: doc.label(namespace.as_deref()),
            found: Found::Asking,
            send: Some(Send {
                info,
                namespace,
                doc,
            }),
        },
        Err(why) => DocReview {
            label: doc.label(doc.namespace.as_deref()),
            found: Found::Refused(why, Vec::new()),
            send: None,
        },
    }
}

/// Whether the resource is core Secrets (its values stay out of the review).
fn is_secret(info: &ResourceInfo) -> bool {
    info.group.is_empty() && info.plural == "secrets"
}
