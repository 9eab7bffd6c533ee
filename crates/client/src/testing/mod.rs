//! Fakes for unit tests: a manually stepped clock and a scripted API server.
//!
//! These are fakes, not the real thing: integration tests use the real
//! apiserver through `kubectl proxy`.

mod clock;
pub mod informer_scenarios;
mod reply;
pub mod scenarios;
mod server;
pub mod sim;

pub use clock::FakeClock;
pub use reply::{Reply, StreamHandle};
pub use server::{ExpectBuilder, FakeApiServer};

// For the simulated server, which answers and decodes queries the same way.
use reply::into_response;
use server::decode;
