//! Seed 001 §3.1.2: the remote login chain. "A remote login uses three processes and a
//! pseudo-terminal handler in addition to the local hardware terminal handler ... sending
//! and echoing a single character involves four processes on two machines", which "can
//! roughly triple the load presented by one local terminal user". Here the chain is made on
//! one machine, over loopback only: a pseudo-terminal whose slave side is held by an
//! echoing program (a screen editor in raw mode, which echoes what it reads), and one relay
//! process per network hop, each copying bytes both ways between a TCP connection on
//! 127.0.0.1 and the next hop (the last relay, as rlogind, the pseudo-terminal's master).
//!
//! Ids: `net.rlogin.H`, H relay hops: 0 (the local terminal user: the typist writes to the
//! pseudo-terminal's master itself), 2 and 3.
//!
//! # Timing model
//! Before sampling, the pseudo-terminal (raw mode), the echoing program, the TCP
//! connections (TCP_NODELAY) and the relays are made; they live until the row ends. One
//! operation: the typist (the measuring process) writes one character into the first hop
//! and reads it back from there after it went down the chain to the echoing program and
//! up again; a character other than the one typed fails the row. The relays' and the
//! echoing program's CPU time is read from /proc/PID/schedstat between samples and given
//! per character in a note: the row's own user and system times are the typist's only.

use std::os::fd::{AsRawFd, OwnedFd, RawFd};

use anyhow::{bail, Context, Result};

use super::socket::{tcp_pair, Family};
use crate::bench::micro::berkeley;
use crate::harness::children::{io_error, read_exact_raw, read_some_raw, write_all_raw, Child};
use crate::harness::contract::{Benchmark, Workload};

#[rustfmt::skip]
pub fn rows() -> Vec<Benchmark> { vec![
    row("net.rlogin.0", "a character typed into a pseudo-terminal and echoed by the program \
        reading it, the local terminal user of 001 §3.1.2", 0),
    row("net.rlogin.2", "a character typed through 2 relay processes over loopback TCP into a \
        pseudo-terminal and echoed back (001 §3.1.2's remote login)", 2),
    row("net.rlogin.3", "a character typed through 3 relay processes over loopback TCP into a \
        pseudo-terminal and echoed back (001 §3.1.2's remote login)", 3),
]}

fn row(id: &'static str, about: &'static str, hops: usize) -> Benchmark {
    Benchmark::new(id, about, berkeley("§3.1.2: remote login"), move |_| {
        Ok(Box::new(Chain::new(hops)?))
    })
    .partnered()
    .per("character typed and echoed back")
}

/// The typist's end of a chain, and the processes that make it.
pub struct Chain {
    /// Where the typist writes and reads: the first hop's socket, or the master.
    end: OwnedFd,
    relays: Vec<Child>,
    editor: Child,
    typed: u64,
    /// The chain's CPU time (ns) and characters typed when counting began.
    counted_from: Option<(u64, u64)>,
    /// The chain's CPU per character, once finished.
    cpu_per_char: Option<f64>,
}

impl Chain {
    pub fn new(hops: usize) -> Result<Chain> {
        let (master, slave) = crate::bench::syscall::open_pty()?;
        raw_mode(&slave)?;
        let slave_fd = slave.as_raw_fd();
        let editor = Child::fork(None, move || {
            keep_only([slave_fd, slave_fd]);
            echo_forever(slave_fd)
        })?;
        drop(slave);
        // Each hop's pair: the near end towards the typist, the far end towards the pty.
        let mut pairs = Vec::with_capacity(hops);
        for _ in 0..hops {
            pairs.push(tcp_pair(Family::V4, true)?);
        }
        let mut relays = Vec::with_capacity(hops);
        for k in 0..hops {
            let inbound = pairs[k].1.as_raw_fd();
            let outbound = match pairs.get(k + 1) {
                Some(next) => next.0.as_raw_fd(),
                None => master.as_raw_fd(),
            };
            relays.push(Child::fork(None, move || {
                keep_only([inbound, outbound]);
                relay_forever(inbound, outbound)
            })?);
        }
        let end = match pairs.into_iter().next() {
            Some((near, _)) => near,
            None => master.into(),
        };
        Ok(Chain {
            end,
            relays,
            editor,
            typed: 0,
            counted_from: None,
            cpu_per_char: None,
        })
    }

