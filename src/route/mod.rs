//! Routes: every view's URL, in the fragment (`/ui/#/r/pods?ns=default`), parsed with its names validated.
//!
//! Links can be shared and back and forward work. `kubectl proxy --www`
//! serves files only, so the path after `/ui/` cannot carry the route.
//!
//! # The routes
//!
//! Every view is a URL fragment (`#/`, `#/r/<resource>?ns=&l=&f=`,
//! `#/o/<resource>/<ns>/<name>`, `#/logs/<ns>/<pod>?…`,
//! `#/logs/<ns>/<resource>/<name>?…`, `#/exec/<ns>/<pod>[/<container>]`
//! (a shell), and `#/<name>` for a page that takes
//! nothing from the URL, `Route::Page`: `#/api`, `#/events`, `#/xray`), a
//! signal following `hashchange`, so back and forward work; names from the
//! cluster that fail the client's checks become `Route::Invalid` or text.

use kubeglass_client::names::{percent_decode, validate_name, validate_namespace};
use leptos::prelude::*;

use crate::rules::logs::LogOptions;

pub mod map;
pub use map::MapFocus;

/// The API's base path for a page at `pathname`: the parent of the app's
/// `ui/` folder. The capability URL `/<token>/ui/` gives `/<token>`; a plain
/// `kubectl proxy --www-prefix=/ui/` gives `""` (the origin's root).
pub fn api_base_from(pathname: &str) -> String {
    match pathname.rfind("/ui/") {
        Some(i) => pathname[..i].to_string(),
        None => String::new(),
    }
}

/// A view of the app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// The overview.
    Overview,
    /// The live table of one resource (`pods`, `deployments.apps`, a CRD's plural.group).
    Resource {
        /// The resource as typed or linked (resolved through discovery).
        resource: String,
        /// One namespace, or all.
        namespace: Option<String>,
        /// A label selector for the server.
        labels: Option<String>,
        /// A field selector for the server.
        fields: Option<String>,
        /// The person's own columns, kubectl's custom-columns spec
        /// (`c=`): a view's option, not a new page.
        columns: Option<String>,
    },
    /// One object.
    Object {
        /// Its resource.
        resource: String,
        /// Its namespace (None for cluster-scoped objects).
        namespace: Option<String>,
        /// Its name.
        name: String,
    },
    /// Logs: one pod's (`#/logs/<ns>/<pod>`), or the merged logs of a
    /// workload's pods (`#/logs/<ns>/<resource>/<name>`), with the options
    /// in the query.
    Logs {
        /// The namespace.
        namespace: String,
        /// A pod, or a workload.
        target: LogTarget,
        /// Container, tail, since, previous, timestamps, wrap, follow, filter.
        options: LogOptions,
    },
    /// A shell in a pod's container (`#/exec/<ns>/<pod>[/<container>]`).
    Exec {
        /// The pod's namespace.
        namespace: String,
        /// The pod.
        pod: String,
        /// The container (the pod's first one without).
        container: Option<String>,
    },
    /// The relationship map: the header namespace's, or an object's
    /// neighbourhood to a depth (`#/map/<resource>/[<ns>/]<name>?depth=`).
    Map {
        /// The object it is of, if any.
        focus: Option<MapFocus>,
        /// How many edges out from it.
        depth: u8,
    },
    /// A page that takes nothing from the URL (`#/events`, `#/xray`…): its
    /// name. Which names are pages is `pages::PAGES`' to say (a route is
    /// below the pages it names), so an unknown one is parsed and then
    /// shown as "no such page".
    Page(String),
    /// A link whose namespace or name cannot be part of a request path.
    Invalid {
        /// What is wrong, for a person.
        reason: String,
    },
}

/// Whose logs a log view shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogTarget {
    /// One pod.
    Pod(String),
    /// Every pod of a workload (`deployments.apps`, `jobs.batch`, …).
    Workload {
        /// The workload's resource.
        resource: String,
        /// Its name.
        name: String,
    },
}

impl LogTarget {
    fn name(&self) -> &str {
        match self {
            LogTarget::Pod(n) | LogTarget::Workload { name: n, .. } => n,
        }
    }
}

