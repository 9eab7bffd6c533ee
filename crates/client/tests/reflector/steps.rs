//! The state machine one step at a time: each `step` sends at most one
//! request (or reads one event, or sleeps once), and the phase it returns
//! says what the next one does.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll};

use futures::task::noop_waker_ref;
use kubeglass_client::cache::reflector::{ListFrom, Phase};

use super::*;

/// A reflector that is stepped by hand (no driver), its store and status.
struct Stepper {
    clock: FakeClock,
    server: FakeApiServer,
    reflector: Reflector<ConfigMap>,
    store: Rc<RefCell<Store<ConfigMap>>>,
    status: Rc<RefCell<ReflectorStatus>>,
}

impl Stepper {
    fn new(server: FakeApiServer, config: ReflectorConfig) -> Self {
        let clock = FakeClock::new(Duration::from_secs(1_700_000_000));
        let store = Rc::new(RefCell::new(Store::<ConfigMap>::new()));
        let mut backoff = Backoff::reflector(1);
        backoff.jitter = 0.0;
        let reflector = Reflector::new(
            RestClient::new(Rc::new(server.clone())),
            Rc::new(clock.clone()),
            config,
            store.clone(),
        )
        .with_backoff(backoff);
        let status = reflector.status();
        Self {
            clock,
            server,
            reflector,
            store,
            status,
        }
    }

    /// One step whose I/O is ready at once (the fake answered, the event
    /// is in): it must complete in one poll.
    fn step(&mut self, phase: Phase<ConfigMap>) -> Phase<ConfigMap> {
        let mut step = pin!(self.reflector.step(phase));
        match step
            .as_mut()
            .poll(&mut Context::from_waker(noop_waker_ref()))
        {
            Poll::Ready(next) => next,
            Poll::Pending => panic!("the step waited for I/O that was ready"),
        }
    }

    /// One step that must wait until the clock has moved `wait` (a backoff).
    fn step_after(&mut self, wait: Duration, phase: Phase<ConfigMap>) -> Phase<ConfigMap> {
        let clock = self.clock.clone();
        let mut step = pin!(self.reflector.step(phase));
        let mut cx = Context::from_waker(noop_waker_ref());
        assert!(step.as_mut().poll(&mut cx).is_pending(), "did not wait");
        clock.advance(wait - Duration::from_millis(1));
        assert!(
            step.as_mut().poll(&mut cx).is_pending(),
            "waited too little"
        );
        clock.advance(Duration::from_millis(1));
        match step.as_mut().poll(&mut cx) {
            Poll::Ready(next) => next,
            Poll::Pending => panic!("still waiting after {wait:?}"),
        }
    }

    fn requests(&self) -> usize {
        self.server.log().len()
    }

    fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.store.borrow().keys().map(String::from).collect();
        v.sort();
        v
    }
}

fn continue_token(phase: &Phase<ConfigMap>) -> Option<String> {
    match phase {
        Phase::Listing(l) => l.pager().continue_token().map(String::from),
        other => panic!("expected a list in progress, got {other:?}"),
    }
}

