//! The map's graph: one node per object (or per group of pods that
//! repeat), one edge per relation the cluster states, joined from the
//! items' owner references, names and selectors.
//!
//! Pods that share a controller (a ReplicaSet's, a Job's…) and number
//! more than [`GROUP_OVER`] are one node with their count and colours;
//! so are pods without a controller that share their labels. An object
//! only named by another (a Secret a pod mounts, an owner not watched) is
//! a node too, marked as not seen. An EndpointSlice is no node: it adds
//! an edge from its Service to each pod on the map its endpoints name.

use std::collections::{BTreeSet, HashMap};

use super::{EventMark, Health, Item, Kind};

/// More pods than this sharing a controller (or, without one, their
/// labels) are drawn as one node.
pub const GROUP_OVER: usize = 5;

/// Where a node leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Link {
    /// An object's page.
    Object {
        /// Its kind.
        kind: Kind,
        /// Its namespace.
        namespace: Option<String>,
        /// Its name.
        name: String,
    },
    /// The pods table under a label selector (a group without a controller).
    Pods {
        /// The namespace.
        namespace: Option<String>,
        /// The selector, `k=v,k=v`.
        labels: String,
    },
    /// Nowhere: a kind the map cannot link to.
    None,
}

/// A node of the map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapNode {
    /// Its id: `Kind/namespace/name`, `group/…` for a group.
    pub id: String,
    /// Its kind (`Pod` for a group).
    pub kind: Kind,
    /// The kind's name as written (an unknown owner's own).
    pub kind_name: String,
    /// Its name; a group's, its controller's or its labels.
    pub name: String,
    /// Its namespace.
    pub namespace: Option<String>,
    /// The map read the object (not only a name another object gives).
    pub seen: bool,
    /// Pods in a group, else 1.
    pub count: u32,
    /// How many of its objects are each colour, by `Health as usize`.
    pub health: [u32; 5],
    /// Warning events about it.
    pub warnings: u32,
    /// A group of pods.
    pub group: bool,
    /// Where it leads.
    pub link: Link,
}

impl MapNode {
    fn new(
        id: String,
        kind: Kind,
        kind_name: &str,
        namespace: Option<String>,
        name: String,
    ) -> MapNode {
        let link = if kind.resource().is_some() {
            Link::Object {
                kind,
                namespace: namespace.clone(),
                name: name.clone(),
            }
        } else {
            Link::None
        };
        MapNode {
            id,
            kind,
            kind_name: kind_name.to_string(),
            name,
            namespace,
            seen: false,
            count: 1,
            health: [0; 5],
            warnings: 0,
            group: false,
            link,
        }
    }

    /// The colour most of it is, the worst first on a tie.
    pub fn main_health(&self) -> Health {
        const ORDER: [Health; 5] = [
            Health::Bad,
            Health::Waiting,
            Health::Good,
            Health::Done,
            Health::Plain,
        ];
        let best = ORDER
            .iter()
            .max_by_key(|h| (self.health[**h as usize], std::cmp::Reverse(**h as usize)));
        best.copied()
            .filter(|h| self.health[*h as usize] > 0)
            .unwrap_or(Health::Plain)
    }
}

/// The map: nodes by index and edges between them, upstream first
/// (owner → owned, Service → pod, pod → node).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Graph {
    /// The nodes.
    pub nodes: Vec<MapNode>,
    /// A node's index by id.
    pub index: HashMap<String, usize>,
    /// The edges.
    pub edges: BTreeSet<(usize, usize)>,
}

/// A node's id.
pub fn id_of(kind: Kind, kind_name: &str, namespace: Option<&str>, name: &str) -> String {
    let kind = if kind == Kind::Other {
        kind_name
    } else {
        kind.api_kind()
    };
    match namespace {
        Some(ns) if !ns.is_empty() => format!("{kind}/{ns}/{name}"),
        _ => format!("{kind}/{name}"),
    }
}

impl Graph {
    /// The node `id`, made (not seen) if new.
    fn node(&mut self, id: String, make: impl FnOnce(String) -> MapNode) -> usize {
        if let Some(i) = self.index.get(&id) {
            return *i;
        }
        let i = self.nodes.len();
        self.index.insert(id.clone(), i);
        self.nodes.push(make(id));
        i
    }

