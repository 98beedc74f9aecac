//! One paging job, as seed 001's `time seqpage -p 7500 10` measured it: map fresh memory,
//! run the access pattern, unmap. Each job's real, user and system time and its minor and
//! major faults are counted around it (getrusage of the thread, or of the child in
//! memory-limit mode); the fault service time is system time / faults (Table 8).
//!
//! # Timing model
//! One operation is one whole job. In-process (the default), the timed region is mmap +
//! the pattern + munmap of anonymous memory, so every first touch is a zero-fill fault. In
//! memory-limit mode the job runs in a forked child placed in a memory cgroup smaller than
//! the working set, on a shared mapping of a scratch file whose page cache was dropped
//! before the job; the timed region then also holds the fork, the cgroup entry and the
//! writing back of the file's dirty pages, which the child's own figures (in `details`)
//! leave out.

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::time::Instant;

use anyhow::{bail, Context, Result};

use super::pattern::{walk, Pattern};
use super::region::{Advice, Region};
use crate::harness::children::pipe;
use crate::harness::memlimit::MemoryCgroup;
use crate::harness::rusage::{this_thread, Usage};

pub use crate::model::details::vm::JobStats;

/// What to map and how to walk it.
#[derive(Debug, Clone, Copy)]
pub struct JobSpec {
    pub pattern: Pattern,
    pub advice: Advice,
    pub pages: u64,
}

/// Run one job in the calling thread. `file`: map it shared instead of anonymous memory.
pub fn run_here(spec: &JobSpec, file: Option<&File>) -> Result<JobStats> {
    let u0 = this_thread();
    let t0 = Instant::now();
    let region = Region::map(spec.pages, file, spec.advice)?;
    let mut first_pass = None;
    let touches = walk(
        spec.pattern,
        spec.pages,
        |p| region.touch(p),
        || first_pass = Some(this_thread()),
    );
    drop(region);
    let real_s = t0.elapsed().as_secs_f64();
    let used = this_thread().since(&u0);
    Ok(JobStats {
        real_s,
        user_s: used.user_s,
        system_s: used.system_s,
        minor_faults: used.minor_faults,
        major_faults: used.major_faults,
        first_pass_minor_faults: first_pass
            .map(|u: Usage| u.since(&u0).minor_faults)
            .unwrap_or(0),
        touches,
    })
}

/// Run one job in a forked child inside `group`, on a shared mapping of `file`. The file's
/// cached pages are written back and dropped first, so the job starts cold and every page
/// it needs again after the limit pushed it out is a major fault (a read from disk).
pub fn run_in_child(spec: &JobSpec, file: &File, group: &MemoryCgroup) -> Result<JobStats> {
    drop_cache(file)?;
    let stats = run_forked(spec, Some(file), |pid| {
        group
            .add(pid)
            .with_context(|| format!("cannot move the child into {}", group.dir().display()))
    })?;
    drop_cache(file)?;
    Ok(stats)
}

/// Fork a child that waits until `prepare` has placed it, then runs the job and reports its
/// figures through a pipe. The child has one thread, so no other thread can fork while the
/// job's pages are mapped and make them copy-on-write behind its back.
fn run_forked(
    spec: &JobSpec,
    file: Option<&File>,
    prepare: impl FnOnce(libc::pid_t) -> Result<()>,
) -> Result<JobStats> {
    let (go_read, go_write) = pipe()?;
    let (result_read, result_write) = pipe()?;
    // SAFETY: the child only makes system calls and runs the allocation-free pattern code
    // on memory it inherited, then leaves with _exit.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        bail!("fork: {}", std::io::Error::last_os_error());
    }
    if pid == 0 {
        drop(go_write);
        drop(result_read);
        child(spec, file, go_read, result_write);
    }
    drop(go_read);
    drop(result_write);
    let mut child = Child(pid);
    prepare(pid)?;
    File::from(go_write)
        .write_all(&[1])
        .context("starting the child")?;
    let mut bytes = [0u8; std::mem::size_of::<JobStats>()];
    let got = File::from(result_read).read_exact(&mut bytes);
    let status = child.reap()?;
    if let Err(e) = got {
        bail!(
            "the paging child died before reporting ({}): {e}",
            describe_status(status)
        );
    }
    // SAFETY: JobStats is plain repr(C) data written by the child from the same type.
    let stats: JobStats = unsafe { std::ptr::read_unaligned(bytes.as_ptr().cast()) };
    if status != 0 {
        bail!("the paging child {}", describe_status(status));
    }
    Ok(stats)
}

