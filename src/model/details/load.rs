//! Records of the `load` family (catalogue §6, seed 000 Tables 9–11, Attachment C).

use serde::{Deserialize, Serialize};

use super::Record;
use crate::model::knee::Knee;

/// What a `load.cpu.N` figure is per: seed 000 Table 9's Real, "the average of all the
/// programs run simultaneously".
pub const PER_COPY: &str = "copy of the compute-bound program (average real over the copies)";
/// What a `load.script.N` figure is per: Table 10's columns "have the same meaning" as
/// Table 9's, so one script, averaged over the users.
pub const PER_SCRIPT: &str = "user's command script (average real over the users)";
/// What Attachment C's per-command figures are per (a [`CommandAccount`]'s averages, and
/// seed 000's "Avg Real" and "Avg CPU"): one command of the script, averaged over every
/// time it ran, in every run and for every user.
pub const PER_COMMAND: &str = "command of the script (average over its runs and users)";
/// What a `load.iointerference.K` figure is per: one run of the timed compute-bound
/// program, beside its K readers (seed 000 Table 11's Usr CPU and Ratio Alone).
pub const PER_PROGRAM_RUN: &str = "run of the compute-bound program beside the readers";
/// What Table 11's wds/µsec counts: the data the readers read while the program ran.
pub const BYTE_READ_BESIDE: &str = "byte read by the readers beside the program";

/// The most of its children's CPU time a load row's driver (the timeshare process that
/// starts, waits for and accounts the children) may spend itself: beyond it, the driver
/// is a load of its own beside the N copies it measures.
pub const DRIVER_SHARE_LIMIT: f64 = 0.01;

/// The driver's own CPU time during a load row (user + system of the timeshare process,
/// from the row's set-up to its last child reaped) beside its children's (the reaped
/// children's user + system over the same span).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DriverCpu {
    pub driver_s: f64,
    pub children_s: f64,
    /// driver / children; absent when the children used no CPU time.
    pub share: Option<f64>,
}

impl DriverCpu {
    pub fn new(driver_s: f64, children_s: f64) -> DriverCpu {
        DriverCpu {
            driver_s,
            children_s,
            share: (children_s > 0.0).then(|| driver_s / children_s),
        }
    }

    /// More than [`DRIVER_SHARE_LIMIT`] of its children's time (or any time when they
    /// used none).
    pub fn too_heavy(&self) -> bool {
        self.share
            .map_or(self.driver_s > 0.0, |s| s > DRIVER_SHARE_LIMIT)
    }

    /// "driver CPU 0.23% of its children's (0.05 s of 20.9 s)".
    pub fn describe(&self) -> String {
        match self.share {
            Some(s) => format!(
                "driver CPU {:.2}% of its children's ({:.3} s of {:.2} s)",
                s * 100.0,
                self.driver_s,
                self.children_s
            ),
            None => format!("driver CPU {:.3} s, its children none", self.driver_s),
        }
    }

    /// The row's note: the figure, and a warning when the driver is too heavy.
    pub fn note(&self) -> String {
        if self.too_heavy() {
            format!(
                "warning: {}, above the {:.0}% the driver may take: it loaded the machine \
                 beside its children",
                self.describe(),
                DRIVER_SHARE_LIMIT * 100.0
            )
        } else {
            self.describe()
        }
    }
}

/// `load.cpu.N` (Table 9): N copies of a compute-bound program at once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CpuCopies {
    pub copies: usize,
    pub footprint_bytes: u64,
    pub rounds: u64,
    /// Per sample, per copy: real, user and system seconds.
    pub per_copy_real_user_sys_s: Vec<Vec<[f64; 3]>>,
    /// The limit the system hit while starting copies, if it refused one.
    pub limit_hit: Option<String>,
    /// The driver's own CPU time beside its children's (absent in rows stored before it
    /// was measured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver: Option<DriverCpu>,
    /// Absent when no sample completed.
    #[serde(flatten)]
    pub summary: Option<CopiesSummary>,
}

impl Record for CpuCopies {}

