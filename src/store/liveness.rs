//! Is the process that is writing a run still alive?
//!
//! A run is stored as `running` when it starts and updated when it ends; a writer killed
//! with SIGKILL never gets to the update. We therefore keep the writer's pid, its start time
//! in clock ticks since boot (field 22 of `/proc/PID/stat`, so a reused pid is not mistaken
//! for the writer) and the kernel's boot id (so a reboot is noticed). A run whose writer
//! is gone is shown as `interrupted`. On another machine (different boot id, different
//! host) we cannot tell, and leave the run `running`.

use std::fs;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Liveness {
    pub pid: i32,
    pub start_ticks: Option<u64>,
    pub boot_id: String,
}

impl Liveness {
    pub fn this_process() -> Liveness {
        let pid = std::process::id() as i32;
        Liveness {
            pid,
            start_ticks: start_ticks(pid),
            boot_id: boot_id().unwrap_or_default(),
        }
    }

    /// True when we can tell that the writer no longer runs: same boot and its pid is
    /// dead or now belongs to a younger process. A different boot of this same machine
    /// cannot be told from another machine by the boot id alone, so that case is left
    /// undecided (false) unless the boot id is unknown here too.
    pub fn is_gone(&self) -> bool {
        let Some(here) = boot_id() else {
            return false;
        };
        if self.boot_id.is_empty() || self.boot_id != here {
            return false;
        }
        match (start_ticks(self.pid), self.start_ticks) {
            (None, _) => true,
            (Some(now), Some(then)) => now != then,
            (Some(_), None) => false,
        }
    }
}

fn boot_id() -> Option<String> {
    fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .ok()
        .map(|s| s.trim().to_string())
}

/// Field 22 of `/proc/PID/stat`: the process's start time in ticks after boot. The
/// command name (field 2) may hold spaces and parentheses, so count from the last ')'.
fn start_ticks(pid: i32) -> Option<u64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 1..];
    // `after` starts at field 3 (state); field 22 is the 20th from there.
    after.split_whitespace().nth(19)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive() {
        let me = Liveness::this_process();
        assert!(me.start_ticks.is_some());
        assert!(!me.is_gone());
    }

    #[test]
    fn a_dead_pid_is_gone_and_a_reused_one_too() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id() as i32;
        let ticks = start_ticks(pid);
        child.wait().unwrap();
        let dead = Liveness {
            pid,
            start_ticks: ticks,
            boot_id: boot_id().unwrap(),
        };
        assert!(dead.is_gone());
        let reused = Liveness {
            start_ticks: Some(u64::MAX),
            ..Liveness::this_process()
        };
        assert!(reused.is_gone());
    }

    #[test]
    fn another_boot_is_left_undecided() {
        let other = Liveness {
            pid: 1,
            start_ticks: Some(1),
            boot_id: "another-machine".into(),
        };
        assert!(!other.is_gone());
    }
}
