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
/// it does not follow the grammar or is too large to hold.
pub fn value(q: &str) -> Option<f64> {
    Quantity::parse(q).map(|x| x.scaled_f64(9))
}

/// A quantity held exactly, as apimachinery's `resource.Quantity` holds
/// one: a whole number of billionths of its unit (nanocores, nanobytes).
///
/// `ParseQuantity` rounds any finer value up (away from zero) to a
/// billionth, and so does [`Quantity::parse`]; sums are exact; and
/// [`Quantity::milli_value`] and [`Quantity::value`] round up as
/// apimachinery's `MilliValue` and `Value` do. So what `kubectl top`
/// prints from a sum of containers comes out the same to the last digit,
/// which `f64` arithmetic does not promise (0.7m + 0.1m + 0.2m may add up
/// to a hair over 1m, and print as 2m).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Quantity {
    /// Billionths of the unit.
    nanos: i128,
}

impl Quantity {
    /// Zero.
    pub const ZERO: Quantity = Quantity { nanos: 0 };

    /// A quantity of `nanos` billionths of its unit.
    pub const fn from_nanos(nanos: i128) -> Self {
        Self { nanos }
    }

    /// Billionths of the unit.
    pub const fn nanos(self) -> i128 {
        self.nanos
    }

    /// Reads a quantity (see the module for the grammar); `None` if it does
    /// not follow it, or is too large for 128 bits of billionths.
    pub fn parse(q: &str) -> Option<Self> {
        let q = q.trim();
        let split = q
            .char_indices()
            .find(|&(i, c)| !(c.is_ascii_digit() || c == '.' || (i == 0 && (c == '+' || c == '-'))))
            .map_or(q.len(), |(i, _)| i);
        let (number, suffix) = q.split_at(split);
        let negative = number.starts_with('-');
        let digits = number.trim_start_matches(['+', '-']);
        if !digits.bytes().any(|b| b.is_ascii_digit()) || digits.matches('.').count() > 1 {
            return None;
        }
        let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
        let mut mantissa: u128 = 0;
        for b in whole.bytes().chain(fraction.bytes()) {
            mantissa = mantissa
                .checked_mul(10)?
                .checked_add(u128::from(b - b'0'))?;
        }
        let (exp10, pow1024) = match suffix_of(suffix)? {
            Suffix::Decimal(e) => (e, 0),
            Suffix::Binary(p) => (0, p),
        };
        let fraction_len = i32::try_from(fraction.len()).ok()?;
        // mantissa × 1024^p × 10^(e - fraction digits) units, in billionths.
        let scaled = mantissa.checked_mul(1024u128.checked_pow(pow1024)?)?;
        let shift = exp10.checked_sub(fraction_len)?.checked_add(9)?;
        let magnitude = if shift >= 0 {
            scaled.checked_mul(10u128.checked_pow(shift.unsigned_abs())?)?
        } else {
            match 10u128.checked_pow(shift.unsigned_abs()) {
                Some(d) => scaled.div_ceil(d),
                // A divisor past 10^38 is larger than any mantissa: what
                // is left is under a billionth, and rounds up to one.
                None => u128::from(scaled > 0),
            }
        };
        let nanos = i128::try_from(magnitude).ok()?;
        Some(Self::from_nanos(if negative { -nanos } else { nanos }))
    }

    /// The sum, or `None` past 128 bits.
    pub fn checked_add(self, other: Quantity) -> Option<Quantity> {
        self.nanos.checked_add(other.nanos).map(Self::from_nanos)
    }

    /// Thousandths of the unit, rounded up (away from zero), as
    /// apimachinery's `MilliValue`: 12345678n of a core is 13 millicores.
    pub fn milli_value(self) -> i128 {
        round_away(self.nanos, 1_000_000)
    }

    /// Whole units, rounded up (away from zero), as apimachinery's `Value`:
    /// 1500m bytes are 2 bytes.
    pub fn value(self) -> i128 {
        round_away(self.nanos, 1_000_000_000)
    }

