//! Right-sizing from the tab's own points (its last hour), with no Prometheus: each workload's pods' usage against what they request, and the pods far from their requests.
//!
//! A workload's usage is its pods' summed poll by poll; its request is the
//! sum of its pods' now. After a scale the two cover different pods for a
//! while: the figures are a guide over the tab's last hour, not an audit.

use std::collections::BTreeMap;

use kubeglass_client::kube_core::DynamicObject;
use kubeglass_kubectl::usage::Point;
use kubeglass_kubectl::usage::quantity::{bytes_words, cpu_words};

use super::graph::{pod_resources, sum_points};
use super::{By, Capacity, part};

/// A peak under this share of the request: the workload asks for more than
/// it used.
pub const OVER: f64 = 0.5;
/// An average over this share of the request: it uses more than it asks.
pub const UNDER: f64 = 1.0;
/// A pod whose average is under this share, or over the next, of its own
/// request is named.
pub const FAR_BELOW: f64 = 0.25;
pub const FAR_ABOVE: f64 = 1.5;

/// What right-sizing needs of one pod.
#[derive(Clone, Debug, PartialEq)]
pub struct PodSizing {
    /// `namespace/name`.
    pub key: String,
    pub namespace: String,
    /// Its controller: (kind, name).
    pub owner: Option<(String, String)>,
    pub requests: Capacity,
}

impl PodSizing {
    /// Reads a Pod.
    pub fn from_object(p: &DynamicObject) -> Self {
        let namespace = p.metadata.namespace.clone().unwrap_or_default();
        let name = p.metadata.name.clone().unwrap_or_default();
        Self {
            key: format!("{namespace}/{name}"),
            namespace,
            owner: controller(p),
            requests: pod_resources(&p.data).0,
        }
    }
}

/// An object's controller, from its owner references: (kind, name).
pub fn controller(o: &DynamicObject) -> Option<(String, String)> {
    o.metadata
        .owner_references
        .as_ref()?
        .iter()
        .find(|r| r.controller == Some(true))
        .map(|r| (r.kind.clone(), r.name.clone()))
}

/// How usage sits against a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fit {
    /// Nothing is requested.
    NoRequest,
    /// No figures yet.
    NoData,
    /// Its peak is under [`OVER`] of the request.
    Over,
    /// Its average is over [`UNDER`] of the request.
    Under,
    Fits,
}

impl Fit {
    /// A word for the page and its tests.
    pub fn word(self) -> &'static str {
        match self {
            Fit::NoRequest => "no-request",
            Fit::NoData => "no-data",
            Fit::Over => "over",
            Fit::Under => "under",
            Fit::Fits => "fits",
        }
    }
}

/// One resource of a workload: requested, used on average and at peak.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Part {
    pub requested: Option<f64>,
    pub average: Option<f64>,
    pub peak: Option<f64>,
    pub fit: Fit,
}

/// A pod far from its own request: by what, and its average's share of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Outlier {
    pub pod: String,
    pub by: By,
    pub share: f64,
}

/// One workload's sizing.
#[derive(Clone, Debug, PartialEq)]
pub struct Sizing {
    pub kind: String,
    pub namespace: String,
    pub name: String,
    pub pods: usize,
    pub cpu: Part,
    pub memory: Part,
    pub outliers: Vec<Outlier>,
}

