//! Throughput by message size over TCP, UDP and UNIX stream sockets, to a child that
//! receives and counts (seed 001 §3.2.7: "large degradations for some arbitrary sizes";
//! 1024 bytes was the best size then).
//!
//! # Timing model
//! `prepare` sweeps the message sizes ([`sizes`]): powers of two from 1 B to 1 MiB and odd
//! sizes between them (the middle of each octave plus one, and 1023 and 1025 around the
//! paper's 1024); quick mode samples every other octave. For each size the parent tells
//! the child (over a pipe) what is coming, writes a fixed budget of messages, and waits
//! for the child's acknowledgement with the bytes it received and its own CPU time (a
//! stream is read 64 KiB at a time, or a message at a time from 64 KiB up): the
//! time runs from the first write to the acknowledgement, so the receiver's work is
//! inside it. Each size is repeated ([`repeats`]) and the fastest kept. Over TCP the
//! sizes up to 1 KiB are measured with TCP_NODELAY on and again with it off (Nagle's
//! algorithm, which holds small segments back while one is unacknowledged).
//!
//! UDP: the child counts the datagrams and bytes that arrive until the parent says (over
//! the pipe) that it has sent the last; it then drains what is still queued. Datagrams
//! the receiver's buffer could not hold are lost: they are counted as lost and left out
//! of the bytes delivered, and the throughput is of the bytes delivered.
//!
//! CPU per byte: the sender's thread CPU clock and the receiver's process CPU clock
//! around each size, and the softirq ticks in /proc/stat on the CPUs the two use (all
//! CPUs when unpinned) over the same interval. This kernel runs most loopback protocol
//! work as softirq in the context of the process that sent the packet, and charges it to
//! that process unless it accounts interrupt time apart (CONFIG_IRQ_TIME_ACCOUNTING): the
//! row records which, in words, in its details.
//!
//! The headline is then sampled by the harness: one operation is
//! [`Carrier::headline_op_bytes`] sent in messages of the headline size and acknowledged. For UDP it is the bytes
//! delivered per second of each sample (its own figures), never the bytes sent.

use std::os::fd::{AsRawFd, OwnedFd};
use std::time::Instant;

use anyhow::{bail, Context, Result};

use super::cpustat::{self, SoftirqTicks};
use super::socket::{self, Family, Scope, UDP_MAX_PAYLOAD};
use crate::bench::pagebuf::PageBuf;
use crate::harness::children::{self, io_error, read_exact_raw, write_all_raw, Pair, Partner};
use crate::harness::contract::{Ctx, OwnFigures, Workload};
use crate::harness::{interrupt, interrupt::Interrupted};
use crate::model::details::net::{NetSweep, SizePoint, SkippedSize};
use crate::model::{Details, Mode, OpTimes};