    /// The named object's node, made if new.
    fn named(&mut self, kind: Kind, kind_name: &str, namespace: Option<&str>, name: &str) -> usize {
        let namespace = if kind.cluster_scoped() {
            None
        } else {
            namespace
        };
        let id = id_of(kind, kind_name, namespace, name);
        self.node(id, |id| {
            MapNode::new(
                id,
                kind,
                kind_name,
                namespace.map(str::to_string),
                name.to_string(),
            )
        })
    }

    /// The node with `id`.
    pub fn get(&self, id: &str) -> Option<&MapNode> {
        self.index.get(id).map(|i| &self.nodes[*i])
    }

    /// Every node's neighbours, either way along an edge.
    pub fn adjacent(&self) -> Vec<Vec<usize>> {
        let mut adjacent = vec![Vec::new(); self.nodes.len()];
        for (a, b) in &self.edges {
            adjacent[*a].push(*b);
            adjacent[*b].push(*a);
        }
        adjacent
    }
}

/// The key that puts a pod in a group: its controller, else its labels.
fn group_key(pod: &Item) -> String {
    let ns = pod.namespace.as_deref();
    match pod.owners.iter().find(|o| o.controller) {
        Some(o) => id_of(o.kind, &o.kind_name, ns, &o.name),
        None => {
            let labels: Vec<String> = pod.labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
            format!("labels/{}/{}", ns.unwrap_or(""), labels.join(","))
        }
    }
}

/// A group's node for the pods under a key, the first of them `pod`.
fn group_node(pod: &Item) -> impl FnOnce(String) -> MapNode {
    let ns = pod.namespace.clone();
    let owner = pod.owners.iter().find(|o| o.controller).cloned();
    // A label's key may hold a '/' (`topology.kubernetes.io/zone`): the
    // selector is made from the pod's labels, not cut from the key.
    let labels: Vec<String> = pod.labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let labels = labels.join(",");
    move |id| {
        let (name, link) = match owner {
            Some(o) => {
                let link = match o.kind.resource() {
                    Some(_) => Link::Object {
                        kind: o.kind,
                        namespace: ns.clone(),
                        name: o.name.clone(),
                    },
                    None => Link::None,
                };
                (o.name, link)
            }
            None => (
                labels.clone(),
                Link::Pods {
                    namespace: ns.clone(),
                    labels,
                },
            ),
        };
        let mut n = MapNode::new(id, Kind::Pod, "Pod", ns, name);
        n.group = true;
        n.count = 0;
        n.seen = true;
        n.link = link;
        n
    }
}

/// Joins `items` into the map, pods that repeat grouped (but never the
/// node `apart`, the one a map is of), with `events`' warnings counted on
/// their objects.
pub fn build<'a>(
    items: impl IntoIterator<Item = &'a Item>,
    events: impl IntoIterator<Item = &'a EventMark>,
    apart: Option<&str>,
) -> Graph {
    // An EndpointSlice is no node: it joins its Service to pods, below.
    let (slices, items): (Vec<&Item>, Vec<&Item>) = items
        .into_iter()
        .filter(|i| i.kind.is_some())
        .partition(|i| i.kind == Some(Kind::EndpointSlice));
    let mut sizes: HashMap<String, usize> = HashMap::new();
    let pods: Vec<(usize, String)> = items
        .iter()
        .enumerate()
        .filter(|(_, i)| i.kind == Some(Kind::Pod))
        .map(|(n, i)| (n, group_key(i)))
        .collect();
    for (_, key) in &pods {
        *sizes.entry(key.clone()).or_default() += 1;
    }
    let mut keys: HashMap<usize, String> = pods.into_iter().collect();
    let mut g = Graph::default();
    let mut of_item = Vec::with_capacity(items.len());
    let mut by_uid: HashMap<&str, usize> = HashMap::new();
    for (n, item) in items.iter().enumerate() {
        let kind = item.kind.unwrap_or(Kind::Other);
        let own = id_of(kind, kind.api_kind(), item.namespace.as_deref(), &item.name);
        let key = keys
            .remove(&n)
            .filter(|k| sizes[k] > GROUP_OVER && apart != Some(own.as_str()));
        let i = match key {
            Some(key) => g.node(format!("group/{key}"), group_node(item)),
            None => g.named(kind, kind.api_kind(), item.namespace.as_deref(), &item.name),
        };
        let node = &mut g.nodes[i];
        node.seen = true;
        if node.group {
            node.count += 1;
        }
        node.health[item.health as usize] += 1;
        by_uid.insert(&item.uid, i);
        of_item.push(i);
    }
    for (n, item) in items.iter().enumerate() {
        let i = of_item[n];
        let ns = item.namespace.as_deref();
        for o in &item.owners {
            let owner = match by_uid.get(o.uid.as_str()) {
                Some(j) => *j,
                None => g.named(o.kind, &o.kind_name, ns, &o.name),
            };
            if owner != i {
                g.edges.insert((owner, i));
            }
        }
        for (kind, name) in &item.refs {
            let j = g.named(*kind, kind.api_kind(), ns, name);
            g.edges.insert((i, j));
        }
    }
    select(&mut g, &items, &of_item);
    join_slices(&mut g, &slices, &by_uid);
    for e in events {
        if let (true, Some(i)) = (e.warning, by_uid.get(e.uid.as_str())) {
            g.nodes[*i].warnings += e.count;
        }
    }
    g
}

