//! A message-oriented WebSocket both ways (kubeglass-client's `Duplex`):
//! what a shell in a container speaks, on the page's own origin under the
//! API's base, asking for the server's subprotocols.
//!
//! Messages arrive as `DuplexEvent`s on an unbounded channel, in the order
//! the browser delivers them. Dropping the event stream closes the socket
//! and releases its callbacks; the socket counts among the X-ray page's
//! WebSockets while open.

use std::cell::Cell;
use std::rc::Rc;

use futures::StreamExt;
use futures::channel::mpsc;
use futures::stream::LocalBoxStream;
use js_sys::{Array, ArrayBuffer, Uint8Array};
use kubeglass_client::transport::{Duplex, DuplexEvent, DuplexSender};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{BinaryType, CloseEvent, MessageEvent, WebSocket};

use crate::{ConnectionCounts, WebSocketTransport};

/// Sends on the socket; closing it is idempotent.
struct Sender {
    socket: WebSocket,
}

impl DuplexSender for Sender {
    fn send(&self, message: &[u8]) -> bool {
        self.socket.ready_state() == WebSocket::OPEN
            && self.socket.send_with_u8_array(message).is_ok()
    }

    fn close(&self) {
        let _ = self.socket.close_with_code(1000);
    }
}

/// The socket's message, close and open callbacks.
type Callbacks = (
    Closure<dyn FnMut(MessageEvent)>,
    Closure<dyn FnMut(CloseEvent)>,
    Closure<dyn FnMut(JsValue)>,
);

/// Holds the callbacks while the stream lives; closes the socket after.
struct Guard {
    socket: WebSocket,
    counts: Rc<ConnectionCounts>,
    _callbacks: Callbacks,
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.socket.set_onmessage(None);
        self.socket.set_onclose(None);
        self.socket.set_onopen(None);
        let _ = self.socket.close_with_code(1000);
        self.counts
            .websockets
            .set(self.counts.websockets.get().saturating_sub(1));
    }
}

/// A socket that could not even be made (a malformed URL): closed at once.
fn refused(reason: String) -> (Rc<dyn DuplexSender>, LocalBoxStream<'static, DuplexEvent>) {
    struct Nothing;
    impl DuplexSender for Nothing {
        fn send(&self, _: &[u8]) -> bool {
            false
        }
        fn close(&self) {}
    }
    let closed = DuplexEvent::Closed {
        code: 1006,
        reason,
        opened: false,
    };
    (
        Rc::new(Nothing),
        futures::stream::iter([closed]).boxed_local(),
    )
}

impl Duplex for WebSocketTransport {
    fn open(
        &self,
        path: &str,
        protocols: &[&str],
    ) -> (Rc<dyn DuplexSender>, LocalBoxStream<'static, DuplexEvent>) {
        let url = format!("{}{path}", self.ws_base);
        let offered: Array = protocols.iter().map(|p| JsValue::from_str(p)).collect();
        let socket = match WebSocket::new_with_str_sequence(&url, &offered) {
            Ok(s) => s,
            Err(e) => return refused(format!("{e:?}")),
        };
        socket.set_binary_type(BinaryType::Arraybuffer);
        let (tx, rx) = mpsc::unbounded::<DuplexEvent>();
        let opened = Rc::new(Cell::new(false));

        let msg_tx = tx.clone();
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            let data = e.data();
            let bytes = match data.dyn_ref::<ArrayBuffer>() {
                Some(buf) => Uint8Array::new(buf).to_vec(),
                None => data.as_string().unwrap_or_default().into_bytes(),
            };
            let _ = msg_tx.unbounded_send(DuplexEvent::Message(bytes));
        });
        let close_tx = tx.clone();
        let close_opened = opened.clone();
        let on_close = Closure::<dyn FnMut(CloseEvent)>::new(move |e: CloseEvent| {
            let _ = close_tx.unbounded_send(DuplexEvent::Closed {
                code: e.code(),
                reason: e.reason(),
                opened: close_opened.get(),
            });
            close_tx.close_channel();
        });
        let open_socket = socket.clone();
        let on_open = Closure::<dyn FnMut(JsValue)>::new(move |_| {
            opened.set(true);
            let _ = tx.unbounded_send(DuplexEvent::Open {
                protocol: open_socket.protocol(),
            });
        });
        socket.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        socket.set_onclose(Some(on_close.as_ref().unchecked_ref()));
        socket.set_onopen(Some(on_open.as_ref().unchecked_ref()));
        let counts = self.fetch().counts();
        counts.websockets.set(counts.websockets.get() + 1);
        counts.total.set(counts.total.get() + 1);
        let guard = Guard {
            socket: socket.clone(),
            counts,
            _callbacks: (on_message, on_close, on_open),
        };
        let stream = rx
            .map(move |event| {
                let _keep = &guard;
                event
            })
            .boxed_local();
        (Rc::new(Sender { socket }), stream)
    }
}