/// The largest message: 1 MiB.
pub const LARGEST: usize = 1 << 20;
/// Bytes per headline operation over a UNIX stream socket: 4 MiB, so the
/// acknowledgement's round trip is about 1% of it (its buffers hold a few hundred KiB).
const HEADLINE_OP_BYTES: usize = 4 << 20;
/// Bytes per headline operation over TCP: 64 MiB, sixteen times what the two ends' buffers
/// hold (1 MiB each, doubled by the kernel: 4 MiB), so that the operation is a stream in
/// its steady state — the writer blocked on full buffers and woken as the reader drains —
/// as bw_tcp's is. An operation that fits in the buffers is a burst instead: the writer
/// fills both without once waiting, the reader then empties them, and the pair switches
/// a few times an operation; with 32 MiB operations the row still read 0.93× bw_tcp's time
/// a byte (interval 0.83–0.98, 13 pairs), an eighth of each operation being such a burst.
/// Pinned to one CPU, a C sender and reader doing this row's
/// operation with 1 MiB buffers moved 3.3–4.1 GB/s with 4 MiB operations, 2.8–3.4 with 16
/// MiB, 2.7–2.9 with 64 MiB and 2.2–3.0 as an endless stream, where bw_tcp moved 2.1–3.1
/// (docs/crosscheck.md, "net.tcp.bw and bw_tcp").
const TCP_HEADLINE_OP_BYTES: usize = 64 << 20;
/// UDP's headline operation: 64 datagrams of 8 KiB.
pub const UDP_HEADLINE_DATAGRAMS: usize = 64;
pub const UDP_HEADLINE_BYTES: usize = 8 << 10;
/// Sizes up to this are also measured over TCP with TCP_NODELAY off.
pub const NAGLE_UP_TO: usize = 1024;
/// The TCP sockets' send and receive buffers (SO_SNDBUF, SO_RCVBUF; the kernel doubles
/// them): 1 MiB, what bw_tcp asks for on both ends (`strace` of `bw_tcp -s` and its
/// client: SO_SNDBUF 1048576 on the writer, SO_RCVBUF and SO_SNDBUF 1048576 on the
/// reader), and what the crosscheck asks iperf3 for (`-w 1M`). Left to the kernel, the
/// receive buffer is tuned by the connection's own history up to `tcp_rmem`'s maximum
/// (32 MiB here): iperf3 with the kernel's buffers, pinned to one CPU beside `-w 1M`,
/// alternately (under load), moved 2,439, 986 and 2,678 MB/s against 2,572, 2,643 and
/// 3,141, and 440, 485 and 2,080 against 2,514, 3,225 and 2,171 in a second series:
/// slower, and three times as spread (docs/crosscheck.md).
pub const TCP_SOCKET_BUFFER: usize = 1 << 20;
/// TCP_NODELAY for the headline's 64 KiB writes: off, Nagle's algorithm on, as bw_tcp and
/// iperf3 leave it. A 64 KiB write is one full loopback segment (65,483 bytes) and a
/// 53-byte tail; with TCP_NODELAY the tail goes out as a segment of its own, without it
/// it waits for the next write: iperf3 `-w 1M` sent 1.43 and 1.46 segments (ACKs
/// included, `nstat` TcpOutSegs) per 64 KiB written, with `-N` 1.93 and 1.99.
pub const HEADLINE_NODELAY: bool = false;

/// What carries the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Carrier {
    Tcp(Family),
    Udp(Family),
    UnixStream,
}

impl Carrier {
    pub fn name(self) -> &'static str {
        match self {
            Carrier::Tcp(Family::V4) => "tcp over 127.0.0.1",
            Carrier::Tcp(Family::V6) => "tcp over ::1",
            Carrier::Udp(Family::V4) => "udp over 127.0.0.1",
            Carrier::Udp(Family::V6) => "udp over ::1",
            Carrier::UnixStream => "unix stream socket",
        }
    }

    fn is_datagram(self) -> bool {
        matches!(self, Carrier::Udp(_))
    }

    /// Bytes per headline operation of a stream: 64 MiB over TCP, sixteen times both ends'
    /// buffers, so it is a stream and not a burst; 4 MiB over a UNIX socket (see the
    /// constants in this module for the measurements behind each).
    pub fn headline_op_bytes(self) -> usize {
        match self {
            Carrier::Tcp(_) => TCP_HEADLINE_OP_BYTES,
            _ => HEADLINE_OP_BYTES,
        }
    }

    /// The headline's message size.
    pub fn headline_bytes(self) -> usize {
        if self.is_datagram() {
            UDP_HEADLINE_BYTES
        } else {
            64 << 10
        }
    }

    /// The connected pair (sending end, receiving end).
    fn pair(self) -> Result<(OwnedFd, OwnedFd)> {
        match self {
            Carrier::Tcp(f) => {
                let (a, b) = socket::tcp_pair(f, HEADLINE_NODELAY)?;
                for end in [&a, &b] {
                    socket::set_buffers(end, TCP_SOCKET_BUFFER)?;
                }
                Ok((a, b))
            }
            Carrier::Udp(f) => socket::udp_pair(f),
            Carrier::UnixStream => {
                let (a, b) = std::os::unix::net::UnixStream::pair().context("socketpair")?;
                Ok((a.into(), b.into()))
            }
        }
    }
}

