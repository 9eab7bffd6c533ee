//! The delaying queue (client-go delaying_queue_test): waits, retries counted, deduping, early fires, ready-time order.

use super::*;

fn delaying() -> (DelayingQueue<String>, FakeClock, LocalPool) {
    let c = clock();
    let q = DelayingQueue::new("delaying", Rc::new(c.clone()));
    let pool = LocalPool::new();
    pool.spawner().spawn_local(q.clone().run()).expect("spawn");
    (q, c, pool)
}

// TestSimpleQueue
#[test]
fn simple_delaying_queue() {
    let (q, c, mut pool) = delaying();
    q.add_after(s("foo"), Duration::from_millis(50));
    pool.run_until_stalled();
    assert_eq!(q.queue().len(), 0);
    c.advance(Duration::from_millis(49));
    pool.run_until_stalled();
    assert_eq!(q.queue().len(), 0);
    c.advance(Duration::from_millis(1));
    pool.run_until_stalled();
    assert_eq!(q.queue().len(), 1);
    assert_eq!(q.waiting(), 0);
    q.shut_down();
    pool.run_until_stalled();
}

// delaying_queue.go AddAfter: every delayed add counts in
// workqueue_retries_total (zero delays and deduplicated waits included),
// except after shutdown.
#[test]
fn every_delayed_add_counts_as_a_retry() {
    let (q, _c, mut pool) = delaying();
    q.add_after(s("foo"), Duration::from_millis(50));
    q.add_after(s("foo"), Duration::from_millis(70));
    q.add_after(s("bar"), Duration::ZERO);
    assert_eq!(q.queue().metrics().retries, 3);
    q.shut_down();
    q.add_after(s("baz"), Duration::from_millis(10));
    assert_eq!(q.queue().metrics().retries, 3, "not after shutdown");
    pool.run_until_stalled();
}

// TestDeduping: an item waits once, at the earliest time asked.
#[test]
fn deduping_keeps_the_earliest_time() {
    let (q, c, mut pool) = delaying();
    q.add_after(s("foo"), Duration::from_millis(50));
    q.add_after(s("foo"), Duration::from_millis(70));
    assert_eq!(q.waiting(), 1);
    c.advance(Duration::from_millis(60));
    pool.run_until_stalled();
    assert_eq!(q.queue().len(), 1, "fired at 50 ms, not 70");
    let item = pool.run_until(q.queue().get()).expect("foo");
    q.queue().done(&item);
    // Now the later request comes first and the earlier one wins.
    q.add_after(s("foo"), Duration::from_millis(70));
    q.add_after(s("foo"), Duration::from_millis(50));
    c.advance(Duration::from_millis(50));
    pool.run_until_stalled();
    assert_eq!(q.queue().len(), 1);
    c.advance(Duration::from_millis(30));
    pool.run_until_stalled();
    assert_eq!(q.queue().len(), 1, "not added a second time at 70 ms");
}

// TestAddTwoFireEarly
#[test]
fn a_later_add_with_a_shorter_delay_fires_early() {
    let (q, c, mut pool) = delaying();
    q.add_after(s("foo"), Duration::from_secs(1));
    q.add_after(s("bar"), Duration::from_millis(50));
    c.advance(Duration::from_millis(60));
    pool.run_until_stalled();
    assert_eq!(q.queue().len(), 1);
    assert_eq!(pool.run_until(q.queue().get()).as_deref(), Some("bar"));
    q.add_after(s("foo"), Duration::from_millis(20));
    c.advance(Duration::from_millis(20));
    pool.run_until_stalled();
    assert_eq!(pool.run_until(q.queue().get()).as_deref(), Some("foo"));
}

// TestCopyShifting: items come out in ready-time order whatever the add order.
#[test]
fn items_fire_in_ready_time_order() {
    let (q, c, mut pool) = delaying();
    q.add_after(s("foo"), Duration::from_millis(3));
    q.add_after(s("bar"), Duration::from_millis(2));
    q.add_after(s("baz"), Duration::from_millis(1));
    c.advance(Duration::from_millis(3));
    pool.run_until_stalled();
    assert_eq!(drain_now(&mut pool, q.queue()), ["baz", "bar", "foo"]);
}
