//! A LIST read as its body arrives (`RestClient::receive` with a
//! `ListDecoder`, what the reflector lists with): items are decoded before
//! the body ends, a connection that breaks in the middle is asked again
//! into a fresh decoder, and an error answer is still an API error.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kubeglass_client::rest::list::{ListDecoder, ListPage};
use kubeglass_client::rest::{BodyReader, Error, RestClient};
use kubeglass_client::transport::TransportError;
use kubeglass_testing::{FakeApiServer, FakeClock, Reply};
use serde_json::json;

const PATH: &str = "/api/v1/namespaces/ns/configmaps";

fn get() -> http::Request<Vec<u8>> {
    http::Request::get(PATH).body(Vec::new()).expect("request")
}

fn body(names: &[&str]) -> String {
    let items: Vec<_> = names
        .iter()
        .map(|n| json!({"metadata": {"name": n, "namespace": "ns"}, "data": {"k": "v"}}))
        .collect();
    json!({"kind": "ConfigMapList", "metadata": {"resourceVersion": "9"}, "items": items})
        .to_string()
}

/// A list decoder that tells, after each chunk, how many items it has read.
struct Watched {
    decoder: ListDecoder<'static, ConfigMap>,
    seen: Rc<Cell<usize>>,
}

impl BodyReader for Watched {
    type Output = ListPage<ConfigMap>;
    fn push(&mut self, chunk: &[u8]) {
        self.decoder.push(chunk);
        self.seen.set(self.decoder.seen());
    }
    fn finish(self) -> Result<ListPage<ConfigMap>, Error> {
        self.decoder.finish()
    }
}

fn names(page: &ListPage<ConfigMap>) -> Vec<String> {
    page.items
        .iter()
        .map(|c| c.metadata.name.clone().unwrap_or_default())
        .collect()
}

type Got = Rc<RefCell<Option<Result<ListPage<ConfigMap>, Error>>>>;

/// Spawns `client.receive` of the list into a decoder whose progress
/// `seen` shows; the outcome lands in the returned cell.
fn receive(pool: &LocalPool, client: &RestClient, seen: &Rc<Cell<usize>>) -> Got {
    let got: Got = Rc::default();
    let (g, client, seen) = (got.clone(), client.clone(), seen.clone());
    let made = Rc::new(Cell::new(0));
    pool.spawner()
        .spawn_local(async move {
            let page = client
                .receive(get(), || {
                    made.set(made.get() + 1);
                    seen.set(0);
                    Watched {
                        decoder: ListDecoder::new(false, &|k| k),
                        seen: seen.clone(),
                    }
                })
                .await;
            *g.borrow_mut() = Some(page);
        })
        .expect("spawn");
    got
}

#[test]
fn items_are_decoded_while_the_rest_of_the_list_is_on_its_way() {
    let server = FakeApiServer::new();
    let (reply, feed) = Reply::stream();
    server.expect_get(PATH).reply(reply);
    let client = RestClient::new(Rc::new(server.clone()));
    let mut pool = LocalPool::new();
    let seen = Rc::new(Cell::new(0));
    let got = receive(&pool, &client, &seen);
    let whole = body(&["a", "b", "c"]);
    let cut = whole.find("\"c\"").expect("c");
    feed.chunk(&whole.as_bytes()[..cut]);
    pool.run_until_stalled();
    assert!(got.borrow().is_none(), "the body has not ended");
    assert_eq!(seen.get(), 2, "a and b decoded before c's bytes came");
    feed.chunk(&whole.as_bytes()[cut..]);
    feed.close();
    pool.run_until_stalled();
    let page = got.borrow_mut().take().expect("done").expect("page");
    assert_eq!(names(&page), ["a", "b", "c"]);
    assert_eq!(page.metadata.resource_version.as_deref(), Some("9"));
    server.verify();
}

