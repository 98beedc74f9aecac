//! Process creation workloads: seed 001's `forks`, `vforks`, `execs`, `vexecs`
//! (Appendix A), and the modern posix_spawn and `sh -c`.
//!
//! # Timing model
//! Before sampling, the heap is grown by 0, 1 KB or 100 KB and every 1 KB of it written
//! (the seed's `sbrk(n)` and `cp[i] = i`), so the parent has that much more private,
//! resident memory for fork to duplicate. One operation = create a process, let it exit
//! (at once, or after exec'ing the job), and wait for it; the child's exit status is
//! checked every time (a non-zero exit or a death by signal fails the row). The child's
//! CPU time reaches the row's user/system figures through getrusage(RUSAGE_CHILDREN),
//! since every child is reaped inside the timed region.
//!
//! vfork is done as glibc's posix_spawn does it: clone(CLONE_VM | CLONE_VFORK) on a
//! private stack, so the child borrows the parent's memory until it execs or exits and
//! the parent is suspended meanwhile.

use std::hint::black_box;

use anyhow::{bail, Result};

use super::jobs::ExecArgs;
use crate::harness::children::{reset_signals_in_child, wait_ok};
use crate::harness::contract::Workload;
use crate::harness::interrupt;
use crate::harness::interrupt::Interrupted;
use crate::model::details::micro;
use crate::model::Details;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Create {
    Fork,
    Vfork,
    /// posix_spawn with SIGINT/SIGTERM reset to their defaults in the child.
    Spawn,
}

/// Memory the heap grew by, every 1 KB written (kept until the workload ends).
pub struct Grown {
    mem: Vec<u8>,
}

impl Grown {
    pub fn by(bytes: usize) -> Grown {
        let mut mem = vec![0u8; bytes];
        small_pages(&mut mem);
        for i in (0..bytes).step_by(1024) {
            mem[i] = i as u8 | 1;
        }
        black_box(&mut mem);
        Grown { mem }
    }
}

/// Ask for 4 KB pages, as the seed's heap had: a large region would otherwise get
/// transparent huge pages, whose few page-table entries fork copies almost for free.
/// (Below 2 MB, as in the seed's rows, it changes nothing.)
fn small_pages(mem: &mut [u8]) {
    const PAGE: usize = 4096;
    let start = (mem.as_ptr() as usize).div_ceil(PAGE) * PAGE;
    let end = (mem.as_ptr() as usize + mem.len()) / PAGE * PAGE;
    if end > start {
        // SAFETY: advice on whole pages inside our own allocation; failure is harmless.
        unsafe {
            libc::madvise(
                start as *mut libc::c_void,
                end - start,
                libc::MADV_NOHUGEPAGE,
            )
        };
    }
}

/// Create a process `how`, exec'ing `exec` if given (else exiting at once), and wait.
pub struct Creation {
    how: Create,
    exec: Option<ExecArgs>,
    grown: Grown,
    /// The vfork child's stack.
    stack: Vec<u8>,
    spawn_attr: Option<SpawnAttr>,
}

impl Creation {
    pub fn new(how: Create, exec: Option<ExecArgs>, heap_bytes: usize) -> Result<Creation> {
        if how == Create::Spawn && exec.is_none() {
            bail!("posix_spawn needs a program");
        }
        Ok(Creation {
            how,
            exec,
            grown: Grown::by(heap_bytes),
            stack: vec![0; 64 * 1024],
            spawn_attr: if how == Create::Spawn {
                Some(SpawnAttr::new()?)
            } else {
                None
            },
        })
    }

    fn once(&mut self) -> Result<()> {
        let pid = match self.how {
            Create::Fork => self.fork(),
            Create::Vfork => self.vfork(),
            Create::Spawn => self.spawn(),
        }?;
        wait_ok(pid, self.what()).map_err(|e| {
            if interrupt::requested() {
                Interrupted.into()
            } else {
                e
            }
        })
    }

