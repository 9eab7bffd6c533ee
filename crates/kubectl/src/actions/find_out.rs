//! After an ambiguous failure of a write that must not be repeated blindly
//! (create, delete, edit), the object is read back to learn what happened:
//! applied (the answer was lost), not applied (another attempt is safe), or
//! something else (said in words, nothing more sent).
//!
//! client-go's `with_retry.go` repeats any verb on a 5xx with `Retry-After`
//! and kubectl leaves an ambiguous write to the person; Kubeglass's REST
//! layer repeats no write on a 5xx, and this is where the action queue
//! decides, from what the server now holds, instead of guessing.

use kube_core::DynamicObject;
use serde_json::Value;

use super::patch::holds;
use super::verbs::target;
use super::{Action, ActionKind, FIELD_MANAGER, Step, Written};
use kubeglass_client::rest::{ApiError, Error, RestClient};

/// What the object read back shows of `action`, whose attempt failed with
/// the ambiguous `error`.
pub(super) async fn what_happened(client: &RestClient, action: &Action, error: Error) -> Step {
    let api = match target(client, action) {
        Ok(api) => api,
        Err(e) => return Step::Fail(e),
    };
    let lost = |what: &str| {
        Step::Done(Written {
            uid: None,
            what: format!("{what} by kubeglass (the server's answer was lost: {error})"),
            answer_lost: true,
            unchanged: false,
        })
    };
    let unknown = |read: Error| {
        Step::Fail(Error::Request(format!(
            "the server's answer was lost ({error}), and reading the object back failed too \
             ({read}): it may or may not have been done, so nothing more was sent; look before \
             trying again"
        )))
    };
    match &action.kind {
        ActionKind::Create(_) => match api.get_metadata(&action.name).await {
            Ok(m) if made_by_us(&m.metadata) => lost("Created"),
            Ok(_) => Step::Fail(Error::Request(format!(
                "the server's answer was lost ({error}), and an object of that name now exists \
                 that kubeglass did not write: nothing more was sent"
            ))),
            Err(e) if e.api().is_some_and(ApiError::is_not_found) => Step::Again(error),
            Err(e) => unknown(e),
        },
        ActionKind::Delete => match api.get_metadata(&action.name).await {
            Err(e) if e.api().is_some_and(ApiError::is_not_found) => lost("Deleted"),
            Ok(m) if m.metadata.deletion_timestamp.is_some() => {
                lost("Deleted (its finalizers still run)")
            }
            Ok(_) => Step::Again(error),
            Err(e) => unknown(e),
        },
        ActionKind::Edit(patch) => match api.get(&action.name).await {
            Ok(now) => edit_read_back(&now, patch, error),
            Err(e) => unknown(e),
        },
        // Repeatable kinds are sent again without a read.
        _ => Step::Again(error),
    }
}

/// True when `kubeglass` wrote fields of the object (`managedFields`), as
/// every create it sends names it the field manager.
fn made_by_us(meta: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta) -> bool {
    meta.managed_fields
        .iter()
        .flatten()
        .any(|m| m.manager.as_deref() == Some(FIELD_MANAGER))
}

/// An edit's object read back: still at the version the edit began from
/// (not applied), holding every field the patch sets (applied, the answer
/// lost), or changed some other way (a conflict: the person decides).
fn edit_read_back(now: &DynamicObject, patch: &Value, error: Error) -> Step {
    let began = patch.pointer("/metadata/resourceVersion");
    if now.metadata.resource_version.as_deref() == began.and_then(Value::as_str) {
        return Step::Again(error);
    }
    let mut fields = patch.clone();
    if let Some(m) = fields.get_mut("metadata").and_then(Value::as_object_mut) {
        m.remove("resourceVersion");
    }
    let now_json = serde_json::to_value(now).unwrap_or_default();
    if holds(Some(&now_json), &fields) {
        return Step::Done(Written {
            uid: now.metadata.uid.clone(),
            what: format!("Edited by kubeglass (the server's answer was lost: {error})"),
            answer_lost: true,
            unchanged: false,
        });
    }
    let status = serde_json::json!({
        "kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 409,
        "reason": "Conflict",
        "message": format!(
            "the server's answer was lost ({error}), and the object has changed since the edit \
             began, not as the edit would have changed it: nothing more was sent"
        ),
    });
    Step::Fail(Error::Api(Box::new(ApiError::from_response(
        409,
        status.to_string().as_bytes(),
        None,
    ))))
}