/// A list page, the next page, a watch opened, an event applied, then a 410:
/// one backoff and exactly one relist, at the last version.
#[test]
fn a_paged_list_a_watch_an_event_then_a_410_leads_to_exactly_one_relist() {
    let server = FakeApiServer::new();
    server
        .expect_get(PATH)
        .query("resourceVersion", "0")
        .query("limit", "500")
        .reply(list("10", vec![cm("a", "5")], Some("page-2")));
    server
        .expect_get(PATH)
        .query("continue", "page-2")
        .reply(list("10", vec![cm("b", "6")], None));
    let (reply, watch) = Reply::stream();
    server
        .expect_get(PATH)
        .query("watch", "true")
        .query("resourceVersion", "10")
        .reply(reply);
    server
        .expect_get(PATH)
        .query("resourceVersion", "11")
        .no_query("watch")
        // Paged: the rv=0 list came back in pages (no watch cache).
        .query("limit", "500")
        .reply(list("20", vec![cm("a", "5"), cm("c", "11")], None));
    let mut s = Stepper::new(server, ReflectorConfig::new(PATH));

    let phase = s.reflector.first_phase();
    assert!(matches!(phase, Phase::List(ListFrom::Any)), "{phase:?}");
    assert_eq!(s.requests(), 0, "building a phase sends nothing");

    // The first page: one request, the store not touched yet.
    let phase = s.step(phase);
    assert_eq!(continue_token(&phase).as_deref(), Some("page-2"));
    assert_eq!(s.requests(), 1);
    assert!(s.names().is_empty(), "a half list is not stored");
    assert_eq!(s.status.borrow().state, ReflectorState::Listing);

    // The last page: the store holds both pages; the watch comes next.
    let phase = s.step(phase);
    assert!(matches!(phase, Phase::Watch), "{phase:?}");
    assert_eq!(s.requests(), 2);
    assert_eq!(s.names(), ["ns/a", "ns/b"]);
    assert_eq!(s.status.borrow().lists, 1);

    // The watch opens: one request, no event read yet.
    let phase = s.step(phase);
    assert!(
        matches!(&phase, Phase::Watching(w) if !w.is_streaming() && w.resource_version() == "10"),
        "{phase:?}"
    );
    assert_eq!(s.requests(), 3);
    assert_eq!(s.status.borrow().state, ReflectorState::Watching);

    // One event, one step.
    watch.event("DELETED", cm("b", "11"));
    watch.event("ERROR", expired_status());
    let phase = s.step(phase);
    assert!(matches!(phase, Phase::Watching(_)), "{phase:?}");
    assert_eq!(s.names(), ["ns/a"]);
    assert_eq!(s.status.borrow().deleted, 1);
    assert_eq!(s.requests(), 3);

    // The 410: the watch is over; the backoff comes before the relist.
    let phase = s.step(phase);
    let Phase::Backoff { delay, then } = &phase else {
        panic!("expected a backoff, got {phase:?}")
    };
    assert_eq!(*delay, Duration::from_millis(800));
    assert!(
        matches!(&**then, Phase::List(ListFrom::NotOlderThan(rv)) if rv == "11"),
        "{then:?}"
    );
    assert!(watch.is_cancelled(), "the watch was dropped");
    assert_eq!(s.requests(), 3, "nothing sent on a 410");
    let delay = *delay;
    let phase = s.step_after(delay, phase);
    assert!(
        matches!(&phase, Phase::List(ListFrom::NotOlderThan(rv)) if rv == "11"),
        "{phase:?}"
    );
    assert_eq!(s.requests(), 3, "a backoff sends nothing");

    // Exactly one relist, at the last version.
    let phase = s.step(phase);
    assert!(matches!(phase, Phase::Watch), "{phase:?}");
    assert_eq!(s.requests(), 4);
    assert_eq!(s.names(), ["ns/a", "ns/c"]);
    assert_eq!(s.status.borrow().lists, 2);
    s.server.verify();
}

/// The ERROR event of a watch whose version expired.
fn expired_status() -> Value {
    json!({"kind": "Status", "apiVersion": "v1", "status": "Failure",
           "reason": "Expired", "code": 410, "message": "too old resource version: 10 (40)"})
}

/// A continue token that expired mid-list: that step sends one request and
/// leaves the pager set for one full list at the version first asked for;
/// the next step sends it.
#[test]
fn an_expired_continue_token_is_one_step_then_the_full_list_is_the_next() {
    let server = FakeApiServer::new();
    server
        .expect_get(PATH)
        .query("resourceVersion", "0")
        .query("limit", "500")
        .reply(list("10", vec![cm("a", "5")], Some("page-2")));
    server
        .expect_get(PATH)
        .query("continue", "page-2")
        .reply(Reply::status(
            410,
            "Expired",
            "the continue token is too old",
        ));
    server
        .expect_get(PATH)
        .query("resourceVersion", "0")
        .no_query("limit")
        .no_query("continue")
        .reply(list("12", vec![cm("a", "5"), cm("b", "12")], None));
    let mut s = Stepper::new(server, ReflectorConfig::new(PATH));
    let phase = s.step(Phase::List(ListFrom::Any));
    assert_eq!(continue_token(&phase).as_deref(), Some("page-2"));
    let phase = s.step(phase);
    match &phase {
        Phase::Listing(l) => {
            assert!(l.pager().is_full_list(), "{l:?}");
            assert_eq!(l.pager().continue_token(), None);
            assert_eq!(l.pager().items_so_far(), 0, "the first page is dropped");
        }
        other => panic!("expected the full list next, got {other:?}"),
    }
    assert_eq!(s.requests(), 2);
    assert_eq!(
        s.status.borrow().errors,
        0,
        "an expired token is no failure"
    );
    let phase = s.step(phase);
    assert!(matches!(phase, Phase::Watch), "{phase:?}");
    assert_eq!(s.requests(), 3);
    assert_eq!(s.names(), ["ns/a", "ns/b"]);
    s.server.verify();
}

