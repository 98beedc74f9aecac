//! Pure data and maths: benchmark metadata, units, result records and statistics.
//!
//! Nothing here measures, prints or touches the file system; everything is serde data or a
//! pure function, so it can be tested against known values.

pub mod agreement;
pub mod basis;
pub mod catalogue;
pub mod change;
pub mod crosscheck;
pub mod details;
pub mod devez;
pub mod disturb;
pub mod environment;
pub mod eta;
pub mod exercise;
pub mod fleet;
pub mod invocations;
pub mod knee;
pub mod levels;
pub mod load;
pub mod measure;
pub mod names;
pub mod observation;
pub mod observe;
pub mod overhead;
pub mod resolution;
pub mod result;
pub mod runlevel;
pub mod seeded;
pub mod stats;
pub mod testpause;
pub mod unit;
pub mod usage;
pub mod wallclock;

pub use basis::Basis;
pub use details::Details;
pub use environment::*;
pub use load::LoadOptions;
pub use measure::{Measure, NotComparable};
pub use observe::{Observation, ObserveOptions};
pub use overhead::Overhead;
pub use result::*;
pub use stats::{median, Summary, SummaryError};
pub use unit::{Better, Combine, Metric, Unit};

/// Where a benchmark comes from: a seed paper (file number and table/figure/row), or
/// "modern" for rows the seeds did not have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// `seed` is the seed's number ("000" … "004", the table in docs/families.md);
    /// `place` names the table, figure, row or appendix program.
    Seed {
        seed: &'static str,
        place: &'static str,
    },
    /// A row the seeds did not have; the string says what it adds.
    Modern(&'static str),
}

impl Source {
    pub const fn seed(seed: &'static str, place: &'static str) -> Self {
        Source::Seed { seed, place }
    }

    pub fn describe(&self) -> String {
        match self {
            Source::Seed { seed, place } => format!("seed {seed}, {place}"),
            Source::Modern(why) => format!("modern: {why}"),
        }
    }
}

/// The catalogue family of an id: its first component (`pipe.back.4` → `pipe`).
pub fn family_of(id: &str) -> &str {
    id.split('.').next().unwrap_or(id)
}

/// How long a run may take: `Quick` for tests and a first look, `Full` for figures to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    #[default]
    Quick,
    Full,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn family_is_the_first_component() {
        assert_eq!(family_of("pipe.back.4"), "pipe");
        assert_eq!(family_of("timer"), "timer");
    }
}
