//! Units and what "better" means. Values are stored in SI base units (seconds, bytes per
//! second); display units are chosen only when rendering.

use serde::{Deserialize, Serialize};

use super::basis::{Basis, ANY_BYTE, ANY_JOB, ANY_OPERATION};

/// The unit of a benchmark's headline figure, in SI base units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// Elapsed seconds per operation (latency rows: system calls, round trips, forks).
    SecondsPerOp,
    /// Bytes per second (throughput rows: pipe bandwidth, disk copy).
    BytesPerSecond,
    /// Elapsed seconds for one whole job (a game, a build, a script).
    Seconds,
    /// A dimensionless ratio (Inc, slowdown).
    Ratio,
    /// A plain count (faults, nodes).
    Count,
}

impl Unit {
    pub fn symbol(self) -> &'static str {
        match self {
            Unit::SecondsPerOp => "s/op",
            Unit::BytesPerSecond => "B/s",
            Unit::Seconds => "s",
            Unit::Ratio => "ratio",
            Unit::Count => "count",
        }
    }

    /// What kind of quantity it is: seconds per operation and seconds per job are both
    /// times, and divide into each other once brought to one operation.
    pub fn dimension(self) -> Dimension {
        match self {
            Unit::SecondsPerOp | Unit::Seconds => Dimension::Time,
            Unit::BytesPerSecond => Dimension::Rate,
            Unit::Ratio => Dimension::Ratio,
            Unit::Count => Dimension::Count,
        }
    }

    /// True when a job's figure is the sum of its operations' (a time, a count), so that
    /// one operation's is the job's divided by its operations; false for a rate or a ratio.
    pub fn grows_with_work(self) -> bool {
        matches!(self.dimension(), Dimension::Time | Dimension::Count)
    }

    /// The direction in which a figure in this unit improves, by default.
    pub fn default_better(self) -> Better {
        match self {
            Unit::BytesPerSecond => Better::Higher,
            _ => Better::Lower,
        }
    }
}

/// The kind of quantity a unit measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dimension {
    Time,
    Rate,
    Ratio,
    Count,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Better {
    Lower,
    Higher,
}

/// How a figure combines across concurrent copies of a benchmark (stress-ng's idea).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Combine {
    Sum,
    Mean,
    HarmonicMean,
}

/// What a benchmark reports: its unit, which way is better, what its figure is per, and
/// for throughput rows how many bytes one operation moves (so the harness can turn time
/// per op into bytes/s).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metric {
    pub unit: Unit,
    pub better: Better,
    pub combine: Combine,
    /// Bytes moved by one operation; required for `Unit::BytesPerSecond`.
    pub bytes_per_op: Option<u64>,
    /// What one figure covers: one operation, or a job of several (see [`Basis`]). Rows a
    /// historical figure is set beside must name their operation (`per`, `per_job`); the
    /// others may keep the constructors' generic names.
    pub basis: Basis,
}

impl Metric {
    /// Seconds per operation, lower is better: the default for micro-benchmarks.
    pub const fn latency() -> Self {
        Metric {
            unit: Unit::SecondsPerOp,
            better: Better::Lower,
            combine: Combine::Mean,
            bytes_per_op: None,
            basis: Basis::per(ANY_OPERATION),
        }
    }

    /// Bytes per second, higher is better; one operation moves `bytes_per_op` bytes.
    pub const fn throughput(bytes_per_op: u64) -> Self {
        Metric {
            unit: Unit::BytesPerSecond,
            better: Better::Higher,
            combine: Combine::Sum,
            bytes_per_op: Some(bytes_per_op),
            basis: Basis::per(ANY_BYTE),
        }
    }

    /// Seconds for one whole job (one operation is the job).
    pub const fn job() -> Self {
        Metric {
            unit: Unit::Seconds,
            better: Better::Lower,
            combine: Combine::Mean,
            bytes_per_op: None,
            basis: Basis::per(ANY_JOB),
        }
    }

    /// The figure is per one `op` (for a rate: `op` is what its bytes are).
    pub fn per(self, op: &'static str) -> Self {
        Metric {
            basis: Basis::per(op),
            ..self
        }
    }

    /// The figure is per job of `ops` operations `op`.
    pub fn per_job(self, ops: u64, op: &'static str) -> Self {
        Metric {
            basis: Basis::job(ops, op),
            ..self
        }
    }
}

/// A human-readable rendering of a value in `unit`, with a display unit chosen for it.
pub fn format_value(value: f64, unit: Unit) -> String {
    match unit {
        Unit::SecondsPerOp | Unit::Seconds => format_seconds(value),
        Unit::BytesPerSecond => format_rate(value),
        Unit::Ratio => format!("{value:.2}"),
        Unit::Count => format!("{value:.0}"),
    }
}

