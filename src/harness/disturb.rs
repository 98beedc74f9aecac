//! What disturbs a sample besides the measuring thread's own preemptions: time the
//! hypervisor stole from its CPU, and the CPU's clock rate. Both are read around each
//! sample, outside its timed region (see `sampler::time_batch`).
//!
//! Steal comes from the CPU's line of `/proc/stat` (the eighth figure, in USER_HZ ticks:
//! 10 ms on most kernels, so a 2 ms sample reads 0 or one whole tick — a coarse flag,
//! summed over many samples a fair share). The frequency comes from
//! `/sys/devices/system/cpu/cpuN/cpufreq/scaling_cur_freq` (kHz), which many virtual
//! machines do not have: then no sample carries one and the run says so once.

use std::path::PathBuf;

/// The steal time of `cpu` since boot, in seconds, or `None` where the kernel does not
/// expose it (or `cpu` is not a CPU).
pub fn steal_s(cpu: i32) -> Option<f64> {
    if cpu < 0 {
        return None;
    }
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    parse_steal_ticks(&text, cpu as usize).map(|t| t as f64 / ticks_per_second())
}

/// The eighth figure (steal) of `cpuN`'s line of `/proc/stat`.
pub fn parse_steal_ticks(stat: &str, cpu: usize) -> Option<u64> {
    let name = format!("cpu{cpu}");
    let line = stat
        .lines()
        .find(|l| l.split_ascii_whitespace().next() == Some(name.as_str()))?;
    line.split_ascii_whitespace().nth(8)?.parse().ok()
}

fn ticks_per_second() -> f64 {
    // SAFETY: sysconf takes a constant and has no other effect.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 {
        t as f64
    } else {
        100.0
    }
}

fn freq_path(cpu: i32) -> PathBuf {
    PathBuf::from(format!(
        "/sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_cur_freq"
    ))
}

/// The current frequency of `cpu` in Hz, where the kernel exposes it.
pub fn freq_hz(cpu: i32) -> Option<f64> {
    if cpu < 0 {
        return None;
    }
    let text = std::fs::read_to_string(freq_path(cpu)).ok()?;
    text.trim().parse::<f64>().ok().map(|khz| khz * 1e3)
}

/// Whether this kernel exposes CPU frequencies at all (checked on CPU 0).
pub fn freq_exposed() -> bool {
    freq_path(0).exists()
}

/// The run's note when it does not, said once rather than per sample.
pub fn freq_warning() -> Option<String> {
    (!freq_exposed()).then(|| {
        "the kernel exposes no CPU frequency here (no cpufreq in /sys): samples record \
         steal time and preemptions, not the clock rate"
            .to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steal_is_the_eighth_figure_of_the_cpus_own_line() {
        let stat = "cpu  2403499 96605 246428 1962708 15749 0 6689 52584 0 0\n\
                    cpu0 1198337 47540 111406 1002794 4718 0 1008 26329 0 0\n\
                    cpu1 1205161 49064 135022 959914 11031 0 5681 26255 0 0\n\
                    cpu10 1 2 3 4 5 6 7 99 0 0\n\
                    intr 19179888 0 0\n";
        assert_eq!(parse_steal_ticks(stat, 0), Some(26329));
        assert_eq!(parse_steal_ticks(stat, 1), Some(26255));
        // cpu1 is not a prefix match for cpu10.
        assert_eq!(parse_steal_ticks(stat, 10), Some(99));
        assert_eq!(parse_steal_ticks(stat, 2), None);
        // A kernel too old to count steal has fewer fields.
        assert_eq!(parse_steal_ticks("cpu0 1 2 3 4 5 6 7\n", 0), None);
    }

    #[test]
    fn this_kernels_steal_is_readable_when_proc_stat_has_it() {
        let stat = std::fs::read_to_string("/proc/stat").unwrap();
        let cpu = crate::harness::cpu::current_cpu();
        assert_eq!(
            steal_s(cpu).is_some(),
            parse_steal_ticks(&stat, cpu as usize).is_some()
        );
        assert!(steal_s(-1).is_none());
    }
}
