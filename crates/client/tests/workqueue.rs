//! Work queue, delaying queue and rate limiters on a fake clock, ported from
//! client-go's util/workqueue tests (named in the comments).

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use kubeglass_client::clock::PassiveClock;
use kubeglass_client::testing::FakeClock;
use kubeglass_client::workqueue::{
    Bucket, DelayingQueue, ItemExponential, ItemFastSlow, MaxOf, Queue, RateLimiter,
    RateLimitingQueue, WithMaxWait, default_controller_rate_limiter,
};

fn clock() -> FakeClock {
    FakeClock::new(Duration::from_secs(1_000))
}

fn queue() -> (Queue<String>, FakeClock) {
    let c = clock();
    (Queue::new("test", Rc::new(c.clone())), c)
}

fn s(x: &str) -> String {
    x.to_string()
}

/// Returns Pending once, so other tasks run (like awaiting real work).
async fn yield_now() {
    let mut yielded = false;
    futures::future::poll_fn(|cx| {
        if yielded {
            std::task::Poll::Ready(())
        } else {
            yielded = true;
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    })
    .await
}

/// Takes every item currently available without waiting.
fn drain_now(pool: &mut LocalPool, q: &Queue<String>) -> Vec<String> {
    let mut out = Vec::new();
    while !q.is_empty() {
        out.push(pool.run_until(q.get()).expect("item"));
    }
    out
}

// TestBasic: many producers and consumers; every item processed exactly once.
#[test]
fn basic_many_producers_and_consumers() {
    let (q, _) = queue();
    let mut pool = LocalPool::new();
    let processed = Rc::new(RefCell::new(Vec::new()));
    let in_flight = Rc::new(RefCell::new(std::collections::HashSet::new()));
    for w in 0..5 {
        let (q, processed, in_flight) = (q.clone(), processed.clone(), in_flight.clone());
        pool.spawner()
            .spawn_local(async move {
                while let Some(item) = q.get().await {
                    assert!(
                        in_flight.borrow_mut().insert(item.clone()),
                        "{item} processed twice at once"
                    );
                    processed.borrow_mut().push((w, item.clone()));
                    yield_now().await; // the "work": lets other workers run
                    in_flight.borrow_mut().remove(&item);
                    q.done(&item);
                }
            })
            .expect("spawn");
    }
    for p in 0..10 {
        for i in 0..50 {
            q.add(format!("p{p}-{i}"));
        }
        pool.run_until_stalled();
    }
    q.shut_down();
    pool.run();
    let mut items: Vec<String> = processed.borrow().iter().map(|(_, i)| i.clone()).collect();
    assert_eq!(items.len(), 500);
    items.sort();
    items.dedup();
    assert_eq!(items.len(), 500);
    let workers: std::collections::HashSet<_> =
        processed.borrow().iter().map(|(w, _)| *w).collect();
    assert!(workers.len() > 1, "work was shared among workers");
}

// TestAddWhileProcessing: an item added while being processed comes back after Done.
#[test]
fn add_while_processing_comes_back_after_done() {
    let (q, _) = queue();
    let mut pool = LocalPool::new();
    q.add(s("a"));
    let a = pool.run_until(q.get()).expect("a");
    q.add(s("a"));
    assert_eq!(q.len(), 0, "not handed out again while processing");
    q.done(&a);
    assert_eq!(q.len(), 1);
    assert_eq!(pool.run_until(q.get()).as_deref(), Some("a"));
}

// TestLen
#[test]
fn len_counts_waiting_items() {
    let (q, _) = queue();
    for (i, x) in ["a", "b", "c"].iter().enumerate() {
        q.add(s(x));
        assert_eq!(q.len(), i + 1);
    }
}

// TestReinsert
#[test]
fn reinsert_after_done() {
    let (q, _) = queue();
    let mut pool = LocalPool::new();
    q.add(s("foo"));
    let i = pool.run_until(q.get()).expect("foo");
    q.add(i.clone());
    q.done(&i);
    assert_eq!(q.len(), 1);
    assert_eq!(pool.run_until(q.get()).as_deref(), Some("foo"));
    assert_eq!(q.len(), 0);
}

// TestCollapse: the same item added twice is processed once (stingy), in FIFO order.
#[test]
fn collapse_keeps_fifo_order() {
    let (q, _) = queue();
    let mut pool = LocalPool::new();
    for x in ["bar", "foo", "bar", "baz", "foo"] {
        q.add(s(x));
    }
    assert_eq!(drain_now(&mut pool, &q), ["bar", "foo", "baz"]);
}

// TestCollapseWhileProcessing
#[test]
fn collapse_while_processing() {
    let (q, _) = queue();
    let mut pool = LocalPool::new();
    q.add(s("a"));
    let a = pool.run_until(q.get()).expect("a");
    q.add(s("a"));
    q.add(s("a"));
    q.done(&a);
    assert_eq!(drain_now(&mut pool, &q), ["a"]);
}

// TestShutDownWithDrain family: drain waits for items in flight; get returns
// what is queued, then None; adds after shutdown are ignored.
#[test]
fn shut_down_with_drain_waits_for_work_in_flight() {
    let (q, _) = queue();
    let mut pool = LocalPool::new();
    q.add(s("a"));
    q.add(s("b"));
    let a = pool.run_until(q.get()).expect("a");
    let drained = Rc::new(RefCell::new(false));
    let (q2, d2) = (q.clone(), drained.clone());
    pool.spawner()
        .spawn_local(async move {
            q2.shut_down_with_drain().await;
            *d2.borrow_mut() = true;
        })
        .expect("spawn");
    pool.run_until_stalled();
    assert!(q.shutting_down());
    assert!(!*drained.borrow(), "a is still being processed");
    q.add(s("c"));
    let b = pool
        .run_until(q.get())
        .expect("queued items are still handed out");
    assert_eq!(b, "b");
    q.done(&a);
    pool.run_until_stalled();
    assert!(!*drained.borrow(), "b is still being processed");
    q.done(&b);
    pool.run_until_stalled();
    assert!(*drained.borrow());
    assert_eq!(
        pool.run_until(q.get()),
        None,
        "c was refused after shutdown"
    );
}

// client-go TestForceQueueShutdownUsingShutDown: ShutDown after
// ShutDownWithDrain stops the drain: the waiter returns although an item
// is still being processed.
#[test]
fn force_queue_shutdown_using_shut_down() {
    let (q, _) = queue();
    let mut pool = LocalPool::new();
    q.add(s("a"));
    let _a = pool.run_until(q.get()).expect("a");
    let drained = Rc::new(RefCell::new(false));
    let (q2, d2) = (q.clone(), drained.clone());
    pool.spawner()
        .spawn_local(async move {
            q2.shut_down_with_drain().await;
            *d2.borrow_mut() = true;
        })
        .expect("spawn");
    pool.run_until_stalled();
    assert!(!*drained.borrow(), "a is still being processed");
    q.shut_down();
    pool.run_until_stalled();
    assert!(
        *drained.borrow(),
        "ShutDown releases the ShutDownWithDrain waiter"
    );
}

#[test]
fn shut_down_wakes_idle_workers() {
    let (q, _) = queue();
    let mut pool = LocalPool::new();
    let ended = Rc::new(RefCell::new(0));
    for _ in 0..3 {
        let (q, ended) = (q.clone(), ended.clone());
        pool.spawner()
            .spawn_local(async move {
                assert!(q.get().await.is_none());
                *ended.borrow_mut() += 1;
            })
            .expect("spawn");
    }
    pool.run_until_stalled();
    assert_eq!(*ended.borrow(), 0);
    q.shut_down();
    pool.run_until_stalled();
    assert_eq!(*ended.borrow(), 3);
}

#[test]
fn metrics_use_client_go_names_and_measure_on_the_clock() {
    let (q, c) = queue();
    let mut pool = LocalPool::new();
    q.add(s("a"));
    q.add(s("a"));
    q.add(s("b"));
    c.advance(Duration::from_millis(50));
    let a = pool.run_until(q.get()).expect("a");
    c.advance(Duration::from_secs(2));
    let m = q.metrics();
    assert_eq!((m.adds, m.depth), (2, 1));
    assert_eq!(m.queue_latency.count, 1);
    assert!((m.queue_latency.sum - 0.05).abs() < 1e-9);
    assert!((m.unfinished_work_seconds - 2.0).abs() < 1e-9);
    assert!((m.longest_running_processor_seconds - 2.0).abs() < 1e-9);
    q.done(&a);
    let m = q.metrics();
    assert_eq!(m.work_duration.count, 1);
    assert!((m.work_duration.sum - 2.0).abs() < 1e-9);
    let text = m.prometheus();
    for name in [
        "workqueue_depth{name=\"test\"} 1",
        "workqueue_adds_total{name=\"test\"} 2",
        "workqueue_queue_duration_seconds_count",
        "workqueue_work_duration_seconds_sum",
        "workqueue_unfinished_work_seconds",
        "workqueue_longest_running_processor_seconds",
        "workqueue_retries_total{name=\"test\"} 0",
    ] {
        assert!(text.contains(name), "{name} missing from\n{text}");
    }
}

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

// TestItemExponentialFailureRateLimiter
#[test]
fn item_exponential_doubles_per_item_and_forgets() {
    let mut l = ItemExponential::new(Duration::from_millis(1), Duration::from_secs(1));
    let t = Duration::ZERO;
    let one = s("one");
    let waits: Vec<u64> = (0..5).map(|_| l.when(&one, t).as_millis() as u64).collect();
    assert_eq!(waits, [1, 2, 4, 8, 16]);
    assert_eq!(l.num_requeues(&one), 5);
    assert_eq!(l.when(&s("two"), t), Duration::from_millis(1));
    l.forget(&one);
    assert_eq!(l.num_requeues(&one), 0);
    assert_eq!(l.when(&one, t), Duration::from_millis(1));
}

// TestItemExponentialFailureRateLimiterOverFlow
#[test]
fn item_exponential_never_overflows() {
    let mut l = ItemExponential::new(Duration::from_millis(1), Duration::from_secs(1000));
    let x = s("x");
    for _ in 0..5 {
        l.when(&x, Duration::ZERO);
    }
    assert_eq!(l.when(&x, Duration::ZERO), Duration::from_millis(32));
    for _ in 0..2000 {
        l.when(&x, Duration::ZERO);
    }
    assert_eq!(l.when(&x, Duration::ZERO), Duration::from_secs(1000));
    let mut huge = ItemExponential::new(Duration::from_secs(u64::MAX / 4), Duration::MAX);
    for _ in 0..70 {
        huge.when(&x, Duration::ZERO);
    }
}

// TestItemFastSlowRateLimiter
#[test]
fn fast_then_slow() {
    let mut l = ItemFastSlow::new(Duration::from_millis(5), Duration::from_secs(10), 3);
    let one = s("one");
    let waits: Vec<Duration> = (0..5).map(|_| l.when(&one, Duration::ZERO)).collect();
    assert_eq!(waits[..3], [Duration::from_millis(5); 3]);
    assert_eq!(waits[3..], [Duration::from_secs(10); 2]);
    assert_eq!(l.num_requeues(&one), 5);
    l.forget(&one);
    assert_eq!(l.when(&one, Duration::ZERO), Duration::from_millis(5));
}

// TestMaxOfRateLimiter
#[test]
fn max_of_takes_the_longest_and_forgets_everywhere() {
    let mut l: MaxOf<String> = MaxOf::new(vec![
        Box::new(ItemFastSlow::new(
            Duration::from_millis(5),
            Duration::from_secs(3),
            3,
        )),
        Box::new(ItemExponential::new(
            Duration::from_millis(1),
            Duration::from_secs(1),
        )),
    ]);
    let one = s("one");
    let waits: Vec<u64> = (0..5)
        .map(|_| l.when(&one, Duration::ZERO).as_millis() as u64)
        .collect();
    assert_eq!(waits, [5, 5, 5, 3000, 3000]);
    assert_eq!(l.num_requeues(&one), 5);
    l.forget(&one);
    assert_eq!(l.num_requeues(&one), 0);
}

// TestWithMaxWaitRateLimiter
#[test]
fn with_max_wait_caps_the_delay() {
    let mut l: WithMaxWait<String> = WithMaxWait::new(
        Box::new(ItemExponential::new(
            Duration::from_secs(1),
            Duration::from_secs(1000),
        )),
        Duration::from_secs(5),
    );
    let x = s("x");
    let waits: Vec<u64> = (0..5)
        .map(|_| l.when(&x, Duration::ZERO).as_secs())
        .collect();
    assert_eq!(waits, [1, 2, 4, 5, 5]);
}

#[test]
fn the_default_controller_limiter_is_exponential_5ms_and_a_10_qps_100_burst_bucket() {
    let mut l = default_controller_rate_limiter::<String>();
    let t = Duration::from_secs(1);
    let x = s("x");
    assert_eq!(l.when(&x, t), Duration::from_millis(5));
    assert_eq!(l.when(&x, t), Duration::from_millis(10));
    assert_eq!(l.when(&x, t), Duration::from_millis(20));
    // Distinct items exhaust the bucket after 100 (three tokens went above).
    for i in 0..97 {
        assert_eq!(l.when(&format!("i{i}"), t), Duration::from_millis(5));
    }
    assert_eq!(
        l.when(&s("late"), t),
        Duration::from_millis(100),
        "10 qps once the burst is spent"
    );
    let mut b = Bucket::new(10.0, 100);
    let waits: Vec<Duration> = (0..101)
        .map(|_| RateLimiter::<String>::when(&mut b, &x, t))
        .collect();
    assert!(waits[..100].iter().all(|w| w.is_zero()));
    assert_eq!(waits[100], Duration::from_millis(100));
}

#[test]
fn a_rate_limiting_queue_requeues_after_the_limiters_delay() {
    let c = clock();
    let q: RateLimitingQueue<String> = RateLimitingQueue::new(
        "actions",
        Rc::new(c.clone()),
        Box::new(ItemExponential::new(
            Duration::from_millis(5),
            Duration::from_secs(1000),
        )),
    );
    let mut pool = LocalPool::new();
    pool.spawner()
        .spawn_local(q.delaying().clone().run())
        .expect("spawn");
    q.queue().add(s("scale"));
    let item = pool.run_until(q.queue().get()).expect("item");
    // It failed: retry later, and say it is done for now.
    q.add_rate_limited(item.clone());
    q.queue().done(&item);
    pool.run_until_stalled();
    assert_eq!(q.queue().len(), 0);
    c.advance(Duration::from_millis(5));
    pool.run_until_stalled();
    assert_eq!(q.queue().len(), 1);
    let item = pool.run_until(q.queue().get()).expect("item");
    q.add_rate_limited(item.clone());
    q.queue().done(&item);
    c.advance(Duration::from_millis(9));
    pool.run_until_stalled();
    assert_eq!(q.queue().len(), 0, "the second retry waits 10 ms");
    c.advance(Duration::from_millis(1));
    pool.run_until_stalled();
    assert_eq!(q.num_requeues(&item), 2);
    q.forget(&item);
    assert_eq!(q.num_requeues(&item), 0);
    assert_eq!(q.queue().metrics().retries, 2);
    let _ = c.now();
}
