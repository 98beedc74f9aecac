//! CPU placement: which CPUs we may use, which one we are on, and pinning.

use anyhow::{bail, Context};

/// The CPUs this process may run on, from its affinity mask.
pub fn usable_cpus() -> Vec<usize> {
    // SAFETY: cpu_set_t is plain data; sched_getaffinity fills it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return vec![0];
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect()
    }
}

/// The CPU the calling thread is on now.
#[inline(always)]
pub fn current_cpu() -> i32 {
    // SAFETY: no arguments; returns -1 on error.
    unsafe { libc::sched_getcpu() }
}

/// Pin the calling thread (and the children it forks later) to `cpus`.
pub fn pin_to(cpus: &[usize]) -> anyhow::Result<()> {
    if cpus.is_empty() {
        bail!("no CPU to pin to");
    }
    // SAFETY: as above.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &c in cpus {
            libc::CPU_SET(c, &mut set);
        }
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(std::io::Error::last_os_error())
                .with_context(|| format!("cannot pin to CPU {cpus:?}"));
        }
    }
    Ok(())
}

/// Check that `cpu` is one this process may use; the message names the usable ones.
pub fn check_usable(cpu: usize) -> anyhow::Result<()> {
    let usable = usable_cpus();
    if !usable.contains(&cpu) {
        bail!(
            "--cpu {cpu}: this machine lets timeshare use CPUs {} only",
            describe_cpus(&usable)
        );
    }
    Ok(())
}

/// "0-3,6" style list.
pub fn describe_cpus(cpus: &[usize]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let start = cpus[i];
        let mut end = start;
        while i + 1 < cpus.len() && cpus[i + 1] == end + 1 {
            i += 1;
            end = cpus[i];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describes_ranges() {
        assert_eq!(describe_cpus(&[0, 1, 2, 3, 6]), "0-3,6");
        assert_eq!(describe_cpus(&[1]), "1");
    }

    #[test]
    fn a_cpu_beyond_the_machine_is_refused() {
        let err = check_usable(100_000).unwrap_err().to_string();
        assert!(err.contains("--cpu 100000"), "{err}");
    }
}
