//! The rate limiters (client-go default_rate_limiters_test) and the rate-limiting queue.

use super::*;

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
