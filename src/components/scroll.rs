//! Virtualized lists: which rows a scrolled viewport needs in the DOM.

use leptos::ev::Event;
use leptos::prelude::*;

/// The scroll position and height of a virtualized list's scrolling
/// element, as signals.
#[derive(Clone, Copy)]
pub struct ScrollWindow {
    top: RwSignal<f64>,
    height: RwSignal<f64>,
}

impl ScrollWindow {
    /// At the top, `height` px tall until the element is first measured.
    pub fn new(height: f64) -> Self {
        Self {
            top: RwSignal::new(0.0),
            height: RwSignal::new(height),
        }
    }

    /// Follows the scrolled element (its `on:scroll`).
    pub fn on_scroll(self, ev: &Event) {
        let (top, height) = crate::platform::scrolled(ev);
        self.top.set(top);
        self.height.set(height);
    }

    /// Back at the top (after the element was scrolled there).
    pub fn to_top(self) {
        self.top.set(0.0);
    }

    /// The last rows of `len`, as when scrolled to the end (the height is
    /// tracked, the scroll position is not).
    pub fn rows_at_end(self, len: usize, row_height: f64, overscan: usize) -> (usize, usize) {
        rows_in_view(f64::MAX, self.height.get(), row_height, overscan, len)
    }

    /// The first row to draw and how many, for `len` rows (tracked).
    pub fn rows(self, len: usize, row_height: f64, overscan: usize) -> (usize, usize) {
        rows_in_view(self.top.get(), self.height.get(), row_height, overscan, len)
    }
}

/// The first row to draw and how many rows make a window, for a viewport
/// `height` px tall scrolled to `top` over `len` rows of `row_height`, with
/// `overscan` rows either side. The first row never lies so far down that
/// the window runs out of rows (the list can shrink under an old scroll
/// position); rows sit at their own offsets either way.
pub fn rows_in_view(
    top: f64,
    height: f64,
    row_height: f64,
    overscan: usize,
    len: usize,
) -> (usize, usize) {
    let in_view = (height / row_height) as usize;
    let first = ((top / row_height) as usize)
        .saturating_sub(overscan)
        .min(len.saturating_sub(in_view + overscan));
    (first, in_view + 2 * overscan)
}

#[cfg(test)]
mod tests {
    use super::rows_in_view;

    #[test]
    fn the_window_follows_the_scroll_and_never_runs_past_the_end() {
        // 10 rows in view, 5 either side.
        assert_eq!(rows_in_view(0.0, 300.0, 30.0, 5, 1000), (0, 20));
        assert_eq!(rows_in_view(30.0 * 100.0, 300.0, 30.0, 5, 1000), (95, 20));
        // Scrolled to the end: the last rows are in the window.
        assert_eq!(rows_in_view(30.0 * 990.0, 300.0, 30.0, 5, 1000), (985, 20));
        // The list shrank under the old position: still its last rows.
        assert_eq!(rows_in_view(30.0 * 990.0, 300.0, 30.0, 5, 40), (25, 20));
        // Held at the end, however far the list has grown.
        assert_eq!(rows_in_view(f64::MAX, 300.0, 30.0, 5, 1000), (985, 20));
        // Fewer rows than fit.
        assert_eq!(rows_in_view(30.0 * 990.0, 300.0, 30.0, 5, 8), (0, 20));
    }
}
