//! Child processes for multi-process benchmarks: forking with the right signal state,
//! pinning the two sides of a ping-pong (`--placement`), and reaping every child — on
//! success, on failure and on Ctrl-C.
//!
//! # Rules for code that runs in a forked child
//! The parent may have other threads (the test harness does), so a forked child may only
//! call async-signal-safe functions: raw system calls, no allocation, no locks, no
//! printing. Everything a child needs (buffers, paths, argv, envp) is prepared before the
//! fork. A child leaves with `_exit`, never by returning into the parent's code.
//!
//! # Signals
//! The parent's SIGINT/SIGTERM handlers (signal-hook, see [`super::interrupt`]) are
//! inherited by `fork`: a child keeping them would ignore Ctrl-C and, worse, run the
//! parent's shutdown logic. Every child resets both to SIG_DFL first and asks the kernel
//! to kill it if the parent dies (PR_SET_PDEATHSIG), so that even a parent killed by a
//! second Ctrl-C leaves no process behind.

use std::os::fd::{AsRawFd, OwnedFd};
use std::path::PathBuf;

use super::cpu;
use crate::model::details::micro::{ChildCpuTime, Partnership};
use crate::model::Placement;
use anyhow::{bail, Context, Result};

/// The program a re-executed timeshare starts (a user's shell, a fresh process of a run
/// across several): this very program, through the kernel's link to the file it was
/// started from (`/proc/self/exe`, which a child reads as its parent's until it has
/// exec'd), never a path looked up again. A rebuild or reinstall during a run replaces
/// the file at the path, and `current_exe` would then name "…/timeshare (deleted)",
/// which nothing can start; the link still reaches the running program's file. The path
/// is only checked here, that the link exists at all.
pub fn own_program() -> Result<PathBuf> {
    let link = PathBuf::from("/proc/self/exe");
    std::fs::metadata(&link).with_context(|| {
        format!(
            "cannot reach timeshare's own program through {} (is /proc mounted?)",
            link.display()
        )
    })?;
    Ok(link)
}

/// Asks the kernel to send `signal` to the calling process when the thread that forked it
/// ends, and ends it at once if that parent already went (`parent` is its pid, read
/// before the fork). For a `pre_exec` hook: prctl, getppid and kill are
/// async-signal-safe. Without it, a `timeshare run` killed outright (SIGKILL: no handler
/// runs) left the fresh process it was waiting for measuring on, unseen.
pub fn die_with_parent(signal: libc::c_int, parent: libc::pid_t) -> std::io::Result<()> {
    // SAFETY: prctl(PR_SET_PDEATHSIG) takes a signal number and touches no memory.
    if unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, signal as libc::c_ulong) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: getppid and kill have no memory effects.
    if unsafe { libc::getppid() } != parent {
        // SAFETY: signalling this very process; no memory is touched.
        unsafe { libc::kill(libc::getpid(), signal) };
    }
    Ok(())
}

/// A running child. Dropping it kills (SIGKILL) and reaps it, so no error path can leave a
/// process behind; [`Child::finish`] reaps it normally and reports how it ended.
#[derive(Debug)]
pub struct Child {
    pid: libc::pid_t,
    reaped: bool,
}

impl Child {
    pub fn pid(&self) -> libc::pid_t {
        self.pid
    }

    /// Fork a child that runs `body` and `_exit`s with its return value. `cpu`: pin the
    /// child there first. See the module comment for what `body` may do.
    pub fn fork(cpu: Option<usize>, body: impl FnOnce() -> i32) -> Result<Child> {
        // SAFETY: the child runs only `prepare_child` and `body`, both async-signal-safe
        // by contract, and leaves with _exit.
        let pid = unsafe { libc::fork() };
        match pid {
            -1 => bail!("fork: {}", std::io::Error::last_os_error()),
            0 => {
                if !prepare_child(cpu) {
                    // SAFETY: ends a forked child at once, without the parent's destructors or buffered output.
                    unsafe { libc::_exit(CHILD_SETUP_FAILED) };
                }
                let code = body();
                // SAFETY: ends a forked child at once, without the parent's destructors or buffered output.
                unsafe { libc::_exit(code) }
            }
            pid => Ok(Child::adopt(pid)),
        }
    }

    /// Take charge of a child created some other way (posix_spawn, clone).
    pub fn adopt(pid: libc::pid_t) -> Child {
        Child { pid, reaped: false }
    }

    /// Has the child already ended? If so, reap it and say how, as an error: a child of a
    /// two-process benchmark must live until the benchmark is done.
    pub fn check_alive(&mut self, what: &str) -> Result<()> {
        match self.ended() {
            Some(how) => bail!("{what}: the child {how}"),
            None => Ok(()),
        }
    }