    fn pids(&self) -> impl Iterator<Item = libc::pid_t> + '_ {
        std::iter::once(self.editor.pid()).chain(self.relays.iter().map(Child::pid))
    }

    /// The CPU time of the echoing program and the relays so far, ns.
    fn chain_cpu_ns(&self) -> Result<u64> {
        self.pids().map(cpu_ns).sum()
    }

    /// Type one character and read its echo.
    fn type_one(&mut self) -> Result<()> {
        let c = b'a' + (self.typed % 26) as u8;
        write_all_raw(&self.end, &[c]).map_err(|e| io_error("type a character", e))?;
        let mut echo = [0u8; 1];
        read_exact_raw(&self.end, &mut echo).map_err(|e| io_error("read the echo", e))?;
        if echo[0] != c {
            bail!("the chain echoed {:?} for {:?}", echo[0] as char, c as char);
        }
        self.typed += 1;
        Ok(())
    }

    fn explain(&mut self, err: anyhow::Error) -> anyhow::Error {
        let err = self.editor.explain(err);
        match self.relays.first_mut() {
            Some(r) => r.explain(err),
            None => err,
        }
    }
}

impl Workload for Chain {
    fn run(&mut self, n: u64) -> Result<()> {
        for _ in 0..n {
            if let Err(e) = self.type_one() {
                return Err(self.explain(e));
            }
        }
        Ok(())
    }

    fn before_sample(&mut self, _n: u64) -> Result<()> {
        if self.counted_from.is_none() {
            self.counted_from = Some((self.chain_cpu_ns()?, self.typed));
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<()> {
        self.editor.check_alive("the echoing program")?;
        for r in &mut self.relays {
            r.check_alive("a relay")?;
        }
        if let Some((cpu0, typed0)) = self.counted_from {
            let chars = self.typed - typed0;
            if chars > 0 {
                let used = self.chain_cpu_ns()?.saturating_sub(cpu0);
                self.cpu_per_char = Some(used as f64 * 1e-9 / chars as f64);
            }
        }
        Ok(())
    }

    fn notes(&self) -> Vec<String> {
        let Some(cpu) = self.cpu_per_char else {
            return Vec::new();
        };
        vec![format!(
            "the chain used {:.1} µs of CPU per character (the echoing program and {} \
             relays; the typist's own is in user and sys)",
            cpu * 1e6,
            self.relays.len()
        )]
    }
}

/// Raw mode on the slave, as a screen editor sets it: no line editing, no echo by the
/// terminal, every byte passed at once.
fn raw_mode(slave: &impl AsRawFd) -> Result<()> {
    // SAFETY: termios is plain data tcgetattr fills; the descriptor is open.
    unsafe {
        let mut t: libc::termios = std::mem::zeroed();
        if libc::tcgetattr(slave.as_raw_fd(), &mut t) != 0 {
            return Err(std::io::Error::last_os_error()).context("tcgetattr on the slave");
        }
        libc::cfmakeraw(&mut t);
        if libc::tcsetattr(slave.as_raw_fd(), libc::TCSANOW, &t) != 0 {
            return Err(std::io::Error::last_os_error()).context("tcsetattr on the slave");
        }
    }
    Ok(())
}

/// In a forked child: close every descriptor but standard input, output, error and
/// `keep`, so that each process of the chain holds its own ends only, as the real ones
/// do, and a process that ends closes its hop (the next one sees end of file and ends
/// too, and the typist's read fails instead of waiting for ever). Async-signal-safe.
fn keep_only(keep: [RawFd; 2]) {
    // SAFETY: rlimit is plain data getrlimit fills.
    let mut lim: libc::rlimit = unsafe { std::mem::zeroed() };
    // SAFETY: a valid rlimit to write.
    let top = if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } == 0 {
        lim.rlim_cur.min(1 << 16) as RawFd
    } else {
        1024
    };
    for fd in 3..top {
        if !keep.contains(&fd) {
            // SAFETY: closing a descriptor of this child only.
            unsafe { libc::close(fd) };
        }
    }
}

/// The echoing program: read what was typed, write it back (async-signal-safe).
fn echo_forever(slave: RawFd) -> i32 {
    let mut buf = [0u8; 64];
    loop {
        match read_some_raw(&slave, &mut buf) {
            Ok(0) | Err(_) => return 1,
            Ok(n) => {
                if write_all_raw(&slave, &buf[..n]).is_err() {
                    return 1;
                }
            }
        }
    }
}

/// A relay: copy bytes both ways between two descriptors until one closes
/// (async-signal-safe: poll, read and write only).
fn relay_forever(a: RawFd, b: RawFd) -> i32 {
    let mut fds = [
        libc::pollfd {
            fd: a,
            events: libc::POLLIN,
            revents: 0,
        },
        libc::pollfd {
            fd: b,
            events: libc::POLLIN,
            revents: 0,
        },
    ];
    let mut buf = [0u8; 256];
    loop {
        // SAFETY: two pollfds in a live array.
        if unsafe { libc::poll(fds.as_mut_ptr(), 2, -1) } < 0 {
            if crate::harness::children::errno() == libc::EINTR {
                continue;
            }
            return 1;
        }
        for i in 0..2 {
            if fds[i].revents == 0 {
                continue;
            }
            let to = fds[1 - i].fd;
            match read_some_raw(&fds[i].fd, &mut buf) {
                Ok(0) | Err(_) => return 0,
                Ok(n) => {
                    if write_all_raw(&to, &buf[..n]).is_err() {
                        return 1;
                    }
                }
            }
        }
    }
}

/// A process's CPU time so far, ns (the first field of /proc/PID/schedstat).
fn cpu_ns(pid: libc::pid_t) -> Result<u64> {
    let path = format!("/proc/{pid}/schedstat");
    let text = std::fs::read_to_string(&path).with_context(|| format!("read {path}"))?;
    text.split_whitespace()
        .next()
        .and_then(|f| f.parse().ok())
        .with_context(|| format!("no CPU time in {path}: {text:?}"))
}

#[cfg(test)]
mod tests {
    use super::super::super::micro::testing::forking;
    use super::*;