/// A shell's route from `exec` and what follows: namespace, pod, maybe a
/// container; anything else is not a shell link.
fn exec_route(parts: &[String]) -> Route {
    let (namespace, pod, container) = match parts {
        [_, ns, pod] => (ns, pod, None),
        [_, ns, pod, c] => (ns, pod, Some(c.clone())),
        _ => {
            let reason = format!(
                "“{}” is not a shell link (#/exec/<namespace>/<pod>[/<container>])",
                parts.join("/")
            );
            return Route::Invalid { reason };
        }
    };
    Route::Exec {
        namespace: namespace.clone(),
        pod: pod.clone(),
        container,
    }
}

/// Percent-encodes everything but unreserved characters.
fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

impl Route {
    /// Reads a fragment such as `#/r/pods?ns=default`.
    pub fn parse(hash: &str) -> Self {
        let hash = hash.trim_start_matches('#').trim_start_matches('/');
        let (path, query) = hash.split_once('?').unwrap_or((hash, ""));
        let param = |key: &str| {
            query
                .split('&')
                .filter_map(|p| p.split_once('='))
                .find(|(k, _)| *k == key)
                .map(|(_, v)| percent_decode(v))
                .filter(|v| !v.is_empty())
        };
        let parts: Vec<String> = path
            .split('/')
            .filter(|p| !p.is_empty())
            .map(percent_decode)
            .collect();
        let route = match parts.as_slice() {
            [r, resource] if r == "r" => Route::Resource {
                resource: resource.clone(),
                namespace: param("ns"),
                labels: param("l"),
                fields: param("f"),
                columns: param("c"),
            },
            [o, resource, name] if o == "o" => Route::Object {
                resource: resource.clone(),
                namespace: None,
                name: name.clone(),
            },
            [o, resource, ns, name] if o == "o" => Route::Object {
                resource: resource.clone(),
                namespace: Some(ns.clone()),
                name: name.clone(),
            },
            // More segments than a route has: a `/` inside a namespace or
            // name that was not escaped.
            [o, ..] if o == "o" || o == "r" => {
                return Route::Invalid {
                    reason: format!(
                        "“{}” has more parts than an object or resource link; a namespace or name cannot contain '/'",
                        parts.join("/")
                    ),
                };
            }
            [l, ns, pod] if l == "logs" => Route::Logs {
                namespace: ns.clone(),
                target: LogTarget::Pod(pod.clone()),
                options: LogOptions::from_query(param),
            },
            [l, ns, resource, name] if l == "logs" => Route::Logs {
                namespace: ns.clone(),
                target: LogTarget::Workload {
                    resource: resource.clone(),
                    name: name.clone(),
                },
                options: LogOptions::from_query(param),
            },
            [l, ..] if l == "logs" => {
                return Route::Invalid {
                    reason: format!(
                        "“{}” is not a log link (#/logs/<namespace>/<pod> or #/logs/<namespace>/<resource>/<name>)",
                        parts.join("/")
                    ),
                };
            }
            [e, ..] if e == "exec" => exec_route(&parts),
            [m, rest @ ..] if m == "map" => match map::parse(rest, param("depth")) {
                Ok((focus, depth)) => Route::Map { focus, depth },
                Err(reason) => return Route::Invalid { reason },
            },
            [page] => Route::Page(page.clone()),
            _ => Route::Overview,
        };
        match route.check() {
            Ok(()) => route,
            Err(reason) => Route::Invalid { reason },
        }
    }

