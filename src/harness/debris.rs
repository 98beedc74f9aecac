//! What a run leaves behind when it is killed outright (`kill -9`, a power cut) and cannot
//! clean up: its scratch directories, the hidden temporary file of an output being
//! written, and the memory cgroups of `vm --memory-limit`. Every one of them carries the
//! writing process's id in its name:
//!
//! | what | name | where |
//! |---|---|---|
//! | a benchmark's scratch directory | `timeshare-PID-XXXXXX` | `--dir` |
//! | the exerciser's scratch directory | `timeshare-exercise-PID-XXXXXX` | `--dir` |
//! | `crosscheck`'s scratch directory | `timeshare-crosscheck-PID-XXXXXX` | the temporary directory |
//! | a multi-process run's work directory | `timeshare-invocations-PID-XXXXXX` | `--dir` |
//! | a profile's `perf record` files (`observe`, `--profile`, `--observe-system`) | `timeshare-perf-PID-XXXXXX` | the temporary directory |
//! | an output being written | `.timeshare-PID-XXXXXX.tmp` | beside the output |
//! | `--dir`'s writability probe | `.timeshare-probe-PID-XXXXXX` | `--dir` |
//! | a memory cgroup | `timeshare-vm-PID-N` | below this process's own cgroup |
//!
//! The next run (or `timeshare clean`) removes an entry only when all three hold: the
//! name has one of these shapes, it belongs to this user, and no process with that id
//! exists. Anything else — another user's run, a run still going, a file of the user's
//! that happens to start with `timeshare` — is left alone.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The suffix of an output's hidden temporary file.
pub const TEMP_FILE_SUFFIX: &str = ".tmp";

/// The prefix of a scratch directory made by this process.
pub fn scratch_prefix() -> String {
    format!("timeshare-{}-", std::process::id())
}

/// The prefix of the exerciser's scratch directory made by this process.
pub fn exercise_prefix() -> String {
    format!("timeshare-exercise-{}-", std::process::id())
}

/// The prefix of `crosscheck`'s scratch directory made by this process.
pub fn crosscheck_prefix() -> String {
    format!("timeshare-crosscheck-{}-", std::process::id())
}

/// The prefix of the work directory (the processes' JSON) of a run in several processes.
pub fn invocations_prefix() -> String {
    format!("timeshare-invocations-{}-", std::process::id())
}

/// The prefix of an output's hidden temporary file made by this process.
pub fn temp_file_prefix() -> String {
    format!(".timeshare-{}-", std::process::id())
}

/// The name of this process's `n`th memory cgroup.
pub fn cgroup_name(n: u32) -> String {
    format!("timeshare-vm-{}-{n}", std::process::id())
}

/// What kind of debris a name is, and the pid it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Scratch(i32),
    TempFile(i32),
    Cgroup(i32),
}

/// The random part of a scratch directory's or a temporary file's name, as the
/// `tempfile` crate makes it by default: six letters and digits, no more, no less.
const RANDOM_LEN: usize = 6;

fn is_random_part(tail: &str) -> bool {
    tail.len() == RANDOM_LEN && tail.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// Recognise one of the names above, exactly as this program makes them; `None` for
/// anything else (`timeshare-999997-EEEEEEE`, with a seventh letter, is not ours).
pub fn classify(name: &str) -> Option<Kind> {
    let pid_then = |rest: &str| -> Option<(i32, String)> {
        let (pid, tail) = rest.split_once('-')?;
        if pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) || tail.is_empty() {
            return None;
        }
        Some((pid.parse().ok().filter(|p| *p > 0)?, tail.to_string()))
    };
    if let Some(rest) = name.strip_prefix(".timeshare-probe-") {
        let (pid, tail) = pid_then(rest)?;
        return is_random_part(&tail).then_some(Kind::Scratch(pid));
    }
    if let Some(rest) = name.strip_prefix(".timeshare-") {
        let (pid, tail) = pid_then(rest)?;
        return tail
            .strip_suffix(TEMP_FILE_SUFFIX)
            .is_some_and(is_random_part)
            .then_some(Kind::TempFile(pid));
    }
    if let Some(rest) = name.strip_prefix("timeshare-vm-") {
        let (pid, tail) = pid_then(rest)?;
        return tail
            .bytes()
            .all(|b| b.is_ascii_digit())
            .then_some(Kind::Cgroup(pid));
    }
    let rest = name.strip_prefix("timeshare-")?;
    let rest = ["exercise-", "crosscheck-", "invocations-", "perf-"]
        .iter()
        .find_map(|p| rest.strip_prefix(p))
        .unwrap_or(rest);
    let (pid, tail) = pid_then(rest)?;
    is_random_part(&tail).then_some(Kind::Scratch(pid))
}

