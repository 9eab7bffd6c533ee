//! One-off requests a view makes of the cluster (through `Kube::load`, or awaited by an action): reads, access reviews, an edit's and a create's round trips that write nothing, port-forwards through the launcher.
//!
//! `reads` (a table's first page while its informer lists, a Secret's
//! values on Reveal), `access` (SelfSubjectAccessReviews per action; a
//! failure to ask kept apart from "no"), `edit` (an edit's dry run and the
//! object now, for a conflict), `create` (where each document goes, and its
//! dry run), `forwards` (the launcher's port-forwards, and RBAC's `create
//! pods/portforward`). Actions on many objects, which write through the
//! action queue, are `actions::bulk`, a floor above.
//! Nothing here is held by a view: each request ends with its answer.

pub mod access;
pub mod create;
pub mod edit;
pub mod forwards;
pub mod reads;
