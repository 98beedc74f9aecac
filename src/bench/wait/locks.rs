//! Lock round trips between two processes: fcntl record locks, flock and System V
//! semaphores.
//!
//! # Timing model
//! One operation is one round trip: this process lets the child go and waits until the
//! child lets it go in turn; each side blocks once, so a round trip is two wake-ups and
//! (on one CPU) two context switches, as in lmbench's `lat_fcntl` and `lat_sem`.
//!
//! Blocking locks alone cannot pass a turn back and forth between two processes with two
//! locks (the one that just released a lock may take it again before the other wakes), so
//! three locks rotate: the parent starts holding 0 and 1, the child 2; in step j the
//! parent releases j mod 3 and takes (j + 2) mod 3, the child takes j mod 3 and releases
//! (j + 2) mod 3. Each lock the parent waits for is one the child holds until its own
//! step, and the other way round, so neither can run ahead. fcntl's locks are bytes 0, 1
//! and 2 of one file; flock's are three files, each side opening its own (flock's locks
//! belong to the open file, which a fork would share). The semaphores are a pair, each
//! side making one semop call of two operations per turn, as lmbench's `lat_sem` does:
//! the parent waits on the second and raises the first in one call, the child waits on
//! the first and raises the second (after raising the second once, to give the first
//! turn).

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use anyhow::{bail, Context, Result};

use crate::harness::children::{self, Child};
use crate::harness::contract::{Ctx, Workload};

/// Which lock passes the turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Fcntl,
    Flock,
}

/// A child process and three locks rotating between it and us.
pub struct LockPingPong {
    kind: Kind,
    fds: [i32; 3],
    step: u64,
    child: Option<Child>,
}

/// Take (`lock`) or release lock `i` of `fds`; raw calls only, so a forked child may use
/// it. Retries on EINTR and on a deadlock report (the kernel may see one for an instant
/// while a waiter it has just woken is still queued).
fn set(kind: Kind, fds: &[i32; 3], i: usize, lock: bool) -> std::result::Result<(), i32> {
    loop {
        // SAFETY: plain system calls on descriptors we own; the flock struct is ours.
        let rc = unsafe {
            match kind {
                Kind::Fcntl => {
                    let mut fl: libc::flock = std::mem::zeroed();
                    fl.l_type = if lock { libc::F_WRLCK } else { libc::F_UNLCK } as i16;
                    fl.l_whence = libc::SEEK_SET as i16;
                    fl.l_start = i as libc::off_t;
                    fl.l_len = 1;
                    libc::fcntl(fds[0], libc::F_SETLKW, &fl)
                }
                Kind::Flock => {
                    libc::flock(fds[i], if lock { libc::LOCK_EX } else { libc::LOCK_UN })
                }
            }
        };
        if rc == 0 {
            return Ok(());
        }
        let e = children::errno();
        if e != libc::EINTR && e != libc::EDEADLK {
            return Err(e);
        }
    }
}

fn open_raw(path: &CString) -> i32 {
    // SAFETY: a NUL-terminated path made before any fork.
    unsafe {
        libc::open(
            path.as_ptr(),
            libc::O_RDWR | libc::O_CREAT | libc::O_CLOEXEC,
            0o600,
        )
    }
}

impl LockPingPong {
    pub fn prepare(ctx: &Ctx, kind: Kind) -> Result<LockPingPong> {
        let paths: Vec<CString> = (0..3)
            .map(|i| lock_path(ctx.scratch, kind, i))
            .collect::<Result<_>>()?;
        let mut fds = [-1; 3];
        for (i, p) in paths.iter().enumerate() {
            if kind == Kind::Fcntl && i > 0 {
                fds[i] = fds[0];
                continue;
            }
            fds[i] = open_raw(p);
            if fds[i] < 0 {
                bail!(
                    "cannot create the lock file: {}",
                    std::io::Error::last_os_error()
                );
            }
        }
        let mut me = LockPingPong {
            kind,
            fds,
            step: 0,
            child: None,
        };
        for i in [0, 1] {
            set(kind, &me.fds, i, true).map_err(|e| children::io_error("first lock", e))?;
        }
        let (ready_r, ready_w) = children::pipe()?;
        let parent_fds = me.fds;
        let child = Child::fork(None, move || {
            let mut fds = parent_fds;
            if kind == Kind::Flock {
                for (i, p) in paths.iter().enumerate() {
                    fds[i] = open_raw(p);
                    if fds[i] < 0 {
                        return 3;
                    }
                }
            }
            if set(kind, &fds, 2, true).is_err() || children::write_all_raw(&ready_w, b"r").is_err()
            {
                return 4;
            }
            let mut j: u64 = 0;
            loop {
                if set(kind, &fds, (j % 3) as usize, true).is_err()
                    || set(kind, &fds, ((j + 2) % 3) as usize, false).is_err()
                {
                    return 5;
                }
                j += 1;
            }
        })?;
        let mut byte = [0u8];
        children::read_exact_raw(&ready_r, &mut byte)
            .map_err(|e| children::io_error("the child's lock", e))
            .context("the lock partner did not start")?;
        me.child = Some(child);
        Ok(me)
    }
}

