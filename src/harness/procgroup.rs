//! Child processes that can always be found and removed again: each started in its own
//! process group (so that one `kill(-pgid)` reaches the shell and everything it started:
//! `cc1`, `as`, `ld`…), with SIGINT and SIGTERM back at their defaults (the signal-hook
//! handler of the parent is inherited across fork, and a child that merely sets a flag on
//! Ctrl-C would never stop), and killed by the kernel if timeshare itself dies.
//!
//! Reaping uses wait4(2), which returns the child's resource usage *including* every
//! descendant it reaped itself: for a shell running `cc && ./prog`, the user and system
//! time of the shell, the compiler passes and the program together — what the seed's
//! `time` command printed for a job.

use std::io;
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::time::{Duration, Instant};

/// For `pre_exec`: SIGINT, SIGTERM and SIGHUP back to their default action, nothing blocked.
/// Async-signal-safe (only `signal` and `sigprocmask`), as `pre_exec` requires.
pub fn reset_signals_in_child() -> io::Result<()> {
    // SAFETY: plain system calls on valid arguments, in the child between fork and exec.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
        libc::signal(libc::SIGTERM, libc::SIG_DFL);
        libc::signal(libc::SIGHUP, libc::SIG_DFL);
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
    }
    Ok(())
}

/// Make `cmd` start with default SIGINT/SIGTERM handling (for children that stay in
/// timeshare's process group, e.g. `make` in `mixed.build`).
pub fn with_default_signals(cmd: &mut Command) -> &mut Command {
    // SAFETY: the closure only makes async-signal-safe calls.
    unsafe { cmd.pre_exec(reset_signals_in_child) }
}

/// Make `cmd` the leader of a new process group, with default SIGINT/SIGTERM, and have it
/// killed if timeshare dies first (so that not even a second Ctrl-C, which exits at once,
/// leaves the group's leader behind).
pub fn in_own_group(cmd: &mut Command) -> &mut Command {
    // SAFETY: the closure only makes async-signal-safe calls.
    unsafe {
        cmd.pre_exec(|| {
            reset_signals_in_child()?;
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
            if libc::setpgid(0, 0) != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        })
    }
}

/// How a reaped child ended, with its (and its reaped descendants') CPU time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reaped {
    pub pid: i32,
    pub end: End,
    pub user_s: f64,
    pub system_s: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    Exited(i32),
    Signalled(i32),
}

/// Reap `pid` if it has ended, without blocking: `Ok(None)` while it still runs. (Never
/// `wait4(-1)`: that could reap a child some other part of the process is waiting for.)
pub fn try_reap(pid: i32) -> io::Result<Option<Reaped>> {
    reap(pid, libc::WNOHANG)
}

