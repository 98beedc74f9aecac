//! The wall clock, read without a panic: chrono's `Utc::now()` panics ("system time
//! before Unix epoch") when the machine's clock reads before 1970 — a VM or a board booted
//! without a real-time clock, before NTP has set it. Such a run is still measured (its
//! durations come from the monotonic clock); its dates are refused later, by name, where
//! a date outside 1970 to 9999 is (import, the store).

use chrono::{DateTime, Utc};
use std::time::SystemTime;

/// Now, as the wall clock reads it, whatever it reads.
pub fn now() -> DateTime<Utc> {
    at(SystemTime::now())
}

/// A wall-clock time as a date, before 1970 included.
pub fn at(t: SystemTime) -> DateTime<Utc> {
    DateTime::from(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Datelike;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn a_clock_before_1970_is_a_date_not_a_panic() {
        let before = at(UNIX_EPOCH - Duration::from_millis(1500));
        assert_eq!(before.to_rfc3339(), "1969-12-31T23:59:58.500+00:00");
        assert_eq!(
            at(UNIX_EPOCH - Duration::from_secs(86_400 * 365)).year(),
            1969
        );
        assert_eq!(at(UNIX_EPOCH + Duration::from_secs(1)).timestamp(), 1);
        assert!(now().year() >= 2024);
    }
}
