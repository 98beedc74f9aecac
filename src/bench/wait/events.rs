//! select, poll and epoll on N ready descriptors.
//!
//! # Timing model
//! One operation is one call that finds all N descriptors ready for reading, with a zero
//! timeout: its cost is the kernel's walk over the N descriptors and the copying of the
//! sets in and out. `select` and `poll` watch N descriptors of one regular file (always
//! ready), as lmbench's `lat_select -n N file` does; `select` refills its set from a copy
//! before each call (the call overwrites it), as lat_select does, and uses a set sized to
//! the highest descriptor, so N = 1000 works past FD_SETSIZE. epoll cannot watch a
//! regular file, so `epoll` watches N eventfds whose counters stay at 1 (level-triggered,
//! so each `epoll_wait` reports all N again).

use std::path::Path;

use anyhow::{bail, Context, Result};

use crate::harness::contract::Workload;

/// Which call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    Select,
    Poll,
    Epoll,
}

/// N open descriptors and the call's own structures.
pub struct Waits {
    call: Call,
    fds: Vec<i32>,
    epfd: i32,
    template: Vec<u64>,
    set: Vec<u64>,
    pollfds: Vec<libc::pollfd>,
    events: Vec<libc::epoll_event>,
    short: u64,
}

fn last_os(what: &str) -> anyhow::Error {
    anyhow::anyhow!("{what}: {}", std::io::Error::last_os_error())
}

impl Waits {
    pub fn prepare(call: Call, n: usize, scratch: &Path) -> Result<Waits> {
        let mut w = Waits {
            call,
            fds: Vec::with_capacity(n),
            epfd: -1,
            template: Vec::new(),
            set: Vec::new(),
            pollfds: Vec::new(),
            events: Vec::new(),
            short: 0,
        };
        match call {
            Call::Select | Call::Poll => {
                let path = scratch.join("select-file");
                std::fs::write(&path, b"x").context("cannot create the file to watch")?;
                let file = std::fs::File::open(&path)?;
                use std::os::fd::AsRawFd;
                for _ in 0..n {
                    // SAFETY: dup of a descriptor we hold.
                    let fd = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 0) };
                    if fd < 0 {
                        return Err(last_os(&format!("open {n} descriptors")));
                    }
                    w.fds.push(fd);
                }
            }
            Call::Epoll => {
                // SAFETY: plain system calls creating descriptors we own.
                w.epfd = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
                if w.epfd < 0 {
                    return Err(last_os("epoll_create1"));
                }
                for _ in 0..n {
                    // SAFETY: as above.
                    let fd = unsafe { libc::eventfd(1, libc::EFD_CLOEXEC) };
                    if fd < 0 {
                        return Err(last_os(&format!("open {n} eventfds")));
                    }
                    w.fds.push(fd);
                    let mut ev = libc::epoll_event {
                        events: libc::EPOLLIN as u32,
                        u64: fd as u64,
                    };
                    // SAFETY: adds a live descriptor to our epoll set.
                    if unsafe { libc::epoll_ctl(w.epfd, libc::EPOLL_CTL_ADD, fd, &mut ev) } != 0 {
                        return Err(last_os("epoll_ctl"));
                    }
                }
                w.events = vec![libc::epoll_event { events: 0, u64: 0 }; n];
            }
        }
        let max = *w.fds.iter().max().unwrap_or(&0) as usize;
        w.template = vec![0u64; max / 64 + 1];
        for &fd in &w.fds {
            w.template[fd as usize / 64] |= 1 << (fd as usize % 64);
        }
        w.set = w.template.clone();
        w.pollfds = w
            .fds
            .iter()
            .map(|&fd| libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        Ok(w)
    }

    /// One call; how many descriptors it found ready.
    #[inline]
    fn once(&mut self) -> i32 {
        // SAFETY: every pointer is to a live buffer of the length passed with it; the
        // select set holds max_fd + 1 bits (the kernel reads and writes only nfds bits).
        unsafe {
            match self.call {
                Call::Select => {
                    self.set.copy_from_slice(&self.template);
                    let nfds = *self.fds.iter().max().unwrap_or(&0) + 1;
                    let mut tv = libc::timeval {
                        tv_sec: 0,
                        tv_usec: 0,
                    };
                    libc::select(
                        nfds,
                        self.set.as_mut_ptr().cast(),
                        std::ptr::null_mut(),
                        std::ptr::null_mut(),
                        &mut tv,
                    )
                }
                Call::Poll => libc::poll(self.pollfds.as_mut_ptr(), self.pollfds.len() as _, 0),
                Call::Epoll => libc::epoll_wait(
                    self.epfd,
                    self.events.as_mut_ptr(),
                    self.events.len() as i32,
                    0,
                ),
            }
        }
    }
}

impl Workload for Waits {
    fn run(&mut self, n: u64) -> Result<()> {
        let want = self.fds.len() as i32;
        for _ in 0..n {
            if self.once() != want {
                self.short += 1;
            }
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<()> {
        if self.short > 0 {
            bail!(
                "{} calls did not find all {} descriptors ready",
                self.short,
                self.fds.len()
            );
        }
        Ok(())
    }
}

impl Drop for Waits {
    fn drop(&mut self) {
        for &fd in self.fds.iter().chain(std::iter::once(&self.epfd)) {
            if fd >= 0 {
                // SAFETY: descriptors this workload opened.
                unsafe { libc::close(fd) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_call_finds_every_descriptor_ready() {
        let dir = tempfile::tempdir().unwrap();
        for call in [Call::Select, Call::Poll, Call::Epoll] {
            let mut w = Waits::prepare(call, 100, dir.path()).unwrap();
            w.run(10).unwrap();
            w.finish().unwrap();
        }
    }

    #[test]
    fn a_descriptor_not_ready_fails_the_row() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = Waits::prepare(Call::Epoll, 10, dir.path()).unwrap();
        let mut count = 0u64;
        // SAFETY: reading the eventfd's counter empties it: no longer ready.
        unsafe { libc::read(w.fds[3], (&mut count as *mut u64).cast(), 8) };
        w.run(3).unwrap();
        let err = w.finish().unwrap_err().to_string();
        assert!(err.contains("3 calls"), "{err}");
    }
}
