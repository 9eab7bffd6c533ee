//! Where each node of the map is drawn: one column per family of kinds
//! (Ingresses and autoscalers, Services and Deployments, the other
//! controllers, pods, what pods use, volumes, classes), a slot in it per
//! node.
//!
//! A node keeps its slot for as long as it is in the map: a change to the
//! graph places only the nodes that are new, each in the free slot
//! nearest the middle of its neighbours' (so siblings stay together and
//! edges stay short), and a node that goes leaves a hole. A column is
//! closed up only when more than half of it is holes. This is why the map
//! is not laid out by a general layered-graph library: those place every
//! node again on every change, and here the layers are the kinds'.

use std::collections::HashMap;

use super::graph::Graph;

/// How many columns there are.
pub const COLUMNS: usize = 7;
/// A column's width, in the drawing's units.
pub const COLUMN_WIDTH: f64 = 230.0;
/// A slot's height.
pub const ROW_HEIGHT: f64 = 46.0;
/// The order columns are placed in: pods first, then outward.
const ORDER: [usize; COLUMNS] = [3, 2, 1, 0, 4, 5, 6];

/// Every node's column and slot, by id.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layout {
    /// Each column's slots, a hole None.
    pub columns: Vec<Vec<Option<String>>>,
}

/// A node's place in the drawing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Place {
    /// Its column.
    pub column: usize,
    /// Its slot in the column.
    pub slot: usize,
    /// Its left edge.
    pub x: f64,
    /// Its top edge.
    pub y: f64,
}

impl Layout {
    /// Where each node is, by id: columns with nothing in them take no
    /// room.
    pub fn places(&self) -> HashMap<String, Place> {
        let mut out = HashMap::new();
        let mut drawn = 0;
        for (c, slots) in self.columns.iter().enumerate() {
            if slots.iter().all(Option::is_none) {
                continue;
            }
            for (s, id) in slots.iter().enumerate() {
                if let Some(id) = id {
                    let (x, y) = (drawn as f64 * COLUMN_WIDTH, s as f64 * ROW_HEIGHT);
                    out.insert(
                        id.clone(),
                        Place {
                            column: c,
                            slot: s,
                            x,
                            y,
                        },
                    );
                }
            }
            drawn += 1;
        }
        out
    }

    /// The drawing's width and height.
    pub fn size(&self) -> (f64, f64) {
        let used = self
            .columns
            .iter()
            .filter(|c| c.iter().any(Option::is_some))
            .count();
        let tallest = self.columns.iter().map(Vec::len).max().unwrap_or(0);
        (used as f64 * COLUMN_WIDTH, tallest as f64 * ROW_HEIGHT)
    }
}

/// The free slot nearest `target` in `slots`, else a new one at the end.
fn nearest_free(slots: &mut Vec<Option<String>>, target: usize) -> usize {
    let len = slots.len();
    for d in 0..len {
        for s in [target.checked_sub(d), target.checked_add(d)]
            .into_iter()
            .flatten()
        {
            if s < len && slots[s].is_none() {
                return s;
            }
        }
    }
    slots.push(None);
    len
}

/// Places `g`'s nodes, keeping each one `previous` placed where it was.
pub fn place(previous: &Layout, g: &Graph) -> Layout {
    let mut columns: Vec<Vec<Option<String>>> = vec![Vec::new(); COLUMNS];
    let mut slot_of: HashMap<usize, usize> = HashMap::new();
    for (c, slots) in previous.columns.iter().enumerate().take(COLUMNS) {
        columns[c] = slots
            .iter()
            .enumerate()
            .map(|(s, id)| {
                let i = *g.index.get(id.as_deref()?)?;
                (g.nodes[i].kind.column() == c).then(|| {
                    slot_of.insert(i, s);
                    g.nodes[i].id.clone()
                })
            })
            .collect();
    }
    let adjacent = g.adjacent();
    for c in ORDER {
        let mut new: Vec<(Option<usize>, &str, usize)> = g
            .nodes
            .iter()
            .enumerate()
            .filter(|(i, n)| n.kind.column() == c && !slot_of.contains_key(i))
            .map(|(i, _)| {
                let placed: Vec<usize> = adjacent[i]
                    .iter()
                    .filter_map(|j| slot_of.get(j).copied())
                    .collect();
                let target =
                    (!placed.is_empty()).then(|| placed.iter().sum::<usize>() / placed.len());
                // Unplaced siblings sort by a neighbour they share.
                let anchor = adjacent[i]
                    .iter()
                    .map(|j| g.nodes[*j].id.as_str())
                    .min()
                    .unwrap_or("");
                (target, anchor, i)
            })
            .collect();
        new.sort_by(|a, b| {
            (a.0.is_none(), a.0, a.1, &g.nodes[a.2].id).cmp(&(
                b.0.is_none(),
                b.0,
                b.1,
                &g.nodes[b.2].id,
            ))
        });
        for (target, _, i) in new {
            let slots = &mut columns[c];
            let s = match target {
                Some(t) => nearest_free(slots, t),
                None => {
                    slots.push(None);
                    slots.len() - 1
                }
            };
            slots[s] = Some(g.nodes[i].id.clone());
            slot_of.insert(i, s);
        }
    }
    for slots in &mut columns {
        while slots.last().is_some_and(Option::is_none) {
            slots.pop();
        }
        let holes = slots.iter().filter(|s| s.is_none()).count();
        if holes > 3 && holes * 2 > slots.len() {
            slots.retain(Option::is_some);
        }
    }
    Layout { columns }
}

/// A key that moves the focus through the map.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The node above in the column.
    Up,
    /// The node below.
    Down,
    /// The nearest node in the next column to the left, a neighbour first.
    Left,
    /// The same, to the right.
    Right,
}

/// Where `step` from the node `from` leads, if anywhere.
pub fn step(layout: &Layout, g: &Graph, from: &str, step: Step) -> Option<String> {
    let places = layout.places();
    let here = places.get(from)?;
    let column = |c: usize| layout.columns.get(c).map_or(&[][..], Vec::as_slice);
    match step {
        Step::Up => column(here.column)[..here.slot]
            .iter()
            .rev()
            .flatten()
            .next()
            .cloned(),
        Step::Down => column(here.column)[here.slot + 1..]
            .iter()
            .flatten()
            .next()
            .cloned(),
        Step::Left | Step::Right => {
            let mut c = here.column;
            loop {
                c = if step == Step::Left {
                    c.checked_sub(1)?
                } else {
                    c + 1
                };
                if c >= COLUMNS {
                    return None;
                }
                let ids: Vec<(usize, &String)> = column(c)
                    .iter()
                    .enumerate()
                    .filter_map(|(s, id)| Some((s, id.as_ref()?)))
                    .collect();
                if ids.is_empty() {
                    continue;
                }
                // `from`'s neighbours, read from its edges alone (not the
                // whole graph's adjacency, for one key press).
                let me = g.index.get(from).copied();
                let near_ones: std::collections::HashSet<usize> = g
                    .edges
                    .iter()
                    .filter_map(|&(a, b)| match me {
                        Some(i) if a == i => Some(b),
                        Some(i) if b == i => Some(a),
                        _ => None,
                    })
                    .collect();
                let joined = |id: &str| g.index.get(id).is_some_and(|j| near_ones.contains(j));
                let best = ids
                    .iter()
                    .min_by_key(|(s, id)| (!joined(id), s.abs_diff(here.slot)))
                    .map(|(_, id)| (*id).clone());
                return best;
            }
        }
    }
}
