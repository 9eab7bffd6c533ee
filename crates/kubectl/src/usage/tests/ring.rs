//! The ring through polls: per object, an object missing from a sample, at most an hour.

use super::*;

#[test]
fn usage_ring_grows_per_object_and_a_missing_object_gets_no_point() {
    let mut r = rig();
    r.expect_group(&["v1beta1"]);
    r.expect(
        SHOP,
        pods(vec![
            pod("web-1", "t1", "400m", "320Mi"),
            pod("cart-1", "t1", "5m", "24Mi"),
        ]),
    );
    let p = r.polls.poll(shop());
    r.pool.run_until_stalled();
    // metrics-server left cart-1 out (zero use, or not scraped yet).
    r.expect(SHOP, pods(vec![pod("web-1", "t2", "410m", "320Mi")]));
    r.step(15);
    r.expect(
        SHOP,
        pods(vec![
            pod("web-1", "t3", "420m", "320Mi"),
            pod("cart-1", "t3", "6m", "24Mi"),
        ]),
    );
    r.step(15);
    let web: Vec<(f64, f64)> = p
        .points("demo-shop/web-1")
        .iter()
        .map(|pt| (pt.at, pt.usage.cpu_millis))
        .collect();
    assert_eq!(web, [(now(0), 400.0), (now(15), 410.0), (now(30), 420.0)]);
    let cart: Vec<f64> = p
        .points("demo-shop/cart-1")
        .iter()
        .map(|pt| pt.at)
        .collect();
    assert_eq!(cart, [now(0), now(30)]);
    assert_eq!(r.polls.snapshots()[0].points, 5);
    assert!(p.points("demo-shop/nobody").is_empty());
}

#[test]
fn usage_ring_keeps_at_most_an_hour_of_points() {
    let mut r = rig();
    r.expect_group(&["v1beta1"]);
    let p = r.polls.poll(Target::Nodes);
    for i in 0..RING_POINTS + 10 {
        let item = json!({"metadata": {"name": "node-0"}, "timestamp": i.to_string(),
                          "usage": {"cpu": format!("{i}m"), "memory": "1Gi"}});
        r.expect(
            NODES,
            Reply::json(200, json!({"kind": "NodeMetricsList", "items": [item]})),
        );
        r.step(if i == 0 { 0 } else { 15 });
    }
    let h = p.points("node-0");
    assert_eq!(h.len(), RING_POINTS);
    assert_eq!(h[0].usage.cpu_millis, 10.0);
    assert_eq!(r.gets(), RING_POINTS + 10);
}
