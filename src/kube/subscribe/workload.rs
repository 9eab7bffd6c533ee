//! A workload's pods, watched together: the workload (for its UID), its ReplicaSets when it is a Deployment (its pods are theirs), and the namespace's pods by owner UID. What a workload's merged logs and its usage both read.

use std::rc::Rc;

use kubeglass_client::discovery::ResourceInfo;
use kubeglass_client::k8s_openapi::api::apps::v1::ReplicaSet;
use kubeglass_client::k8s_openapi::api::core::v1::Pod;
use kubeglass_client::kube_core::DynamicObject;
use leptos::prelude::*;

use crate::kube::subscribe::{InformerSnapshot, collection_path};
use crate::kube::{Kube, Watch};
use crate::rules::objects::field_value;
use crate::rules::problem::Problem;

/// The watches behind one workload's pods; `changed` fires with every frame
/// of any of them.
pub struct WorkloadPods {
    owner: Watch<DynamicObject>,
    sets: Option<Watch<DynamicObject>>,
    pods: Watch<DynamicObject>,
    /// `namespace/name` of the workload.
    key: String,
    changed: Trigger,
}

impl Kube {
    /// Watches the pods of workload `name` of kind `info` in `namespace`
    /// (X-ray names the watches `workload`, `workload-replicasets` and
    /// `workload-pods`); an error when a path cannot be built.
    pub fn workload_pods(
        &self,
        info: &ResourceInfo,
        namespace: &str,
        name: &str,
    ) -> Result<WorkloadPods, Problem> {
        let own = info
            .collection_path(Some(namespace))
            .map_err(Problem::from)?;
        let pods_path = collection_path::<Pod>(self, Some(namespace))?;
        let sets_path = collection_path::<ReplicaSet>(self, Some(namespace))?;
        let changed = Trigger::new();
        let bump = move |_: &_, _| changed.notify();
        let owner = self
            .subscribe("workload", &own)
            .fields(format!("metadata.name={}", field_value(name)))
            .frames(bump);
        let via_replicasets = info.group == "apps" && info.plural == "deployments";
        let sets = via_replicasets.then(|| {
            self.subscribe("workload-replicasets", &sets_path)
                .owner_index()
                .frames(bump)
        });
        let pods = self
            .subscribe("workload-pods", &pods_path)
            .owner_index()
            .frames(bump);
        Ok(WorkloadPods {
            owner,
            sets,
            pods,
            key: format!("{namespace}/{name}"),
            changed,
        })
    }
}

impl WorkloadPods {
    /// The workload's pods that are not being deleted, by name; None
    /// before the workload itself is seen. Reading tracks every frame.
    pub fn pods(&self) -> Option<Vec<Rc<DynamicObject>>> {
        self.changed.track();
        let uid = self
            .owner
            .indexer()
            .borrow()
            .get(&self.key)
            .and_then(|o| o.metadata.uid.clone())?;
        let owners: Vec<String> = match &self.sets {
            Some(sets) => sets
                .owned_by(&uid)
                .iter()
                .filter_map(|rs| rs.metadata.uid.clone())
                .collect(),
            None => vec![uid],
        };
        let mut found: Vec<Rc<DynamicObject>> = owners
            .iter()
            .flat_map(|u| self.pods.owned_by(u))
            .filter(|p| p.metadata.deletion_timestamp.is_none())
            .collect();
        found.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
        Some(found)
    }

    /// The workload's watch status, and the pods'.
    pub fn statuses(&self) -> (RwSignal<InformerSnapshot>, RwSignal<InformerSnapshot>) {
        (self.owner.status(), self.pods.status())
    }
}