/// True when no process has id `pid` (kill(pid, 0) says ESRCH).
pub fn pid_is_dead(pid: i32) -> bool {
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 checks for existence and permission; it sends nothing.
    let r = unsafe { libc::kill(pid, 0) };
    r != 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}

fn own(meta: &fs::Metadata) -> bool {
    // SAFETY: getuid cannot fail and has no side effects.
    meta.uid() == unsafe { libc::getuid() }
}

/// The entries of `dir` that are debris of `want`'s kind from a dead process of this user.
fn dead_entries(dir: &Path, want: fn(Kind) -> bool) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let kind = classify(&name).filter(|k| want(*k))?;
            let pid = match kind {
                Kind::Scratch(p) | Kind::TempFile(p) | Kind::Cgroup(p) => p,
            };
            let meta = fs::symlink_metadata(e.path()).ok()?;
            (own(&meta) && pid_is_dead(pid)).then(|| e.path())
        })
        .collect()
}

/// Remove the scratch directories dead runs left in `root`, after killing what still
/// works in them; returns what was removed.
pub fn sweep_scratch(root: &Path) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    for path in dead_entries(root, |k| matches!(k, Kind::Scratch(_))) {
        let Ok(meta) = fs::symlink_metadata(&path) else {
            continue;
        };
        // A job's shell dies with the run (PR_SET_PDEATHSIG), but what the shell started
        // (a compiler pass) is orphaned and goes on in the directory. Killed processes
        // can have forked meanwhile: look again until none is left.
        for _ in 0..50 {
            if kill_processes_in(&path) == 0 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        if meta.is_dir() && make_removable(&path) && remove_dir_settled(&path) {
            removed.push(path);
        }
    }
    removed
}

/// Remove `dir` and everything in it. A process killed a moment ago can still finish the
/// call it was in (a result file being created), so a removal that met a new entry is
/// tried again, a few times, before giving up.
fn remove_dir_settled(dir: &Path) -> bool {
    for _ in 0..10 {
        if fs::remove_dir_all(dir).is_ok() || !dir.exists() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    false
}

/// SIGKILL this user's processes whose working directory is inside `dir`; how many.
fn kill_processes_in(dir: &Path) -> usize {
    let Ok(procs) = fs::read_dir("/proc") else {
        return 0;
    };
    // SAFETY: getuid cannot fail and has no side effects.
    let me = unsafe { libc::getuid() };
    let mut killed = 0;
    for e in procs.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else {
            continue;
        };
        let owned = fs::symlink_metadata(e.path()).is_ok_and(|m| m.uid() == me);
        // A zombie has no working directory: it is dead already.
        let inside = fs::read_link(e.path().join("cwd")).is_ok_and(|cwd| cwd.starts_with(dir));
        if owned && inside {
            // SAFETY: kill has no memory effects; the process works in a dead run's scratch.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            killed += 1;
        }
    }
    killed
}

/// A benchmark may have left a directory without write permission (the `fs` family's
/// permission rows): give the owner write permission back so that it can be emptied.
fn make_removable(dir: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let Ok(meta) = fs::symlink_metadata(dir) else {
        return false;
    };
    if !meta.is_dir() {
        return true;
    }
    let mode = meta.permissions().mode();
    if mode & 0o700 != 0o700 {
        let _ = fs::set_permissions(dir, fs::Permissions::from_mode(mode | 0o700));
    }
    if let Ok(entries) = fs::read_dir(dir) {
        for e in entries.flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                make_removable(&e.path());
            }
        }
    }
    true
}

/// Remove this process's own scratch directories left in `root`: a scratch directory whose
/// removal failed while a child was still writing into it (an interrupt at the wrong
/// moment) is removed here, once every child is gone.
pub fn remove_own_scratch(root: &Path) {
    let me = std::process::id() as i32;
    let Ok(entries) = fs::read_dir(root) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        if classify(&name.to_string_lossy()) == Some(Kind::Scratch(me))
            && e.file_type().is_ok_and(|t| t.is_dir())
        {
            make_removable(&e.path());
            let _ = fs::remove_dir_all(e.path());
        }
    }
}

/// Remove the output temporary files dead runs left in `dir`; returns what was removed.
pub fn sweep_temp_files(dir: &Path) -> Vec<PathBuf> {
    dead_entries(dir, |k| matches!(k, Kind::TempFile(_)))
        .into_iter()
        .filter(|p| {
            fs::symlink_metadata(p).is_ok_and(|m| m.is_file()) && fs::remove_file(p).is_ok()
        })
        .collect()
}

