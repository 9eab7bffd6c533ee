//! Where a run listens: one port on both loopback addresses.
//!
//! The app's URL names a random `<name>.localhost` (see `main`), an origin
//! nobody can have visited, so nothing planted on an earlier origin (a
//! Service Worker, storage) can reach this run. A browser sends such a
//! name to `[::1]` first and `127.0.0.1` second, so both must be ours:
//! were `[::1]:port` another program's, the browser would hand it the
//! URL, token and all. The port itself carries nothing (storage is kept
//! by the launcher, per context), so any free one does.

use std::io::ErrorKind;
use std::net::{Ipv4Addr, Ipv6Addr, TcpListener};

/// How many free IPv4 ports are tried before giving up when `[::1]` holds
/// each one already.
const TRIES: usize = 64;

/// Binds `port` (or, for `None`, a free port) on 127.0.0.1 and on `[::1]`;
/// returns the listeners and the port. A machine without IPv6 (where
/// `[::1]` cannot be bound by anyone) gets the IPv4 listener alone. A
/// given port taken on either address is an error, not a surprise port.
pub fn bind(given: Option<u16>) -> std::io::Result<(Vec<TcpListener>, u16)> {
    if let Some(p) = given {
        let v4 = TcpListener::bind((Ipv4Addr::LOCALHOST, p))?;
        return Ok((with_v6(v4, p)?, p));
    }
    let mut last = None;
    for _ in 0..TRIES {
        let v4 = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
        let port = v4.local_addr()?.port();
        match with_v6(v4, port) {
            Ok(both) => return Ok((both, port)),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no port is free on both loopbacks")))
}

/// `v4` and a listener on `[::1]:port`; `v4` alone when the machine has
/// no IPv6 loopback.
fn with_v6(v4: TcpListener, port: u16) -> std::io::Result<Vec<TcpListener>> {
    match TcpListener::bind((Ipv6Addr::LOCALHOST, port)) {
        Ok(v6) => Ok(vec![v4, v6]),
        Err(e) if no_ipv6(&e) => Ok(vec![v4]),
        Err(e) => Err(std::io::Error::new(
            e.kind(),
            format!("[::1]:{port}: {e} (a browser would send this run's URL there first)"),
        )),
    }
}

/// True when the error says IPv6 is off here, so nobody can listen on `[::1]`.
fn no_ipv6(e: &std::io::Error) -> bool {
    e.kind() == ErrorKind::AddrNotAvailable || e.raw_os_error() == Some(libc::EAFNOSUPPORT)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v6_works() -> bool {
        TcpListener::bind((Ipv6Addr::LOCALHOST, 0)).is_ok()
    }

    #[test]
    fn a_run_holds_its_port_on_both_loopbacks() {
        let (listeners, port) = bind(None).expect("a port");
        let addrs: Vec<_> = listeners
            .iter()
            .map(|l| l.local_addr().expect("addr"))
            .collect();
        assert!(addrs.iter().all(|a| a.port() == port), "{addrs:?}");
        assert!(addrs[0].ip().is_loopback() && addrs[0].is_ipv4());
        if v6_works() {
            assert_eq!(addrs.len(), 2, "{addrs:?}");
            assert!(addrs[1].is_ipv6() && addrs[1].ip().is_loopback());
        }
    }

    #[test]
    fn a_port_another_program_holds_on_ipv6_is_never_used() {
        if !v6_works() {
            return;
        }
        // Another program holds [::1]:p, 127.0.0.1:p is free: a browser
        // would send the URL to the other program first.
        let squatter = TcpListener::bind((Ipv6Addr::LOCALHOST, 0)).expect("bind");
        let p = squatter.local_addr().expect("addr").port();
        let err = bind(Some(p)).expect_err("refused");
        assert_eq!(err.kind(), ErrorKind::AddrInUse, "{err}");
        assert!(err.to_string().contains("[::1]"), "{err}");
        // The IPv4 half was let go again.
        assert!(TcpListener::bind((Ipv4Addr::LOCALHOST, p)).is_ok());
    }

    #[test]
    fn a_given_port_taken_on_ipv4_is_an_error() {
        let held = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind");
        let p = held.local_addr().expect("addr").port();
        assert!(bind(Some(p)).is_err());
    }
}