    fn what(&self) -> &'static str {
        match (self.how, self.exec.is_some()) {
            (Create::Fork, false) => "fork-exit-wait",
            (Create::Vfork, false) => "vfork-exit-wait",
            (Create::Fork, true) => "fork-exec-wait",
            (Create::Vfork, true) => "vfork-exec-wait",
            (Create::Spawn, _) => "posix_spawn-wait",
        }
    }

    fn fork(&mut self) -> Result<libc::pid_t> {
        // SAFETY: the child calls only async-signal-safe functions and _exit.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            if let Some(e) = &self.exec {
                reset_signals_in_child();
                // SAFETY: argv/envp are NULL-terminated arrays of live C strings.
                unsafe { libc::execve(e.path.as_ptr(), e.argv.as_ptr(), e.envp.as_ptr()) };
                // SAFETY: ends a forked child at once, without the parent's destructors or buffered output.
                unsafe { libc::_exit(127) };
            }
            // SAFETY: ends a forked child at once, without the parent's destructors or buffered output.
            unsafe { libc::_exit(0) };
        }
        if pid < 0 {
            bail!("fork: {}", std::io::Error::last_os_error());
        }
        Ok(pid)
    }

    fn vfork(&mut self) -> Result<libc::pid_t> {
        // The child shares our memory until it execs: a signal handled there would run
        // our handlers on our memory (a Ctrl-C would set our interrupt flag from the
        // child, and our own Ctrl-C would then look like a second one and exit at once).
        // So, as glibc's posix_spawn does, every signal is blocked across the clone; the
        // child resets SIGINT/SIGTERM to their defaults and then restores the mask.
        let all = SignalMask::block_all()?;
        let mut arg = VforkArg {
            exec: self
                .exec
                .as_ref()
                .map_or(std::ptr::null(), |e| e as *const ExecArgs),
            mask: all.old,
        };
        // The stack grows down: pass its 16-byte-aligned top.
        let top = (self.stack.as_mut_ptr() as usize + self.stack.len()) & !15;
        // SAFETY: the child runs vfork_child on its own stack, touching only `arg`
        // (read-only) and leaving by execve or _exit; the parent is suspended meanwhile.
        let pid = unsafe {
            libc::clone(
                vfork_child,
                top as *mut libc::c_void,
                libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
                &mut arg as *mut VforkArg as *mut libc::c_void,
            )
        };
        drop(all);
        if pid < 0 {
            bail!(
                "clone(CLONE_VM|CLONE_VFORK): {}",
                std::io::Error::last_os_error()
            );
        }
        Ok(pid)
    }

    fn spawn(&mut self) -> Result<libc::pid_t> {
        let e = self.exec.as_ref().expect("checked in new");
        let attr = self.spawn_attr.as_ref().expect("made in new");
        let mut pid = 0;
        // SAFETY: argv/envp are NULL-terminated arrays of live C strings.
        let r = unsafe {
            libc::posix_spawn(
                &mut pid,
                e.path.as_ptr(),
                std::ptr::null(),
                &attr.0,
                e.argv.as_ptr() as *const *mut libc::c_char,
                e.envp.as_ptr() as *const *mut libc::c_char,
            )
        };
        if r != 0 {
            bail!(
                "posix_spawn {}: {}",
                e.path.to_string_lossy(),
                std::io::Error::from_raw_os_error(r)
            );
        }
        Ok(pid)
    }
}

/// What the vfork child reads from its (suspended) parent's memory.
struct VforkArg {
    /// The program to exec, or null to exit at once.
    exec: *const ExecArgs,
    /// The signal mask to restore once the handlers are reset.
    mask: libc::sigset_t,
}

extern "C" fn vfork_child(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `arg` is a live VforkArg owned by the suspended parent; only
    // async-signal-safe calls follow.
    unsafe {
        let arg = &*(arg as *const VforkArg);
        reset_signals_in_child();
        libc::pthread_sigmask(libc::SIG_SETMASK, &arg.mask, std::ptr::null_mut());
        if !arg.exec.is_null() {
            let e = &*arg.exec;
            libc::execve(e.path.as_ptr(), e.argv.as_ptr(), e.envp.as_ptr());
            libc::_exit(127);
        }
        libc::_exit(0)
    }
}

/// Every signal blocked on this thread; the former mask is restored on drop.
struct SignalMask {
    old: libc::sigset_t,
}

impl SignalMask {
    fn block_all() -> Result<SignalMask> {
        // SAFETY: sigset_t is plain data.
        unsafe {
            let mut all: libc::sigset_t = std::mem::zeroed();
            libc::sigfillset(&mut all);
            let mut old: libc::sigset_t = std::mem::zeroed();
            let r = libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
            if r != 0 {
                bail!("pthread_sigmask: {}", std::io::Error::from_raw_os_error(r));
            }
            Ok(SignalMask { old })
        }
    }
}

