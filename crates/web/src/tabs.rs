//! The browser's side of watches shared between tabs
//! (`kubeglass_client::tabs`): BroadcastChannel for the messages, Web
//! Locks for who holds each watch. Both are the origin's own: a tab of
//! another origin (another context, another run of the launcher) never
//! hears them.
//!
//! Web Locks are reached through `js_sys::Reflect`: web-sys marks
//! `LockManager` unstable.

use futures::channel::{mpsc, oneshot};
use futures::future::LocalBoxFuture;
use futures::{FutureExt, Stream, StreamExt};
use js_sys::{Function, Object, Promise, Reflect};
use kubeglass_client::tabs::{Bus, Channel, LockGuard};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{AbortController, BroadcastChannel, MessageEvent};

/// This tab's BroadcastChannels and Web Locks.
#[derive(Default)]
pub struct TabBus;

impl TabBus {
    /// The bus of this tab; None where the browser has no Web Locks or
    /// BroadcastChannel (every watch is then the tab's own).
    pub fn new() -> Option<Self> {
        let global = js_sys::global();
        let navigator = Reflect::get(&global, &"navigator".into()).ok()?;
        let locks = Reflect::get(&navigator, &"locks".into()).ok()?;
        let has_channel = Reflect::has(&global, &"BroadcastChannel".into()).unwrap_or(false);
        (!locks.is_undefined() && has_channel).then_some(Self)
    }
}

/// Releases a held lock when dropped (resolves the promise the lock's
/// callback returned).
struct Release(Function);

impl Drop for Release {
    fn drop(&mut self) {
        let _ = self.0.call0(&JsValue::UNDEFINED);
    }
}

thread_local! {
    /// Takes a rejection nobody needs to hear of.
    static IGNORE: Closure<dyn FnMut(JsValue)> = Closure::new(|_: JsValue| {});
}

/// Asks for the lock `name`: the answer is the guard, or None when
/// `if_available` and somebody holds it. Aborting `abort` gives up waiting.
fn request_lock(
    name: &str,
    if_available: bool,
    abort: Option<&AbortController>,
) -> oneshot::Receiver<Option<LockGuard>> {
    let (tx, rx) = oneshot::channel();
    let Some(locks) = js_sys::global()
        .dyn_into::<Object>()
        .ok()
        .and_then(|g| Reflect::get(&g, &"navigator".into()).ok())
        .and_then(|n| Reflect::get(&n, &"locks".into()).ok())
    else {
        let _ = tx.send(None);
        return rx;
    };
    let on_grant = Closure::once_into_js(move |lock: JsValue| -> JsValue {
        if lock.is_null() {
            let _ = tx.send(None);
            return JsValue::UNDEFINED;
        }
        let mut release = None;
        let held = Promise::new(&mut |resolve, _| release = Some(resolve));
        // If the asker has gone, the guard is dropped here and lets go.
        let _ = tx.send(release.map(|r| LockGuard::new(Release(r))));
        held.into()
    });
    let options = Object::new();
    let _ = Reflect::set(&options, &"ifAvailable".into(), &if_available.into());
    if let Some(a) = abort {
        let _ = Reflect::set(&options, &"signal".into(), &a.signal().into());
    }
    let request = Reflect::get(&locks, &"request".into())
        .ok()
        .and_then(|f| f.dyn_into::<Function>().ok());
    if let Some(request) = request
        && let Ok(p) = request.call3(&locks, &name.into(), &options, &on_grant)
        && let Ok(p) = p.dyn_into::<Promise>()
    {
        // An aborted wait rejects; nobody needs to hear of it.
        IGNORE.with(|ignore| {
            let _ = p.catch(ignore);
        });
    }
    rx
}

/// A wait for a lock that is called off when dropped.
struct Waiting {
    abort: AbortController,
    granted: bool,
}

impl Waiting {
    /// The lock came: nothing to call off any more.
    fn granted(&mut self) {
        self.granted = true;
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if !self.granted {
            self.abort.abort();
        }
    }
}

/// Messages heard on one channel; dropping it stops listening.
struct Listening {
    channel: BroadcastChannel,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    messages: mpsc::UnboundedReceiver<String>,
}

impl Drop for Listening {
    fn drop(&mut self) {
        self.channel.set_onmessage(None);
        self.channel.close();
    }
}

impl Stream for Listening {
    type Item = String;
    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<String>> {
        self.messages.poll_next_unpin(cx)
    }
}

impl Bus for TabBus {
    fn listen(&self, channel: &str) -> Channel {
        let Ok(c) = BroadcastChannel::new(channel) else {
            return Channel {
                messages: futures::stream::empty().boxed_local(),
                post: std::rc::Rc::new(|_| {}),
            };
        };
        let (tx, rx) = mpsc::unbounded();
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            if let Some(text) = e.data().as_string() {
                let _ = tx.unbounded_send(text);
            }
        });
        c.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        let poster = c.clone();
        Channel {
            messages: Listening {
                channel: c,
                _on_message: on_message,
                messages: rx,
            }
            .boxed_local(),
            // This object never hears what it posts; once the listener is
            // dropped (the channel closed) a post is lost, as it should be.
            post: std::rc::Rc::new(move |message: String| {
                let _ = poster.post_message(&message.into());
            }),
        }
    }

    fn try_lock(&self, name: &str) -> LocalBoxFuture<'static, Option<LockGuard>> {
        let answer = request_lock(name, true, None);
        async move { answer.await.ok().flatten() }.boxed_local()
    }

    fn lock(&self, name: &str) -> LocalBoxFuture<'static, LockGuard> {
        let Ok(abort) = AbortController::new() else {
            return futures::future::pending().boxed_local();
        };
        let answer = request_lock(name, false, Some(&abort));
        let mut waiting = Waiting {
            abort,
            granted: false,
        };
        async move {
            match answer.await {
                Ok(Some(guard)) => {
                    waiting.granted();
                    guard
                }
                // The request failed (no Web Locks after all): never granted.
                _ => futures::future::pending().await,
            }
        }
        .boxed_local()
    }
}
