//! §5 of the catalogue, first half: files and disks (seed 000 Table 5's dd copy, seed 003's
//! kt5, kt6 and the Zilog disk test). The second half, name translation, is `bench::fs`.
//!
//! Every row says what it measured (`details.cache`, and a note in the main table):
//! - **bypassed**: the files are opened with O_DIRECT, so each read and write goes to the
//!   device; the files' cached pages are dropped (`fadvise DONTNEED`) before sampling.
//!   This is the default: the honest device figure, as 000's "raw" dd was.
//! - **page cache**: the `.cached` variants, plain reads and writes on warm files: today's
//!   memory-to-memory cost, the modern counterpart of 000's memory-simulated disk (C8, C9).
//!
//! Where the file system refuses O_DIRECT (ramfs; tmpfs before Linux 6.6) the bypassed
//! row falls back to the page cache and says so; on a memory-backed file system (tmpfs,
//! ramfs) the row says that memory *is* the device, whatever the flag. Whether each row
//! fsyncs is in `details.fsync`.
//!
//! Files live only in the run's scratch directory (below `--dir`); free space is checked
//! before anything is written ([`space::ensure_room`]) and every file is removed by the
//! workload's `Drop` (and the scratch directory by the harness), on failure and on Ctrl-C.

use crate::harness::contract::Benchmark;

pub mod cache;
pub mod filebw;
pub mod ops;
mod rows;
pub mod space;

/// The family's section of `docs/benchmarks.md`.
#[linkme::distributed_slice(crate::model::catalogue::SECTIONS)]
fn section() -> crate::model::catalogue::Section {
    crate::model::catalogue::Section {
        order: 90,
        family: "io",
        heading: "`io` — files and disks",
        seeds: "Seed 000 Table 5's copy; seed 003's kt5, kt6 and the Zilog disk test.",
    }
}

/// The family's place in the catalogue: registered here, gathered by
/// [`crate::bench::Registry`].
#[linkme::distributed_slice(crate::bench::FAMILIES)]
fn family() -> crate::bench::Family {
    crate::bench::Family::rows("io", 120, |_| all())
}

pub fn all() -> Vec<Benchmark> {
    let mut all = rows::rows();
    all.extend(filebw::benchmarks());
    all
}

/// A small deterministic generator for random offsets (xorshift64*): the same sequence
/// every run, so two runs seek alike.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    /// A value in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) % n.max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rng_covers_its_range_evenly() {
        let mut r = Rng::new(7);
        let mut hits = [0u32; 8];
        for _ in 0..8000 {
            hits[r.below(8) as usize] += 1;
        }
        assert!(hits.iter().all(|&h| (800..1200).contains(&h)), "{hits:?}");
    }
}