/// The child's whole life: wait for the go, run the job, report, leave.
fn child(spec: &JobSpec, file: Option<&File>, go: OwnedFd, out: OwnedFd) -> ! {
    // SAFETY: resetting handlers inherited from the parent's interrupt handling.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
        libc::signal(libc::SIGTERM, libc::SIG_DFL);
    }
    let mut byte = [0u8; 1];
    // SAFETY: reading one byte into a local buffer from our own pipe.
    let started = unsafe { libc::read(go.as_raw_fd(), byte.as_mut_ptr().cast(), 1) } == 1;
    let code = match started.then(|| run_here(spec, file)) {
        Some(Ok(stats)) => {
            let size = std::mem::size_of::<JobStats>();
            // SAFETY: writing the bytes of a plain repr(C) value to our own pipe.
            let wrote =
                unsafe { libc::write(out.as_raw_fd(), (&stats as *const JobStats).cast(), size) };
            if wrote == size as isize {
                0
            } else {
                4
            }
        }
        _ => 3,
    };
    // SAFETY: leave without running the parent's destructors or atexit handlers.
    unsafe { libc::_exit(code) }
}

/// A forked child, killed and reaped if dropped before `reap`.
struct Child(libc::pid_t);

impl Child {
    /// Wait for the child; its raw wait status.
    fn reap(&mut self) -> Result<i32> {
        let mut status = 0;
        loop {
            // SAFETY: waiting for our own child.
            let r = unsafe { libc::waitpid(self.0, &mut status, 0) };
            if r == self.0 {
                self.0 = 0;
                return Ok(status);
            }
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                bail!("waitpid: {e}");
            }
        }
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        if self.0 > 0 {
            // SAFETY: killing and reaping our own child.
            unsafe {
                libc::kill(self.0, libc::SIGKILL);
                libc::waitpid(self.0, std::ptr::null_mut(), 0);
            }
        }
    }
}

fn describe_status(status: i32) -> String {
    if libc::WIFSIGNALED(status) {
        let sig = libc::WTERMSIG(status);
        if sig == libc::SIGKILL {
            "was killed by SIGKILL (out of memory under the limit? try a larger --memory-limit)"
                .to_string()
        } else {
            format!("was killed by signal {sig}")
        }
    } else {
        format!("exited with status {}", libc::WEXITSTATUS(status))
    }
}

/// Write the file's dirty pages back and drop its cached pages, so the next job reads
/// them from disk.
pub fn drop_cache(file: &File) -> Result<()> {
    file.sync_data().context("writing back the paging file")?;
    // SAFETY: advice on our own descriptor, whole file.
    let r = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    if r != 0 {
        bail!(
            "posix_fadvise(DONTNEED): {}",
            std::io::Error::from_raw_os_error(r)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sequential_job_faults_once_per_page_on_its_first_pass() {
        let spec = JobSpec {
            pattern: Pattern::Seq { passes: 3 },
            advice: Advice::Normal,
            pages: 2_000,
        };
        // In a child of its own: the test binary's other threads fork, and a fork while
        // the pages are mapped would make each of them fault again, copy-on-write.
        let s = run_forked(&spec, None, |_| Ok(())).unwrap();
        assert_eq!(s.touches, 6_000);
        assert!((1_950..2_100).contains(&s.first_pass_minor_faults), "{s:?}");
        // The later passes find the pages mapped: a job that lost its mapping would fault
        // 4,000 times more. A busy machine adds some of its own (191 in one CI run under
        // two busy loops, 0 at rest): the kernel may unmap a page to move or reclaim it.
        assert!(s.minor_faults - s.first_pass_minor_faults < 500, "{s:?}");
    }

    #[test]
    fn twice_the_pages_is_twice_the_faults() {
        let faults = |pages| {
            let spec = JobSpec {
                pattern: Pattern::Seq { passes: 1 },
                advice: Advice::Sequential,
                pages,
            };
            run_here(&spec, None).unwrap().minor_faults as f64
        };
        let ratio = faults(6_000) / faults(3_000);
        assert!((1.9..2.1).contains(&ratio), "{ratio}");
    }
}
