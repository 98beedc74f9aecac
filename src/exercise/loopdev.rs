//! Loop devices for the device exerciser (`exercise --devez loop`): one attached over a
//! scratch file of the exercise with util-linux's `losetup`, and detached again whatever
//! happens to the run — its end, an error, a timeout, Ctrl-C (the guard's `Drop`). A run
//! killed outright cannot detach its device; the next run (or `timeshare clean`) detaches
//! the loop devices whose backing file was in the scratch directory of a process that no
//! longer exists ([`sweep_dead`]).
//!
//! `losetup --find --show` rather than the LOOP_CTL_GET_FREE and LOOP_CONFIGURE ioctls:
//! it already retries when another process takes the free device first, and its one-line
//! errors say why a machine has no loop device (no /dev/loop-control in a container, no
//! loop module).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::harness::debris;

/// Why a loop device cannot be attached here, if it cannot: only root may attach one, and
/// only with `losetup` installed.
pub fn unavailable(euid: u32, find_program: &dyn Fn(&str) -> bool) -> Option<String> {
    if euid != 0 {
        return Some(format!(
            "a loop device needs root (this is uid {euid}); run as root, or use the scratch \
             file target (--devez file)"
        ));
    }
    if !find_program("losetup") {
        return Some("no `losetup` on PATH (util-linux)".into());
    }
    None
}

/// A loop device attached over a file; detached when dropped.
#[derive(Debug)]
pub struct Attached {
    device: PathBuf,
}

impl Attached {
    /// Attach the first free loop device over `backing`; the error is losetup's own line.
    pub fn over(backing: &Path) -> Result<Attached, String> {
        let out = Command::new("losetup")
            .args(["--find", "--show"])
            .arg(backing)
            .output()
            .map_err(|e| format!("cannot run losetup: {e}"))?;
        let device = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if !out.status.success() || !device.starts_with("/dev/") {
            return Err(format!(
                "losetup could not attach one: {}",
                last_line(&out.stderr)
            ));
        }
        Ok(Attached {
            device: PathBuf::from(device),
        })
    }

    pub fn device(&self) -> &Path {
        &self.device
    }
}

impl Drop for Attached {
    fn drop(&mut self) {
        if let Err(why) = detach(&self.device) {
            eprintln!(
                "timeshare: cannot detach {}: {why}; detach it with `losetup -d {}`",
                self.device.display(),
                self.device.display()
            );
        }
    }
}

fn detach(device: &Path) -> Result<(), String> {
    let out = Command::new("losetup")
        .arg("--detach")
        .arg(device)
        .output()
        .map_err(|e| format!("cannot run losetup: {e}"))?;
    if !out.status.success() {
        return Err(last_line(&out.stderr));
    }
    wait_until_released(device);
    Ok(())
}

/// How long a detach may wait for another opener (udev probing a new block device, say) to
/// close the device.
const RELEASE_WAIT: Duration = Duration::from_secs(5);

/// Wait until the device no longer has a backing file. While anyone else holds it open
/// (udev opens every new block device to probe it), the kernel only marks it to be
/// cleared at the last close and `losetup --detach` returns at once: without the wait the
/// run would end with its device still attached for a moment, over a file it has just
/// removed. After [`RELEASE_WAIT`] the kernel's own autoclear finishes the job.
fn wait_until_released(device: &Path) {
    let Some(name) = device.file_name() else {
        return;
    };
    let backing = Path::new("/sys/block").join(name).join("loop/backing_file");
    let started = Instant::now();
    while backing.exists() && started.elapsed() < RELEASE_WAIT {
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn last_line(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .lines()
        .rfind(|l| !l.trim().is_empty())
        .unwrap_or("(no message)")
        .trim()
        .to_string()
}

/// Detach the loop devices left by exercises that were killed outright: those whose
/// backing file lies in an exerciser's scratch directory (`timeshare-exercise-PID-…`)
/// whose process is gone. Only root can; anyone else's call does nothing. Returns the
/// devices detached.
pub fn sweep_dead() -> Vec<PathBuf> {
    // SAFETY: geteuid has no arguments and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return Vec::new();
    }
    let Ok(out) = Command::new("losetup")
        .args([
            "--list",
            "--noheadings",
            "--raw",
            "--output",
            "NAME,BACK-FILE",
        ])
        .output()
    else {
        return Vec::new();
    };
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| line.split_once(' '))
        .filter(|(_, back)| left_by_dead_exercise(back))
        .filter_map(|(dev, _)| detach(Path::new(dev)).ok().map(|()| PathBuf::from(dev)))
        .collect()
}

/// Whether a backing file (as `losetup --list` shows it, perhaps with " (deleted)") lies
/// in the scratch directory of an exercise whose process is gone.
fn left_by_dead_exercise(back: &str) -> bool {
    Path::new(back.trim()).components().any(|c| {
        let name = c.as_os_str().to_string_lossy();
        name.starts_with("timeshare-exercise-")
            && matches!(debris::classify(&name), Some(debris::Kind::Scratch(pid)) if debris::pid_is_dead(pid))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_root_with_losetup_may_attach() {
        let all = |_: &str| true;
        let none = |_: &str| false;
        let why = unavailable(65534, &all).unwrap();
        assert!(why.contains("needs root (this is uid 65534)"), "{why}");
        assert!(unavailable(0, &none).unwrap().contains("losetup"));
        assert!(unavailable(0, &all).is_none());
    }

    #[test]
    fn only_a_dead_exercise_s_backing_file_is_swept() {
        // Our own process is alive; pid 2^22 + 1 is above the kernel's limit, so no process has it.
        let alive = format!(
            "/tmp/timeshare-exercise-{}-abc123/devez.backing",
            std::process::id()
        );
        let dead = "/tmp/timeshare-exercise-4194305-abc123/devez.backing (deleted)";
        assert!(!left_by_dead_exercise(&alive));
        assert!(left_by_dead_exercise(dead));
        assert!(!left_by_dead_exercise("/home/me/disk.img"));
    }
}