/// Reap `pid`, blocking until it ends.
pub fn reap_blocking(pid: i32) -> io::Result<Reaped> {
    loop {
        match reap(pid, 0) {
            Ok(Some(r)) => return Ok(r),
            Ok(None) => continue,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
}

fn reap(pid: i32, flags: libc::c_int) -> io::Result<Option<Reaped>> {
    let mut status = 0;
    // SAFETY: rusage is plain data that wait4 fills.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child; the status and rusage are valid to write.
    let got = unsafe { libc::wait4(pid, &mut status, flags, &mut ru) };
    if got < 0 {
        return Err(io::Error::last_os_error());
    }
    if got == 0 {
        return Ok(None);
    }
    let secs = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 * 1e-6;
    let end = if libc::WIFSIGNALED(status) {
        End::Signalled(libc::WTERMSIG(status))
    } else {
        End::Exited(libc::WEXITSTATUS(status))
    };
    Ok(Some(Reaped {
        pid: got,
        end,
        user_s: secs(ru.ru_utime),
        system_s: secs(ru.ru_stime),
    }))
}

/// SIGINT to process `pid` (our unreaped child): a stop request passed on, as a
/// terminal's Ctrl-C would.
pub fn interrupt(pid: i32) {
    // SAFETY: kill has no memory effects; an error (already gone) is fine.
    unsafe { libc::kill(pid, libc::SIGINT) };
}

/// SIGTERM to every process of the group led by `pgid`: asked to end, cleaning up.
pub fn terminate_group(pgid: i32) {
    // SAFETY: kill on a negative pid signals a process group; errors (already gone) are
    // fine.
    unsafe { libc::kill(-pgid, libc::SIGTERM) };
}

/// SIGKILL to every process of the group led by `pgid`.
pub fn kill_group(pgid: i32) {
    // SAFETY: kill on a negative pid signals a process group; errors (already gone) are
    // fine.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
}

/// True while any process is left in group `pgid` (zombies of reparented descendants
/// count until init reaps them).
pub fn group_alive(pgid: i32) -> bool {
    // SAFETY: signal 0 only checks for existence.
    unsafe { libc::kill(-pgid, 0) == 0 }
}

/// Wait (polling) until the groups are empty, at most `limit`. Returns the groups still
/// alive then.
pub fn wait_groups_gone(pgids: &[i32], limit: Duration) -> Vec<i32> {
    let start = Instant::now();
    loop {
        let alive: Vec<i32> = pgids.iter().copied().filter(|g| group_alive(*g)).collect();
        if alive.is_empty() || start.elapsed() >= limit {
            return alive;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// The live processes whose environment holds `name=VALUE` with VALUE starting with
/// `prefix`, as (pid, VALUE). A process inherits its environment through fork, `setsid`
/// and a double fork, so this finds every descendant of a process started with the
/// variable — also those that left its process group — unless one clears its environment.
/// Zombies show an empty environment and are not counted.
pub fn marked_processes(name: &str, prefix: &str) -> Vec<(i32, String)> {
    let want = format!("{name}={prefix}");
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| {
            let env = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
            env.split(|&b| b == 0)
                .find(|v| v.starts_with(want.as_bytes()))
                .map(|v| {
                    (
                        pid,
                        String::from_utf8_lossy(&v[name.len() + 1..]).into_owned(),
                    )
                })
        })
        .collect()
}

/// "SIGSEGV" for 11; the number for anything unknown.
pub fn signal_name(sig: i32) -> String {
    let name = match sig {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGUSR2 => "SIGUSR2",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        libc::SIGSYS => "SIGSYS",
        _ => return format!("signal {sig}"),
    };
    name.to_string()
}

/// For a failed fork/exec or open: the resource limit it most likely hit, with its
/// current value, e.g. "RLIMIT_NPROC (max user processes) = 40". `None` when the error
/// is not a limit.
pub fn limit_hit(err: &io::Error) -> Option<String> {
    let cg = super::limits::Cgroup::read();
    if let (Some(libc::EAGAIN), Some(max)) = (err.raw_os_error(), cg.pids_max) {
        if cg.pids_current.unwrap_or(0) + 1 >= max || cg.pids_events > 0 {
            return Some(format!("the cgroup's pids.max = {max}"));
        }
    }
    let (resource, what) = match err.raw_os_error()? {
        libc::EAGAIN => (libc::RLIMIT_NPROC, "RLIMIT_NPROC (max user processes)"),
        libc::EMFILE => (libc::RLIMIT_NOFILE, "RLIMIT_NOFILE (open files)"),
        libc::ENFILE => return Some("the system-wide limit on open files (fs.file-max)".into()),
        libc::ENOMEM => (libc::RLIMIT_AS, "memory (RLIMIT_AS, address space)"),
        _ => return None,
    };
    // SAFETY: rlimit is plain data that getrlimit fills.
    let mut lim: libc::rlimit = unsafe { std::mem::zeroed() };
    // SAFETY: lim is a valid rlimit to write.
    let value = if unsafe { libc::getrlimit(resource, &mut lim) } == 0 {
        if lim.rlim_cur == libc::RLIM_INFINITY {
            "unlimited".to_string()
        } else {
            lim.rlim_cur.to_string()
        }
    } else {
        "unknown".to_string()
    };
    Some(format!("{what} = {value}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_in_its_own_group_is_reaped_with_its_status_and_cpu_time() {
        let mut cmd = Command::new("sh");
        cmd.args([
            "-c",
            "i=0; while [ $i -lt 5000 ]; do i=$((i+1)); done; exit 3",
        ]);
        // Reaped by pid with wait4, not through `Child`.
        let pid = in_own_group(&mut cmd).spawn().unwrap().id() as i32;
        let r = reap_blocking(pid).unwrap();
        assert_eq!(r.end, End::Exited(3));
        assert!(r.user_s + r.system_s > 0.0, "{r:?}");
        assert!(!group_alive(pid));
    }

    #[test]
    fn killing_the_group_reaches_the_grandchildren() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "sleep 30 & sleep 30; wait"]);
        let pgid = in_own_group(&mut cmd).spawn().unwrap().id() as i32;
        std::thread::sleep(Duration::from_millis(50));
        kill_group(pgid);
        let r = reap_blocking(pgid).unwrap();
        assert_eq!(r.end, End::Signalled(libc::SIGKILL));
        assert!(wait_groups_gone(&[pgid], Duration::from_secs(5)).is_empty());
    }

    #[test]
    fn limits_are_named() {
        let e = io::Error::from_raw_os_error(libc::EAGAIN);
        assert!(limit_hit(&e).unwrap().starts_with("RLIMIT_NPROC"));
        assert!(limit_hit(&io::Error::from_raw_os_error(libc::ENOENT)).is_none());
        assert_eq!(signal_name(libc::SIGSEGV), "SIGSEGV");
    }
}