impl Drop for SignalMask {
    fn drop(&mut self) {
        // SAFETY: restoring the mask we found.
        unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &self.old, std::ptr::null_mut()) };
    }
}

/// posix_spawn attributes: SIGINT and SIGTERM at their defaults in the child, not our
/// handlers' (a handled signal is reset by exec anyway; this also covers the window
/// before it).
struct SpawnAttr(libc::posix_spawnattr_t);

impl SpawnAttr {
    fn new() -> Result<SpawnAttr> {
        // SAFETY: init before use, destroy in drop.
        unsafe {
            let mut a: libc::posix_spawnattr_t = std::mem::zeroed();
            if libc::posix_spawnattr_init(&mut a) != 0 {
                bail!("posix_spawnattr_init failed");
            }
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, libc::SIGINT);
            libc::sigaddset(&mut set, libc::SIGTERM);
            libc::posix_spawnattr_setsigdefault(&mut a, &set);
            libc::posix_spawnattr_setflags(&mut a, libc::POSIX_SPAWN_SETSIGDEF as _);
            Ok(SpawnAttr(a))
        }
    }
}

impl Drop for SpawnAttr {
    fn drop(&mut self) {
        // SAFETY: initialised in new.
        unsafe { libc::posix_spawnattr_destroy(&mut self.0) };
    }
}

impl Workload for Creation {
    fn run(&mut self, n: u64) -> Result<()> {
        for _ in 0..n {
            self.once()?;
        }
        Ok(())
    }

    fn notes(&self) -> Vec<String> {
        match (self.how, self.exec.is_some()) {
            (Create::Fork, false) => vec![
                "the child calls _exit(0) at once; lmbench's lat_proc fork child calls \
                 exit(), whose C-library handlers write to copy-on-write pages (26 \
                 faults per fork against 18), and lat_proc's long batches include the \
                 time a new child waits behind other runnable tasks: lat_proc's figure is \
                 higher, the more so on a loaded machine (see docs/crosscheck.md)"
                    .into(),
            ],
            _ => Vec::new(),
        }
    }

    fn details(&mut self) -> Option<Details> {
        Some(Details::of(&micro::Creation {
            heap_grown_bytes: self.grown.mem.len(),
            creation: self.what().to_string(),
            placement: "not applicable: one process at a time".into(),
            program: self
                .exec
                .as_ref()
                .map(|e| e.path.to_string_lossy().into_owned()),
            exec_arg_env_bytes: self.exec.as_ref().map(|e| e.bytes),
        }))
    }
}

// That twice the creations take about twice the time, that fork's cost grows with the
// parent's heap and that a bigger job costs no less are timing claims, checked by
// `timeshare selftest proc`.
#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn exec(program: &str) -> ExecArgs {
        ExecArgs::new(Path::new(program), &[], Vec::new()).unwrap()
    }

    #[test]
    fn a_job_that_fails_fails_the_operation() {
        for how in [Create::Fork, Create::Vfork, Create::Spawn] {
            let mut w = Creation::new(how, Some(exec("/bin/false")), 0).unwrap();
            let err = w.run(1).unwrap_err().to_string();
            assert!(err.contains("exited with status 1"), "{how:?}: {err}");
        }
    }

    #[test]
    fn a_missing_program_is_an_exec_error() {
        for how in [Create::Fork, Create::Vfork] {
            let mut w = Creation::new(how, Some(exec("/nonexistent/job")), 0).unwrap();
            let err = w.run(1).unwrap_err().to_string();
            assert!(err.contains("127"), "{how:?}: {err}");
        }
        let mut w = Creation::new(Create::Spawn, Some(exec("/nonexistent/job")), 0).unwrap();
        assert!(w.run(1).is_err());
    }

    #[test]
    fn plain_forks_and_true_succeed() {
        for how in [Create::Fork, Create::Vfork] {
            Creation::new(how, None, 100 * 1024)
                .unwrap()
                .run(3)
                .unwrap();
            Creation::new(how, Some(exec("/bin/true")), 0)
                .unwrap()
                .run(2)
                .unwrap();
        }
    }
}