/// Remove the memory cgroups dead runs left below `parent`: any process still in one
/// (a job whose parent was killed) is killed first; returns what was removed.
pub fn sweep_cgroups(parent: &Path) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    for dir in dead_entries(parent, |k| matches!(k, Kind::Cgroup(_))) {
        for _ in 0..50 {
            let procs = fs::read_to_string(dir.join("cgroup.procs")).unwrap_or_default();
            let pids: Vec<i32> = procs
                .lines()
                .filter_map(|l| l.trim().parse().ok())
                .collect();
            for pid in &pids {
                // SAFETY: kill has no memory effects; the pid is in our own dead run's group.
                unsafe { libc::kill(*pid, libc::SIGKILL) };
            }
            if fs::remove_dir(&dir).is_ok() {
                removed.push(dir);
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_recognised_by_shape_only() {
        assert_eq!(classify("timeshare-123-aBc9Zx"), Some(Kind::Scratch(123)));
        assert_eq!(
            classify("timeshare-crosscheck-78-q1w2e3"),
            Some(Kind::Scratch(78))
        );
        assert_eq!(
            classify("timeshare-exercise-77-q1w2e3"),
            Some(Kind::Scratch(77))
        );
        assert_eq!(classify(".timeshare-5-x1y2z3.tmp"), Some(Kind::TempFile(5)));
        assert_eq!(classify("timeshare-vm-42-0"), Some(Kind::Cgroup(42)));
        for other in [
            "timeshare",
            "timeshare-abc",
            "timeshare--x",
            "timeshare-12-",
            "timeshare-12-a/b",
            "timeshare-0-abc",
            ".timeshare-12-x.json",
            "timeshare-vm-1-x",
            "runs.db",
            "timeshare-12-my notes",
            "timeshare-999997-EEEEEEE",
            "timeshare-12-abc",
            ".timeshare-12-abc.tmp",
        ] {
            assert_eq!(classify(other), None, "{other}");
        }
        assert!(classify(&format!("{}abc123", scratch_prefix())).is_some());
        assert!(classify(&format!("{}abc123", exercise_prefix())).is_some());
        assert_eq!(
            classify(&format!("{}abc123", invocations_prefix())),
            Some(Kind::Scratch(std::process::id() as i32))
        );
        assert_eq!(
            classify(".timeshare-probe-41-a1b2c3"),
            Some(Kind::Scratch(41))
        );
        // The name multi-process runs made before they carried a pid: not ours to know.
        assert_eq!(classify("timeshare-invocations-q1w2e3"), None);
        assert!(classify(&format!("{}abc123{TEMP_FILE_SUFFIX}", temp_file_prefix())).is_some());
        assert!(classify(&cgroup_name(3)).is_some());
    }

    /// A pid that no process has: a child that has been reaped.
    fn dead_pid() -> i32 {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id() as i32;
        child.wait().unwrap();
        pid
    }

    #[test]
    fn only_a_dead_processs_debris_is_removed() {
        let root = tempfile::tempdir().unwrap();
        let dead = dead_pid();
        assert!(pid_is_dead(dead));
        assert!(!pid_is_dead(std::process::id() as i32));
        let gone = root.path().join(format!("timeshare-{dead}-abc123"));
        fs::create_dir_all(gone.join("sub/deeper")).unwrap();
        fs::write(gone.join("sub/deeper/f"), b"x").unwrap();
        // A directory its benchmark made read-only.
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(gone.join("sub"), fs::Permissions::from_mode(0o500)).unwrap();
        let alive = root.path().join(format!("{}live12", scratch_prefix()));
        fs::create_dir(&alive).unwrap();
        let users = root.path().join("timeshare-notes");
        fs::create_dir(&users).unwrap();
        let temp = root.path().join(format!(".timeshare-{dead}-zz9yy8.tmp"));
        fs::write(&temp, b"{").unwrap();
        let live_temp = root
            .path()
            .join(format!("{}zz9yy8.tmp", temp_file_prefix()));
        fs::write(&live_temp, b"{").unwrap();

        // What a job of the dead run left working there (a compiler pass whose shell
        // died with the run) is killed before its directory goes.
        let mut orphan = std::process::Command::new("sleep")
            .arg("30")
            .current_dir(gone.join("sub/deeper"))
            .spawn()
            .unwrap();
        let mut bystander = std::process::Command::new("sleep")
            .arg("30")
            .current_dir(&alive)
            .spawn()
            .unwrap();

        assert_eq!(sweep_scratch(root.path()), vec![gone.clone()]);
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(orphan.wait().unwrap().signal(), Some(libc::SIGKILL));
        assert!(
            bystander.try_wait().unwrap().is_none(),
            "a live run's job is left alone"
        );
        bystander.kill().unwrap();
        bystander.wait().unwrap();
        assert_eq!(sweep_temp_files(root.path()), vec![temp.clone()]);
        assert!(!gone.exists() && !temp.exists());
        assert!(alive.exists() && users.exists() && live_temp.exists());
    }
}