/// An edge from each EndpointSlice's Service to each pod on the map its
/// endpoints name (by UID).
fn join_slices(g: &mut Graph, slices: &[&Item], by_uid: &HashMap<&str, usize>) {
    for slice in slices {
        let Some((service, pods)) = &slice.endpoints else {
            continue;
        };
        // Only pods on the map: a slice's stale target adds no node.
        let to: Vec<usize> = pods
            .iter()
            .filter_map(|uid| by_uid.get(uid.as_str()).copied())
            .collect();
        if to.is_empty() {
            continue;
        }
        let from = g.named(
            Kind::Service,
            "Service",
            slice.namespace.as_deref(),
            service,
        );
        for p in to {
            g.edges.insert((from, p));
        }
    }
}

/// The edges from each selector (Service, NetworkPolicy) to the pods of
/// its namespace it selects. A selector with labels to equal looks only at
/// the pods with its first one (an index of pods by label), so a
/// namespace's thousand Services do not each read its fifty thousand pods.
fn select(g: &mut Graph, items: &[&Item], of_item: &[usize]) {
    /// A namespace's pods, all and by label.
    type Pods<'a> = (Vec<usize>, HashMap<(&'a str, &'a str), Vec<usize>>);
    let mut pods: HashMap<Option<&str>, Pods> = HashMap::new();
    for (n, item) in items.iter().enumerate() {
        if item.kind == Some(Kind::Pod) {
            let (all, by_label) = pods.entry(item.namespace.as_deref()).or_default();
            all.push(n);
            for (k, v) in &item.labels {
                by_label
                    .entry((k.as_str(), v.as_str()))
                    .or_default()
                    .push(n);
            }
        }
    }
    for (n, item) in items.iter().enumerate() {
        let Some(selector) = &item.selects else {
            continue;
        };
        let Some((all, by_label)) = pods.get(&item.namespace.as_deref()) else {
            continue;
        };
        let candidates = match selector.match_labels.iter().next() {
            Some((k, v)) => by_label
                .get(&(k.as_str(), v.as_str()))
                .map_or(&[][..], Vec::as_slice),
            None => all.as_slice(),
        };
        for p in candidates {
            if selector.matches(&items[*p].labels) {
                g.edges.insert((of_item[n], of_item[*p]));
            }
        }
    }
}

/// The part of `g` within `depth` edges of the node `focus` (either way
/// along an edge), not spreading past a hub (a node, a ServiceAccount…)
/// unless the map is of it. None when `focus` is not in the map.
pub fn near(g: &Graph, focus: &str, depth: usize) -> Option<Graph> {
    let start = *g.index.get(focus)?;
    let adjacent = g.adjacent();
    let mut at: HashMap<usize, usize> = HashMap::from([(start, 0)]);
    let mut frontier = vec![start];
    for d in 1..=depth {
        let mut next = Vec::new();
        for i in frontier {
            if i != start && g.nodes[i].kind.is_hub() {
                continue;
            }
            for j in &adjacent[i] {
                if !at.contains_key(j) {
                    at.insert(*j, d);
                    next.push(*j);
                }
            }
        }
        frontier = next;
    }
    let mut keep: Vec<usize> = at.into_keys().collect();
    keep.sort_unstable();
    let mut out = Graph::default();
    let mut new_of = HashMap::new();
    for i in keep {
        new_of.insert(i, out.nodes.len());
        out.index.insert(g.nodes[i].id.clone(), out.nodes.len());
        out.nodes.push(g.nodes[i].clone());
    }
    out.edges = g
        .edges
        .iter()
        .filter_map(|(a, b)| Some((*new_of.get(a)?, *new_of.get(b)?)))
        .collect();
    Some(out)
}
