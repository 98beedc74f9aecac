//! The record of a `mem` row: bandwidth per buffer size for one kind of pass (read, write,
//! copy, zero) with one thread or one per CPU, and the cache sizes that mark the levels.

use serde::{Deserialize, Serialize};

use super::cache::NamedCache;
use super::Record;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemSweep {
    /// "rd", "wr", "cp" or "bzero", as lmbench's bw_mem names them.
    pub op: String,
    /// What one pass does, instruction by instruction, in words.
    pub loop_desc: String,
    /// Threads passing over buffers of their own at the same time.
    pub threads: usize,
    /// One entry per size swept, smallest first; bytes are per thread.
    pub sizes: Vec<BandPoint>,
    /// The data caches the system reports, smallest first ("L1d 32K").
    pub caches: Vec<NamedCache>,
    /// The size (per thread) the headline figure is sampled at.
    pub headline_bytes: u64,
    /// Which sizes were swept and why ("quick mode: half of each cache level and the
    /// headline size").
    pub sampled: String,
    /// Timings per size; the best is the least disturbed by other load.
    pub repeats: usize,
}

/// One size of the sweep: bytes per second of all threads together.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BandPoint {
    pub bytes: u64,
    pub best_bps: f64,
    pub median_bps: f64,
}

impl Record for MemSweep {}

impl MemSweep {
    /// The name of the smallest cache `bytes` fits in, or "memory".
    pub fn level_of(&self, bytes: u64) -> String {
        self.caches
            .iter()
            .find(|c| bytes <= c.bytes)
            .map_or_else(|| "memory".to_string(), |c| c.name.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_size_belongs_to_the_smallest_cache_that_holds_it() {
        let s = MemSweep {
            op: "rd".into(),
            loop_desc: String::new(),
            threads: 1,
            sizes: vec![],
            caches: vec![
                NamedCache {
                    name: "L1d 32K".into(),
                    bytes: 32 << 10,
                },
                NamedCache {
                    name: "L2 512K".into(),
                    bytes: 512 << 10,
                },
            ],
            headline_bytes: 0,
            sampled: String::new(),
            repeats: 1,
        };
        assert_eq!(s.level_of(16 << 10), "L1d 32K");
        assert_eq!(s.level_of(32 << 10), "L1d 32K");
        assert_eq!(s.level_of(64 << 10), "L2 512K");
        assert_eq!(s.level_of(1 << 20), "memory");
    }
}