    /// How the child ended, if it has (reaping it), or None while it runs.
    fn ended(&mut self) -> Option<String> {
        if self.reaped {
            return Some("was already reaped".into());
        }
        let mut status = 0;
        // SAFETY: plain waitpid on our own child.
        let r = unsafe { libc::waitpid(self.pid, &mut status, libc::WNOHANG) };
        if r == self.pid {
            self.reaped = true;
            return Some(describe_status(status));
        }
        None
    }

    /// Wait for the child to end; an exit status other than 0 or a death by signal is an
    /// error naming `what`. Returns the child's resource usage.
    pub fn finish(mut self, what: &str) -> Result<libc::rusage> {
        let (status, usage) = wait4_retrying(self.pid)?;
        self.reaped = true;
        if !exited_cleanly(status) {
            bail!("{what}: the child {}", describe_status(status));
        }
        Ok(usage)
    }

    /// Kill and reap now, returning the child's resource usage (for the CPU time of a
    /// long-lived partner, which getrusage(RUSAGE_CHILDREN) only counts once reaped).
    pub fn kill_and_reap(mut self) -> Option<libc::rusage> {
        self.reaped = true;
        // SAFETY: our own, unreaped child: the pid cannot have been reused.
        unsafe { libc::kill(self.pid, libc::SIGKILL) };
        wait4_retrying(self.pid).ok().map(|(_, u)| u)
    }

    /// After an I/O error with the child: if it has died, its exit status is the better
    /// explanation; otherwise the error itself.
    pub fn explain(&mut self, err: anyhow::Error) -> anyhow::Error {
        if super::interrupt::requested() {
            return super::interrupt::Interrupted.into();
        }
        // Give a dying child a moment to become a zombie.
        for _ in 0..50 {
            if let Some(how) = self.ended() {
                return err.context(format!("the child {how}"));
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        err
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        if !self.reaped {
            // SAFETY: as in kill_and_reap.
            unsafe { libc::kill(self.pid, libc::SIGKILL) };
            let _ = wait4_retrying(self.pid);
        }
    }
}

/// Exit code of a child whose own set-up (signals, pinning) failed.
pub const CHILD_SETUP_FAILED: i32 = 121;

/// What every forked child does first: default Ctrl-C/SIGTERM behaviour, die with the
/// parent, optionally pin. Async-signal-safe; false if pinning failed.
pub fn prepare_child(cpu: Option<usize>) -> bool {
    reset_signals_in_child();
    // SAFETY: prctl with integer arguments.
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) };
    cpu.is_none_or(pin_raw)
}

/// SIGINT and SIGTERM back to their default action (async-signal-safe).
pub fn reset_signals_in_child() {
    // SAFETY: signal() with SIG_DFL is a plain sigaction.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
        libc::signal(libc::SIGTERM, libc::SIG_DFL);
    }
}

/// sched_setaffinity without allocation (for children); false on failure.
fn pin_raw(cpu: usize) -> bool {
    // SAFETY: cpu_set_t is plain data.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0
    }
}

fn wait4_retrying(pid: libc::pid_t) -> Result<(i32, libc::rusage)> {
    let mut status = 0;
    // SAFETY: rusage is plain data that wait4 fills.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: waits for our own child; the status and rusage are valid to write.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == pid {
            return Ok((status, usage));
        }
        let e = std::io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EINTR) {
            bail!("waiting for child {pid}: {e}");
        }
    }
}

/// Wait for `pid` (EINTR retried) and fail unless it exited with 0.
pub fn wait_ok(pid: libc::pid_t, what: &str) -> Result<()> {
    let mut status = 0;
    loop {
        // SAFETY: waitpid on our own child.
        let r = unsafe { libc::waitpid(pid, &mut status, 0) };
        if r == pid {
            break;
        }
        let e = std::io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EINTR) {
            bail!("{what}: waiting for child {pid}: {e}");
        }
    }
    if !exited_cleanly(status) {
        bail!("{what}: the child {}", describe_status(status));
    }
    Ok(())
}

pub fn exited_cleanly(status: i32) -> bool {
    libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0
}

/// "exited with status 3", "was killed by signal 9 (SIGKILL)"…
pub fn describe_status(status: i32) -> String {
    if libc::WIFEXITED(status) {
        let code = libc::WEXITSTATUS(status);
        let hint = match code {
            CHILD_SETUP_FAILED => " (its set-up failed: signals or CPU pinning)",
            127 => " (the program could not be executed)",
            _ => "",
        };
        format!("exited with status {code}{hint}")
    } else if libc::WIFSIGNALED(status) {
        let sig = libc::WTERMSIG(status);
        format!("was killed by signal {sig}")
    } else {
        format!("ended with wait status {status:#x}")
    }
}

