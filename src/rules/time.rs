//! Time as the app counts it: seconds since the Unix epoch (`f64`), kubectl's short ages, RFC 3339 parsing.
//!
//! One unit everywhere: the app's clock ticks in these seconds, timestamps
//! from the cluster are parsed into them, and every age shown is made by
//! [`age`] from two of them, so an Event that is "3d" old is "3d" on every
//! page.

/// Seconds since the Unix epoch.
pub type Seconds = f64;

/// Seconds since the epoch of an RFC 3339 timestamp (`2026-11-30T14:21:17Z`,
/// fractions and offsets allowed); None for anything else.
pub fn parse_time(s: &str) -> Option<Seconds> {
    let b = s.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't') {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let n = |r: std::ops::Range<usize>| -> Option<i64> {
        let t = s.get(r)?;
        t.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| t.parse().ok())?
    };
    let (y, mo, d) = (n(0..4)?, n(5..7)?, n(8..10)?);
    let (h, mi, se) = (n(11..13)?, n(14..16)?, n(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || se > 60 {
        return None;
    }
    // Fraction, then Z or ±hh:mm.
    let mut rest = &s[19..];
    let mut fraction = 0.0;
    if let Some(f) = rest.strip_prefix('.') {
        let digits = f.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        fraction = format!("0.{}", &f[..digits]).parse().ok()?;
        rest = &f[digits..];
    }
    // Bytes, not string slices: a tail with a multi-byte character must be
    // refused, not split mid-character.
    let o = rest.as_bytes();
    let digits = |a: u8, b: u8| {
        (a.is_ascii_digit() && b.is_ascii_digit())
            .then(|| i64::from(a - b'0') * 10 + i64::from(b - b'0'))
    };
    let offset = match o {
        b"Z" | b"z" => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let secs = digits(*h1, *h2)? * 3600 + digits(*m1, *m2)? * 60;
            if *sign == b'-' { -secs } else { secs }
        }
        _ => return None,
    };
    // Days from civil (Howard Hinnant's algorithm).
    let y2 = if mo <= 2 { y - 1 } else { y };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some((days * 86_400 + h * 3600 + mi * 60 + se - offset) as f64 + fraction)
}

/// A short age of a span of `seconds` in kubectl's style (`45s`, `12m`,
/// `3h`, `5d`, `2y`; whole units, seconds below two minutes, minutes below
/// two hours, hours below two days); a negative span (a clock behind the
/// server's) shows as `0s`.
pub fn short_age(seconds: f64) -> String {
    let s = seconds.max(0.0) as u64;
    match s {
        0..=119 => format!("{s}s"),
        120..=7_199 => format!("{}m", s / 60),
        7_200..=172_799 => format!("{}h", s / 3600),
        172_800..=31_535_999 => format!("{}d", s / 86_400),
        _ => format!("{}y", s / 31_536_000),
    }
}

/// How long before `now` the moment `then` was, as [`short_age`] writes it.
pub fn age(now: Seconds, then: Seconds) -> String {
    short_age(now - then)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_like_kubectl() {
        assert_eq!(short_age(5.0), "5s");
        assert_eq!(short_age(600.0), "10m");
        assert_eq!(short_age(3.0 * 3600.0), "3h");
        assert_eq!(short_age(72.0 * 3600.0), "3d", "not 72h");
        assert_eq!(short_age(5.0 * 86_400.0), "5d");
        assert_eq!(short_age(800.0 * 86_400.0), "2y");
        assert_eq!(short_age(-30.0), "0s");
        assert_eq!(age(1000.0, 880.0), "2m");
    }

    #[test]
    fn timestamps_parse_with_fractions_and_offsets() {
        assert_eq!(parse_time("1970-01-02T00:00:01Z"), Some(86_401.0));
        assert_eq!(parse_time("2026-11-30T10:00:00Z"), Some(1_796_032_800.0));
        // events.k8s.io's eventTime (MicroTime).
        assert_eq!(
            parse_time("2026-11-30T10:00:00.250000Z"),
            Some(1_796_032_800.25)
        );
        assert_eq!(
            parse_time("2026-11-30T12:00:00+02:00"),
            Some(1_796_032_800.0)
        );
        for bad in [
            "yesterday",
            "",
            "2026-11-30T10:00:00",
            "2026-13-30T10:00:00Z",
            "2026-11-30T10:00:00.Z",
            "2026-11-30 10:00:00Z",
            "+026-11-30T10:00:00Z",
            // Multi-byte characters where a fraction or an offset goes.
            "2026-11-30T10:00:00é1234",
            "2026-11-30T10:00:00+1é00",
            "2026-11-30T10:00:00.5é",
            "2026-11-30T10:00:0é",
            "2026-11-30T10:00:00+0a:00",
        ] {
            assert_eq!(parse_time(bad), None, "{bad}");
        }
    }
}
