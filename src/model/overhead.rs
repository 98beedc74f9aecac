//! What every sample contains besides the work: the record of the harness's overhead
//! measurement, stored with each run so that its table can say what was subtracted.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Overhead {
    /// An empty timed region (two back-to-back clock reads), in seconds.
    pub clock_s: f64,
    /// One iteration of an empty loop of the benchmarks' shape, in seconds.
    pub per_iter_s: f64,
    /// The resolution the clock claims, in seconds.
    pub resolution_s: f64,
}

impl Overhead {
    /// No correction at all (for tests of the raw machinery).
    pub fn none() -> Overhead {
        Overhead {
            clock_s: 0.0,
            per_iter_s: 0.0,
            resolution_s: 0.0,
        }
    }
}