fn lock_path(dir: &Path, kind: Kind, i: usize) -> Result<CString> {
    let name = match kind {
        Kind::Fcntl => "fcntl-locks".to_string(),
        Kind::Flock => format!("flock-{i}"),
    };
    Ok(CString::new(dir.join(name).as_os_str().as_bytes())?)
}

impl Workload for LockPingPong {
    fn run(&mut self, n: u64) -> Result<()> {
        for _ in 0..n {
            let j = self.step;
            set(self.kind, &self.fds, (j % 3) as usize, false)
                .and_then(|_| set(self.kind, &self.fds, ((j + 2) % 3) as usize, true))
                .map_err(|e| children::io_error("lock round trip", e))?;
            self.step += 1;
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<()> {
        match self.child.as_mut() {
            Some(c) => c.check_alive("the lock partner"),
            None => Ok(()),
        }
    }
}

impl Drop for LockPingPong {
    fn drop(&mut self) {
        self.child.take();
        let mut closed = Vec::new();
        for fd in self.fds {
            if fd >= 0 && !closed.contains(&fd) {
                // SAFETY: a descriptor this workload opened and nothing else closes.
                unsafe { libc::close(fd) };
                closed.push(fd);
            }
        }
    }
}

/// A System V semaphore pair and a child passing the turn through it.
pub struct SemPingPong {
    id: i32,
    child: Option<Child>,
}

/// Apply `ops` (semaphore number, change) to set `id` as one atomic semop: it waits until
/// every change can be made, then makes them all.
fn semop(id: i32, ops: &[(u16, i16)]) -> std::result::Result<(), i32> {
    let mut bufs = [libc::sembuf {
        sem_num: 0,
        sem_op: 0,
        sem_flg: 0,
    }; 2];
    for (b, &(num, delta)) in bufs.iter_mut().zip(ops) {
        b.sem_num = num;
        b.sem_op = delta;
    }
    loop {
        // SAFETY: `ops.len()` (at most 2) sembufs of ours on a set we created.
        if unsafe { libc::semop(id, bufs.as_mut_ptr(), ops.len().min(2)) } == 0 {
            return Ok(());
        }
        let e = children::errno();
        if e != libc::EINTR {
            return Err(e);
        }
    }
}

impl SemPingPong {
    pub fn prepare() -> Result<SemPingPong> {
        // SAFETY: creates a private set of two semaphores, both 0.
        let id = unsafe { libc::semget(libc::IPC_PRIVATE, 2, libc::IPC_CREAT | 0o600) };
        if id < 0 {
            bail!("semget: {}", std::io::Error::last_os_error());
        }
        let mut me = SemPingPong { id, child: None };
        me.child = Some(Child::fork(None, move || {
            // The first turn is ours: raise 1 once, then wait on 0 and raise 1, forever.
            if semop(id, &[(1, 1)]).is_err() {
                return 4;
            }
            loop {
                if semop(id, &[(0, -1), (1, 1)]).is_err() {
                    return 5;
                }
            }
        })?);
        Ok(me)
    }
}

impl Workload for SemPingPong {
    fn run(&mut self, n: u64) -> Result<()> {
        for _ in 0..n {
            semop(self.id, &[(1, -1), (0, 1)])
                .map_err(|e| children::io_error("semaphore round trip", e))?;
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<()> {
        match self.child.as_mut() {
            Some(c) => c.check_alive("the semaphore partner"),
            None => Ok(()),
        }
    }
}

impl Drop for SemPingPong {
    fn drop(&mut self) {
        self.child.take();
        // SAFETY: removes the set this workload created.
        unsafe { libc::semctl(self.id, 0, libc::IPC_RMID) };
    }
}
