//! Pages: one per view, each a thin arrangement of components over models and the cluster's signals.
//!
//! Every page but the overview is declared once, in the table below: its
//! module, its part of the wasm (fetched the first time it is opened, see
//! `parts`), the route it is drawn for and its link in the top bar all come
//! from its entry (`table::pages!`). A page that takes values from its URL
//! also has its variant and parsing in `route.rs`.

pub mod overview;
pub mod parts;
mod table;

pub use table::{Guard, NavEntry};

table::pages! {
    routed {
        /// Resource tables (`#/r/…`).
        Resource: resource::ResourcePage in resource / preload_resource
            for Resource { resource: String, namespace: Option<String>, labels: Option<String>, fields: Option<String> };
        /// Object pages, with the editor, history, drift and rollouts.
        Object: object::ObjectPage in object / preload_object
            for Object { resource: String, namespace: Option<String>, name: String };
        /// Logs.
        Logs: logs::LogsPage in logs / preload_logs
            for Logs { namespace: String, target: crate::route::LogTarget };
    }
    named {
        /// The event stream.
        Events: events::EventsPage in events / preload_events
            at "events" nav("Events", "nav-events", Always);
        /// The change timeline.
        Changes: changes::ChangesPage in changes / preload_changes
            at "changes" nav("Changes", "nav-changes", Always);
        /// CPU and memory by pod and node, and right-sizing.
        Top: top::TopPage in top / preload_top
            at "top" nav("Top", "nav-top", Always);
        /// Create from YAML.
        Create: create::CreatePage in create / preload_create
            at "create" nav("Create", "nav-create", MayCreate);
        /// The API discovery tree.
        Api: api::ApiTree in api / preload_api
            at "api" nav("API", "nav-api", Always);
        /// The machinery.
        Xray: xray::Xray in xray / preload_xray
            at "xray" nav("X-ray", "nav-xray", Always);
    }
}
