//! Many child processes at once: start them (forked functions or commands), wait for
//! whichever ends next with the kernel's own accounting of it (wait4 rusage), and never
//! leave one behind.
//!
//! # Timing model
//! A child's real time runs from just before `fork`/`spawn` to the moment the parent sees
//! it end. The parent waits on a pidfd per child with `poll`, so it wakes when a child
//! exits (not on a timer); where pidfds are missing (Linux < 5.3) it falls back to checking
//! every millisecond, and the real time is then good to about 1 ms. User and system time
//! come from wait4's rusage, which includes the child's own reaped descendants (a `sh -c`
//! pipeline is accounted as a whole).
//!
//! Every child is made the leader of its own process group, so that killing the group
//! also kills what it started (the `col` of `nroff | col`). `Drop` kills and reaps every
//! child still alive: after an error, a panic or Ctrl-C nothing of the run remains.

use std::collections::HashMap;
use std::os::fd::{FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::time::{Duration, Instant};

use thiserror::Error;

use super::interrupt;
use super::interrupt::Interrupted;

/// How a child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "how", content = "value", rename_all = "lowercase")]
pub enum Exit {
    Code(i32),
    Signal(i32),
}

impl Exit {
    pub fn success(self) -> bool {
        self == Exit::Code(0)
    }

    fn from_status(status: libc::c_int) -> Exit {
        if libc::WIFSIGNALED(status) {
            Exit::Signal(libc::WTERMSIG(status))
        } else {
            Exit::Code(libc::WEXITSTATUS(status))
        }
    }
}

impl std::fmt::Display for Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Exit::Code(c) => write!(f, "exit {c}"),
            Exit::Signal(s) => write!(f, "killed by signal {s}"),
        }
    }
}

/// One child the kernel has accounted for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reaped {
    pub pid: i32,
    /// The caller's tag given at start (a copy number, a user number…).
    pub tag: usize,
    pub exit: Exit,
    pub real_s: f64,
    pub user_s: f64,
    pub system_s: f64,
}

impl Reaped {
    pub fn cpu_s(&self) -> f64 {
        self.user_s + self.system_s
    }
}

/// Why a child could not be started.
#[derive(Debug, Error)]
pub enum SpawnError {
    /// The machine refused another process or its memory (EAGAIN, ENOMEM): the seed's
    /// "Ran Out Of Swap Space". The run must stop cleanly and say so.
    #[error("the system refused process {started_so_far_plus_one}: {what} ({errno_name})")]
    Limit {
        started_so_far_plus_one: usize,
        what: String,
        errno_name: &'static str,
    },
    /// The program is not on the machine.
    #[error("command not found: {0}")]
    Missing(String),
    #[error("cannot start {what}: {error}")]
    Other { what: String, error: std::io::Error },
}

struct Live {
    tag: usize,
    started: Instant,
    pidfd: Option<OwnedFd>,
}

/// A set of running children.
#[derive(Default)]
pub struct Children {
    live: HashMap<i32, Live>,
    started_total: usize,
    /// Ask before killing: see [`Children::with_grace`].
    grace: Option<Duration>,
}

impl Children {
    pub fn new() -> Children {
        Children::default()
    }

    /// Children that are asked to stop (SIGTERM) and given `grace` to end before they are
    /// killed, on `Drop` too: a child that runs children of its own (a user's shell) kills
    /// them when asked, where killed outright it would leave them running.
    pub fn with_grace(grace: Duration) -> Children {
        let mut children = Children::default();
        children.grace = Some(grace);
        children
    }

    pub fn running(&self) -> usize {
        self.live.len()
    }

