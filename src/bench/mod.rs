//! What to measure. One folder per benchmark family, each exporting `all()`: the
//! [`Benchmark`] descriptors of its rows, built on the contract in
//! [`crate::harness::contract`]. [`Registry`] puts them together from a run's options; it
//! is what `list`, `run`, the docs and the smoke test are all driven by.

use crate::harness::contract::{Benchmark, Derived};
use crate::model::RunOptions;

pub mod cache;
pub mod cpu;
pub mod fs;
pub mod io;
pub mod load;
pub mod message;
pub mod micro;
pub mod mixed;
pub mod pipe;
pub mod proc;
pub mod select;
pub mod selftest;
pub mod signal;
pub mod syscall;
pub mod udg;
pub mod vm;

pub use select::SelectError;

/// Every benchmark of a run, in the order `run` executes them and `list` shows them, and
/// the rows derived from them. A plain value: built from the run's options (the `load`
/// rows' ids come from `--copies`, `--users`, `--readers`), owned by whoever asked.
pub struct Registry {
    benches: Vec<Benchmark>,
    derived: Vec<Derived>,
}

impl Registry {
    pub fn new(options: &RunOptions) -> Registry {
        let mut benches = Vec::new();
        benches.extend(syscall::all());
        benches.extend(signal::all());
        benches.extend(pipe::all());
        benches.extend(udg::all());
        benches.extend(proc::all());
        benches.extend(vm::all());
        benches.extend(cache::all());
        benches.extend(cpu::all());
        benches.extend(io::all());
        benches.extend(fs::all());
        benches.extend(load::all(&options.load));
        benches.extend(mixed::all());
        let mut derived = Vec::new();
        derived.extend(signal::derived());
        derived.extend(proc::derived());
        Registry { benches, derived }
    }

    /// The registry of a run with every option at its default.
    pub fn with_defaults() -> Registry {
        Registry::new(&RunOptions::default())
    }

    pub fn benches(&self) -> &[Benchmark] {
        &self.benches
    }

    /// Rows computed from measured rows of the same run, never measured themselves.
    pub fn derived(&self) -> &[Derived] {
        &self.derived
    }

    /// The benchmark with this exact id.
    pub fn find(&self, id: &str) -> Option<&Benchmark> {
        self.benches.iter().find(|b| b.id() == id)
    }

    /// The benchmarks `words` select (see [`select::select`]).
    pub fn select(&self, words: &[String]) -> Result<Vec<&Benchmark>, SelectError> {
        select::select(&self.benches, words)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::contract::{Host, Skip, StandaloneCtx};
    use std::collections::HashSet;

    #[test]
    fn ids_are_unique_and_well_formed() {
        let reg = Registry::with_defaults();
        let mut seen = HashSet::new();
        for b in reg.benches() {
            let id = b.id();
            assert!(seen.insert(id.to_string()), "duplicate id {id}");
            assert!(
                id.split('.').all(|part| !part.is_empty()
                    && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')),
                "malformed id {id}"
            );
            assert!(!b.about().is_empty(), "{id} has no description");
        }
        for d in reg.derived() {
            assert!(seen.insert(d.id.to_string()), "derived id {} clashes", d.id);
        }
    }

    /// stress-ng's verify-test-all: every registered benchmark is prepared and does one
    /// operation, or says why it cannot run here.
    #[test]
    fn every_registered_benchmark_runs_once() {
        let host = Host::detect();
        let options = RunOptions::default();
        for b in Registry::new(&options).benches() {
            if let Err(Skip(reason)) = b.supported(&host) {
                assert!(reason.len() > 10, "{}: skip without a reason", b.id());
                continue;
            }
            let standalone = StandaloneCtx::new(options.clone()).unwrap();
            let mut w = b
                .prepare(&standalone.ctx())
                .unwrap_or_else(|e| panic!("{}: prepare failed: {e:#}", b.id()));
            w.run(1)
                .unwrap_or_else(|e| panic!("{}: one operation failed: {e:#}", b.id()));
        }
    }

    #[test]
    fn derived_inputs_are_registered() {
        let reg = Registry::with_defaults();
        for d in reg.derived() {
            for input in d.inputs {
                assert!(reg.find(input).is_some(), "{} needs unknown {input}", d.id);
            }
        }
    }

    #[test]
    fn two_registries_from_different_options_do_not_share_ids() {
        let mut options = RunOptions::default();
        options.load.copies = vec![3];
        let custom = Registry::new(&options);
        assert!(custom.find("load.cpu.3").is_some());
        assert!(custom.find("load.cpu.5").is_none());
        let default = Registry::with_defaults();
        assert!(
            default.find("load.cpu.3").is_none(),
            "no global configuration"
        );
        assert!(default.find("load.cpu.5").is_some());
    }
}
