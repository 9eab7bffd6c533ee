//! Kubernetes resource quantities ("250m", "128Mi", "1e3") read as numbers, and written back as short words.
//!
//! The grammar is apimachinery's `resource.Quantity`: a signed decimal
//! number, then one suffix — binary (`Ki` … `Ei`), decimal (`n`, `u`, `m`,
//! none, `k`, `M`, `G`, `T`, `P`, `E`) or a decimal exponent (`e3`, `E-2`).
//! `E` alone is exa; `E` followed by a number is an exponent. Values are
//! read as `f64`: usage figures are shown and charted, never added up to
//! the last nanocore, so the exactness of apimachinery's `inf.Dec` is not
//! needed.

/// The value of a quantity in its base unit (cores, bytes), or `None` if
/// it does not follow the grammar or is not finite.
pub fn value(q: &str) -> Option<f64> {
    scaled(q, 0)
}

/// The value times `10^shift`. A decimal suffix is folded into the
/// exponent of one literal ("410m" in millicores is `410e0`), so common
/// figures come out exact instead of off in the last bit.
fn scaled(q: &str, shift: i32) -> Option<f64> {
    let q = q.trim();
    let split = q
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || c == '.' || (i == 0 && (c == '+' || c == '-'))))
        .map_or(q.len(), |(i, _)| i);
    let (number, suffix) = q.split_at(split);
    let digits = number.trim_start_matches(['+', '-']);
    if !digits.bytes().any(|b| b.is_ascii_digit()) || digits.matches('.').count() > 1 {
        return None;
    }
    let v = match suffix_of(suffix)? {
        Suffix::Decimal(e) => format!("{number}e{}", e.checked_add(shift)?)
            .parse::<f64>()
            .ok()?,
        Suffix::Binary(p) => format!("{number}e{shift}").parse::<f64>().ok()? * 1024f64.powi(p),
    };
    v.is_finite().then_some(v)
}

/// A suffix: a power of ten or a power of 1024.
enum Suffix {
    Decimal(i32),
    Binary(i32),
}

