//! Log streams: lines cut and handed over once per frame, the X-ray list,
//! refusals, and closing.

use kubeglass_client::kube_core::subresource::LogParams;

use super::*;
use crate::kube::subscribe::logs::{
    LogFeed, LogStream, OpenStream, StreamState, log_streams, open_log,
};

const LOG: &str = "/api/v1/namespaces/ns/pods/web-1/log";

type Lines = Rc<RefCell<Vec<Vec<String>>>>;
type States = Rc<RefCell<Vec<StreamState>>>;

fn followed() -> LogParams {
    LogParams {
        container: Some("app".into()),
        follow: true,
        ..LogParams::default()
    }
}

/// Opens `web-1`'s log with `params`; returns the stream, each frame's
/// lines and the states it went through.
fn open(rig: &Rig, params: LogParams) -> (LogStream, Lines, States) {
    let (lines, states) = (Lines::default(), States::default());
    let l = lines.clone();
    let feed = LogFeed::new(&rig.kube, move |batch| {
        l.borrow_mut()
            .push(batch.iter().map(|line| line.text.to_string()).collect())
    });
    let s = states.clone();
    let stream = open_log(&rig.kube, "ns", "web-1", params, 0, feed, move |state| {
        s.borrow_mut().push(state)
    });
    (stream, lines, states)
}

fn listed() -> OpenStream {
    let mut all = log_streams();
    assert_eq!(all.len(), 1, "{all:?}");
    all.remove(0)
}

#[test]
fn a_followed_log_arrives_in_lines_once_per_frame() {
    let mut rig = rig();
    let (reply, body) = Reply::stream();
    rig.server
        .expect_get(LOG)
        .query("follow", "true")
        .query("container", "app")
        .reply(reply);
    let (stream, lines, states) = open(&rig, followed());
    rig.run();
    assert_eq!(*states.borrow(), [StreamState::Opening, StreamState::Open]);
    body.chunk("started\nlisten");
    body.chunk("ing on :8080\n");
    rig.run();
    assert!(lines.borrow().is_empty(), "lines reach the view at a frame");
    assert_eq!(rig.frame(), 1);
    assert_eq!(*lines.borrow(), [vec!["started", "listening on :8080"]]);
    let row = listed();
    assert_eq!(
        (
            row.pod.as_str(),
            row.container.as_str(),
            row.over,
            row.lines,
            row.open
        ),
        ("ns/web-1", "app", "fetch", 2, true)
    );
    // The container stops: the last line, unterminated, still comes.
    body.chunk("bye");
    body.close();
    rig.frame();
    assert_eq!(lines.borrow()[1], ["bye"]);
    assert_eq!(states.borrow().last(), Some(&StreamState::Ended));
    assert!(!listed().open);
    drop(stream);
}

#[test]
fn a_log_the_api_refuses_says_why_and_is_listed_closed() {
    let mut rig = rig();
    rig.server.expect_get(LOG).reply(Reply::status(
        403,
        "Forbidden",
        "pods \"web-1\" is forbidden: User \"viewer\" cannot get resource \"pods/log\"",
    ));
    let (_stream, lines, states) = open(&rig, followed());
    rig.frame();
    match states.borrow().last() {
        Some(StreamState::Failed(p)) => {
            assert!(format!("{p:?}").contains("cannot get resource"), "{p:?}")
        }
        other => panic!("a refused log must fail with the API's words: {other:?}"),
    }
    assert!(lines.borrow().is_empty());
    assert!(!listed().open);
}

#[test]
fn closing_the_view_closes_the_stream() {
    let mut rig = rig();
    let (reply, body) = Reply::stream();
    rig.server.expect_get(LOG).reply(reply);
    let (stream, _lines, _states) = open(&rig, followed());
    rig.run();
    assert!(listed().open);
    drop(stream);
    rig.run();
    assert!(body.is_cancelled(), "the request is still open");
    assert!(!listed().open);
}

#[test]
fn x_ray_names_the_transport_a_followed_log_really_went_over() {
    let mut rig = rig();
    rig.switches.logs.set(true);
    let (reply, _body) = Reply::stream();
    rig.server.expect_get(LOG).reply(reply);
    let (_stream, _lines, _states) = open(&rig, followed());
    assert_eq!(listed().over, "WebSocket");
    // The socket failed as it opened, and the transport fell back to fetch
    // (turning WebSockets off for logs): the row must say so.
    rig.switches.logs.set(false);
    rig.run();
    assert_eq!(listed().over, "fetch");
}
