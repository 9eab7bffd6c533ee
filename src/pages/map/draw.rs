//! The map drawn: each node a link (an HTML box placed over the drawing,
//! so it is a real link a person can Tab to, open in a new tab or copy),
//! each edge a curve in an SVG beneath. A node's element is keyed by its
//! id and lives as long as the node (its look and place are attributes
//! that change in place); an edge is keyed by its ends. So a change
//! redraws only the nodes and edges it touches, and the focus stays.
//! Only the nodes and edges near the view (a screen's margin around it)
//! are in the DOM: a namespace of thousands of workloads is thousands of
//! nodes, and the browser lays out only those. The arrow keys move the
//! focus along columns and edges (`kubeglass_kubectl::map::layout::step`),
//! scrolling to a node not drawn yet.

use std::collections::HashMap;
use std::sync::Arc;

use kubeglass_kubectl::map::graph::{Graph, Link, MapNode};
use kubeglass_kubectl::map::layout::{Layout, Place, Step, step};
use kubeglass_kubectl::map::{Health, Kind};
use leptos::prelude::*;

use crate::route::Route;

/// A node's width and height in the drawing.
const NODE_W: i32 = 190;
const NODE_H: i32 = 36;

/// A node as drawn: its key is all of it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
struct Drawn {
    id: String,
    x: i32,
    y: i32,
    kind: String,
    name: String,
    count: u32,
    health: [u32; 5],
    main: Health,
    warnings: u32,
    seen: bool,
    href: Option<String>,
    focus: bool,
}

/// An edge as drawn: its ends' ids and places.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Curve {
    ends: (String, String),
    from: (i32, i32),
    to: (i32, i32),
}

fn href(link: &Link) -> Option<String> {
    match link {
        Link::Object { kind, namespace, name } => Route::Object {
            resource: kind.resource()?.to_string(),
            namespace: namespace.clone(),
            name: name.clone(),
        }
        .link(),
        Link::Pods { namespace, labels } => Route::Resource {
            resource: "pods".into(),
            namespace: namespace.clone(),
            labels: Some(labels.clone()),
            fields: None,
            columns: None,
        }
        .link(),
        Link::None => None,
    }
}

fn drawn(n: &MapNode, at: &Place, focus: Option<&str>) -> Drawn {
    let kind = if n.group {
        format!("{} pods", n.count)
    } else if n.kind == Kind::Other {
        n.kind_name.clone()
    } else {
        n.kind.api_kind().to_string()
    };
    Drawn {
        id: n.id.clone(),
        x: at.x as i32,
        y: at.y as i32,
        kind,
        name: n.name.clone(),
        count: n.count,
        health: n.health,
        main: n.main_health(),
        warnings: n.warnings,
        seen: n.seen,
        href: href(&n.link),
        focus: focus == Some(n.id.as_str()),
    }
}

/// What the drawing holds now: the nodes by id, the edges, the size.
#[derive(Debug, Clone, PartialEq, Default)]
struct Scene {
    nodes: HashMap<String, Drawn>,
    curves: Vec<Curve>,
    size: (i32, i32),
}

fn scene(g: &Graph, layout: &Layout, focus: Option<&str>) -> Scene {
    let places: HashMap<String, Place> = layout.places();
    let nodes = g
        .nodes
        .iter()
        .filter_map(|n| Some((n.id.clone(), drawn(n, places.get(&n.id)?, focus))))
        .collect();
    let curves = g
        .edges
        .iter()
        .filter_map(|(a, b)| {
            let (a, b) = (&g.nodes[*a].id, &g.nodes[*b].id);
            let (p, q) = (places.get(a)?, places.get(b)?);
            Some(Curve { ends: (a.clone(), b.clone()), from: (p.x as i32, p.y as i32), to: (q.x as i32, q.y as i32) })
        })
        .collect();
    let (w, h) = layout.size();
    Scene { nodes, curves, size: (w as i32, h as i32) }
}

fn class_of(h: Health) -> &'static str {
    match h {
        Health::Plain => "health-plain",
        Health::Good => "health-good",
        Health::Waiting => "health-waiting",
        Health::Bad => "health-bad",
        Health::Done => "health-done",
    }
}

/// A curve from the right side of `from` to the left side of `to` (a
/// loop out to the right when `to` is not further right).
fn path(c: &Curve) -> String {
    let (x1, y1) = (c.from.0 + NODE_W, c.from.1 + NODE_H / 2);
    let y2 = c.to.1 + NODE_H / 2;
    if c.to.0 > c.from.0 {
        let x2 = c.to.0;
        let mid = (x1 + x2) / 2;
        format!("M{x1} {y1} C{mid} {y1} {mid} {y2} {x2} {y2}")
    } else {
        let x2 = c.to.0 + NODE_W;
        format!("M{x1} {y1} C{} {y1} {} {y2} {x2} {y2}", x1 + 30, x2 + 30)
    }
}