    /// Fork a child that runs `body` and exits with the code it returns. The child gets
    /// default SIGINT/SIGTERM handling (it must not inherit the parent's "stop after this
    /// sample" handler, or it would ignore Ctrl-C) and its own process group. `body` must
    /// not allocate with the parent's allocator if the parent has other threads: use mmap.
    pub fn fork_with(&mut self, tag: usize, body: impl FnOnce() -> i32) -> Result<i32, SpawnError> {
        let started = Instant::now();
        let parent = std::process::id() as libc::pid_t;
        // SAFETY: the child only resets signals, runs `body` and `_exit`s; it never returns
        // into the parent's code.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(self.limit_or_other("fork", std::io::Error::last_os_error()));
        }
        if pid == 0 {
            // SAFETY: in the forked child, before anything else runs: default signal
            // dispositions and a process group of its own; no memory is involved.
            unsafe {
                libc::signal(libc::SIGINT, libc::SIG_DFL);
                libc::signal(libc::SIGTERM, libc::SIG_DFL);
                libc::setpgid(0, 0);
            }
            die_with_parent(parent);
            let code = body();
            // SAFETY: ends a forked child at once, without the parent's destructors or buffered output.
            unsafe { libc::_exit(code) };
        }
        // Also from the parent, so the group exists before we could want to kill it.
        // SAFETY: a plain system call with no memory arguments.
        unsafe { libc::setpgid(pid, pid) };
        self.track(pid, tag, started);
        Ok(pid)
    }

    /// Start `cmd` as a child in its own process group. No `pre_exec` hook: without one
    /// std starts the command with posix_spawn (a vfork, no copy of the driver's page
    /// tables), where a hook forces a full fork. A many-user load row starts thousands of
    /// commands, and the forks were most of their starter's CPU time (8% of its children's).
    /// The commands therefore do not die with their parent killed outright by themselves
    /// (`Drop` still kills and reaps every group on an error, a panic or Ctrl-C; a load
    /// row's user shell stops, and so kills its command, when its driver dies).
    pub fn spawn(&mut self, tag: usize, cmd: &mut Command) -> Result<i32, SpawnError> {
        let what = cmd.get_program().to_string_lossy().into_owned();
        let started = Instant::now();
        let child = cmd.process_group(0).spawn().map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                SpawnError::Missing(what.clone())
            } else {
                self.limit_or_other(&what, e)
            }
        })?;
        let pid = child.id() as i32;
        // std's Child neither waits nor kills on drop; we reap the pid ourselves.
        drop(child);
        self.track(pid, tag, started);
        Ok(pid)
    }

    fn limit_or_other(&self, what: &str, error: std::io::Error) -> SpawnError {
        let errno_name = match error.raw_os_error() {
            Some(libc::EAGAIN) => "EAGAIN: process limit",
            Some(libc::ENOMEM) => "ENOMEM: out of memory",
            _ => {
                return SpawnError::Other {
                    what: what.to_string(),
                    error,
                }
            }
        };
        SpawnError::Limit {
            started_so_far_plus_one: self.started_total + 1,
            what: what.to_string(),
            errno_name,
        }
    }

    fn track(&mut self, pid: i32, tag: usize, started: Instant) {
        self.started_total += 1;
        self.live.insert(
            pid,
            Live {
                tag,
                started,
                pidfd: pidfd_open(pid),
            },
        );
    }

    /// The next child to end, or `None` if none ended before `deadline`. Returns
    /// `Err(Interrupted)` as soon as the user asks the run to stop (the caller's `Drop`
    /// then kills the rest).
    pub fn wait_next(&mut self, deadline: Instant) -> anyhow::Result<Option<Reaped>> {
        loop {
            if let Some(r) = self.reap_one()? {
                return Ok(Some(r));
            }
            if interrupt::requested() {
                return Err(Interrupted.into());
            }
            let now = Instant::now();
            if self.live.is_empty() || now >= deadline {
                return Ok(None);
            }
            // Wake on the first exit, a signal, or at most every 100 ms to check for one.
            let limit = (deadline - now).min(Duration::from_millis(100));
            self.sleep_until_exit(limit);
        }
    }

    /// Reap one child that has ended, if any, without blocking.
    fn reap_one(&mut self) -> anyhow::Result<Option<Reaped>> {
        let pids: Vec<i32> = self.live.keys().copied().collect();
        for pid in pids {
            let mut status = 0;
            // SAFETY: rusage is plain data filled by the kernel.
            let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
            // SAFETY: waits for our own child; the status and rusage are valid to write.
            let got = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut ru) };
            let ended = Instant::now();
            if got == 0 {
                continue;
            }
            let live = self.live.remove(&pid).expect("tracked pid");
            if got < 0 {
                anyhow::bail!("wait4({pid}) failed: {}", std::io::Error::last_os_error());
            }
            let secs = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 * 1e-6;
            return Ok(Some(Reaped {
                pid,
                tag: live.tag,
                exit: Exit::from_status(status),
                real_s: ended.duration_since(live.started).as_secs_f64(),
                user_s: secs(ru.ru_utime),
                system_s: secs(ru.ru_stime),
            }));
        }
        Ok(None)
    }

    fn sleep_until_exit(&self, limit: Duration) {
        let mut fds: Vec<libc::pollfd> = self
            .live
            .values()
            .filter_map(|l| l.pidfd.as_ref())
            .map(|fd| libc::pollfd {
                fd: raw(fd),
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        if fds.len() == self.live.len() && !fds.is_empty() {
            // SAFETY: fds is a valid array of pollfd for the call's duration. EINTR (a
            // signal) simply returns early, which is what we want.
            unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as _, limit.as_millis() as i32) };
        } else {
            std::thread::sleep(limit.min(Duration::from_millis(1)));
        }
    }

    /// Kill the process group of the live child `pid` (what it started too); it is
    /// reaped by [`Children::wait_next`] as killed by signal 9.
    pub fn kill(&self, pid: i32) {
        if self.live.contains_key(&pid) {
            // SAFETY: sends a signal to our own child's group; no memory is involved.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
                libc::kill(pid, libc::SIGKILL);
            }
        }
    }

    /// Send every live child SIGTERM, reap those that end within `grace`, then kill the
    /// rest with [`Children::kill_all`].
    pub fn terminate_all(&mut self, grace: Duration) {
        for &pid in self.live.keys() {
            // SAFETY: sends a signal to our own child; no memory is involved.
            unsafe { libc::kill(pid, libc::SIGTERM) };
        }
        let end = Instant::now() + grace;
        while !self.live.is_empty() && Instant::now() < end {
            self.live.retain(|&pid, _| {
                let mut status = 0;
                // SAFETY: waits for our own child without blocking; status is valid to write.
                unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) == 0 }
            });
            std::thread::sleep(Duration::from_millis(10));
        }
        self.kill_all();
    }

    /// Kill every live child's process group and reap it.
    pub fn kill_all(&mut self) {
        for (&pid, _) in self.live.iter() {
            // SAFETY: sends a signal; no memory is involved.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
                libc::kill(pid, libc::SIGKILL);
            }
        }
        for (pid, _) in self.live.drain() {
            let mut status = 0;
            // SAFETY: waits for our own child; the status and rusage are valid to write.
            unsafe { libc::waitpid(pid, &mut status, 0) };
            // The group may hold grandchildren whose parent just died; a second kill
            // after the leader is gone catches any that were forking meanwhile.
            // SAFETY: sends a signal; no memory is involved.
            unsafe { libc::kill(-pid, libc::SIGKILL) };
        }
    }
}

