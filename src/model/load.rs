//! Options of the `load` family (§6): how many copies, users and readers, the memory
//! footprint of a copy, the command script and the interval between users' starts.
//! Recorded with the run, since every figure of the family depends on them.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(default)]
pub struct LoadOptions {
    /// `load.cpu.N`: the numbers of simultaneous copies (empty: 1, 2, 5, 10, 15).
    pub copies: Vec<usize>,
    /// `load.script.N`: the numbers of simultaneous users (empty: 1, 5, 9).
    pub users: Vec<usize>,
    /// `load.iointerference.K`: the numbers of concurrent readers (empty: 0 to 4).
    pub readers: Vec<usize>,
    /// Memory each `load.cpu` copy touches, in MiB (None: 16).
    pub footprint_mib: Option<u64>,
    /// The command script: a bundled name (`user1975`, `dev`) or a file (None: user1975).
    pub script: Option<String>,
    /// Seconds between two users' starts (None: the single user's script time / 16, the
    /// seed's 15 s against a 4 min script).
    pub stagger_s: Option<f64>,
    /// `load.script`: seconds one command may run before it is killed and counted as timed
    /// out (None: [`COMMAND_TIMEOUT_S`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command_timeout_s: Option<f64>,
    /// `load.script`: seconds one staggered run of every user may take before what still
    /// runs is killed and the row fails (None: [`RUN_TIMEOUT_S`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_timeout_s: Option<f64>,
    /// The configuration of a `run --configs` sweep this run measured (`tmp=tmpfs`,
    /// `tmp=disk+mem=256M`): seed 000's Attachment B today. None: not part of a sweep.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub configuration: Option<String>,
    /// What the configuration was on this machine, in words (the tmpfs mounted, the
    /// directory and its file system, the cgroup's limit), for `show`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub configuration_note: Option<String>,
}

/// The default `--command-timeout`: far beyond any command of the bundled scripts (the
/// slowest, a compile, takes about a second), short enough that a hung command is seen.
pub const COMMAND_TIMEOUT_S: f64 = 300.0;
/// The default `--run-timeout`, as `exercise --timeout` (600 s) for one batch, doubled:
/// a staggered run holds several users' scripts.
pub const RUN_TIMEOUT_S: f64 = 1200.0;

impl LoadOptions {
    pub fn copies(&self) -> Vec<usize> {
        or_default(&self.copies, &[1, 2, 5, 10, 15])
    }
    pub fn users(&self) -> Vec<usize> {
        or_default(&self.users, &[1, 5, 9])
    }
    pub fn readers(&self) -> Vec<usize> {
        or_default(&self.readers, &[0, 1, 2, 3, 4])
    }
    pub fn footprint_bytes(&self) -> u64 {
        self.footprint_mib.unwrap_or(16) << 20
    }
    pub fn command_timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs_f64(self.command_timeout_s.unwrap_or(COMMAND_TIMEOUT_S))
    }
    pub fn run_timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs_f64(self.run_timeout_s.unwrap_or(RUN_TIMEOUT_S))
    }
}

/// The list given, sorted and without repeats, or the default.
fn or_default(given: &[usize], default: &[usize]) -> Vec<usize> {
    let mut v = if given.is_empty() {
        default.to_vec()
    } else {
        given.to_vec()
    };
    v.sort_unstable();
    v.dedup();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_lists_mean_the_seed_defaults() {
        let o = LoadOptions::default();
        assert_eq!(o.copies(), vec![1, 2, 5, 10, 15]);
        assert_eq!(o.users(), vec![1, 5, 9]);
        assert_eq!(o.footprint_bytes(), 16 << 20);
        let o = LoadOptions {
            copies: vec![3, 1, 3],
            ..Default::default()
        };
        assert_eq!(o.copies(), vec![1, 3]);
    }
}
