//! Softirq time from /proc/stat, and how this kernel attributes protocol work: seed 001
//! §5.1.3's point that network processing runs in software interrupts and is "rarely
//! attributed to the processes that really receive the data".
//!
//! /proc/stat's per-CPU lines count, in clock ticks, the time each CPU spent in each
//! state; its seventh field is softirq. Without CONFIG_IRQ_TIME_ACCOUNTING the kernel
//! decides the state of a whole tick by what the CPU was doing when the tick came, and a
//! process's own CPU clock includes the softirq work run in its context; with it, softirq
//! time is measured apart and taken out of the process's time.

use std::path::Path;

/// Softirq ticks per CPU, as read at one moment.
#[derive(Debug, Clone, PartialEq)]
pub struct SoftirqTicks(Vec<(usize, u64)>);

/// The per-CPU softirq ticks now, or `None` when /proc/stat cannot be read.
pub fn read_softirq() -> Option<SoftirqTicks> {
    std::fs::read_to_string("/proc/stat")
        .ok()
        .map(|t| parse_stat(&t))
}

/// The `cpuN` lines' softirq field (the seventh number).
pub fn parse_stat(text: &str) -> SoftirqTicks {
    SoftirqTicks(
        text.lines()
            .filter_map(|l| {
                let mut f = l.split_whitespace();
                let cpu = f.next()?.strip_prefix("cpu")?.parse::<usize>().ok()?;
                let softirq = f.nth(6)?.parse::<u64>().ok()?;
                Some((cpu, softirq))
            })
            .collect(),
    )
}

impl SoftirqTicks {
    /// Nanoseconds of softirq between two readings on `cpus` (every CPU when `None`).
    pub fn between(
        before: Option<SoftirqTicks>,
        after: Option<SoftirqTicks>,
        cpus: Option<&[usize]>,
    ) -> Option<f64> {
        let (before, after) = (before?, after?);
        let ticks: u64 = after
            .0
            .iter()
            .filter(|(c, _)| cpus.is_none_or(|set| set.contains(c)))
            .map(|(c, a)| {
                let b = before.0.iter().find(|(bc, _)| bc == c).map_or(*a, |x| x.1);
                a.saturating_sub(b)
            })
            .sum();
        Some(ticks as f64 * 1e9 / ticks_per_second())
    }
}

fn ticks_per_second() -> f64 {
    // SAFETY: sysconf reads a constant.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if hz > 0 {
        hz as f64
    } else {
        100.0
    }
}

/// Whether the running kernel accounts interrupt time apart, from its configuration
/// under /boot (`None` when it is not there to read).
pub fn irq_time_accounting() -> Option<bool> {
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").ok()?;
    let config = Path::new("/boot").join(format!("config-{}", release.trim()));
    let text = std::fs::read_to_string(config).ok()?;
    Some(irq_time_in(&text))
}

fn irq_time_in(config: &str) -> bool {
    config
        .lines()
        .any(|l| l.trim() == "CONFIG_IRQ_TIME_ACCOUNTING=y")
}

/// One paragraph for the row's details: how each figure was attributed.
pub fn attribution() -> String {
    let kernel = match irq_time_accounting() {
        Some(true) => {
            "this kernel accounts interrupt time apart (CONFIG_IRQ_TIME_ACCOUNTING=y): \
             softirq work is taken out of the processes' clocks and is the softirq figure"
        }
        Some(false) => {
            "this kernel does not account interrupt time apart (CONFIG_IRQ_TIME_ACCOUNTING \
             is off): softirq work run in a process's context (most loopback protocol work, \
             in the sender's send call) is charged to that process's clock, and the softirq \
             figure counts only the clock ticks that found a CPU in softirq"
        }
        None => {
            "whether this kernel accounts interrupt time apart is unknown (no configuration \
             under /boot): softirq work may be in the processes' clocks as well as in the \
             softirq figure"
        }
    };
    format!(
        "sender: its thread's CPU clock; receiver: its process's CPU clock, both around each \
         size's transfer; softirq: /proc/stat's softirq ticks ({} per second) on the CPUs \
         the two were pinned to (all CPUs when unpinned, so other processes' softirq work is \
         in it), over the same interval; {kernel}",
        ticks_per_second()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const STAT: &str = "cpu  69476 18734 8903 764743 533 0 210 777 0 0\n\
        cpu0 33913 9821 4026 383228 156 0 117 357 0 0\n\
        cpu1 35562 8913 4877 381515 377 0 93 420 0 0\n\
        intr 123 4 5\n";

    #[test]
    fn the_softirq_field_is_read_per_cpu_not_from_the_total() {
        assert_eq!(parse_stat(STAT), SoftirqTicks(vec![(0, 117), (1, 93)]));
    }

    #[test]
    fn softirq_time_is_the_difference_on_the_chosen_cpus() {
        let before = parse_stat(STAT);
        let after = parse_stat(&STAT.replace(" 117 ", " 120 ").replace(" 93 ", " 100 "));
        let hz = ticks_per_second();
        let all = SoftirqTicks::between(Some(before.clone()), Some(after.clone()), None);
        assert_eq!(all, Some(10.0 * 1e9 / hz));
        let one = SoftirqTicks::between(Some(before.clone()), Some(after), Some(&[1]));
        assert_eq!(one, Some(7.0 * 1e9 / hz));
        assert_eq!(SoftirqTicks::between(Some(before), None, None), None);
    }

    #[test]
    fn the_kernel_configuration_line_is_matched_exactly() {
        assert!(irq_time_in("CONFIG_X=y\nCONFIG_IRQ_TIME_ACCOUNTING=y\n"));
        assert!(!irq_time_in("# CONFIG_IRQ_TIME_ACCOUNTING is not set\n"));
        assert!(!irq_time_in("CONFIG_HAVE_IRQ_TIME_ACCOUNTING=y\n"));
        assert!(attribution().contains("softirq"));
    }
}