impl Drop for Children {
    fn drop(&mut self) {
        match self.grace {
            Some(grace) => self.terminate_all(grace),
            None => self.kill_all(),
        }
    }
}

/// In a new child: be killed if the parent dies without reaping us (a second Ctrl-C exits
/// at once, with no time for `Drop`), and exit now if it already has.
fn die_with_parent(parent: libc::pid_t) {
    // SAFETY: plain system calls in the child.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        if libc::getppid() != parent {
            libc::_exit(1);
        }
    }
}

fn raw(fd: &OwnedFd) -> RawFd {
    use std::os::fd::AsRawFd;
    fd.as_raw_fd()
}

/// A descriptor that becomes readable when `pid` exits (Linux ≥ 5.3), if available.
fn pidfd_open(pid: i32) -> Option<OwnedFd> {
    // SAFETY: a plain system call; a non-negative result is a new descriptor we own.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    // SAFETY: the descriptor comes from the successful call above and nothing else owns it.
    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// The soft RLIMIT_NPROC, or `None` when unlimited.
pub fn process_limit() -> Option<u64> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit fills the struct.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_NPROC, &mut lim) } == 0;
    (ok && lim.rlim_cur != libc::RLIM_INFINITY).then_some(lim.rlim_cur)
}

/// MemAvailable from /proc/meminfo, in bytes.
pub fn available_memory() -> Option<u64> {
    crate::harness::meminfo::available_bytes()
}