/// CPU seconds (user, system) in a rusage.
pub fn cpu_seconds(u: &libc::rusage) -> (f64, f64) {
    let s = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 * 1e-6;
    (s(u.ru_utime), s(u.ru_stime))
}

/// A pipe whose ends are closed on drop and not inherited by exec'd programs.
pub fn pipe() -> Result<(OwnedFd, OwnedFd)> {
    let (read, write) = std::io::pipe().context("pipe")?;
    Ok((read.into(), write.into()))
}

/// Where the two sides of a two-process benchmark run, resolved from `--placement`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pair {
    pub placement: Placement,
    pub parent_cpu: Option<usize>,
    pub child_cpu: Option<usize>,
}

impl Pair {
    /// Resolve `placement` against the CPUs this process may use. `same` puts both on the
    /// first usable CPU; `spread` puts the child on the next one, and needs two.
    pub fn resolve(placement: Placement, usable: &[usize]) -> Result<Pair> {
        let first = *usable.first().unwrap_or(&0);
        let (parent_cpu, child_cpu) = match placement {
            Placement::Free => (None, None),
            Placement::Same => (Some(first), Some(first)),
            Placement::Spread => match usable.get(1) {
                Some(&second) => (Some(first), Some(second)),
                None => bail!(
                    "--placement spread needs two usable CPUs; this process may use only \
                     CPU {} (a --cpu option or an affinity mask restricts it)",
                    cpu::describe_cpus(usable)
                ),
            },
        };
        Ok(Pair {
            placement,
            parent_cpu,
            child_cpu,
        })
    }

    /// One sentence for the result's notes.
    pub fn note(&self) -> String {
        match (self.placement, self.parent_cpu, self.child_cpu) {
            (Placement::Same, Some(c), _) => {
                format!("placement same: parent and child both pinned to CPU {c}")
            }
            (Placement::Spread, Some(p), Some(c)) => {
                format!("placement spread: parent pinned to CPU {p}, child to CPU {c}")
            }
            _ => "placement free: the scheduler placed parent and child".to_string(),
        }
    }

    /// The record of where the two sides ran, without the partner's CPU time yet.
    pub fn record(&self) -> Partnership {
        Partnership {
            placement: self.placement,
            parent_cpu: self.parent_cpu,
            child_cpu: self.child_cpu,
            child_cpu_time: None,
        }
    }

    /// Pin the calling thread as the parent side; the guard restores its former mask.
    pub fn pin_parent(&self) -> Result<AffinityGuard> {
        let guard = AffinityGuard::save();
        if let Some(c) = self.parent_cpu {
            cpu::pin_to(&[c])?;
        }
        Ok(guard)
    }
}

/// The calling thread's CPU mask as it was; put back on drop.
pub struct AffinityGuard {
    saved: Option<libc::cpu_set_t>,
}

impl AffinityGuard {
    /// The calling thread's mask now.
    pub fn save() -> AffinityGuard {
        // SAFETY: cpu_set_t is plain data that sched_getaffinity fills.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            let ok =
                libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) == 0;
            AffinityGuard {
                saved: ok.then_some(set),
            }
        }
    }
}

impl Drop for AffinityGuard {
    fn drop(&mut self) {
        if let Some(set) = &self.saved {
            // SAFETY: restoring a mask the kernel gave us.
            unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set) };
        }
    }
}

/// Write all of `buf` to `fd` (async-signal-safe). Err(errno) or Err(0) for a zero write.
pub fn write_all_raw(fd: &impl AsRawFd, buf: &[u8]) -> std::result::Result<(), i32> {
    let mut done = 0;
    while done < buf.len() {
        // SAFETY: writing from a live slice.
        let r = unsafe {
            libc::write(
                fd.as_raw_fd(),
                buf[done..].as_ptr().cast(),
                buf.len() - done,
            )
        };
        if r < 0 {
            let e = errno();
            if e == libc::EINTR {
                continue;
            }
            return Err(e);
        }
        if r == 0 {
            return Err(0);
        }
        done += r as usize;
    }
    Ok(())
}

/// One read into `buf`, retried on EINTR (async-signal-safe): the bytes read, 0 at end of
/// file, or Err(errno).
pub fn read_some_raw(fd: &impl AsRawFd, buf: &mut [u8]) -> std::result::Result<usize, i32> {
    loop {
        // SAFETY: reading into a live slice.
        let r = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if r >= 0 {
            return Ok(r as usize);
        }
        let e = errno();
        if e != libc::EINTR {
            return Err(e);
        }
    }
}

/// Read exactly `buf.len()` bytes (async-signal-safe). Err(0) at end of file.
pub fn read_exact_raw(fd: &impl AsRawFd, buf: &mut [u8]) -> std::result::Result<(), i32> {
    let mut done = 0;
    while done < buf.len() {
        match read_some_raw(fd, &mut buf[done..])? {
            0 => return Err(0),
            n => done += n,
        }
    }
    Ok(())
}