/// A node's colour bar: a segment per colour, as wide as its share.
fn bar(d: &Drawn) -> impl IntoView + use<> {
    let total: u32 = d.health.iter().sum::<u32>().max(1);
    [Health::Good, Health::Waiting, Health::Bad, Health::Done]
        .into_iter()
        .filter(|h| d.health[*h as usize] > 0)
        .map(|h| {
            let share = f64::from(d.health[h as usize]) * 100.0 / f64::from(total);
            // Set through the CSSOM (`style:`), which the page's CSP allows.
            view! { <span class=class_of(h) style:width=format!("{share:.1}%")></span> }
        })
        .collect_view()
}

fn title(d: &Drawn) -> String {
    if d.seen {
        format!("{} {}", d.kind, d.name)
    } else {
        format!("{} {}: named by another object, not read", d.kind, d.name)
    }
}

fn class(d: &Drawn) -> String {
    format!("map-node {}{}{}", class_of(d.main), if d.seen { "" } else { " unseen" }, if d.focus { " focus" } else { "" })
}

/// One node: a link, with its kind (or count), name, colours and
/// warnings. The element stays while the node is on the map (so a focused
/// node keeps the focus); what changes is only its attributes and text.
fn node_view(id: String, scene: Memo<Option<Scene>>) -> impl IntoView {
    let element_id = format!("map:{id}");
    let d = Memo::new(move |_| scene.with(|s| s.as_ref().and_then(|s| s.nodes.get(&id).cloned())).unwrap_or_default());
    let at = move |f: fn(&Drawn) -> String| move || d.with(f);
    view! {
        <a class=at(class) id=element_id href=move || d.with(|d| d.href.clone()) data-testid="map-node" data-id=at(|d| d.id.clone())
            data-kind=at(|d| d.kind.clone()) data-name=at(|d| d.name.clone()) data-count=at(|d| d.count.to_string())
            data-health=at(|d| class_of(d.main).to_string()) title=at(title)
            style:transform=at(|d| format!("translate({}px,{}px)", d.x, d.y))>
            <span class="map-kind">{at(|d| d.kind.clone())}
                {move || d.with(|d| (d.warnings > 0).then(|| view! { <span class="map-warn" data-testid="map-warnings">{format!(" ⚠ {}", d.warnings)}</span> }))}
            </span>
            <span class="map-name">{at(|d| d.name.clone())}</span>
            <span class="map-bar">{move || d.with(bar)}</span>
        </a>
    }
}

/// The focused node's id, if a node has the focus.
fn focused() -> Option<String> {
    document().active_element()?.get_attribute("data-id")
}

/// Moves the focus to the node `id`.
fn focus_on(id: &str) {
    crate::platform::focus_by_id(&format!("map:{id}"));
}

/// Gives the node `id` the focus once its element is drawn: tried each
/// frame, `frames` times at most (a busy tab may draw it a few frames after
/// the map holds it, or after a scroll brings it into view).
fn focus_when_drawn(id: String, frames: u32) {
    request_animation_frame(move || {
        if !crate::platform::focus_by_id(&format!("map:{id}")) && frames > 0 {
            focus_when_drawn(id, frames - 1);
        }
    });
}

/// The part of the drawing in view (left, top, width, height) before the
/// first scroll: more than a window holds.
const FIRST_VIEW: View = (0, 0, 2400, 1600);
/// How far past the view nodes and edges are drawn: a screen's worth, so
/// a step of the arrow keys and a scroll of a few lines find them there.
const MARGIN: i32 = 900;
/// The view is kept in steps of this many pixels (less than the margin),
/// so a scroll of a few pixels changes nothing drawn.
const STEP: i32 = 300;

/// Left, top, width and height, in the drawing's pixels.
type View = (i32, i32, i32, i32);

/// The scrolled box, its corner rounded down and its size up to [`STEP`].
fn stepped((l, t, w, h): (f64, f64, f64, f64)) -> View {
    let down = |v: f64| (v as i32).div_euclid(STEP) * STEP;
    let up = |v: f64| (v as i32 + STEP - 1).div_euclid(STEP) * STEP;
    (down(l), down(t), up(w) + STEP, up(h) + STEP)
}

/// Is the box at `x`, `y` of `w` × `h` within `view` and its margin?
fn in_view(view: View, x: i32, y: i32, w: i32, h: i32) -> bool {
    let (l, t, vw, vh) = view;
    x + w >= l - MARGIN && x <= l + vw + MARGIN && y + h >= t - MARGIN && y <= t + vh + MARGIN
}