/// The message sizes of a sweep in `mode`, smallest first, and the sentence that says
/// which they are. Full: every power of two from 1 B to 1 MiB, the middle of each octave
/// plus one (7, 13, 25 … 786,433: odd, between two powers) and 1023 and 1025. Quick: the
/// powers of four, the odd middles of every third octave, and 1023 and 1025.
pub fn sizes(mode: Mode) -> (Vec<usize>, String) {
    let every = |k: u32| match mode {
        Mode::Full => true,
        Mode::Quick => k.is_multiple_of(3),
    };
    let mut v: Vec<usize> = (0..=20u32)
        .filter(|k| mode == Mode::Full || k % 2 == 0)
        .map(|k| 1usize << k)
        .collect();
    v.extend(
        (2..20u32)
            .filter(|&k| every(k))
            .map(|k| (1 << k) + (1 << (k - 1)) + 1),
    );
    v.extend([1023, 1025]);
    v.sort_unstable();
    v.dedup();
    let (all, _) = if mode == Mode::Quick {
        sizes(Mode::Full)
    } else {
        (Vec::new(), String::new())
    };
    let words = match mode {
        Mode::Full => format!(
            "full mode: {} sizes, every power of two from 1 B to 1 MiB, the odd middle of \
             each octave and 1023/1025",
            v.len()
        ),
        Mode::Quick => format!(
            "quick mode: {} of the full sweep's {} sizes (powers of four, the odd middles of \
             every third octave, 1023/1025)",
            v.len(),
            all.len()
        ),
    };
    (v, words)
}

/// Repeats per size: the fastest is kept.
pub fn repeats(mode: Mode) -> usize {
    match mode {
        Mode::Quick => 1,
        Mode::Full => 3,
    }
}

/// Messages per size: enough bytes to outlast the clock, enough writes to outlast the
/// start-up, capped so that one-byte messages do not take seconds.
fn messages(mode: Mode, size: usize) -> u64 {
    let (budget, least, most) = match mode {
        Mode::Quick => (4 << 20, 16, 2_000),
        Mode::Full => (64 << 20, 64, 50_000),
    };
    ((budget / size) as u64).clamp(least, most)
}

// The pipe protocol with the child: a command of three u64 (what, bytes, message size),
// answered by an acknowledgement of three u64 (bytes, datagrams, CPU ns).
const QUIT: u64 = 0;
const STREAM: u64 = 1;
const DATAGRAMS: u64 = 2;
const LAST_SENT: u64 = 3;

/// The receiving child's end of things.
struct SinkEnds {
    data: i32,
    commands: i32,
    acks: i32,
    /// Tests only: read no datagram before the last is sent, so the buffer overflows.
    stall: bool,
}

/// The receiving child: obey commands until QUIT or end of input; for each, count what
/// arrives and acknowledge with the count and the CPU time it spent.
fn sink_child(ends: SinkEnds, mut page_buf: PageBuf) -> i32 {
    let buf = page_buf.bytes_mut();
    loop {
        let mut cmd = [0u8; 24];
        match read_exact_raw(&Raw(ends.commands), &mut cmd) {
            Ok(()) => {}
            Err(0) => return 0,
            Err(_) => return 4,
        }
        let word = |i: usize| u64::from_ne_bytes(cmd[i * 8..i * 8 + 8].try_into().expect("8"));
        let (what, bytes, size) = (word(0), word(1), word(2) as usize);
        let cpu0 = process_cpu_ns();
        let counted = match what {
            QUIT => return 0,
            STREAM => receive_stream(ends.data, &mut buf[..read_size(size)], bytes),
            DATAGRAMS => receive_datagrams(&ends, buf),
            _ => return 6,
        };
        let Some((bytes, datagrams)) = counted else {
            return 5;
        };
        let mut ack = [0u8; 24];
        ack[..8].copy_from_slice(&bytes.to_ne_bytes());
        ack[8..16].copy_from_slice(&datagrams.to_ne_bytes());
        ack[16..].copy_from_slice(&(process_cpu_ns() - cpu0).to_ne_bytes());
        if write_all_raw(&Raw(ends.acks), &ack).is_err() {
            return 7;
        }
    }
}