pub fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// An errno from the raw helpers as an error; 0 means the other end closed.
pub fn io_error(what: &str, errno: i32) -> anyhow::Error {
    if errno == 0 {
        anyhow::anyhow!("{what}: short transfer: the other end closed")
    } else {
        anyhow::anyhow!("{what}: {}", std::io::Error::from_raw_os_error(errno))
    }
}

/// The child of a two-process benchmark with everything around it: where both sides run,
/// the parent's pinning (undone on drop), and the count of operations done, so that the
/// child's CPU time can be reported per operation once it is reaped.
pub struct Partner {
    pub child: Option<Child>,
    pub pair: Pair,
    /// Operations done with this child (calibration and warm-up included, as its CPU time).
    pub ops: u64,
    usage: Option<libc::rusage>,
    _pinned: AffinityGuard,
}

impl Partner {
    /// Pin the parent as `pair` says, then fork the child (pinned too) running `body`.
    pub fn start(pair: Pair, body: impl FnOnce() -> i32) -> Result<Partner> {
        let pinned = pair.pin_parent()?;
        let child = Child::fork(pair.child_cpu, body)?;
        Ok(Partner {
            child: Some(child),
            pair,
            ops: 0,
            usage: None,
            _pinned: pinned,
        })
    }

    pub fn child_mut(&mut self) -> &mut Child {
        self.child.as_mut().expect("child reaped only in details")
    }

    /// An error in talking to the child, explained by its exit status if it died.
    pub fn explain(&mut self, err: anyhow::Error) -> anyhow::Error {
        match self.child.as_mut() {
            Some(c) => c.explain(err),
            None => err,
        }
    }

    /// Wait for the child to end by itself (it was told to); a non-zero exit fails.
    pub fn wait_for_end(&mut self, what: &str) -> Result<()> {
        if let Some(child) = self.child.take() {
            self.usage = Some(child.finish(what)?);
        }
        Ok(())
    }

    /// Stop and reap the child if still there; the placement and the child's CPU time per
    /// operation, for the result's details.
    pub fn finish_record(&mut self) -> Partnership {
        if let Some(child) = self.child.take() {
            self.usage = child.kill_and_reap();
        }
        let mut record = self.pair.record();
        if let (Some(u), true) = (self.usage, self.ops > 0) {
            let (user, system) = cpu_seconds(&u);
            record.child_cpu_time = Some(ChildCpuTime {
                ops: self.ops,
                user_s_per_op: user / self.ops as f64,
                system_s_per_op: system / self.ops as f64,
            });
        }
        record
    }

    /// The placement, as a note for the main table when it was pinned; free is the
    /// default and stays in the details only.
    pub fn notes(&self) -> Vec<String> {
        if self.pair.placement == Placement::Free {
            Vec::new()
        } else {
            vec![self.pair.note()]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failing_child_is_an_error_with_its_status() {
        let child = Child::fork(None, || 3).unwrap();
        let err = child.finish("test child").unwrap_err().to_string();
        assert!(err.contains("exited with status 3"), "{err}");
        let ok = Child::fork(None, || 0).unwrap();
        ok.finish("test child").unwrap();
    }

    #[test]
    fn dropping_a_child_kills_and_reaps_it() {
        let child = Child::fork(None, || {
            // SAFETY: pause is async-signal-safe; SIGKILL ends it.
            unsafe { libc::pause() };
            0
        })
        .unwrap();
        let pid = child.pid();
        drop(child);
        // Reaped: the pid is no longer our child.
        // SAFETY: waits for our own child; the status and rusage are valid to write.
        let r = unsafe { libc::waitpid(pid, std::ptr::null_mut(), libc::WNOHANG) };
        assert_eq!(r, -1);
        assert_eq!(errno(), libc::ECHILD);
    }

    #[test]
    fn placements_resolve_and_differ() {
        let same = Pair::resolve(Placement::Same, &[2, 3]).unwrap();
        assert_eq!((same.parent_cpu, same.child_cpu), (Some(2), Some(2)));
        let spread = Pair::resolve(Placement::Spread, &[2, 3]).unwrap();
        assert_eq!((spread.parent_cpu, spread.child_cpu), (Some(2), Some(3)));
        assert_ne!(same.note(), spread.note());
        let err = Pair::resolve(Placement::Spread, &[0]).unwrap_err();
        assert!(err.to_string().contains("two usable CPUs"), "{err}");
        assert_eq!(
            Pair::resolve(Placement::Free, &[0]).unwrap().child_cpu,
            None
        );
    }
}
