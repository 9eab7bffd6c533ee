//! Pages: one per view, each a thin arrangement of components over models and the cluster's signals.
//!
//! Every page but the overview is declared once, in the table below: its
//! module, its part of the wasm (fetched the first time it is opened, see
//! `parts`), the route it is drawn for and its link in the top bar all come
//! from its entry (`table::pages!`). A page that takes values from its URL
//! also has its variant and parsing in `route.rs`.
//!
//! # The views, one by one
//!
//! One folder or file per view. The overview's namespaced panels,
//! the tables and the event stream follow the app's namespace. A resource
//! table (`resource/`) is drawn by its header (kind, informer state, row
//! count, the failure in words), toolbar (filter, wide columns, label and
//! field selectors) and ring: only the rows in view (plus overscan) are in
//! the DOM, row *i* in slot *i* mod *n*, absolutely placed at *i* × 30 px,
//! so scrolling by a few rows rewrites only the slots that came into view
//! (screen order is `aria-rowindex`, not DOM order); the unfiltered key
//! order is read in place, never copied per frame. A stale row (the
//! informer keeps its last good copy: the server's no longer decodes) is
//! marked (`data-stale`, the reason as its title), as is a stale object's
//! heading (`object-stale`); the X-ray page names each informer's stale
//! objects apart from those it left out. The pod and node tables
//! add CPU and memory columns (`usage`, `rules/usage` `UsageCells`): while
//! the toggle is on and once the table's own list is in, `UsageFeed` holds
//! the scope's usage poll and, from the first sample on, an informer of
//! what usage is measured against (pods' requests and limits under the
//! table's own selectors, nodes' allocatable); the columns are
//! number cells appended to each Table row as it arrives, so they sort like
//! the server's (kubectl's figures: millicores and bytes rounded up, the
//! shares uncut; a cell reads as `kubectl top` prints it, `320Mi` never
//! `Gi`, `18%` cut), and each poll rewrites every row's cells in one pass and
//! one sort (`TableModel::rewrite`), without flashing them. The columns
//! appear with the first sample; until then, or when the API is not
//! served or forbidden, one line says why. The object page
//! (`object/`) is its heading and YAML (`mod`), actions (`actions`: the ones
//! the kind has and RBAC allows), labels, annotations (long values fold),
//! owners and conditions (`meta`), what it owns (`owned`: a Table informer
//! of the child resource looked up by the owner-UID index, added to a shared
//! informer that lacks it), its events (`events`), the edit (`edit`:
//! text, Review, Apply, the conflict screen and its rebase), its drift from
//! the last `kubectl apply` (`drift`), a Deployment's, StatefulSet's or
//! DaemonSet's rollout history and roll back (`rollout`: its ReplicaSets or
//! ControllerRevisions through a shared informer's owner-UID index; the write is `ActionKind::RollBack`, read then written
//! back with the revision's template), its History (`versions`:
//! the versions seen since the tab opened, newest first, and the fields that
//! differ between any two) and a Secret's data and annotation values, both
//! behind Reveal (`secret`). The event stream (`events/`) is split the same way: `mod`
//! wires its informer to the stream's state (`state`: the live index, the
//! copy a pause holds, the filter, what arrived while paused) and draws the
//! heading and toolbar; `filters` are its menus; `rows` is the virtualized
//! table, which reads the index in place when unfiltered. While paused it
//! says how many matching events arrived. The changes page (`changes/`)
//! is built the same way: `state` (the filter, the pause as the place of the
//! next row, the picked row, the rows shown), `filters`, `rows` (virtualized,
//! newest first) and `detail` (the picked row's diff, drawn by the shared
//! `components/diff` `FieldDiff`, as History's is). Top (`top/`) is its
//! ranking, filter and the nodes' allocatable (the overview's nodes informer,
//! shared) in `mod`, and in `rows` one table per poll (nodes; pods in the
//! header's namespace, a new poll when it changes): the poll's state in a
//! line, then the rows `rules/usage` `rank` picks, each with its
//! `usage_line` over the tab's last hour (`span`: at least a minute, at most
//! an hour). The rows say what `kubectl top` says (`rules/usage/top`:
//! `TopRow`'s CPU, memory and a node's shares are `quantity`'s `top_*`
//! words; every node the nodes informer lists and the sample does not is a
//! row of `<unknown>`s after the others, as kubectl prints it); a good but
//! empty sample says kubectl's words instead of nothing
//! (`top_state_words`: `metrics not available yet`, or for pods the ones
//! older than two minutes, `Metrics not available for pod ns/name, age:
//! 5m3s`, from the scope's pods, an informer shared with right-sizing's).
//! `sizing` is right-sizing: the scope's pods (their controller
//! and requests, `PodSizing`) and ReplicaSets (to find a pod's Deployment)
//! through two informers, and `rules/usage` `right_size` groups the pods
//! by workload, sums their series and requests, and says whether the
//! workload uses more than it requests (average over it), asks for more
//! than it uses (peak under half) or fits, naming the pods far from their
//! own requests (under a quarter, over one and a half). A pod's or node's page draws its CPU
//! and memory over the same span (`object/usage`: `rules/usage`
//! `graph`, with a pod's summed requests and limits, `pod_resources`, or a
//! node's allocatable as dashed lines; a workload's, `WorkloadUsage`, is its
//! pods' series summed poll by poll, `sum_points`, against their
//! requests and limits summed, `pods_resources`); a pod's figures come from the
//! header namespace's poll when that holds the pod, so it shares Top's poll
//! and points. A pod's page adds its containers
//! (`object/containers`), each with a link to its log; a workload's page
//! links to its merged logs. The log view (`logs/`): `mod` is one pod's log
//! — the pod watched for its containers and states, a stream reopened when
//! the query changes (never for a filter, wrap or timestamp toggle: those
//! are drawn from what is loaded), and words for a container that has not
//! started, a pod that is gone and a forbidden `pods/log`; `workload` merges
//! a workload's pods found through the owner-UID index (a Deployment's
//! through its ReplicaSets), following `log_merge`'s plan, at most 8 streams
//! over WebSocket or 2 over fetch, and says which pods the cap leaves out;
//! `state` holds the ring, the lines held while paused and each stream's
//! state; `toolbar` the controls and counts; `lines` draws only the lines in
//! view (18 px each) as text with ANSI classes and marked matches, sticks to
//! the bottom while following, and unsticks only when the person scrolls up.
//! The shell (`exec/`): `mod` says whether one may open (the session, RBAC's
//! `create pods/exec`), takes the command and shows the state; `term` draws
//! the screen's rows as text, one signal per row rewritten once per frame of
//! output, and takes keys and pastes through a hidden text area. The
//! Forwards page (`forwards`) lists the launcher's port-forwards, with a
//! form to start one; a pod's, Service's or Deployment's page has Forward
//! on each port (`object/forward`), a node's page Drain (`object/drain`).
//! The map (`map/`): `feed` watches every kind the map joins, each object
//! cut to what it reads; `join` hands them to `kubeglass_kubectl::map`
//! after a change (paced by the last join's time) for the namespace's
//! graph or an object's neighbourhood; the layout keeps what stays; `draw`
//! makes each node a link over an SVG of edges, moved by the arrow keys.

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
        /// A shell in a container.
        Exec: exec::ExecPage in exec / preload_exec
            for Exec { namespace: String, pod: String, container: Option<String> };
        /// The relationship map: a namespace's, or an object's neighbourhood.
        Map: map::MapPage in map / preload_map
            for Map { focus: Option<crate::route::MapFocus>, depth: u8 };
    }
    named {
        /// The event stream.
        Events: events::EventsPage in events / preload_events
            at "events" nav("Events", "nav-events", Always);
        /// Changes: every add, update and delete seen.
        Changes: changes::ChangesPage in changes / preload_changes
            at "changes" nav("Changes", "nav-changes", Always);
        /// CPU and memory by pod and node, and right-sizing.
        Top: top::TopPage in top / preload_top
            at "top" nav("Top", "nav-top", Always);
        /// The port-forwards the launcher runs.
        Forwards: forwards::ForwardsPage in forwards / preload_forwards
            at "forwards" nav("Forwards", "nav-forwards", Launcher);
        /// Create from YAML.
        Create: create::CreatePage in create / preload_create
            at "create" nav("Create", "nav-create", MayCreate);
        /// What I may do, who can, and what a subject is granted.
        Permissions: permissions::PermissionsPage in permissions / preload_permissions
            at "permissions" nav("Permissions", "nav-permissions", Always);
        /// Helm releases, from their Secrets' labels; a revision revealed on request.
        Helm: helm::HelmPage in helm / preload_helm
            at "helm" nav("Helm", "nav-helm", Always);
        /// The API discovery tree.
        Api: api::ApiTree in api / preload_api
            at "api" nav("API", "nav-api", Always);
        /// The machinery.
        Xray: xray::Xray in xray / preload_xray
            at "xray" nav("X-ray", "nav-xray", Always);
    }
}
