//! timeshare: the classic UNIX measurements (Bell Labs 1975–76, Berkeley 4.2/4.3BSD, the
//! 1983 PERQ note, the 1982 DCIEM exerciser) on today's machines, with honest statistics.
//!
//! Dependencies run one way: `cli → {report, bench} → harness → model`.

#![deny(clippy::undocumented_unsafe_blocks)]

pub mod assets;
pub mod bench;
pub mod cli;
pub mod exercise;
pub mod harness;
pub mod model;
pub mod reference;
pub mod report;
pub mod selftest;
pub mod store;
pub mod usecase;