/// Refuse to start `copies` processes of `footprint` bytes each when the limits say the
/// machine would run out: a clear message instead of an exhausted machine.
pub fn check_room(
    copies: usize,
    footprint: u64,
    nproc_limit: Option<u64>,
    available: Option<u64>,
    is_root: bool,
) -> Result<(), String> {
    // Root is not held to RLIMIT_NPROC; a margin leaves room for the shells and helpers.
    if let (Some(limit), false) = (nproc_limit, is_root) {
        if copies as u64 + 32 > limit {
            return Err(format!(
                "{copies} copies need {copies} processes but RLIMIT_NPROC is {limit} \
                 (ulimit -u); raise it or ask for fewer copies"
            ));
        }
    }
    if let Some(avail) = available {
        let need = copies as u64 * footprint;
        // Leave a quarter of the available memory to everything else.
        if need > avail / 4 * 3 {
            return Err(format!(
                "{copies} copies × {} MiB need {} MiB but only {} MiB are available \
                 (MemAvailable); lower --footprint-mib or ask for fewer copies",
                footprint >> 20,
                need >> 20,
                avail >> 20
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn far() -> Instant {
        Instant::now() + Duration::from_secs(30)
    }

    #[test]
    fn a_forked_child_is_accounted_with_its_exit_code() {
        let mut c = Children::new();
        c.fork_with(7, || 3).unwrap();
        let r = c.wait_next(far()).unwrap().unwrap();
        assert_eq!((r.tag, r.exit), (7, Exit::Code(3)));
        assert!(r.real_s > 0.0 && r.real_s < 10.0);
        assert_eq!(c.running(), 0);
    }

    #[test]
    fn user_time_of_a_busy_child_is_seen() {
        let mut c = Children::new();
        // Spin until the child itself has used 30 ms of CPU, however busy the machine.
        c.fork_with(0, || {
            let cpu = || {
                let mut ts = libc::timespec {
                    tv_sec: 0,
                    tv_nsec: 0,
                };
                // SAFETY: the timespec is valid to write.
                unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
                ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
            };
            while cpu() < 0.03 {
                std::hint::black_box(0);
            }
            0
        })
        .unwrap();
        let r = c.wait_next(far()).unwrap().unwrap();
        assert!(r.exit.success());
        assert!(r.cpu_s() > 0.025, "{r:?}");
        assert!(
            r.real_s >= r.cpu_s() * 0.95,
            "real time below CPU time: {r:?}"
        );
    }

    #[test]
    fn a_missing_command_is_reported_as_missing() {
        let mut c = Children::new();
        let err = c
            .spawn(0, &mut Command::new("timeshare-no-such-command"))
            .unwrap_err();
        assert!(matches!(err, SpawnError::Missing(_)), "{err}");
    }

    #[test]
    fn drop_kills_and_reaps_the_whole_group() {
        let mut c = Children::new();
        let pid = c
            .spawn(0, Command::new("sh").args(["-c", "sleep 30 | sleep 30"]))
            .unwrap();
        std::thread::sleep(Duration::from_millis(100));
        drop(c);
        // The group is gone (once init has reaped the orphans): signalling it fails.
        let t = Instant::now();
        // SAFETY: sends a signal; no memory is involved.
        while unsafe { libc::kill(-pid, 0) } == 0 && t.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(10));
        }
        // SAFETY: sends a signal; no memory is involved.
        assert_eq!(unsafe { libc::kill(-pid, 0) }, -1, "the group survived");
    }

    #[test]
    fn room_is_refused_with_a_reason() {
        let gib = 1 << 30;
        assert!(check_room(15, 16 << 20, None, Some(8 * gib), false).is_ok());
        let e = check_room(15, gib, None, Some(8 * gib), false).unwrap_err();
        assert!(e.contains("MemAvailable"), "{e}");
        let e = check_room(100, 1, Some(64), None, false).unwrap_err();
        assert!(e.contains("RLIMIT_NPROC"), "{e}");
        assert!(check_room(100, 1, Some(64), None, true).is_ok());
    }
}