/// A relist at the last version that is told 410 too asks for the latest
/// state in the very next step, with no backoff between.
#[test]
fn a_410_on_the_relist_at_the_last_version_lists_the_latest_next() {
    let server = FakeApiServer::new();
    server
        .expect_get(PATH)
        .query("resourceVersion", "15")
        .reply(Reply::status(
            410,
            "Expired",
            "too old resource version: 15 (30)",
        ));
    server
        .expect_get(PATH)
        .no_query("resourceVersion")
        .query("limit", "500")
        .reply(list("30", vec![cm("a", "25")], None));
    let mut s = Stepper::new(server, ReflectorConfig::new(PATH));
    let phase = s.step(Phase::List(ListFrom::NotOlderThan("15".into())));
    assert!(matches!(phase, Phase::List(ListFrom::Latest)), "{phase:?}");
    assert_eq!(s.status.borrow().errors, 1);
    let phase = s.step(phase);
    assert!(matches!(phase, Phase::Watch), "{phase:?}");
    assert_eq!(s.names(), ["ns/a"]);
    assert_eq!(s.status.borrow().lists, 1);
    s.server.verify();
}

/// A streaming list: one step opens it, one step per event folds the
/// initial state, the end bookmark swaps it in, and the same stream goes on
/// as a plain watch; when it closes, a plain watch is next (no list).
#[test]
fn a_streaming_list_takes_one_step_per_event_and_goes_on_as_a_watch() {
    let server = FakeApiServer::new();
    let (reply, feed) = Reply::stream();
    server
        .expect_get(PATH)
        .query("watch", "true")
        .query("sendInitialEvents", "true")
        .reply(reply);
    let mut s = Stepper::new(server, ReflectorConfig::new(PATH).streaming());
    let phase = s.reflector.first_phase();
    assert!(matches!(phase, Phase::WatchList), "{phase:?}");
    let phase = s.step(phase);
    assert!(
        matches!(&phase, Phase::Watching(w) if w.is_streaming() && w.is_initial()),
        "{phase:?}"
    );
    assert_eq!(s.requests(), 1);

    feed.event("ADDED", cm("a", "5"));
    feed.event("ADDED", cm("b", "6"));
    let phase = s.step(phase);
    let phase = s.step(phase);
    assert!(
        matches!(&phase, Phase::Watching(w) if w.initial_len() == 2),
        "{phase:?}"
    );
    assert!(
        s.names().is_empty(),
        "nothing stored before the end bookmark"
    );
    assert!(!s.status.borrow().synced);

    feed.event(
        "BOOKMARK",
        json!({"apiVersion": "v1", "kind": "ConfigMap",
               "metadata": {"resourceVersion": "10",
                            "annotations": {"k8s.io/initial-events-end": "true"}}}),
    );
    let phase = s.step(phase);
    assert!(
        matches!(&phase, Phase::Watching(w) if w.is_streaming() && !w.is_initial()),
        "{phase:?}"
    );
    assert_eq!(s.names(), ["ns/a", "ns/b"]);
    assert!(s.status.borrow().synced);
    assert_eq!(s.status.borrow().state, ReflectorState::Watching);

    feed.event("ADDED", cm("c", "11"));
    let phase = s.step(phase);
    assert_eq!(s.names(), ["ns/a", "ns/b", "ns/c"]);
    s.clock.advance(Duration::from_secs(2));
    feed.close();
    let phase = s.step(phase);
    assert!(matches!(phase, Phase::Watch), "{phase:?}");
    assert_eq!(s.requests(), 1, "closing sends nothing");
    assert_eq!(
        s.status.borrow().last_resource_version.as_deref(),
        Some("11")
    );
    s.server.verify();
}
