//! The port of a context: the same from run to run, so the origin (and with
//! it the browser's storage for that cluster) stays the same, while
//! different contexts get different origins.

use std::net::{Ipv4Addr, TcpListener};
use std::ops::Range;

/// Where derived ports fall: 800 ports clear of the project's own scripts
/// (8001, 1xxxx–4xxxx below 47000) and of well-known services. Linux's
/// ephemeral range (32768–60999) includes it, so an outgoing connection may
/// hold one for a while; then [`bind`] falls back to a free port.
pub const PORT_RANGE: Range<u16> = 47100..47900;

/// The derived port of `context`: FNV-1a of its name, folded into
/// [`PORT_RANGE`]. Stable across runs, machines and Rust versions.
pub fn port_for(context: &str) -> u16 {
    let mut h: u32 = 0x811c_9dc5;
    for b in context.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    let span = u32::from(PORT_RANGE.end - PORT_RANGE.start);
    // The remainder is below `span`, which fits a u16.
    PORT_RANGE.start + u16::try_from(h % span).unwrap_or(0)
}

/// How a port was chosen, for the message printed at start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// `--port` said so.
    Given(u16),
    /// The context's own port.
    Derived(u16),
    /// The context's port was taken; another free one.
    Fallback {
        /// The context's own port, which was taken.
        wanted: u16,
        /// The port used instead.
        port: u16,
    },
}

impl Choice {
    /// The port to listen on.
    pub fn port(self) -> u16 {
        match self {
            Self::Given(p) | Self::Derived(p) | Self::Fallback { port: p, .. } => p,
        }
    }
}

/// Binds the listener for `context` on 127.0.0.1: `given`, else its
/// derived port when free and not in `taken`, else any free port not in
/// `taken`. The port is ours from here on: nothing learns the token before.
pub fn bind(
    context: &str,
    given: Option<u16>,
    taken: &std::collections::BTreeSet<u16>,
) -> std::io::Result<(TcpListener, Choice)> {
    if let Some(p) = given {
        return Ok((
            TcpListener::bind((Ipv4Addr::LOCALHOST, p))?,
            Choice::Given(p),
        ));
    }
    let wanted = port_for(context);
    if !taken.contains(&wanted)
        && let Ok(l) = TcpListener::bind((Ipv4Addr::LOCALHOST, wanted))
    {
        return Ok((l, Choice::Derived(wanted)));
    }
    loop {
        let l = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
        let port = l.local_addr()?.port();
        if !taken.contains(&port) {
            return Ok((l, Choice::Fallback { wanted, port }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_context_keeps_its_port_and_contexts_differ() {
        // Fixed values: a change here moves every user's origin (and loses
        // their browser storage), so it must be deliberate.
        assert_eq!(port_for("kind-kind"), port_for("kind-kind"));
        assert_eq!(
            port_for(""),
            PORT_RANGE.start + (0x811c_9dc5_u32 % 800) as u16
        );
        let ports: std::collections::BTreeSet<u16> =
            ["prod", "staging", "dev", "kind-kind", "minikube"]
                .iter()
                .map(|c| port_for(c))
                .collect();
        assert_eq!(ports.len(), 5, "{ports:?}");
        assert!(ports.iter().all(|p| PORT_RANGE.contains(p)));
    }

    #[test]
    fn a_taken_port_falls_back_to_a_free_one() {
        let context = "taken-context";
        let wanted = port_for(context);
        let Ok(_hold) = TcpListener::bind((Ipv4Addr::LOCALHOST, wanted)) else {
            // Something else holds it already: the fallback is exercised anyway.
            let none = std::collections::BTreeSet::new();
            assert!(matches!(
                bind(context, None, &none),
                Ok((_, Choice::Fallback { .. }))
            ));
            return;
        };
        let none = std::collections::BTreeSet::new();
        match bind(context, None, &none).expect("a port").1 {
            Choice::Fallback { wanted: w, port } => {
                assert_eq!(w, wanted);
                assert_ne!(port, wanted);
            }
            other => panic!("expected a fallback, got {other:?}"),
        }
        // A given port that is taken is an error, not a surprise port.
        assert!(bind(context, Some(wanted), &none).is_err());
    }

    #[test]
    fn two_contexts_of_one_run_never_share_a_port() {
        // --all-contexts: the first context's port is taken for the second,
        // even though nothing listens on it yet.
        let wanted = port_for("first");
        let taken = [wanted].into_iter().collect();
        let (_l, second) = bind("first", None, &taken).expect("a port");
        assert_ne!(second.port(), wanted);
    }
}