    /// Checks the namespace and name a route would put into request paths.
    fn check(&self) -> Result<(), String> {
        let (namespace, name) = match self {
            Route::Resource { namespace, .. } => (namespace.as_deref(), None),
            Route::Object {
                namespace, name, ..
            } => (namespace.as_deref(), Some(name.as_str())),
            Route::Logs {
                namespace, target, ..
            } => (Some(namespace.as_str()), Some(target.name())),
            Route::Exec {
                namespace,
                pod,
                container,
            } => {
                if let Some(c) = container {
                    validate_name(c).map_err(|e| format!("container: {e}"))?;
                }
                (Some(namespace.as_str()), Some(pod.as_str()))
            }
            Route::Map { focus: Some(f), .. } => (f.namespace.as_deref(), Some(f.name.as_str())),
            _ => return Ok(()),
        };
        if let Some(ns) = namespace {
            validate_namespace(ns).map_err(|e| e.to_string())?;
        }
        if let Some(n) = name {
            validate_name(n).map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// The link to this route, or None when its namespace or name (say,
    /// from an Event's involvedObject) cannot be part of a request path:
    /// such a string is shown as text, never as a link.
    pub fn link(&self) -> Option<String> {
        self.check().ok().map(|()| self.href())
    }

    /// The fragment for this route, starting with `#/`.
    pub fn href(&self) -> String {
        match self {
            Route::Overview => "#/".into(),
            Route::Resource {
                resource,
                namespace,
                labels,
                fields,
                columns,
            } => {
                let mut q = Vec::new();
                if let Some(ns) = namespace {
                    q.push(format!("ns={}", encode(ns)));
                }
                if let Some(l) = labels {
                    q.push(format!("l={}", encode(l)));
                }
                if let Some(f) = fields {
                    q.push(format!("f={}", encode(f)));
                }
                if let Some(c) = columns {
                    q.push(format!("c={}", encode(c)));
                }
                let q = if q.is_empty() {
                    String::new()
                } else {
                    format!("?{}", q.join("&"))
                };
                format!("#/r/{}{q}", encode(resource))
            }
            Route::Object {
                resource,
                namespace,
                name,
            } => match namespace {
                Some(ns) => format!("#/o/{}/{}/{}", encode(resource), encode(ns), encode(name)),
                None => format!("#/o/{}/{}", encode(resource), encode(name)),
            },
            Route::Logs {
                namespace,
                target,
                options,
            } => {
                let path = match target {
                    LogTarget::Pod(pod) => format!("#/logs/{}/{}", encode(namespace), encode(pod)),
                    LogTarget::Workload { resource, name } => format!(
                        "#/logs/{}/{}/{}",
                        encode(namespace),
                        encode(resource),
                        encode(name)
                    ),
                };
                let q: Vec<String> = options
                    .to_query()
                    .into_iter()
                    .map(|(k, v)| format!("{k}={}", encode(&v)))
                    .collect();
                if q.is_empty() {
                    path
                } else {
                    format!("{path}?{}", q.join("&"))
                }
            }
            Route::Exec {
                namespace,
                pod,
                container,
            } => match container {
                Some(c) => format!("#/exec/{}/{}/{}", encode(namespace), encode(pod), encode(c)),
                None => format!("#/exec/{}/{}", encode(namespace), encode(pod)),
            },
            Route::Map { focus, depth } => map::href(focus.as_ref(), *depth, encode),
            Route::Page(name) => format!("#/{}", encode(name)),
            Route::Invalid { .. } => "#/".into(),
        }
    }

    /// The page called `name` (`"events"`, `"xray"`…).
    pub fn page(name: &str) -> Self {
        Route::Page(name.to_string())
    }

    /// A table's own columns (`c=`), if it is a table with some.
    pub fn own_columns(&self) -> Option<String> {
        match self {
            Route::Resource { columns, .. } => columns.clone(),
            _ => None,
        }
    }

    /// A resource table route with no filters.
    pub fn resource(resource: &str, namespace: Option<&str>) -> Self {
        Route::Resource {
            resource: resource.to_string(),
            namespace: namespace.map(str::to_string),
            labels: None,
            fields: None,
            columns: None,
        }
    }
}

/// The current route, following the fragment (back and forward included).
pub fn use_route() -> ReadSignal<Route> {
    if let Some(r) = use_context::<ReadSignal<Route>>() {
        return r;
    }
    let current = || Route::parse(&window().location().hash().unwrap_or_default());
    let (route, set_route) = signal(current());
    let handle = window_event_listener(leptos::ev::hashchange, move |_| set_route.set(current()));
    // The listener lives as long as the app.
    std::mem::forget(handle);
    provide_context(route);
    route
}

/// Goes to `route` (a new history entry).
pub fn navigate(route: &Route) {
    let _ = window().location().set_hash(&route.href());
}

/// Shows `route` in place of the current one (no new history entry: a
/// view's options changing, not a new view).
pub fn replace(route: &Route) {
    let _ = window().location().replace(&route.href());
}

impl Route {
    /// The route with what a page changes in place left out: the page to
    /// draw. A log view's options and a table's own columns change the
    /// view, not the page.
    pub fn drawn(&self) -> Route {
        match self {
            Route::Resource {
                resource,
                namespace,
                labels,
                fields,
                ..
            } => Route::Resource {
                resource: resource.clone(),
                namespace: namespace.clone(),
                labels: labels.clone(),
                fields: fields.clone(),
                columns: None,
            },
            Route::Logs {
                namespace, target, ..
            } => Route::Logs {
                namespace: namespace.clone(),
                target: target.clone(),
                options: LogOptions::default(),
            },
            r => r.clone(),
        }
    }
}

#[cfg(test)]
mod tests;
