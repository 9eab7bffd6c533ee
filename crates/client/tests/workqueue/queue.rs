//! The work queue (client-go queue_test): producers and consumers, adds while processing, collapsing, shutting down with and without drain, metrics.

use super::*;

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