fn suffix_of(suffix: &str) -> Option<Suffix> {
    let decimal = ["n", "u", "m", "", "k", "M", "G", "T", "P", "E"];
    let binary = ["Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
    if let Some(i) = decimal.iter().position(|s| *s == suffix) {
        return Some(Suffix::Decimal(3 * i as i32 - 9));
    }
    if let Some(i) = binary.iter().position(|s| *s == suffix) {
        return Some(Suffix::Binary(i as i32 + 1));
    }
    let exp = suffix.strip_prefix(['e', 'E'])?;
    let e = exp.strip_prefix(['+', '-']).unwrap_or(exp);
    if e.is_empty() || !e.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    exp.parse().ok().map(Suffix::Decimal)
}

/// CPU in millicores: "250m"→250, "1"→1000, "0.5"→500, "1500000n"→1.5,
/// "12u"→0.012, "2k"→2,000,000. `None` if unreadable.
pub fn cpu_millis(q: &str) -> Option<f64> {
    scaled(q, 3)
}

/// Bytes: "128Mi", "1Gi", "1G", "100k", "12345", "1e3", "0.5Gi", "327680Ki".
/// `None` if unreadable.
pub fn bytes(q: &str) -> Option<f64> {
    value(q)
}

/// Millicores as `kubectl top` prints them: always in millicores, rounded
/// up to a whole one (apimachinery's `MilliValue` is a ceiling), so any use
/// at all shows: 400.0→"400m", 1500.0→"1500m", 0.4→"1m", 0.0→"0m".
/// Negative and not-a-number values print as "0m".
pub fn cpu_words(millis: f64) -> String {
    let m = if millis.is_finite() && millis > 0.0 {
        millis.ceil()
    } else {
        0.0
    };
    format!("{m:.0}m")
}

/// Bytes in binary units with at most one decimal: the largest unit (`Ki`
/// … `Ei`) the value reaches, one decimal under ten of it and none from ten
/// up, a trailing ".0" dropped: 335544320.0→"320Mi", 524288.0→"512Ki",
/// 1610612736.0→"1.5Gi", 1073741824.0→"1Gi". Under 1 KiB the plain number
/// of bytes, as a quantity writes it ("512", "0"); negative and
/// not-a-number values print as "0".
pub fn bytes_words(bytes: f64) -> String {
    const UNITS: [&str; 6] = ["Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
    if !bytes.is_finite() || bytes <= 0.0 {
        return "0".into();
    }
    if bytes < 1024.0 {
        return format!("{:.0}", bytes.round());
    }
    let mut v = bytes / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    // Rounding may reach the next unit (1023.7Ki is 1024Ki, so 1Mi).
    let shown = if v < 10.0 {
        (v * 10.0).round() / 10.0
    } else {
        v.round()
    };
    if shown >= 1024.0 && unit + 1 < UNITS.len() {
        return format!("1{}", UNITS[unit + 1]);
    }
    if shown < 10.0 && shown.fract() != 0.0 {
        format!("{shown:.1}{}", UNITS[unit])
    } else {
        format!("{shown:.0}{}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exact: the decimal suffix folds into the literal.
    fn close(a: Option<f64>, b: f64) -> bool {
        a == Some(b)
    }

    #[test]
    fn metrics_cpu_quantities_read_as_millicores() {
        for (q, want) in [
            ("250m", 250.0),
            ("1", 1000.0),
            ("0.5", 500.0),
            ("1500000n", 1.5),
            ("12u", 0.012),
            ("2k", 2_000_000.0),
            ("0", 0.0),
            (".5", 500.0),
            ("5.", 5000.0),
            ("+1", 1000.0),
            ("1e-3", 1.0),
            ("100m ", 100.0),
            ("410m", 410.0),
            ("0.41", 410.0),
        ] {
            assert!(close(cpu_millis(q), want), "{q}: {:?}", cpu_millis(q));
        }
    }

    #[test]
    fn metrics_memory_quantities_read_as_bytes() {
        for (q, want) in [
            ("128Mi", 134_217_728.0),
            ("1Gi", 1_073_741_824.0),
            ("1G", 1e9),
            ("100k", 100_000.0),
            ("12345", 12345.0),
            ("1e3", 1000.0),
            ("1E3", 1000.0),
            ("1E", 1e18),
            ("2e+2", 200.0),
            ("0.5Gi", 536_870_912.0),
            ("327680Ki", 335_544_320.0),
            ("1Ei", 1_152_921_504_606_846_976.0),
        ] {
            assert!(close(bytes(q), want), "{q}: {:?}", bytes(q));
        }
    }

    #[test]
    fn metrics_unreadable_quantities_are_none() {
        for q in [
            "", "Mi", "m", "1..2", "1.2.3", "1Mb", "1KI", "1e", "1e+", "1ee3", "1e3.5", "abc",
            "--1", "1-", "1 Mi", "NaN", "inf", "1e999", ".", "+", "0x10",
        ] {
            assert_eq!(bytes(q), None, "{q:?}");
            assert_eq!(cpu_millis(q), None, "{q:?}");
        }
    }

    #[test]
    fn metrics_cpu_words_are_whole_millicores_rounded_up() {
        assert_eq!(cpu_words(400.0), "400m");
        assert_eq!(cpu_words(1500.0), "1500m");
        assert_eq!(cpu_words(0.4), "1m");
        assert_eq!(cpu_words(1.5), "2m");
        assert_eq!(cpu_words(0.0), "0m");
        assert_eq!(cpu_words(-3.0), "0m");
        assert_eq!(cpu_words(f64::NAN), "0m");
    }

    #[test]
    fn metrics_bytes_words_use_binary_units_with_at_most_one_decimal() {
        for (b, want) in [
            (335_544_320.0, "320Mi"),
            (524_288.0, "512Ki"),
            (1_610_612_736.0, "1.5Gi"),
            (1_073_741_824.0, "1Gi"),
            (25_165_824.0, "24Mi"),
            (1024.0 * 1023.7, "1Mi"),
            (1024.0 * 9.96, "10Ki"),
            (1024.0 * 1024.0 * 1000.0, "1000Mi"),
            (512.0, "512"),
            (0.0, "0"),
            (-1.0, "0"),
            (f64::INFINITY, "0"),
            (2.0f64.powi(70), "1024Ei"),
        ] {
            assert_eq!(bytes_words(b), want, "{b}");
        }
    }
}