/// Seconds in ns, µs, ms or s, with three significant figures.
///
/// ```
/// use timeshare::model::unit::format_seconds;
/// assert_eq!(format_seconds(127e-9), "127 ns");
/// assert_eq!(format_seconds(22.3e-6), "22.3 µs");
/// assert_eq!(format_seconds(1.5), "1.50 s");
/// ```
pub fn format_seconds(s: f64) -> String {
    let abs = s.abs();
    let (v, u) = if abs < 1e-6 {
        (s * 1e9, "ns")
    } else if abs < 1e-3 {
        (s * 1e6, "µs")
    } else if abs < 1.0 {
        (s * 1e3, "ms")
    } else {
        (s, "s")
    };
    format!("{} {u}", three_figures(v))
}

/// Bytes per second in decimal MB/s or GB/s (as the seeds' "bytes per µs" and MB/s).
pub fn format_rate(bps: f64) -> String {
    if bps >= 1e9 {
        format!("{} GB/s", three_figures(bps / 1e9))
    } else if bps >= 1e6 {
        format!("{} MB/s", three_figures(bps / 1e6))
    } else {
        format!("{} kB/s", three_figures(bps / 1e3))
    }
}

fn three_figures(v: f64) -> String {
    let abs = v.abs();
    if abs >= 100.0 {
        format!("{v:.0}")
    } else if abs >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// A size as it is typed, as sysfs writes it or as timeshare prints it — "12M", "512k",
/// "1G", "4096", "48 KiB", "2MiB", "512 B" — in bytes (binary multiples); `None` when it
/// is not a whole number of a unit or overflows. The one size parser: each caller adds
/// the range it accepts and its own message.
pub fn parse_bytes(text: &str) -> Option<u64> {
    read_bytes(text).ok()
}

/// Why a text is no size: [`read_bytes`]'s refusal, for callers whose message tells a
/// typing slip from a number too large.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotBytes {
    /// Not a whole number followed by a known unit.
    Unreadable,
    /// A whole number of a known unit, but more bytes than 64 bits hold.
    TooLarge,
}

/// [`parse_bytes`], saying why a text is refused.
pub fn read_bytes(text: &str) -> Result<u64, NotBytes> {
    let t = text.trim();
    let (digits, shift) = split_unit(t);
    let n: u64 = digits
        .trim_end()
        .parse()
        .map_err(|_| NotBytes::Unreadable)?;
    n.checked_mul(1 << shift).ok_or(NotBytes::TooLarge)
}

/// The number and the binary shift of its unit. The units are the union of what the
/// size flags, `--configs mem=` and sysfs ever read — one letter in either case — and
/// what [`format_bytes`] prints (`KiB`, `MiB`, `GiB`, `B`), so a printed size can be
/// typed back.
fn split_unit(t: &str) -> (&str, u32) {
    const UNITS: [(&str, u32); 10] = [
        ("KiB", 10),
        ("MiB", 20),
        ("GiB", 30),
        ("K", 10),
        ("k", 10),
        ("M", 20),
        ("m", 20),
        ("G", 30),
        ("g", 30),
        ("B", 0),
    ];
    UNITS
        .iter()
        .find_map(|&(unit, shift)| t.strip_suffix(unit).map(|digits| (digits, shift)))
        .unwrap_or((t, 0))
}

/// A time as it is typed — "90" (seconds), "0.5s", "10m", "2h", "30 s" — in seconds;
/// `None` when it is not a finite number of a unit. The one duration parser (`--for`,
/// `--budget`, the rows' seconds options, the database's patience): each caller adds the
/// range it accepts and its own message.
pub fn parse_seconds(text: &str) -> Option<f64> {
    let t = text.trim();
    let (number, scale) = match t.char_indices().last()? {
        (i, 's') => (&t[..i], 1.0),
        (i, 'm') => (&t[..i], 60.0),
        (i, 'h') => (&t[..i], 3600.0),
        _ => (t, 1.0),
    };
    let n: f64 = number.trim().parse().ok()?;
    Some(n * scale).filter(|s| s.is_finite())
}

/// 49152 → "48K", 2097152 → "2M".
pub fn human(bytes: u64) -> String {
    if bytes >= 1 << 30 && bytes.is_multiple_of(1 << 30) {
        format!("{}G", bytes >> 30)
    } else if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{}M", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes.is_multiple_of(1 << 10) {
        format!("{}K", bytes >> 10)
    } else {
        format!("{bytes}")
    }
}

/// Sizes as caches are quoted, exactly: "48 KiB", "2 MiB", "1.25 MiB" (never a rounded
/// "1 MiB" for 1280 KiB). A size that is no whole hundredth of its unit falls to the unit
/// below, where it is whole.
pub fn format_bytes(b: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (size, name) in UNITS {
        if b < size {
            continue;
        }
        if b.is_multiple_of(size) {
            return format!("{} {name}", b / size);
        }
        if (b * 100).is_multiple_of(size) {
            let text = format!("{:.2}", b as f64 / size as f64);
            return format!("{} {name}", text.trim_end_matches('0'));
        }
    }
    format!("{b} B")
}