    /// The value times `10^digits` as an `f64` (`scaled_f64(9)` is the
    /// value in units, `scaled_f64(6)` in thousandths, for charts): whole
    /// part and fraction converted apart, so a whole number under 2^53
    /// comes out exact.
    pub fn scaled_f64(self, digits: u32) -> f64 {
        let unit = 10i128.pow(digits);
        let (whole, rest) = (self.nanos / unit, self.nanos % unit);
        whole as f64 + rest as f64 / unit as f64
    }
}

/// `n / d` rounded away from zero (`d` positive).
fn round_away(n: i128, d: i128) -> i128 {
    let q = n / d;
    match n % d {
        0 => q,
        r if r > 0 => q + 1,
        _ => q - 1,
    }
}

/// A suffix: a power of ten or a power of 1024.
enum Suffix {
    Decimal(i32),
    Binary(u32),
}

fn suffix_of(suffix: &str) -> Option<Suffix> {
    let decimal = ["n", "u", "m", "", "k", "M", "G", "T", "P", "E"];
    let binary = ["Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
    if let Some(i) = decimal.iter().position(|s| *s == suffix) {
        return Some(Suffix::Decimal(3 * i as i32 - 9));
    }
    if let Some(i) = binary.iter().position(|s| *s == suffix) {
        return Some(Suffix::Binary(i as u32 + 1));
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
    Quantity::parse(q).map(|x| x.scaled_f64(6))
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

/// CPU as `kubectl top` prints it: apimachinery's `MilliValue` and `m`,
/// so a fraction of a millicore is rounded up: 12345678n → "13m",
/// 250m → "250m", 2 → "2000m", 0 → "0m".
pub fn top_cpu(q: Quantity) -> String {
    format!("{}m", q.milli_value())
}

/// Memory as `kubectl top` prints it: `Value() / (1024*1024)` and `Mi`:
/// the bytes rounded up to whole ones, then whole mebibytes with the rest
/// dropped (Go's integer division): 1048575 → "0Mi", 2097151.5 → "2Mi",
/// 700Mi → "700Mi", 1Gi → "1024Mi".
pub fn top_memory(q: Quantity) -> String {
    format!("{}Mi", q.value() / (1024 * 1024))
}

/// A share as `kubectl top node` computes it, before it is cut to a whole
/// number: `float64(used.MilliValue()) / float64(available.MilliValue())
/// * 100`, and 0 when what is available is zero.
pub fn top_share(used_milli: i128, available_milli: i128) -> f64 {
    if available_milli == 0 {
        return 0.0;
    }
    used_milli as f64 / available_milli as f64 * 100.0
}

/// A share as `kubectl top node` prints it: truncated toward zero (Go's
/// `int64(fraction)`) and `%`: 11.9 → "11%", 99.99 → "99%".
pub fn top_percent(share: f64) -> String {
    format!("{}%", share as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exact: the decimal suffix folds into the literal.
    fn close(a: Option<f64>, b: f64) -> bool {
        a == Some(b)
    }

    #[test]
    fn usage_cpu_quantities_read_as_millicores() {
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
    fn usage_memory_quantities_read_as_bytes() {
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
    fn usage_unreadable_quantities_are_none() {
        for q in [
            "", "Mi", "m", "1..2", "1.2.3", "1Mb", "1KI", "1e", "1e+", "1ee3", "1e3.5", "abc",
            "--1", "1-", "1 Mi", "NaN", "inf", "1e999", ".", "+", "0x10",
        ] {
            assert_eq!(bytes(q), None, "{q:?}");
            assert_eq!(cpu_millis(q), None, "{q:?}");
        }
    }

    #[test]
    fn usage_cpu_words_are_whole_millicores_rounded_up() {
        assert_eq!(cpu_words(400.0), "400m");
        assert_eq!(cpu_words(1500.0), "1500m");
        assert_eq!(cpu_words(0.4), "1m");
        assert_eq!(cpu_words(1.5), "2m");
        assert_eq!(cpu_words(0.0), "0m");
        assert_eq!(cpu_words(-3.0), "0m");
        assert_eq!(cpu_words(f64::NAN), "0m");
    }

    #[test]
    fn usage_bytes_words_use_binary_units_with_at_most_one_decimal() {
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

    #[test]
    fn usage_quantities_are_held_exactly_in_billionths_rounded_up_as_apimachinery_does() {
        for (q, nanos) in [
            ("12345678n", 12_345_678),
            ("250m", 250_000_000),
            ("1", 1_000_000_000),
            ("1.5", 1_500_000_000),
            ("0.5Gi", 536_870_912_000_000_000),
            ("327680Ki", 335_544_320_000_000_000),
            ("1e3", 1_000_000_000_000),
            // Finer than a billionth: rounded up to one, away from zero.
            ("1e-10", 1),
            ("-1e-10", -1),
            ("0.0000000001Ki", 103),
            ("0", 0),
        ] {
            assert_eq!(Quantity::parse(q).map(Quantity::nanos), Some(nanos), "{q}");
        }
        assert_eq!(Quantity::parse("1e40"), None, "too large for 128 bits");
    }

    #[test]
    fn usage_milli_value_and_value_round_up_as_apimachinery_does() {
        let q = |s: &str| Quantity::parse(s).expect(s);
        assert_eq!(q("12345678n").milli_value(), 13);
        assert_eq!(q("13000000n").milli_value(), 13);
        assert_eq!(q("1n").milli_value(), 1);
        assert_eq!(q("0").milli_value(), 0);
        assert_eq!(q("1500m").value(), 2);
        assert_eq!(q("2097151.5").value(), 2_097_152);
        assert_eq!(q("-1500m").value(), -2, "away from zero");
        assert_eq!(q("1Gi").value(), 1_073_741_824);
    }

    #[test]
    fn usage_kubectl_top_prints_cpu_as_milli_value() {
        let cpu = |s: &str| top_cpu(Quantity::parse(s).expect(s));
        assert_eq!(cpu("12345678n"), "13m");
        assert_eq!(cpu("1500000n"), "2m");
        assert_eq!(cpu("250m"), "250m");
        assert_eq!(cpu("2"), "2000m");
        assert_eq!(cpu("0"), "0m");
        assert_eq!(cpu("1n"), "1m", "any use shows");
    }

    #[test]
    fn usage_kubectl_top_prints_memory_as_bytes_rounded_up_then_whole_mebibytes() {
        let mem = |s: &str| top_memory(Quantity::parse(s).expect(s));
        assert_eq!(mem("1048575"), "0Mi", "a byte short of a mebibyte");
        assert_eq!(mem("1048576"), "1Mi");
        assert_eq!(mem("2097151"), "1Mi", "floored, not rounded");
        assert_eq!(mem("2097151.5"), "2Mi", "the bytes rounded up first");
        assert_eq!(mem("700Mi"), "700Mi");
        assert_eq!(mem("1Gi"), "1024Mi", "never in Gi");
        assert_eq!(mem("327680Ki"), "320Mi");
        assert_eq!(mem("12345Ki"), "12Mi");
    }

    #[test]
    fn usage_kubectl_top_percentages_are_truncated_and_zero_of_nothing() {
        assert_eq!(top_percent(top_share(445, 4000)), "11%");
        assert_eq!(top_percent(top_share(999, 1000)), "99%", "not 100%");
        assert_eq!(top_percent(top_share(1999, 1000)), "199%");
        assert_eq!(top_percent(top_share(5, 0)), "0%");
        assert_eq!(top_percent(top_share(0, 4000)), "0%");
        // 440Mi of 8Gi, in millibytes as kubectl divides them.
        let mi = 1_048_576_000;
        assert_eq!(top_percent(top_share(440 * mi, 8192 * mi)), "5%");
    }
}