    #[test]
    fn a_character_goes_down_each_chain_and_comes_back() {
        let _g = forking();
        for hops in [0, 1, 3] {
            let mut chain = Chain::new(hops).unwrap();
            assert_eq!(chain.relays.len(), hops);
            chain.before_sample(30).unwrap();
            chain.run(30).unwrap();
            chain.finish().unwrap();
            assert_eq!(chain.typed, 30);
            let note = chain.notes().join(" ");
            assert!(note.contains(&format!("and {hops} relays")), "{note}");
        }
    }

    #[test]
    fn a_broken_chain_fails_the_row() {
        let _g = forking();
        let mut chain = Chain::new(2).unwrap();
        chain.run(3).unwrap();
        let relay = chain.relays.remove(1);
        drop(relay); // killed and reaped: the chain is cut
        let err = chain.run(1).unwrap_err();
        assert!(format!("{err:#}").contains("echo"), "{err:#}");
    }

    #[test]
    fn a_wrong_echo_is_caught() {
        let _g = forking();
        let mut chain = Chain::new(0).unwrap();
        // A stray byte ahead of the echo: the typed character comes back second.
        let master = chain.end.as_raw_fd();
        // SAFETY: writing one byte to the master, which the echoing program sends back.
        unsafe { libc::write(master, b"#".as_ptr().cast(), 1) };
        std::thread::sleep(std::time::Duration::from_millis(50));
        let err = chain.run(1).unwrap_err();
        assert!(format!("{err:#}").contains("echoed '#'"), "{err:#}");
    }

    #[test]
    fn the_chain_goes_with_the_workload() {
        let _g = forking();
        let chain = Chain::new(2).unwrap();
        let pids: Vec<_> = chain.pids().collect();
        drop(chain);
        for pid in pids {
            // SAFETY: signal 0 only asks whether the process exists.
            assert_ne!(unsafe { libc::kill(pid, 0) }, 0, "{pid} outlived its row");
        }
    }
}