/// The workloads of `pods` (a ReplicaSet's pods under its Deployment, by
/// `deployment_of`: `namespace/replicaset` → Deployment name), each sized
/// from `points_of` (a pod's points by key); the ones using more than they
/// ask first, then the ones asking for more than they use, then by name.
/// Pods with no controller are left out.
pub fn right_size(
    pods: &[PodSizing],
    deployment_of: &BTreeMap<String, String>,
    points_of: &dyn Fn(&str) -> Vec<Point>,
) -> Vec<Sizing> {
    let mut groups: BTreeMap<(String, String, String), Vec<&PodSizing>> = BTreeMap::new();
    for p in pods {
        let Some((kind, name)) = &p.owner else {
            continue;
        };
        let key = match deployment_of.get(&format!("{}/{name}", p.namespace)) {
            Some(d) if kind == "ReplicaSet" => {
                ("Deployment".to_string(), p.namespace.clone(), d.clone())
            }
            _ => (kind.clone(), p.namespace.clone(), name.clone()),
        };
        groups.entry(key).or_default().push(p);
    }
    let mut out: Vec<Sizing> = groups
        .into_iter()
        .map(|((kind, namespace, name), members)| {
            let series: Vec<Vec<Point>> = members.iter().map(|p| points_of(&p.key)).collect();
            let summed = sum_points(&series);
            let requests: Vec<Capacity> = members.iter().map(|p| p.requests).collect();
            let mut outliers = Vec::new();
            for (p, h) in members.iter().zip(&series) {
                for by in [By::Cpu, By::Memory] {
                    if let (Some(avg), Some(req)) =
                        (average(h, by), part(&p.requests, by).filter(|r| *r > 0.0))
                    {
                        let share = avg / req;
                        if !(FAR_BELOW..=FAR_ABOVE).contains(&share) {
                            outliers.push(Outlier {
                                pod: p.key.clone(),
                                by,
                                share,
                            });
                        }
                    }
                }
            }
            Sizing {
                kind,
                namespace,
                name,
                pods: members.len(),
                cpu: sized(&summed, &requests, By::Cpu),
                memory: sized(&summed, &requests, By::Memory),
                outliers,
            }
        })
        .collect();
    let rank = |s: &Sizing| match (s.cpu.fit, s.memory.fit) {
        (Fit::Under, _) | (_, Fit::Under) => 0,
        (Fit::Over, _) | (_, Fit::Over) => 1,
        _ => 2,
    };
    out.sort_by(|a, b| {
        rank(a)
            .cmp(&rank(b))
            .then_with(|| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)))
    });
    out
}

fn average(points: &[Point], by: By) -> Option<f64> {
    (!points.is_empty())
        .then(|| points.iter().map(|p| by.of(&p.usage)).sum::<f64>() / points.len() as f64)
}

/// One resource of a workload from its summed points and its pods' requests.
fn sized(summed: &[Point], requests: &[Capacity], by: By) -> Part {
    let asked: Vec<f64> = requests.iter().filter_map(|c| part(c, by)).collect();
    let requested = (!asked.is_empty())
        .then(|| asked.iter().sum::<f64>())
        .filter(|r| *r > 0.0);
    let average = average(summed, by);
    let peak = summed.iter().map(|p| by.of(&p.usage)).reduce(f64::max);
    let fit = match (requested, average, peak) {
        (None, _, _) => Fit::NoRequest,
        (_, None, _) | (_, _, None) => Fit::NoData,
        (Some(r), Some(a), _) if a > UNDER * r => Fit::Under,
        (Some(r), _, Some(p)) if p < OVER * r => Fit::Over,
        _ => Fit::Fits,
    };
    Part {
        requested,
        average,
        peak,
        fit,
    }
}

/// A part's figures in words: `410m avg · 410m peak of 200m requested`.
pub fn part_words(p: &Part, by: By) -> String {
    let say = |v: f64| match by {
        By::Cpu => cpu_words(v),
        By::Memory => bytes_words(v),
    };
    let used = match (p.average, p.peak) {
        (Some(a), Some(k)) => format!("{} avg · {} peak", say(a), say(k)),
        _ => "no figures yet".to_string(),
    };
    match p.requested {
        Some(r) => format!("{used} of {} requested", say(r)),
        None => format!("{used} · nothing requested"),
    }
}

/// What a fit suggests.
pub fn fit_words(f: Fit) -> &'static str {
    match f {
        Fit::Under => "uses more than it requests: raise the request",
        Fit::Over => "peaks under half its request: it could ask for less",
        Fit::Fits => "fits its request",
        Fit::NoRequest => "no request set",
        Fit::NoData => "",
    }
}