/// Table 9's columns: medians over the samples.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CopiesSummary {
    /// Average real time of a copy.
    pub avg_real_s: f64,
    /// User + system time of one copy (total CPU / copies): Table 9's CPU column.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_per_copy_s: Option<f64>,
    /// The batch's wall time, first start to last end (the headline before it was per copy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_real_s: Option<f64>,
    pub min_real_s: f64,
    pub max_real_s: f64,
    /// User + system time of all copies.
    pub total_cpu_s: f64,
    pub total_user_s: f64,
    pub total_system_s: f64,
    /// Real time of one copy alone, with the same work.
    pub baseline_real_s: Option<f64>,
    /// avg real / baseline real.
    pub inc: Option<f64>,
    /// Stated by the largest N of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub knee: Option<Knee>,
}

/// `load.iointerference.K` (Table 11): a compute-bound program beside K readers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IoInterference {
    pub readers: usize,
    pub user_s: f64,
    pub system_s: f64,
    pub real_s: f64,
    pub alone_user_s: Option<f64>,
    /// User time alone / user time beside the readers.
    pub ratio_alone: Option<f64>,
    pub bytes_per_us: f64,
    pub cache: String,
    /// Per run: user, system, real seconds and bytes read.
    pub per_run_user_sys_real_bytes: Vec<(f64, f64, f64, u64)>,
    /// The driver's own CPU time beside its children's (absent in rows stored before it
    /// was measured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver: Option<DriverCpu>,
}

impl Record for IoInterference {}

/// `load.script.N` (Table 10 and Attachment C): N users running a command script.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scripts {
    pub users: usize,
    pub script: String,
    pub commands_per_script: usize,
    pub stagger_s: f64,
    pub shell: String,
    pub runs: usize,
    pub failures: usize,
    /// No failed or missing command and no limit hit: Inc is meaningful.
    pub clean: bool,
    /// Attachment C: per command name, most frequent first.
    pub commands: Vec<CommandAccount>,
    pub limit_hit: Option<String>,
    /// The driver's own CPU time beside its children's (absent in rows stored before it
    /// was measured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver: Option<DriverCpu>,
    /// Absent when no run completed.
    #[serde(flatten)]
    pub summary: Option<ScriptsSummary>,
}

impl Record for Scripts {}

/// Table 10's columns: medians over complete runs of the average per script.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScriptsSummary {
    pub avg_real_s: f64,
    /// The staggered run's wall time, first user's start to last user's end (the headline
    /// before it was per script).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_real_s: Option<f64>,
    pub avg_cpu_s: f64,
    /// The user's shell's own part of `avg_cpu_s` (the script's CPU less its commands'):
    /// each script is run by a shell of its own, whose work is its user's. Absent in rows
    /// stored before the shells, when the driver started every command itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub avg_shell_cpu_s: Option<f64>,
    pub baseline_real_s: Option<f64>,
    pub inc: Option<f64>,
    /// Per run, per user: real and CPU seconds of the script.
    pub per_script_real_cpu_s: Vec<Vec<(f64, f64)>>,
}

/// One line of Attachment C: a command name summed over every run and user.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommandAccount {
    pub command: String,
    pub count: usize,
    pub count_pct: f64,
    pub avg_real_s: f64,
    pub real_pct: f64,
    pub avg_cpu_s: f64,
    pub cpu_pct: f64,
    /// Real / CPU (None when no CPU time was recorded).
    pub real_per_cpu: Option<f64>,
    pub failed: usize,
    pub missing: usize,
    pub absent: usize,
    /// Killed after `--command-timeout` or when the run passed `--run-timeout` (counted
    /// apart from `failed`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub timed_out: usize,
    pub first_error: Option<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_driver_above_one_percent_of_its_children_is_warned_about() {
        let light = DriverCpu::new(0.05, 20.9);
        assert!(!light.too_heavy());
        assert_eq!(
            light.note(),
            "driver CPU 0.24% of its children's (0.050 s of 20.90 s)"
        );
        let heavy = DriverCpu::new(0.44, 20.95);
        assert!(heavy.too_heavy());
        assert!(
            heavy.note().starts_with("warning: driver CPU 2.10%"),
            "{}",
            heavy.note()
        );
    }

    #[test]
    fn children_without_cpu_time_give_no_share() {
        let d = DriverCpu::new(0.01, 0.0);
        assert_eq!(d.share, None);
        assert!(d.too_heavy());
        assert!(!DriverCpu::new(0.0, 0.0).too_heavy());
    }
}
