//! kubeglass-testing: what the tests of every crate share, and no build of
//! the app links (`publish = false`): fakes for unit tests (a manually
//! stepped clock and a scripted API server), a simulated apiserver, and the
//! scenarios the client's behaviour is checked by, run against the fakes,
//! natively against the real cluster (`crates/native`) and in Chromium
//! (`crates/web`).
//!
//! These are fakes, not the real thing: integration tests use the real
//! apiserver through `kubectl proxy`.
//!
//! # The fakes
//!
//! The client crate never reads the clock: `Instant::now`, `SystemTime::now` and
//! `thread::sleep` are forbidden by `crates/client/clippy.toml`. Time comes from an
//! injected `Clock` (`now` + `sleep`); tests step a `FakeClock` and never sleep.
//! Transports implement `Transport` (`send` for whole bodies, `stream` for
//! watches); tests use `FakeApiServer`, a scripted server that asserts each
//! request and fails on an unexpected or missing one — verified when the test's
//! handle is dropped.

pub mod bus;
mod clock;
pub mod duplex;
pub mod informer_scenarios;
mod reply;
pub mod scenarios;
mod server;
pub mod sim;

pub use bus::MemoryBus;
pub use clock::FakeClock;
pub use duplex::FakeDuplex;
pub use reply::{Reply, StreamHandle};
pub use server::{ExpectBuilder, FakeApiServer};

// For the simulated server, which answers and decodes queries the same way.
use reply::into_response;
use server::decode;