/// The ids of the nodes within `view`, sorted.
fn ids_in(s: &Scene, view: View) -> Vec<String> {
    let mut ids: Vec<String> = s.nodes.values().filter(|d| in_view(view, d.x, d.y, NODE_W, NODE_H)).map(|d| d.id.clone()).collect();
    ids.sort();
    ids
}

/// The edges that cross `view`.
fn curves_in(s: &Scene, view: View) -> Vec<Curve> {
    s.curves
        .iter()
        .filter(|c| {
            let (x, y) = (c.from.0.min(c.to.0), c.from.1.min(c.to.1));
            let (w, h) = ((c.from.0 - c.to.0).abs() + NODE_W, (c.from.1 - c.to.1).abs() + NODE_H);
            in_view(view, x, y, w, h)
        })
        .cloned()
        .collect()
}

/// Scrolls the node `id` at `at` into the canvas and gives it the focus
/// once it is drawn.
fn go_to(canvas: NodeRef<leptos::html::Div>, id: String, at: (i32, i32)) {
    crate::platform::scroll_to(canvas, f64::from(at.0) - 200.0, f64::from(at.1) - 120.0);
    focus_when_drawn(id, 120);
}

/// The drawing, with the arrow keys. Only what is in view (and a screen
/// around it) is in the DOM.
#[component]
pub fn Canvas(layout: Memo<Option<(Arc<Graph>, Arc<Layout>)>>, focus: Option<String>) -> impl IntoView {
    let focus_for_scene = focus.clone();
    let scene = Memo::new(move |_| {
        layout.with(|l| l.as_ref().map(|(g, layout)| scene(g, layout, focus_for_scene.as_deref())))
    });
    let view_box = RwSignal::new(FIRST_VIEW);
    let canvas = NodeRef::<leptos::html::Div>::new();
    // The ids of the nodes in view, in a steady order: a node's element is
    // made when it comes into view and dropped when it leaves, never for a
    // change of look or place.
    let ids = Memo::new(move |_| {
        let view = view_box.get();
        scene.with(|s| s.as_ref().map(|s| ids_in(s, view)).unwrap_or_default())
    });
    let curves = Memo::new(move |_| {
        let view = view_box.get();
        scene.with(|s| s.as_ref().map(|s| curves_in(s, view)).unwrap_or_default())
    });
    let place_of = move |id: &str| scene.with_untracked(|s| s.as_ref().and_then(|s| s.nodes.get(id).map(|d| (d.x, d.y))));
    let keys = move |ev: leptos::ev::KeyboardEvent| {
        let dir = match ev.key().as_str() {
            "ArrowUp" => Step::Up,
            "ArrowDown" => Step::Down,
            "ArrowLeft" => Step::Left,
            "ArrowRight" => Step::Right,
            _ => return,
        };
        let Some(from) = focused() else { return };
        let to = layout.with_untracked(|l| l.as_ref().and_then(|(g, layout)| step(layout, g, &from, dir)));
        if let Some(to) = to {
            ev.prevent_default();
            if ids.with_untracked(|ids| ids.binary_search(&to).is_ok()) {
                focus_on(&to);
            } else if let Some(at) = place_of(&to) {
                go_to(canvas, to, at);
            }
        }
    };
    let size = move || scene.with(|s| s.as_ref().map_or((0, 0), |s| s.size));
    // The map of an object opens with it in view and focused.
    if let Some(id) = focus {
        Effect::new(move |done: Option<bool>| {
            if done == Some(true) {
                return true;
            }
            let at = scene.with(|s| s.as_ref().and_then(|s| s.nodes.get(&id).map(|d| (d.x, d.y))));
            if let Some(at) = at {
                go_to(canvas, id.clone(), at);
            }
            at.is_some()
        });
    }
    view! {
        <div class="map-canvas" data-testid="map-canvas" node_ref=canvas on:keydown=keys
            on:scroll=move |ev| {
                let view = stepped(crate::platform::scrolled_box(&ev));
                if view_box.get_untracked() != view {
                    view_box.set(view);
                }
            }>
            <div class="map-sheet" style:width=move || format!("{}px", size().0) style:height=move || format!("{}px", size().1)>
                <svg class="map-edges" width=move || size().0 height=move || size().1 aria-hidden="true">
                    <For each=move || curves.get()
                        key=|c: &Curve| c.clone()
                        children=|c| view! { <path d=path(&c) data-testid="map-edge" data-from=c.ends.0 data-to=c.ends.1></path> }/>
                </svg>
                <For each=move || ids.get()
                    key=|id: &String| id.clone()
                    children=move |id| node_view(id, scene)/>
            </div>
        </div>
    }
}
