//! A memory cgroup with a limit, for benchmarks that must page on a machine with plenty of
//! memory (seed 001 Table 7 ran 7,500 pages on a 4.5 MB VAX; today those pages fit).
//!
//! cgroup v2 is tried first (a child of this process's own cgroup, which must have the
//! memory controller delegated to its subtree); then cgroup v1's memory hierarchy, where
//! the kernel mounts it that way (hybrid hosts). The group is a child of the cgroup this
//! process is already in, so it lives inside whatever limits the caller already has.
//! `Drop` removes the directory; the caller must have reaped every process it put there.

use std::fs;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

/// Which cgroup interface the limit was set through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    V2,
    V1,
}

/// A live memory cgroup, removed on drop.
#[derive(Debug)]
pub struct MemoryCgroup {
    dir: PathBuf,
    pub version: Version,
    pub limit_bytes: u64,
}

impl MemoryCgroup {
    /// Make a cgroup limited to `limit_bytes`. `Err` says, in words, why it cannot be done
    /// here (not root and not delegated, no memory controller, …).
    pub fn create(limit_bytes: u64) -> Result<MemoryCgroup, String> {
        let mountinfo = fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
        let own = fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
        let v2 = match v2_parent(&mountinfo, &own) {
            Some(parent) => match make(&parent, Version::V2, limit_bytes) {
                Ok(g) => return Ok(g),
                Err(e) => e,
            },
            None => "no cgroup v2 hierarchy with the memory controller".to_string(),
        };
        let v1 = match v1_parent(&mountinfo, &own) {
            Some(parent) => match make(&parent, Version::V1, limit_bytes) {
                Ok(g) => return Ok(g),
                Err(e) => e,
            },
            None => "no cgroup v1 memory hierarchy".to_string(),
        };
        Err(format!("cgroup v2: {v2}; cgroup v1: {v1}"))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file a process id is written to, to move that process into the group.
    pub fn procs_file(&self) -> PathBuf {
        self.dir.join("cgroup.procs")
    }

    /// Move process `pid` into the group.
    pub fn add(&self, pid: libc::pid_t) -> std::io::Result<()> {
        fs::write(self.procs_file(), pid.to_string())
    }

    /// Make `cmd`'s process enter the group between its fork and its exec, so that
    /// everything it runs is in the group from its first instruction.
    pub fn enter_at_exec(&self, cmd: &mut Command) -> std::io::Result<()> {
        let procs = std::ffi::CString::new(self.procs_file().to_string_lossy().as_bytes())
            .map_err(std::io::Error::other)?;
        // SAFETY: the closure runs between fork and exec and calls only async-signal-safe
        // functions (open, write, close) on memory made before the fork.
        unsafe {
            cmd.pre_exec(move || {
                let fd = libc::open(procs.as_ptr(), libc::O_WRONLY);
                if fd < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // "0" moves the writing process itself.
                let ok = libc::write(fd, b"0".as_ptr().cast(), 1) == 1;
                libc::close(fd);
                if ok {
                    Ok(())
                } else {
                    Err(std::io::Error::last_os_error())
                }
            });
        }
        Ok(())
    }

    /// How the limit was set, for the result's notes.
    pub fn describe(&self) -> String {
        let v = match self.version {
            Version::V2 => "cgroup v2 memory.max",
            Version::V1 => "cgroup v1 memory.limit_in_bytes",
        };
        format!("{v} = {} bytes ({})", self.limit_bytes, self.dir.display())
    }
}

impl Drop for MemoryCgroup {
    fn drop(&mut self) {
        // A reaped process may take a moment to leave the group's accounting.
        for _ in 0..50 {
            if fs::remove_dir(&self.dir).is_ok() || !self.dir.exists() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn make(parent: &Path, version: Version, limit_bytes: u64) -> Result<MemoryCgroup, String> {
    if version == Version::V2 {
        enable_memory_controller(parent)?;
    }
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = parent.join(super::debris::cgroup_name(n));
    fs::create_dir(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    // From here on `Drop` removes the directory, also when setting the limit fails.
    let group = MemoryCgroup {
        dir,
        version,
        limit_bytes,
    };
    let file = match version {
        Version::V2 => "memory.max",
        Version::V1 => "memory.limit_in_bytes",
    };
    fs::write(group.dir.join(file), limit_bytes.to_string())
        .map_err(|e| format!("cannot write {file}: {e}"))?;
    if version == Version::V2 {
        // No swap either, where the kernel has the knob: paging must be to files.
        let _ = fs::write(group.dir.join("memory.swap.max"), "0");
    }
    Ok(group)
}

/// Remove the memory cgroups that runs killed outright left below this process's own
/// cgroup (see [`super::debris`]); returns what was removed.
pub fn sweep_dead() -> Vec<PathBuf> {
    let mountinfo = fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let own = fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let mut removed = Vec::new();
    for parent in [v2_parent(&mountinfo, &own), v1_parent(&mountinfo, &own)]
        .into_iter()
        .flatten()
    {
        removed.extend(super::debris::sweep_cgroups(&parent));
    }
    removed
}

/// A v2 parent must list `memory` in its subtree control; try to enable it if not.
fn enable_memory_controller(parent: &Path) -> Result<(), String> {
    let control = parent.join("cgroup.subtree_control");
    let enabled = fs::read_to_string(&control).unwrap_or_default();
    if enabled.split_whitespace().any(|c| c == "memory") {
        return Ok(());
    }
    fs::write(&control, "+memory").map_err(|e| {
        format!(
            "the memory controller is not delegated to {} and cannot be enabled: {e}",
            parent.display()
        )
    })
}

/// The directory of this process's own v2 cgroup, when a v2 hierarchy offering the
/// memory controller is mounted.
fn v2_parent(mountinfo: &str, own: &str) -> Option<PathBuf> {
    let mount = mount_point(mountinfo, |fstype, _| fstype == "cgroup2")?;
    let controllers = fs::read_to_string(mount.join("cgroup.controllers")).ok()?;
    if !controllers.split_whitespace().any(|c| c == "memory") {
        return None;
    }
    let path = own
        .lines()
        .find_map(|l| l.strip_prefix("0::"))?
        .trim_start_matches('/');
    Some(mount.join(path))
}

/// The directory of this process's own cgroup in the v1 memory hierarchy.
fn v1_parent(mountinfo: &str, own: &str) -> Option<PathBuf> {
    let mount = mount_point(mountinfo, |fstype, opts| {
        fstype == "cgroup" && opts.split(',').any(|o| o == "memory")
    })?;
    let path = own.lines().find_map(|l| {
        let mut f = l.splitn(3, ':');
        let (_, controllers, path) = (f.next()?, f.next()?, f.next()?);
        controllers
            .split(',')
            .any(|c| c == "memory")
            .then_some(path)
    })?;
    Some(mount.join(path.trim_start_matches('/')))
}

/// The first mount in /proc/self/mountinfo whose file system type and super options
/// satisfy `want`.
fn mount_point(mountinfo: &str, want: impl Fn(&str, &str) -> bool) -> Option<PathBuf> {
    mountinfo.lines().find_map(|line| {
        let (left, right) = line.split_once(" - ")?;
        let point = left.split_whitespace().nth(4)?;
        let mut r = right.split_whitespace();
        let fstype = r.next()?;
        let _source = r.next()?;
        let opts = r.next().unwrap_or("");
        want(fstype, opts).then(|| PathBuf::from(point))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const MOUNTINFO: &str = "\
25 1 0:22 / /sys/fs/cgroup rw - tmpfs tmpfs rw,mode=755
30 25 0:27 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
31 25 0:28 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
";

    #[test]
    fn finds_the_v1_memory_hierarchy_and_own_group() {
        let own = "4:memory:/a/b\n0::/\n";
        assert_eq!(
            v1_parent(MOUNTINFO, own),
            Some(PathBuf::from("/sys/fs/cgroup/memory/a/b"))
        );
        assert_eq!(
            mount_point(MOUNTINFO, |t, _| t == "cgroup2"),
            Some(PathBuf::from("/sys/fs/cgroup/unified"))
        );
    }

    #[test]
    fn a_group_is_removed_when_dropped_or_says_why_it_cannot_be_made() {
        match MemoryCgroup::create(8 << 20) {
            Ok(group) => {
                let dir = group.dir().to_path_buf();
                assert!(dir.is_dir());
                // A process placed there and gone: the directory must still go.
                let mut child = std::process::Command::new("true").spawn().unwrap();
                let _ = group.add(child.id() as libc::pid_t);
                child.wait().unwrap();
                drop(group);
                assert!(!dir.exists(), "{} left behind", dir.display());
            }
            Err(why) => assert!(
                why.contains("cgroup v2") && why.contains("cgroup v1"),
                "{why}"
            ),
        }
    }

    #[test]
    fn no_memory_hierarchy_is_none() {
        let own = "1:cpu:/\n0::/\n";
        assert_eq!(v1_parent(MOUNTINFO, own), None);
        assert_eq!(v1_parent("", own), None);
    }
}