/// The stream receiver's read size: the message size from 64 KiB up, as bw_tcp's and
/// bw_unix's readers read; below it, 64 KiB, whatever is queued, as a buffered reader
/// would (a read per one-byte message would time the reader's system calls, not the
/// transport). A read larger than the caches is slower by itself: 1 MiB reads into one
/// buffer ran at a half to two thirds of 64 KiB reads here.
fn read_size(size: usize) -> usize {
    size.clamp(64 << 10, LARGEST)
}

/// Read exactly `want` bytes of a stream.
fn receive_stream(fd: i32, buf: &mut [u8], want: u64) -> Option<(u64, u64)> {
    let mut got = 0u64;
    while got < want {
        let room = buf.len().min((want - got) as usize);
        match children::read_some_raw(&Raw(fd), &mut buf[..room]) {
            Ok(0) | Err(_) => return None,
            Ok(n) => got += n as u64,
        }
    }
    Some((got, 0))
}

/// Count datagrams until the parent says the last was sent, then drain what is queued.
fn receive_datagrams(ends: &SinkEnds, buf: &mut [u8]) -> Option<(u64, u64)> {
    let (mut bytes, mut count) = (0u64, 0u64);
    let mut fds = [
        libc::pollfd {
            fd: ends.data,
            events: libc::POLLIN,
            revents: 0,
        },
        libc::pollfd {
            fd: ends.commands,
            events: libc::POLLIN,
            revents: 0,
        },
    ];
    loop {
        let watched = if ends.stall {
            &mut fds[1..]
        } else {
            &mut fds[..]
        };
        // SAFETY: polling descriptors we hold, from a live array.
        let r = unsafe { libc::poll(watched.as_mut_ptr(), watched.len() as libc::nfds_t, -1) };
        if r < 0 {
            if children::errno() == libc::EINTR {
                continue;
            }
            return None;
        }
        if !ends.stall && fds[0].revents & libc::POLLIN != 0 {
            let (b, c) = drain(ends.data, buf)?;
            bytes += b;
            count += c;
        }
        if fds[1].revents & libc::POLLIN != 0 {
            let mut cmd = [0u8; 24];
            read_exact_raw(&Raw(ends.commands), &mut cmd).ok()?;
            if u64::from_ne_bytes(cmd[..8].try_into().expect("8")) != LAST_SENT {
                return None;
            }
            let (b, c) = drain(ends.data, buf)?;
            return Some((bytes + b, count + c));
        }
    }
}

/// Every datagram queued now, without waiting.
fn drain(fd: i32, buf: &mut [u8]) -> Option<(u64, u64)> {
    let (mut bytes, mut count) = (0u64, 0u64);
    loop {
        // SAFETY: receiving into a live buffer.
        let r = unsafe { libc::recv(fd, buf.as_mut_ptr().cast(), buf.len(), libc::MSG_DONTWAIT) };
        if r < 0 {
            let e = children::errno();
            if e == libc::EAGAIN || e == libc::EWOULDBLOCK {
                return Some((bytes, count));
            }
            if e == libc::EINTR {
                continue;
            }
            return None;
        }
        bytes += r as u64;
        count += 1;
    }
}

fn process_cpu_ns() -> u64 {
    cpu_ns(libc::CLOCK_PROCESS_CPUTIME_ID)
}

fn thread_cpu_ns() -> u64 {
    cpu_ns(libc::CLOCK_THREAD_CPUTIME_ID)
}

