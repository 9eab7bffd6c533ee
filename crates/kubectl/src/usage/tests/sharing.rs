//! Sharing and stopping: one GET per target per period, the last handle or the owner stops a poll, subscribers.

use super::*;

#[test]
fn usage_one_get_per_target_per_period_however_many_handles() {
    let mut r = rig();
    r.expect_group(&["v1beta1"]);
    r.expect(SHOP, pods(vec![pod("web-1", "t1", "400m", "320Mi")]));
    let a = r.polls.poll(shop());
    let b = r.polls.poll(shop());
    let c = a.clone();
    assert_eq!(a.state(), PollState::Waiting);
    assert!(a.latest().is_empty());
    r.pool.run_until_stalled();
    assert_eq!(r.gets(), 1, "the first GET goes at once, once");
    assert_eq!(r.discoveries(), 1, "after the group's discovery, once");
    assert_eq!(a.version(), Some(Version::V1beta1));
    assert_eq!(
        b.state(),
        PollState::Fresh {
            at: now(0),
            items: 1
        }
    );
    assert!(Rc::ptr_eq(&a.latest(), &b.latest()));
    assert_eq!(c.latest()[0].usage.cpu_millis, 400.0);
    // What the answer cost: its bytes, as sent, and its decode on the clock
    // (which the fake does not move while decoding).
    let sent = serde_json::to_vec(
        &json!({"kind": "PodMetricsList", "apiVersion": "metrics.k8s.io/v1beta1",
        "metadata": {}, "items": [pod("web-1", "t1", "400m", "320Mi")]}),
    )
    .expect("json");
    assert_eq!(
        r.polls.snapshots()[0].last_read,
        Some(crate::usage::Read {
            bytes: sent.len(),
            decode_ms: 0.0
        })
    );
    assert_eq!(r.polls.snapshots()[0].version, Some(Version::V1beta1));
    assert_eq!(
        r.polls.snapshots()[0].holders,
        2,
        "a clone is the same hold"
    );

    r.step(14);
    assert_eq!(r.gets(), 1);
    r.expect(SHOP, pods(vec![pod("web-1", "t2", "500m", "320Mi")]));
    r.step(1);
    assert_eq!(r.gets(), 2);
    assert_eq!(a.points("demo-shop/web-1").len(), 2);

    assert_eq!(r.discoveries(), 1, "a version known is not asked again");
    r.expect_group(&["v1beta1"]);
    r.expect(
        NODES,
        Reply::json(200, json!({"kind": "NodeMetricsList", "items": []})),
    );
    let nodes = r.polls.poll(Target::Nodes);
    r.pool.run_until_stalled();
    assert_eq!(r.gets(), 3, "another target is another poll");
    assert_eq!(
        nodes.state(),
        PollState::Fresh {
            at: now(15),
            items: 0
        }
    );
    let targets: Vec<Target> = r.polls.snapshots().into_iter().map(|s| s.target).collect();
    assert_eq!(targets, [shop(), Target::Nodes]);
}

#[test]
fn usage_polls_stop_with_the_last_handle_and_restart_fresh() {
    let mut r = rig();
    r.expect_group(&["v1beta1"]);
    r.expect(SHOP, pods(vec![pod("web-1", "t1", "400m", "320Mi")]));
    let a = r.polls.poll(shop());
    let b = r.polls.poll(shop());
    r.pool.run_until_stalled();
    drop(a);
    r.expect(SHOP, pods(vec![pod("web-1", "t2", "400m", "320Mi")]));
    r.step(15);
    assert_eq!(r.gets(), 2, "one holder left: still polling");
    let kept = b.latest();
    drop(b);
    r.pool.run_until_stalled();
    // Unheld, it lingers a minute: a view come back within it finds it.
    assert_eq!(r.polls.snapshots()[0].holders, 0);
    let back = r.polls.poll(shop());
    assert_eq!(back.latest().len(), 1, "the same poll, with its sample");
    drop(back);
    r.pool.run_until_stalled();
    r.expect(SHOP, pods(vec![pod("web-1", "t3", "400m", "320Mi")]));
    r.step(30);
    let lingering = r.polls.snapshots();
    assert_eq!(
        (lingering.len(), lingering[0].polls),
        (1, 3),
        "half a minute unheld: still polling"
    );
    r.step(30);
    assert!(r.polls.snapshots().is_empty(), "a minute unheld: stopped");
    r.pool.run_until_stalled();
    assert_eq!(r.clock.pending_timers(), 0, "the loop is gone");
    let polled = r.gets();
    r.step(600);
    assert_eq!(r.gets(), polled, "nobody holds it: no GET");
    assert_eq!(kept.len(), 1, "what a view kept stays readable");

    r.expect_group(&["v1beta1"]);
    r.expect(SHOP, pods(vec![pod("web-2", "t9", "1m", "1Mi")]));
    let again = r.polls.poll(shop());
    assert_eq!(again.state(), PollState::Waiting, "a fresh start");
    assert_eq!(again.version(), None, "the version is asked afresh too");
    assert!(again.latest().is_empty());
    r.pool.run_until_stalled();
    assert_eq!(r.gets(), polled + 1, "its first GET at once");
    assert!(again.points("demo-shop/web-1").is_empty());
    assert_eq!(again.points("demo-shop/web-2").len(), 1);
    assert_eq!(r.polls.snapshots()[0].polls, 1);
}

#[test]
fn usage_subscribers_hear_every_poll_until_they_let_go() {
    let mut r = rig();
    r.expect_group(&["v1beta1"]);
    r.expect(SHOP, pods(vec![]));
    let p = r.polls.poll(shop());
    let heard = Rc::new(Cell::new(0));
    let h = heard.clone();
    let sub = p.on_poll(move || h.set(h.get() + 1));
    r.pool.run_until_stalled();
    assert_eq!(heard.get(), 1);
    r.expect(SHOP, Reply::status(500, "InternalError", "no"));
    r.step(15);
    assert_eq!(heard.get(), 2, "a failed poll is heard too");
    drop(sub);
    r.expect(SHOP, pods(vec![]));
    r.step(15);
    assert_eq!(heard.get(), 2);
}

#[test]
fn usage_polls_stop_when_their_owner_is_dropped() {
    let mut r = rig();
    r.expect_group(&["v1beta1"]);
    r.expect(SHOP, pods(vec![]));
    let p = r.polls.poll(shop());
    r.pool.run_until_stalled();
    let Rig {
        server,
        clock,
        mut pool,
        polls,
    } = r;
    drop(polls);
    clock.advance(Duration::from_secs(600));
    pool.run_until_stalled();
    assert_eq!(server.log().len(), 2, "the group's discovery and one poll");
    assert_eq!(
        p.state(),
        PollState::Fresh {
            at: now(0),
            items: 0
        }
    );
}
