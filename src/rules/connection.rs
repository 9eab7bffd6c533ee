//! The app's link to the API, worked out from every informer's status and the version probe.

use kubeglass_client::cache::ReflectorStatus;

use crate::rules::time::Seconds;

/// How the app's link to the API is doing.
#[derive(Debug, Clone, PartialEq)]
pub enum Connection {
    /// Nothing has answered yet.
    Connecting,
    /// The API answers and something could be read.
    Connected,
    /// The API answers, but refuses (401/403) what the app asked and nothing
    /// could be read yet: a matter of rights, not of the network.
    Denied {
        /// The server's words.
        message: String,
    },
    /// The proxy or the API cannot be reached; data shown may be stale.
    Unreachable {
        /// What the browser reported.
        message: String,
        /// When the failures started.
        since: Seconds,
    },
}

/// The connection after the informers reported `statuses` at `now`, given
/// the one before (`previous`: an outage keeps its start) and whether the
/// `/version` probe has been answered. Unreachable wins; then anything
/// synced (or the probe answered with nothing refused) is connected; then
/// a refusal is denied.
pub fn next_connection(
    previous: &Connection,
    statuses: &[ReflectorStatus],
    version_answered: bool,
    now: Seconds,
) -> Connection {
    if let Some(s) = statuses.iter().find(|s| s.unreachable) {
        let since = match previous {
            Connection::Unreachable { since, .. } => *since,
            _ => now,
        };
        return Connection::Unreachable {
            message: s.last_error.clone().unwrap_or_default(),
            since,
        };
    }
    if statuses.iter().any(|s| s.synced) {
        return Connection::Connected;
    }
    let refused = statuses
        .iter()
        .find(|s| matches!(s.last_error_code, Some(401 | 403)));
    match refused {
        Some(s) => Connection::Denied {
            message: s.last_error.clone().unwrap_or_default(),
        },
        None if version_answered => Connection::Connected,
        None if statuses.is_empty() => previous.clone(),
        None => Connection::Connecting,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(synced: bool, unreachable: bool, code: Option<u16>) -> ReflectorStatus {
        ReflectorStatus {
            synced,
            unreachable,
            last_error_code: code,
            last_error: (unreachable || code.is_some()).then(|| format!("{code:?}")),
            ..ReflectorStatus::default()
        }
    }

    #[test]
    fn unreachable_wins_and_keeps_its_start() {
        let s = [status(true, false, None), status(false, true, None)];
        let c = next_connection(&Connection::Connected, &s, true, 100.0);
        assert!(matches!(c, Connection::Unreachable { since, .. } if since == 100.0));
        let c = next_connection(&c, &s, true, 130.0);
        assert!(matches!(c, Connection::Unreachable { since, .. } if since == 100.0));
        let healed = [status(true, false, None)];
        assert_eq!(
            next_connection(&c, &healed, true, 140.0),
            Connection::Connected
        );
    }

    #[test]
    fn refused_everywhere_is_denied_not_connecting() {
        let s = [status(false, false, Some(403)), status(false, false, None)];
        assert!(matches!(
            next_connection(&Connection::Connecting, &s, true, 1.0),
            Connection::Denied { .. }
        ));
        // One informer the person may read is enough: the panels say the rest.
        let s = [status(false, false, Some(403)), status(true, false, None)];
        assert_eq!(
            next_connection(&Connection::Connecting, &s, true, 1.0),
            Connection::Connected
        );
        // A 500 is not a refusal.
        let s = [status(false, false, Some(500))];
        assert_eq!(
            next_connection(&Connection::Connecting, &s, false, 1.0),
            Connection::Connecting
        );
        assert_eq!(
            next_connection(&Connection::Connecting, &s, true, 1.0),
            Connection::Connected
        );
    }

    #[test]
    fn no_informers_keeps_what_was_known() {
        assert_eq!(
            next_connection(&Connection::Connected, &[], false, 1.0),
            Connection::Connected
        );
        assert_eq!(
            next_connection(&Connection::Connecting, &[], true, 1.0),
            Connection::Connected
        );
    }
}