#[test]
fn a_list_whose_connection_breaks_midway_is_read_again_from_its_start() {
    let server = FakeApiServer::new();
    let (reply, feed) = Reply::stream();
    server.expect_get(PATH).reply(reply);
    server.expect_get(PATH).reply(Reply::Body {
        status: 200,
        headers: Vec::new(),
        body: body(&["a", "b", "c"]).into_bytes(),
    });
    let clock = FakeClock::new(Duration::from_secs(1_000));
    let client = RestClient::new(Rc::new(server.clone())).with_clock(Rc::new(clock.clone()));
    let mut pool = LocalPool::new();
    let seen = Rc::new(Cell::new(0));
    let got = receive(&pool, &client, &seen);
    let whole = body(&["a", "b", "c"]);
    feed.chunk(&whole.as_bytes()[..whole.find("\"c\"").expect("c")]);
    feed.fail(TransportError::Read("connection reset by peer".into()));
    pool.run_until_stalled();
    assert!(
        got.borrow().is_none(),
        "waiting a second before asking again"
    );
    assert_eq!(clock.advance_to_next_timer(), Some(Duration::from_secs(1)));
    pool.run_until_stalled();
    let page = got.borrow_mut().take().expect("done").expect("page");
    assert_eq!(
        names(&page),
        ["a", "b", "c"],
        "each item once, from a fresh decoder"
    );
    assert_eq!(client.metrics().retries, 1);
    server.verify();
}

#[test]
fn without_a_clock_a_break_is_the_error_and_a_refusal_is_an_api_error() {
    let server = FakeApiServer::new();
    let (reply, feed) = Reply::stream();
    server.expect_get(PATH).reply(reply);
    server
        .expect_get(PATH)
        .reply(Reply::status(403, "Forbidden", "configmaps is forbidden"));
    server.expect_get(PATH).reply(Reply::Body {
        status: 200,
        headers: Vec::new(),
        body: b"{\"items\": [{\"metadata\"".to_vec(),
    });
    let client = RestClient::new(Rc::new(server.clone()));
    let mut pool = LocalPool::new();
    let seen = Rc::new(Cell::new(0));
    let got = receive(&pool, &client, &seen);
    feed.chunk(&body(&["a"]).as_bytes()[..20]);
    feed.fail(TransportError::Read("connection reset by peer".into()));
    pool.run_until_stalled();
    let e = got.borrow_mut().take().expect("done").expect_err("broken");
    assert!(
        matches!(e, Error::Transport(TransportError::Read(_))),
        "{e}"
    );
    let got = receive(&pool, &client, &seen);
    pool.run_until_stalled();
    let e = got.borrow_mut().take().expect("done").expect_err("refused");
    assert_eq!(e.api().map(|a| a.code), Some(403), "{e}");
    assert!(e.to_string().contains("configmaps is forbidden"), "{e}");
    let got = receive(&pool, &client, &seen);
    pool.run_until_stalled();
    let e = got
        .borrow_mut()
        .take()
        .expect("done")
        .expect_err("cut short");
    assert!(matches!(e, Error::Decode(_)), "{e}");
    server.verify();
}

// A list whose bytes stop mid-body ends with a clear error once nothing has
// come for LIST_IDLE_TIMEOUT, and is not asked again here (the reflector
// backs off); a list that keeps trickling, however slowly, is read whole.
#[test]
fn a_list_that_stops_sending_is_given_up_as_stalled_and_a_slow_one_is_not() {
    use kubeglass_client::rest::LIST_IDLE_TIMEOUT;
    let server = FakeApiServer::new();
    let (reply, feed) = Reply::stream();
    server.expect_get(PATH).reply(reply);
    let clock = FakeClock::new(Duration::from_secs(1_000));
    let client = RestClient::new(Rc::new(server.clone())).with_clock(Rc::new(clock.clone()));
    let mut pool = LocalPool::new();
    let seen = Rc::new(Cell::new(0));
    let got = receive(&pool, &client, &seen);
    let whole = body(&["a", "b", "c"]);
    let bytes = whole.as_bytes();
    // Slow: a piece every 29 s.
    for piece in bytes[..bytes.len() / 2].chunks(bytes.len() / 6) {
        feed.chunk(piece);
        pool.run_until_stalled();
        clock.advance(LIST_IDLE_TIMEOUT - Duration::from_secs(1));
        pool.run_until_stalled();
        assert!(got.borrow().is_none(), "a slow list is still being read");
    }
    // Then nothing at all.
    clock.advance(Duration::from_secs(1));
    pool.run_until_stalled();
    let e = got.borrow_mut().take().expect("done").expect_err("stalled");
    assert!(
        matches!(e, Error::Transport(TransportError::Stalled(d)) if d == LIST_IDLE_TIMEOUT),
        "{e}"
    );
    assert!(e.to_string().contains("nothing arrived for 30s"), "{e}");
    assert!(feed.is_cancelled(), "the stalled request is dropped");
    assert_eq!(client.metrics().retries, 0, "not asked again here");
    server.verify();
}
