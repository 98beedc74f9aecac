//! lmbench's timing calibration kept per machine. lmbench's programs calibrate their
//! timer and loop overhead on every start unless `ENOUGH`, `TIMING_O` and `LOOP_O` are
//! set; measuring them (`enough`, `timing_o`, `loop_o`) takes up to a minute on a busy
//! machine, and they depend on the machine, not on the run. So they are measured once and
//! kept in a small file, with what they were measured on: the processor's model, the
//! number of CPUs and the kernel release. A file of another machine, older than
//! [`KEEP_DAYS`], not ours, or not what we wrote is measured again.

use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// How long a kept calibration is trusted.
pub const KEEP_DAYS: i64 = 30;

/// The file's name in timeshare's data directory.
const FILE_NAME: &str = "lmbench-calibration.json";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Kept {
    /// What the values were measured on ([`machine_key`]).
    pub machine: String,
    pub measured_at: DateTime<Utc>,
    /// The environment variables and their values, as lmbench reads them.
    pub values: Vec<(String, String)>,
}

/// The processor's model, the number of CPUs and the kernel release: what lmbench's
/// calibration depends on.
pub fn machine_key() -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.trim() == "model name")
        .map_or("unknown processor", |(_, v)| v.trim());
    let cpus = online_cpus();
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    format!("{model}; {cpus} CPUs; Linux {}", release.trim())
}

/// The CPUs online, whatever this process is pinned to (the command pins itself before
/// it calibrates).
pub fn online_cpus() -> usize {
    // SAFETY: sysconf reads a system value and has no memory arguments.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    usize::try_from(n).unwrap_or(1).max(1)
}

/// Where the calibration is kept: timeshare's data directory.
pub fn default_path() -> Option<PathBuf> {
    dirs::data_dir().map(|d| d.join("timeshare").join(FILE_NAME))
}

/// The values kept at `path` for `machine`, when they are younger than [`KEEP_DAYS`] at
/// `now`; `None` for anything else — no file, a link, a file of another user, not JSON,
/// another machine, too old, a value that is not a number.
pub fn load(path: &Path, machine: &str, now: DateTime<Utc>) -> Option<Vec<(String, String)>> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    // SAFETY: getuid has no arguments and cannot fail.
    let ours = meta.uid() == unsafe { libc::getuid() };
    if !meta.file_type().is_file() || !ours || meta.len() > 64 * 1024 {
        return None;
    }
    let kept: Kept = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    let age = now.signed_duration_since(kept.measured_at);
    let numbers = kept
        .values
        .iter()
        .all(|(_, v)| v.parse::<f64>().is_ok_and(|x| x.is_finite() && x >= 0.0));
    (kept.machine == machine && age.num_seconds() >= 0 && age.num_days() < KEEP_DAYS && numbers)
        .then_some(kept.values)
}

/// Keep `values` for `machine` at `path`: written to a new file beside it (created
/// exclusively, so nothing planted is written through) and renamed over it.
pub fn save(path: &Path, machine: &str, values: &[(String, String)]) -> Result<()> {
    let dir = path
        .parent()
        .context("the calibration file has no directory")?;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot make {}", dir.display()))?;
    let kept = Kept {
        machine: machine.to_string(),
        measured_at: crate::model::wallclock::now(),
        values: values.to_vec(),
    };
    let fresh = dir.join(format!(".{FILE_NAME}.{}", std::process::id()));
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o644)
        .open(&fresh)
        .with_context(|| format!("cannot write {}", fresh.display()))?;
    let written = f
        .write_all(serde_json::to_string_pretty(&kept)?.as_bytes())
        .and_then(|()| std::fs::rename(&fresh, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&fresh);
    }
    written.with_context(|| format!("cannot keep lmbench's calibration in {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values() -> Vec<(String, String)> {
        vec![
            ("ENOUGH".into(), "5000".into()),
            ("TIMING_O".into(), "0".into()),
            ("LOOP_O".into(), "0.00231".into()),
        ]
    }

    #[test]
    fn kept_values_come_back_for_the_same_machine_only_and_only_while_young() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join(FILE_NAME);
        save(&path, "m1", &values()).unwrap();
        let now = crate::model::wallclock::now();
        assert_eq!(load(&path, "m1", now), Some(values()));
        assert_eq!(load(&path, "m2", now), None);
        let later = now + chrono::Duration::days(KEEP_DAYS);
        assert_eq!(load(&path, "m1", later), None);
        // Kept again: the new file replaces the old one, and no temporary is left.
        save(&path, "m2", &values()).unwrap();
        assert_eq!(load(&path, "m2", now), Some(values()));
        let left: Vec<_> = std::fs::read_dir(path.parent().unwrap()).unwrap().collect();
        assert_eq!(left.len(), 1);
    }

    #[test]
    fn a_link_a_corrupt_file_or_a_non_number_is_measured_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        save(&path, "m", &values()).unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&path, &link).unwrap();
        assert_eq!(load(&link, "m", crate::model::wallclock::now()), None);
        std::fs::write(&path, "{ not json").unwrap();
        assert_eq!(load(&path, "m", crate::model::wallclock::now()), None);
        let bad = vec![("ENOUGH".to_string(), "NaN".to_string())];
        save(&path, "m", &bad).unwrap();
        assert_eq!(load(&path, "m", crate::model::wallclock::now()), None);
    }

    #[test]
    fn the_machine_key_names_the_processor_the_cpus_and_the_kernel() {
        let k = machine_key();
        assert!(k.contains(" CPUs; Linux "), "{k}");
    }
}
