//! A poll's points kept between visits, and polls paused while the tab is quiet.

use std::cell::RefCell;
use std::collections::BTreeMap;

use futures::FutureExt;
use futures::future::LocalBoxFuture;

use super::*;

/// A history in memory: what a later visit finds.
#[derive(Default)]
struct Kept(RefCell<BTreeMap<String, String>>);

impl History for Kept {
    fn load(&self, target: &Target) -> LocalBoxFuture<'static, Option<String>> {
        let text = self.0.borrow().get(&target.history_key()).cloned();
        async move { text }.boxed_local()
    }
    fn save(&self, target: &Target, text: String) -> LocalBoxFuture<'static, ()> {
        self.0.borrow_mut().insert(target.history_key(), text);
        async {}.boxed_local()
    }
}

#[test]
fn a_later_visit_starts_with_the_points_of_the_last_one() {
    let kept = Rc::new(Kept::default());
    let mut first = rig();
    first.polls.keep_history(kept.clone());
    first.expect_group(&["v1beta1"]);
    first.expect(SHOP, pods(vec![pod("web-1", "t1", "400m", "320Mi")]));
    let a = first.polls.poll(shop());
    first.pool.run_until_stalled();
    assert_eq!(a.points("demo-shop/web-1").len(), 1);
    assert!(
        kept.0.borrow().contains_key("usage.pods.demo-shop"),
        "saved after the first good sample"
    );
    first.expect(SHOP, pods(vec![pod("web-1", "t2", "500m", "320Mi")]));
    first.step(15);
    assert_eq!(a.points("demo-shop/web-1").len(), 2);
    let saved = kept.0.borrow().get("usage.pods.demo-shop").cloned();
    first.step(0);
    // Not saved again within the minute; saved when asked (the tab hidden).
    assert_eq!(kept.0.borrow().get("usage.pods.demo-shop").cloned(), saved);
    first.polls.save_history();
    first.pool.run_until_stalled();
    assert_ne!(kept.0.borrow().get("usage.pods.demo-shop").cloned(), saved);

    // The next visit, ten minutes on: both points are there before any answer.
    let mut next = rig();
    next.clock.advance(Duration::from_secs(600));
    next.polls.keep_history(kept.clone());
    next.expect_group(&["v1beta1"]);
    next.expect(SHOP, pods(vec![pod("web-1", "t3", "600m", "320Mi")]));
    let b = next.polls.poll(shop());
    next.pool.run_until_stalled();
    let points = b.points("demo-shop/web-1");
    assert_eq!(points.len(), 3, "two kept, one new");
    assert_eq!(points[0].usage.cpu_millis, 400.0);
    assert_eq!(points[2].usage.cpu_millis, 600.0);
    assert_eq!(points[0].at, now(0));
    assert_eq!(next.polls.snapshots()[0].restored, 2);
}

#[test]
fn a_history_that_does_not_read_is_only_lost() {
    let kept = Rc::new(Kept::default());
    kept.0
        .borrow_mut()
        .insert("usage.nodes".into(), "<html>".into());
    let mut r = rig();
    r.polls.keep_history(kept);
    r.expect_group(&["v1beta1"]);
    r.expect(
        NODES,
        Reply::json(200, json!({"kind": "NodeMetricsList", "items": []})),
    );
    let n = r.polls.poll(Target::Nodes);
    r.pool.run_until_stalled();
    assert_eq!(
        n.state(),
        PollState::Fresh {
            at: now(0),
            items: 0
        }
    );
    assert_eq!(r.polls.snapshots()[0].restored, 0);
}

#[test]
fn a_paused_poll_sends_nothing_and_polls_at_once_when_the_pause_ends() {
    let mut r = rig();
    r.expect_group(&["v1beta1"]);
    r.expect(SHOP, pods(vec![pod("web-1", "t1", "400m", "320Mi")]));
    let a = r.polls.poll(shop());
    r.pool.run_until_stalled();
    assert_eq!(r.gets(), 1);
    r.polls.set_paused(true);
    assert!(r.polls.paused());
    r.step(15);
    r.step(600);
    assert_eq!(r.gets(), 1, "nothing while paused");
    r.expect(SHOP, pods(vec![pod("web-1", "t2", "500m", "320Mi")]));
    r.polls.set_paused(false);
    r.pool.run_until_stalled();
    assert_eq!(r.gets(), 2, "at once when shown");
    assert_eq!(a.points("demo-shop/web-1").len(), 2);
    r.step(14);
    assert_eq!(r.gets(), 2);
}