#[cfg(test)]
mod tests {
    #[test]
    fn sizes_are_read_in_binary_multiples_and_refused_when_not_whole_or_too_large() {
        use super::parse_bytes;
        assert_eq!(parse_bytes("4096"), Some(4096));
        assert_eq!(parse_bytes("512k"), Some(512 << 10));
        assert_eq!(parse_bytes(" 32K\n"), Some(32 << 10));
        assert_eq!(parse_bytes("16M"), Some(16 << 20));
        assert_eq!(parse_bytes("2g"), Some(2 << 30));
        for bad in [
            "",
            "M",
            "1.5M",
            "-1K",
            "twelve",
            "12T",
            "99999999999G",
            "1MB",
            "1 kB",
        ] {
            assert_eq!(parse_bytes(bad), None, "{bad:?}");
        }
    }

    /// The old parsers each read a part: sysfs "32K" (capitals only), the size flags and
    /// `mem=` a letter in either case; none read what timeshare prints. The one parser
    /// reads the union.
    #[test]
    fn every_spelling_an_old_parser_read_is_read_and_so_is_the_printed_one() {
        use super::{format_bytes, parse_bytes};
        for (typed, bytes) in [
            ("64k", 64 << 10),
            ("64K", 64 << 10),
            ("1M", 1 << 20),
            ("1m", 1 << 20),
            ("2G", 2 << 30),
            ("2g", 2 << 30),
            ("256M", 256 << 20),
            ("131072K", 128 << 20),
            ("48 KiB", 48 << 10),
            ("2MiB", 2 << 20),
            ("3 GiB", 3 << 30),
            ("512 B", 512),
        ] {
            assert_eq!(parse_bytes(typed), Some(bytes), "{typed}");
        }
        for bytes in [512, 48 << 10, 2 << 20, 260 << 20, 3 << 30] {
            assert_eq!(parse_bytes(&format_bytes(bytes)), Some(bytes), "{bytes}");
        }
    }

    #[test]
    fn a_refused_size_says_whether_it_was_unreadable_or_too_large() {
        use super::{read_bytes, NotBytes};
        assert_eq!(read_bytes("lots"), Err(NotBytes::Unreadable));
        assert_eq!(read_bytes("1.5G"), Err(NotBytes::Unreadable));
        assert_eq!(read_bytes("99999999999G"), Err(NotBytes::TooLarge));
        assert_eq!(read_bytes("99999999999 GiB"), Err(NotBytes::TooLarge));
    }

    /// `--for` read its number untrimmed, `--budget` trimmed: "30 s" is read, as the
    /// budget did.
    #[test]
    fn times_are_read_in_seconds_and_refused_when_not_finite() {
        use super::parse_seconds;
        assert_eq!(parse_seconds("90"), Some(90.0));
        assert_eq!(parse_seconds("0.5s"), Some(0.5));
        assert_eq!(parse_seconds("30s"), Some(30.0));
        assert_eq!(parse_seconds("30 s"), Some(30.0));
        assert_eq!(parse_seconds("5m"), Some(300.0));
        assert_eq!(parse_seconds("10m"), Some(600.0));
        assert_eq!(parse_seconds("1h"), Some(3600.0));
        assert_eq!(parse_seconds("2h"), Some(7200.0));
        for bad in ["", "s", "ten", "1d", "inf", "NaNs", "1e400"] {
            assert_eq!(parse_seconds(bad), None, "{bad:?}");
        }
    }

    use super::*;

    #[test]
    fn cache_sizes_read_as_people_quote_them() {
        assert_eq!(format_bytes(48 * 1024), "48 KiB");
        assert_eq!(format_bytes(2048 * 1024), "2 MiB");
        assert_eq!(format_bytes(266_240 * 1024), "260 MiB");
        assert_eq!(format_bytes(1280 * 1024), "1.25 MiB");
        assert_eq!(format_bytes(1536 * 1024), "1.5 MiB");
        assert_eq!(format_bytes(1000 * 1024), "1000 KiB");
        assert_eq!(format_bytes(3 << 30), "3 GiB");
        assert_eq!(format_bytes(512), "512 B");
    }

    #[test]
    fn seconds_pick_a_readable_unit() {
        assert_eq!(format_seconds(92.4e-9), "92.4 ns");
        assert_eq!(format_seconds(230e-6), "230 µs");
        assert_eq!(format_seconds(1.5e-3), "1.50 ms");
        assert_eq!(format_seconds(23.0), "23.0 s");
    }

    #[test]
    fn rates_are_decimal() {
        assert_eq!(format_rate(2.5e9), "2.50 GB/s");
        assert_eq!(format_rate(512e6), "512 MB/s");
    }
}
