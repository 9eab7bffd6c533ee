//! Request metrics (count and latency by verb and status code), under client-go's names.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::time::Duration;

/// Latency bucket upper bounds in seconds (client-go's request latency buckets).
pub const LATENCY_BUCKETS: [f64; 12] = [
    0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0,
];

/// Counts and latencies for one (verb, code).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RequestStats {
    /// Requests finished.
    pub count: u64,
    /// Sum of latencies in seconds.
    pub latency_sum: f64,
    /// Requests at or under each bound of [`LATENCY_BUCKETS`] (cumulative).
    pub buckets: [u64; 12],
}

/// Every request the client sent, by verb (`GET`, `LIST`, `WATCH`, `POST`…) and code.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RequestMetrics {
    /// Keyed by (verb, code); code is the HTTP status or `<error>` when none came.
    pub by_verb_code: BTreeMap<(String, String), RequestStats>,
    /// Time requests spent waiting for the client's QPS limit, in seconds.
    pub rate_limiter_wait: f64,
    /// Requests sent again after a 429 or 5xx with `Retry-After`, or a
    /// broken connection (each attempt is also counted by verb and code).
    pub retries: u64,
}

impl RequestMetrics {
    /// Records one finished request.
    pub fn observe(&mut self, verb: &str, code: Option<u16>, latency: Duration) {
        let code = code.map_or_else(|| "<error>".to_string(), |c| c.to_string());
        let s = self
            .by_verb_code
            .entry((verb.to_string(), code))
            .or_default();
        let secs = latency.as_secs_f64();
        s.count += 1;
        s.latency_sum += secs;
        for (i, bound) in LATENCY_BUCKETS.iter().enumerate() {
            if secs <= *bound {
                s.buckets[i] += 1;
            }
        }
    }

    /// Total requests.
    pub fn total(&self) -> u64 {
        self.by_verb_code.values().map(|s| s.count).sum()
    }

    /// Prometheus text format, with client-go's metric names.
    pub fn prometheus(&self) -> String {
        let mut out = String::new();
        out.push_str("# TYPE rest_client_requests_total counter\n");
        for ((verb, code), s) in &self.by_verb_code {
            let _ = writeln!(
                out,
                "rest_client_requests_total{{code=\"{code}\",method=\"{verb}\"}} {}",
                s.count
            );
        }
        out.push_str("# TYPE rest_client_request_duration_seconds histogram\n");
        for ((verb, code), s) in &self.by_verb_code {
            for (i, bound) in LATENCY_BUCKETS.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "rest_client_request_duration_seconds_bucket{{code=\"{code}\",verb=\"{verb}\",le=\"{bound}\"}} {}",
                    s.buckets[i]
                );
            }
            let _ = writeln!(
                out,
                "rest_client_request_duration_seconds_bucket{{code=\"{code}\",verb=\"{verb}\",le=\"+Inf\"}} {}",
                s.count
            );
            let _ = writeln!(
                out,
                "rest_client_request_duration_seconds_sum{{code=\"{code}\",verb=\"{verb}\"}} {}",
                s.latency_sum
            );
            let _ = writeln!(
                out,
                "rest_client_request_duration_seconds_count{{code=\"{code}\",verb=\"{verb}\"}} {}",
                s.count
            );
        }
        let _ = writeln!(
            out,
            "# TYPE rest_client_rate_limiter_duration_seconds_sum counter\nrest_client_rate_limiter_duration_seconds_sum {}",
            self.rate_limiter_wait
        );
        out
    }
}

/// The verb of a request: the HTTP method, with `LIST`/`WATCH` told apart from `GET`
/// by the query (`watch=true`) and by whether the path names a collection.
pub fn verb_of(request: &crate::transport::Request) -> String {
    let method = request.method().as_str().to_string();
    if request.method() != http::Method::GET {
        return method;
    }
    let query = request.uri().query().unwrap_or("");
    if query
        .split('&')
        .any(|p| p == "watch=true" || p == "watch=1")
    {
        return "WATCH".into();
    }
    // /api/v1/pods, /api/v1/namespaces/x/pods, /apis/g/v/plural[...]: a
    // collection has an odd number of segments after the group version
    // prefix once `namespaces/<ns>` is removed.
    let segs: Vec<&str> = request
        .uri()
        .path()
        .split('/')
        .filter(|s| !s.is_empty())
        .collect();
    let rest = match segs.first() {
        Some(&"api") if segs.len() >= 2 => &segs[2..],
        Some(&"apis") if segs.len() >= 3 => &segs[3..],
        _ => return method,
    };
    let rest = match rest {
        ["namespaces", _ns, tail @ ..] if !tail.is_empty() => tail,
        other => other,
    };
    if rest.len() == 1 {
        "LIST".into()
    } else {
        method
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(uri: &str) -> crate::transport::Request {
        http::Request::get(uri).body(Vec::new()).expect("request")
    }

    #[test]
    fn verbs_tell_list_watch_and_get_apart() {
        assert_eq!(verb_of(&get("/api/v1/pods")), "LIST");
        assert_eq!(verb_of(&get("/api/v1/namespaces/a/pods?limit=500")), "LIST");
        assert_eq!(verb_of(&get("/api/v1/namespaces/a/pods/web")), "GET");
        assert_eq!(verb_of(&get("/api/v1/namespaces")), "LIST");
        assert_eq!(verb_of(&get("/api/v1/namespaces/kube-system")), "GET");
        assert_eq!(
            verb_of(&get("/apis/apps/v1/deployments?watch=true")),
            "WATCH"
        );
        assert_eq!(
            verb_of(&get("/apis/apps/v1/namespaces/a/deployments/b/scale")),
            "GET"
        );
        assert_eq!(verb_of(&get("/version")), "GET");
        let post = http::Request::post("/api/v1/namespaces/a/pods")
            .body(Vec::new())
            .expect("r");
        assert_eq!(verb_of(&post), "POST");
    }

    #[test]
    fn observations_fill_counts_buckets_and_prometheus_text() {
        let mut m = RequestMetrics::default();
        m.observe("LIST", Some(200), Duration::from_millis(20));
        m.observe("LIST", Some(200), Duration::from_millis(300));
        m.observe("WATCH", None, Duration::from_millis(1));
        let s = &m.by_verb_code[&("LIST".to_string(), "200".to_string())];
        assert_eq!(s.count, 2);
        assert_eq!(s.buckets[0], 0);
        assert_eq!(s.buckets[1], 1);
        assert_eq!(s.buckets[4], 2);
        assert_eq!(m.total(), 3);
        let text = m.prometheus();
        assert!(text.contains("rest_client_requests_total{code=\"200\",method=\"LIST\"} 2"));
        assert!(text.contains("rest_client_requests_total{code=\"<error>\",method=\"WATCH\"} 1"));
        assert!(text.contains("le=\"+Inf\"} 2"));
    }
}
