//! Work queue, delaying queue and rate limiters on a fake clock, ported from
//! client-go's util/workqueue tests (named in the comments).

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use kubeglass_client::clock::PassiveClock;
use kubeglass_client::workqueue::{
    Bucket, DelayingQueue, ItemExponential, ItemFastSlow, MaxOf, Queue, RateLimiter,
    RateLimitingQueue, WithMaxWait, default_controller_rate_limiter,
};
use kubeglass_testing::FakeClock;

mod delaying;
mod queue;
mod rate_limit;

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