fn cpu_ns(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime fills a live timespec (async-signal-safe).
    unsafe { libc::clock_gettime(clock, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// A borrowed raw descriptor for the async-signal-safe helpers.
struct Raw(i32);
impl AsRawFd for Raw {
    fn as_raw_fd(&self) -> i32 {
        self.0
    }
}

/// One transfer's counts.
struct Transferred {
    bytes: u64,
    datagrams: u64,
    receiver_cpu_ns: u64,
}

/// The parent's side: the sending socket, the pipes to the child, and the sweep's record.
pub struct Sweep {
    carrier: Carrier,
    partner: Partner,
    data: OwnedFd,
    commands: OwnedFd,
    acks: OwnedFd,
    buf: PageBuf,
    cpus: Option<Vec<usize>>,
    details: Option<NetSweep>,
    /// Which sizes the sweep measured, in words (for the notes, read after the details).
    sampled: String,
    /// UDP: bytes delivered per second of each headline sample.
    delivered: Vec<f64>,
    elapsed: Vec<f64>,
    datagrams_lost: u64,
}

/// Prepare a sweep row: start the receiving child, sweep, and leave the headline ready.
pub fn prepare(ctx: &Ctx, carrier: Carrier) -> Result<Box<dyn Workload>> {
    let mut sweep = Sweep::start(ctx, carrier, false)?;
    sweep.sweep(ctx.mode)?;
    Ok(Box::new(sweep))
}

impl Sweep {
    fn start(ctx: &Ctx, carrier: Carrier, stall: bool) -> Result<Sweep> {
        let pair = Pair::resolve(ctx.options.placement, &ctx.host.usable_cpus)?;
        let cpus = match (pair.parent_cpu, pair.child_cpu) {
            (Some(p), Some(c)) if p == c => Some(vec![p]),
            (Some(p), Some(c)) => Some(vec![p, c]),
            _ => None,
        };
        let (data, receiving) = carrier.pair()?;
        let addresses: Vec<String> = [&data, &receiving]
            .into_iter()
            .map(|fd| socket::checked(fd, Scope::Loopback))
            .collect::<Result<Vec<_>>>()?
            .into_iter()
            .flatten()
            .collect();
        let (cmd_rx, cmd_tx) = children::pipe()?;
        let (ack_rx, ack_tx) = children::pipe()?;
        let ends = SinkEnds {
            data: receiving.as_raw_fd(),
            commands: cmd_rx.as_raw_fd(),
            acks: ack_tx.as_raw_fd(),
            stall,
        };
        let (parent_data, parent_cmd) = (data.as_raw_fd(), cmd_tx.as_raw_fd());
        let child_buf = PageBuf::new(LARGEST, 0);
        let partner = Partner::start(pair, move || {
            // SAFETY: the child closes the parent's ends, so that it sees end of input.
            unsafe {
                libc::close(parent_data);
                libc::close(parent_cmd);
            }
            sink_child(ends, child_buf)
        })?;
        drop((receiving, cmd_rx, ack_tx));
        let record = partner.pair.record();
        Ok(Sweep {
            carrier,
            partner,
            data,
            commands: cmd_tx,
            acks: ack_rx,
            buf: PageBuf::new(LARGEST, 0x5a),
            cpus,
            details: Some(NetSweep {
                partner: record,
                transport: carrier.name().to_string(),
                sampled: String::new(),
                repeats: 0,
                points: Vec::new(),
                skipped: Vec::new(),
                headline_bytes: carrier.headline_bytes(),
                cpu_attribution: cpustat::attribution(),
                addresses,
            }),
            sampled: String::new(),
            delivered: Vec::new(),
            elapsed: Vec::new(),
            datagrams_lost: 0,
        })
    }

    /// Measure every size of `mode`'s sweep into the details.
    fn sweep(&mut self, mode: Mode) -> Result<()> {
        let (sizes, sampled) = sizes(mode);
        let repeats = repeats(mode);
        let mut points = Vec::new();
        let mut skipped = Vec::new();
        let nagle: &[bool] = match self.carrier {
            Carrier::Tcp(_) => &[true, false],
            _ => &[true],
        };
        for &nodelay in nagle {
            for &size in &sizes {
                if interrupt::requested() {
                    return Err(Interrupted.into());
                }
                if !nodelay && size > NAGLE_UP_TO {
                    continue;
                }
                if self.carrier.is_datagram() && size > UDP_MAX_PAYLOAD {
                    skipped.push(SkippedSize {
                        message_bytes: size,
                        why: format!("a UDP datagram holds at most {UDP_MAX_PAYLOAD} bytes"),
                    });
                    continue;
                }
                if let Carrier::Tcp(_) = self.carrier {
                    socket::set_nodelay(&self.data, nodelay)?;
                }
                let best = (0..repeats)
                    .map(|_| self.measure(size, messages(mode, size)))
                    .collect::<Result<Vec<_>>>()?
                    .into_iter()
                    .max_by(|a, b| a.bytes_per_second.total_cmp(&b.bytes_per_second))
                    .expect("at least one repeat");
                points.push(SizePoint {
                    nodelay: matches!(self.carrier, Carrier::Tcp(_)).then_some(nodelay),
                    ..best
                });
            }
        }
        if let Carrier::Tcp(_) = self.carrier {
            socket::set_nodelay(&self.data, HEADLINE_NODELAY)?;
        }
        self.sampled = sampled.clone();
        let d = self.details.as_mut().expect("details until taken");
        d.sampled = sampled;
        d.repeats = repeats;
        d.points = points;
        d.skipped = skipped;
        Ok(())
    }

    /// Send `count` messages of `size` bytes and wait for the child's acknowledgement.
    fn measure(&mut self, size: usize, count: u64) -> Result<SizePoint> {
        let ticks0 = cpustat::read_softirq();
        let cpu0 = thread_cpu_ns();
        let t0 = Instant::now();
        let got = self.transfer(size, count)?;
        let seconds = t0.elapsed().as_secs_f64();
        let sender_ns = thread_cpu_ns().saturating_sub(cpu0);
        let softirq = SoftirqTicks::between(ticks0, cpustat::read_softirq(), self.cpus.as_deref());
        let sent = size as u64 * count;
        let per_byte = |ns: f64| ns / got.bytes.max(1) as f64;
        Ok(SizePoint {
            message_bytes: size,
            nodelay: None,
            messages_sent: count,
            bytes_sent: sent,
            bytes_delivered: got.bytes,
            datagrams_lost: self
                .carrier
                .is_datagram()
                .then(|| count.saturating_sub(got.datagrams)),
            seconds,
            bytes_per_second: got.bytes as f64 / seconds.max(1e-9),
            sender_ns_per_byte: per_byte(sender_ns as f64),
            receiver_ns_per_byte: per_byte(got.receiver_cpu_ns as f64),
            softirq_ns_per_byte: softirq.map(per_byte),
        })
    }

    fn command(&mut self, what: u64, bytes: u64, size: usize) -> Result<()> {
        let mut cmd = [0u8; 24];
        cmd[..8].copy_from_slice(&what.to_ne_bytes());
        cmd[8..16].copy_from_slice(&bytes.to_ne_bytes());
        cmd[16..].copy_from_slice(&(size as u64).to_ne_bytes());
        write_all_raw(&self.commands, &cmd).map_err(|e| {
            self.partner
                .explain(io_error("command to the receiving child", e))
        })
    }

    /// One transfer: the command, the messages, the acknowledgement. A stream must arrive
    /// whole; datagrams may be lost and are counted.
    fn transfer(&mut self, size: usize, count: u64) -> Result<Transferred> {
        let datagrams = self.carrier.is_datagram();
        let sent = size as u64 * count;
        self.command(if datagrams { DATAGRAMS } else { STREAM }, sent, size)?;
        for _ in 0..count {
            if let Err(e) = write_all_raw(&self.data, &self.buf.bytes_mut()[..size]) {
                return Err(self
                    .partner
                    .explain(io_error("send to the receiving child", e)));
            }
        }
        if datagrams {
            self.command(LAST_SENT, 0, size)?;
        }
        let mut ack = [0u8; 24];
        if let Err(e) = read_exact_raw(&self.acks, &mut ack) {
            return Err(self
                .partner
                .explain(io_error("the receiving child's acknowledgement", e)));
        }
        let word = |i: usize| u64::from_ne_bytes(ack[i * 8..i * 8 + 8].try_into().expect("8"));
        let got = Transferred {
            bytes: word(0),
            datagrams: word(1),
            receiver_cpu_ns: word(2),
        };
        if !datagrams && got.bytes != sent {
            bail!("the child received {} bytes of {sent}", got.bytes);
        }
        if got.bytes > sent || got.datagrams > count {
            bail!(
                "the child counted {} datagrams, {} bytes, of {count} and {sent} sent",
                got.datagrams,
                got.bytes
            );
        }
        self.partner.ops += 1;
        Ok(got)
    }
}

impl Workload for Sweep {
    fn run(&mut self, n: u64) -> Result<()> {
        let size = self.carrier.headline_bytes();
        for _ in 0..n {
            if self.carrier.is_datagram() {
                let t0 = Instant::now();
                let got = self.transfer(size, UDP_HEADLINE_DATAGRAMS as u64)?;
                let s = t0.elapsed().as_secs_f64();
                self.delivered.push(got.bytes as f64 / s.max(1e-9));
                self.elapsed.push(s);
                self.datagrams_lost += UDP_HEADLINE_DATAGRAMS as u64 - got.datagrams;
            } else {
                let count = self.carrier.headline_op_bytes() / size;
                self.transfer(size, count as u64)?;
            }
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<()> {
        self.command(QUIT, 0, 0)?;
        self.partner.wait_for_end("receiving child")
    }

    fn notes(&self) -> Vec<String> {
        let mut notes = self.partner.notes();
        if !self.sampled.is_empty() {
            notes.push(format!("size sweep, {}", self.sampled));
        }
        if let Carrier::Tcp(_) = self.carrier {
            notes.push(format!(
                "socket buffers fixed at {} KiB each way, as bw_tcp fixes them (the kernel \
                 reports {} KiB); the headline's writes with TCP_NODELAY {}, as bw_tcp and \
                 iperf3 leave it",
                TCP_SOCKET_BUFFER >> 10,
                socket::buffers(&self.data).map_or(0, |(_, send)| send >> 10),
                if HEADLINE_NODELAY { "on" } else { "off" }
            ));
        }
        if self.carrier.is_datagram() {
            notes.push(format!(
                "{} of the headline's datagrams were lost and are not counted",
                self.datagrams_lost
            ));
        }
        notes
    }

    fn details(&mut self) -> Option<Details> {
        let mut d = self.details.take()?;
        d.partner = self.partner.finish_record();
        Some(Details::of(&d))
    }

    /// UDP only: the bytes that arrived per second of each sample, not the bytes sent.
    fn own_figures(&mut self) -> Option<OwnFigures> {
        if !self.carrier.is_datagram() || self.delivered.is_empty() {
            return None;
        }
        let ops = self.delivered.len() as u64;
        let elapsed_s = self.elapsed.iter().sum::<f64>() / ops as f64;
        Some(OwnFigures {
            values: self.delivered.clone(),
            times: OpTimes {
                ops,
                elapsed_s,
                user_s: 0.0,
                system_s: 0.0,
            },
            note: format!(
                "bytes delivered per second: each sample is {UDP_HEADLINE_DATAGRAMS} datagrams \
                 of {} bytes sent, and only what the receiver counted is in the figure",
                UDP_HEADLINE_BYTES
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::micro::testing::{forking, with_ctx};
    use crate::model::Placement;

    #[test]
    fn the_sweep_has_powers_of_two_and_odd_sizes_between_and_quick_has_fewer() {
        let (full, words) = sizes(Mode::Full);
        for k in 0..=20 {
            assert!(full.contains(&(1 << k)), "2^{k}");
        }
        let odd: Vec<usize> = full
            .iter()
            .copied()
            .filter(|s| s % 2 == 1 && *s > 1)
            .collect();
        assert!(odd.len() >= 18, "{odd:?}");
        assert!(odd.contains(&1023) && odd.contains(&1025) && odd.contains(&1537));
        assert!(full.windows(2).all(|w| w[0] < w[1]));
        assert!(words.contains("full mode"));
        let (quick, words) = sizes(Mode::Quick);
        assert!(quick.len() < full.len() / 2 + 2, "{}", quick.len());
        assert!(quick.iter().all(|s| full.contains(s)));
        assert!(quick.contains(&1) && quick.contains(&LARGEST) && quick.contains(&1025));
        assert!(words.contains(&format!(
            "{} of the full sweep's {}",
            quick.len(),
            full.len()
        )));
    }

    /// A TCP headline operation is a stream, not a burst: it outlasts what both ends'
    /// buffers can hold several times over, whatever the kernel made of the request.
    #[test]
    fn a_tcp_operation_outlasts_both_buffers_sixteen_times() {
        let (a, b) = Carrier::Tcp(Family::V4).pair().unwrap();
        let held: usize = [&a, &b]
            .iter()
            .map(|end| {
                let (recv, send) = socket::buffers(end).unwrap();
                recv + send
            })
            .sum::<usize>()
            / 2;
        let op = Carrier::Tcp(Family::V4).headline_op_bytes();
        assert!(op >= 16 * held, "{op} bytes an operation, {held} held");
        assert_eq!(op % Carrier::Tcp(Family::V4).headline_bytes(), 0);
    }

    /// The TCP pair's buffers are bw_tcp's (the kernel doubles what it is asked for,
    /// within net.core.{r,w}mem_max), on both ends.
    #[test]
    fn the_tcp_sockets_have_bw_tcp_s_buffers() {
        let (a, b) = Carrier::Tcp(Family::V4).pair().unwrap();
        let max = |f: &str| -> usize {
            std::fs::read_to_string(format!("/proc/sys/net/core/{f}"))
                .map_or(usize::MAX, |s| s.trim().parse().unwrap())
        };
        let (rmax, wmax) = (max("rmem_max"), max("wmem_max"));
        for end in [&a, &b] {
            let (recv, send) = socket::buffers(end).unwrap();
            assert_eq!(recv, 2 * TCP_SOCKET_BUFFER.min(rmax));
            assert_eq!(send, 2 * TCP_SOCKET_BUFFER.min(wmax));
        }
        assert_eq!(TCP_SOCKET_BUFFER, 1 << 20);
    }

    #[test]
    fn every_stream_byte_arrives_and_the_cpu_is_attributed() {
        let _one_at_a_time = forking();
        with_ctx(Placement::Free, |ctx| {
            for carrier in [Carrier::Tcp(Family::V4), Carrier::UnixStream] {
                let mut s = Sweep::start(ctx, carrier, false).unwrap();
                let p = s.measure(1025, 100).unwrap();
                assert_eq!(p.bytes_delivered, 102_500, "{carrier:?}");
                assert!(p.receiver_ns_per_byte > 0.0 && p.sender_ns_per_byte > 0.0);
                s.run(2).unwrap();
                s.finish().unwrap();
                let d: NetSweep = s.details().unwrap().read().unwrap();
                assert!(
                    d.cpu_attribution.contains("softirq"),
                    "{}",
                    d.cpu_attribution
                );
                if carrier == Carrier::UnixStream {
                    assert!(d.addresses.is_empty());
                } else {
                    assert!(d.addresses.iter().all(|a| a.starts_with("127.0.0.1:")));
                }
            }
        });
    }

    /// A receiver that reads nothing until the last datagram is sent: most datagrams are
    /// dropped, and the row must say so and
    /// count only what arrived.
    #[test]
    fn a_udp_row_under_loss_reports_it_and_counts_only_what_arrived() {
        let _one_at_a_time = forking();
        with_ctx(Placement::Free, |ctx| {
            let mut s = Sweep::start(ctx, Carrier::Udp(Family::V4), true).unwrap();
            // The receive buffer (about 200 KiB by default) holds a few dozen of these.
            let count = 2_000u64;
            let p = s.measure(8192, count).unwrap();
            let lost = p.datagrams_lost.unwrap();
            assert!(lost > 0, "nothing lost: {p:?}");
            assert_eq!(p.bytes_sent, 8192 * count);
            assert_eq!(p.bytes_delivered, (count - lost) * 8192);
            assert!(p.loss() > 0.0);
            let delivered_rate = p.bytes_delivered as f64 / p.seconds;
            assert!((p.bytes_per_second - delivered_rate).abs() < 1e-6 * delivered_rate);
            // The headline's own figures are of delivered bytes too.
            s.run(3).unwrap();
            let own = s.own_figures().unwrap();
            assert_eq!(own.values.len(), 3);
            let sent_rate: Vec<f64> = s
                .elapsed
                .iter()
                .map(|e| (UDP_HEADLINE_DATAGRAMS * UDP_HEADLINE_BYTES) as f64 / e)
                .collect();
            assert!(s.datagrams_lost > 0);
            assert!(own.values.iter().zip(&sent_rate).any(|(d, s)| d < s));
            assert!(s
                .notes()
                .iter()
                .any(|n| n.contains("were lost and are not counted")));
            s.finish().unwrap();
        });
    }
}
