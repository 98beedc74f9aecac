//! A configuration of a sweep (`run --configs`) made real on this machine: where its
//! scratch directory lies (a tmpfs mounted for it, /dev/shm, a disk directory) and the
//! memory cgroup its run lives in; all of it undone when dropped. Beside the tmpfs and
//! the memory cgroup it sets up, so that the command line asks and never mounts.

use std::path::{Path, PathBuf};

use crate::harness::limits::on_tmpfs;
use crate::harness::memlimit::MemoryCgroup;
use crate::harness::process::is_root;
use crate::harness::tmpfs;

/// The tmpfs a sweep mounts holds the scripts' users' files and the copies' nothing: the
/// bundled scripts write a few MiB per user.
const TMPFS_SIZE: &str = "size=1g,mode=1777";

/// Where a configuration puts the scratch directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tmp {
    /// Wherever the run would (`--dir` or the temporary directory).
    AsGiven,
    Tmpfs,
    Disk,
    Dir(PathBuf),
}

/// One configuration of a sweep, as typed (its name) and parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    pub name: String,
    pub tmp: Tmp,
    /// The memory cgroup's limit in bytes.
    pub mem: Option<u64>,
}

/// A configuration made real on this machine: the scratch directory (and the tmpfs under
/// it, if the sweep mounted one) and the cgroup; `Drop` undoes all of it.
pub struct Prepared {
    pub dir: PathBuf,
    /// A directory the sweep made (the mount point or a directory in /dev/shm), removed.
    made: Option<PathBuf>,
    mounted: bool,
    pub cgroup: Option<MemoryCgroup>,
    /// What was made, in words, for the run's record and the sweep's line.
    pub note: String,
}

impl Drop for Prepared {
    fn drop(&mut self) {
        if self.mounted {
            tmpfs::unmount(&self.dir);
        }
        if let Some(d) = &self.made {
            let _ = std::fs::remove_dir_all(d);
        }
        // The cgroup's own Drop removes it, its processes reaped.
        self.cgroup.take();
    }
}

/// The disk directory of `tmp=disk`: `--dir`, or /var/tmp (the temporary directory may
/// itself be a tmpfs).
pub fn disk_dir(given: Option<&Path>) -> PathBuf {
    given.map_or_else(|| PathBuf::from("/var/tmp"), Path::to_path_buf)
}

/// Make `config` real: mount or choose the directory, make the cgroup. `Err` is a reason
/// to skip the configuration (not root, no memory cgroup here).
pub fn prepare(config: &Config, given_dir: Option<&Path>) -> Result<Prepared, String> {
    let cgroup = match config.mem {
        None => None,
        Some(_) if !is_root() => {
            return Err("a memory cgroup needs root (or a delegated cgroup)".into())
        }
        Some(bytes) => Some(MemoryCgroup::create(bytes)?),
    };
    let mut p = Prepared {
        dir: PathBuf::new(),
        made: None,
        mounted: false,
        cgroup,
        note: String::new(),
    };
    let mut notes: Vec<String> = Vec::new();
    match &config.tmp {
        Tmp::AsGiven => {
            p.dir = given_dir.map_or_else(std::env::temp_dir, Path::to_path_buf);
            notes.push(format!("scratch in {}", p.dir.display()));
        }
        Tmp::Disk => {
            p.dir = disk_dir(given_dir);
            notes.push(format!("scratch on disk in {}", p.dir.display()));
        }
        Tmp::Dir(d) => {
            p.dir = d.clone();
            notes.push(format!("scratch in {}", p.dir.display()));
        }
        Tmp::Tmpfs => {
            let point = make_dir_in(&std::env::temp_dir())?;
            p.made = Some(point.clone());
            p.dir = point;
            if is_root() && tmpfs::mount(&p.dir, TMPFS_SIZE).is_ok() {
                p.mounted = true;
                notes.push(format!(
                    "scratch on a tmpfs ({TMPFS_SIZE}) mounted for the run at {}",
                    p.dir.display()
                ));
            } else {
                // An ordinary user (or a root without CAP_SYS_ADMIN): the tmpfs that is
                // there for everyone.
                let _ = std::fs::remove_dir(&p.dir);
                let shm = Path::new("/dev/shm");
                if !on_tmpfs(shm) {
                    p.made = None;
                    return Err("cannot mount a tmpfs and /dev/shm is not one".into());
                }
                let d = make_dir_in(shm)?;
                p.made = Some(d.clone());
                p.dir = d;
                notes.push(format!(
                    "scratch on the tmpfs /dev/shm in {}",
                    p.dir.display()
                ));
            }
        }
    }
    if let Some(g) = &p.cgroup {
        notes.push(format!("in a memory cgroup, {}", g.describe()));
    }
    p.note = notes.join("; ");
    Ok(p)
}

/// A fresh directory `timeshare-config-PID-N` in `parent`, for a mount point or a
/// scratch directory of the sweep's own.
fn make_dir_in(parent: &Path) -> Result<PathBuf, String> {
    let d = tempfile::Builder::new()
        .prefix(&format!("timeshare-config-{}-", std::process::id()))
        .tempdir_in(parent)
        .map_err(|e| format!("cannot make a directory in {}: {e}", parent.display()))?;
    Ok(d.keep())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_tmpfs_configuration_made_is_gone_when_dropped() {
        let c = &Config {
            name: "tmp=tmpfs".into(),
            tmp: Tmp::Tmpfs,
            mem: None,
        };
        let p = prepare(c, None).unwrap();
        let dir = p.dir.clone();
        assert!(on_tmpfs(&dir));
        std::fs::write(dir.join("f"), b"x").unwrap();
        drop(p);
        assert!(!dir.exists(), "{} left behind", dir.display());
        let mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
        assert!(!mounts.contains(&dir.display().to_string()));
    }
}
