//! Message passing by the three patterns of seed 001's Table 1, over pipes (`pipeself`,
//! `pipediscard`, `pipeback`) and UNIX-domain datagram sockets (`udgself`, `udgdiscard`,
//! `udgback`, from the seed's `run` script), and the `net` rows' round trips over TCP and
//! UDP on the loopback interface.
//!
//! # Timing model
//! - self: one operation = write one message, then read it back, in one process.
//! - discard: one operation = write one message to a child that reads and discards it.
//!   The kernel buffers up to a pipe's capacity, so the parent runs ahead of the child by
//!   at most that much; over a batch of thousands the child's reading is inside the time
//!   (the parent blocks when the buffer is full), as in the seed.
//! - back: one operation = a request/response round trip with a child: write a message,
//!   the child reads it and writes it back, read the answer. One channel each way, as a
//!   pipe must; `ustream.back.4` instead uses one stream socket pair in both directions,
//!   as lmbench's lat_unix does ([`Wiring`]).
//!
//! Checks: every read returns the whole message; in `back`, each message carries a
//! sequence number (its low bytes, for messages shorter than four) that must come back
//! unchanged; in `discard`, the child counts the
//! bytes it read and the count is compared with what the parent wrote when the row ends
//! (a mismatch fails the row). A child that dies fails the row with its exit status.

use std::hint::black_box;
use std::os::fd::{AsRawFd, OwnedFd};

use anyhow::{bail, Context, Result};

use super::net::socket::{self, Family, Scope};
use crate::harness::children::{self, io_error, read_exact_raw, write_all_raw, Pair, Partner};
use crate::harness::contract::{Ctx, Workload};
use crate::model::details::micro::{Discarded, RoundTrip};
use crate::model::Details;

/// The largest message of the seeds (`char buf[512]`).
pub const MAX_MESSAGE: usize = 512;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Pipe,
    /// AF_UNIX, SOCK_DGRAM: every write is one datagram, every read one datagram.
    UnixDatagram,
    /// AF_UNIX, SOCK_STREAM: a byte stream, as a pipe (lmbench's lat_unix).
    UnixStream,
    /// A TCP connection over the loopback interface, TCP_NODELAY on (lmbench's lat_tcp).
    Tcp(Family),
    /// Two connected UDP sockets on the loopback interface (lmbench's lat_udp).
    Udp(Family),
    /// A TCP connection between two network namespaces joined by a veth pair, made by
    /// `net.veth.rtt` (never by [`Transport::channel`]).
    Veth,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    ToSelf,
    Discard,
    Back,
}

/// How a round trip's two directions are carried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wiring {
    /// A channel of its own each way (two pipes, two socket pairs).
    OnePerDirection,
    /// One socket pair, each process writing and reading its own end (lmbench's lat_unix).
    /// Not the same cost: a read frees the message and wakes whoever waits on the
    /// sender's socket — here the sender itself, asleep for its answer on that same
    /// socket — so a round trip pinned to one CPU takes about 2.6 context switches against
    /// 2.0 with a channel each way, and about a fifth longer.
    OneBothWays,
}

/// One direction of a channel: the end to write and the end to read.
pub struct Channel {
    pub tx: OwnedFd,
    pub rx: OwnedFd,
}

impl Transport {
    pub fn name(self) -> &'static str {
        match self {
            Transport::Pipe => "pipe",
            Transport::UnixDatagram => "unix datagram socket",
            Transport::UnixStream => "unix stream socket",
            Transport::Tcp(Family::V4) => "tcp over 127.0.0.1",
            Transport::Tcp(Family::V6) => "tcp over ::1",
            Transport::Udp(Family::V4) => "udp over 127.0.0.1",
            Transport::Udp(Family::V6) => "udp over ::1",
            Transport::Veth => "tcp over a veth pair between two namespaces of its own",
        }
    }

    /// A new one-way channel (close-on-exec, closed on drop).
    pub fn channel(self) -> Result<Channel> {
        match self {
            Transport::Pipe => {
                let (rx, tx) = children::pipe()?;
                Ok(Channel { tx, rx })
            }
            Transport::UnixDatagram => {
                let (tx, rx) = std::os::unix::net::UnixDatagram::pair().context("socketpair")?;
                Ok(Channel {
                    tx: tx.into(),
                    rx: rx.into(),
                })
            }
            Transport::UnixStream => {
                let (tx, rx) = std::os::unix::net::UnixStream::pair().context("socketpair")?;
                Ok(Channel {
                    tx: tx.into(),
                    rx: rx.into(),
                })
            }
            Transport::Tcp(family) => {
                let (tx, rx) = socket::tcp_pair(family, true)?;
                Ok(Channel { tx, rx })
            }
            Transport::Udp(family) => {
                let (tx, rx) = socket::udp_pair(family)?;
                Ok(Channel { tx, rx })
            }
            Transport::Veth => bail!("a veth channel is made by its namespaces"),
        }
    }
}

/// Prepare `pattern` over `transport` with `size`-byte messages.
pub fn prepare(
    ctx: &Ctx,
    transport: Transport,
    pattern: Pattern,
    size: usize,
    fpu: bool,
) -> Result<Box<dyn Workload>> {
    assert!((4..=MAX_MESSAGE).contains(&size));
    Ok(match pattern {
        Pattern::ToSelf => Box::new(ToSelf {
            chan: transport.channel()?,
            buf: [0x5a; MAX_MESSAGE],
            size,
        }),
        Pattern::Discard => Box::new(Discard::start(ctx, transport, size)?),
        Pattern::Back => Box::new(Back::start(
            ctx,
            transport,
            Wiring::OnePerDirection,
            size,
            fpu,
        )?),
    })
}

/// `back` over one stream socket pair (or one TCP connection, one pair of connected UDP
/// sockets) used in both directions, as lmbench's lat_unix, lat_tcp and lat_udp wire it.
pub fn prepare_back_both_ways(
    ctx: &Ctx,
    transport: Transport,
    size: usize,
) -> Result<Box<dyn Workload>> {
    assert!((1..=MAX_MESSAGE).contains(&size));
    Ok(Box::new(Back::start(
        ctx,
        transport,
        Wiring::OneBothWays,
        size,
        false,
    )?))
}

/// `back` over a connection made elsewhere (`net.veth.rtt`'s, between its namespaces),
/// used both ways; its addresses are checked against `scope`.
pub fn prepare_back_over(
    ctx: &Ctx,
    transport: Transport,
    chan: Channel,
    size: usize,
    scope: Scope,
) -> Result<Box<dyn Workload>> {
    assert!((1..=MAX_MESSAGE).contains(&size));
    let ends = both_ways(chan)?;
    Ok(Box::new(Back::start_on(
        ctx,
        transport,
        Wiring::OneBothWays,
        ends,
        size,
        false,
        scope,
    )?))
}

/// The four ends of a round trip: the parent's to write and read, the child's to read
/// and write.
type Ends = (OwnedFd, OwnedFd, OwnedFd, OwnedFd);

/// One channel's two ends, each duplicated so both directions use it.
fn both_ways(both: Channel) -> Result<Ends> {
    let parent_rx = both.tx.try_clone().context("dup")?;
    let child_tx = both.rx.try_clone().context("dup")?;
    Ok((both.tx, parent_rx, both.rx, child_tx))
}

struct ToSelf {
    chan: Channel,
    buf: [u8; MAX_MESSAGE],
    size: usize,
}

impl Workload for ToSelf {
    fn run(&mut self, n: u64) -> Result<()> {
        for _ in 0..n {
            write_all_raw(&self.chan.tx, &self.buf[..self.size])
                .map_err(|e| io_error("write to self", e))?;
            read_message(&self.chan.rx, &mut self.buf[..self.size])
                .map_err(|e| io_error("read from self", e))?;
        }
        Ok(())
    }
}

/// Read one whole message. A datagram read must return the whole datagram at once; a
/// pipe read may be split, and is completed.
fn read_message(fd: &impl AsRawFd, buf: &mut [u8]) -> std::result::Result<(), i32> {
    read_exact_raw(fd, buf)
}

/// Parent writes; the child reads and discards, counting bytes, and on end of input
/// writes its count back and exits.
struct Discard {
    partner: Partner,
    tx: Option<OwnedFd>,
    counts: OwnedFd,
    buf: [u8; MAX_MESSAGE],
    size: usize,
    transport: Transport,
    child_read_bytes: Option<u64>,
}

impl Discard {
    fn start(ctx: &Ctx, transport: Transport, size: usize) -> Result<Discard> {
        let pair = Pair::resolve(ctx.options.placement, &ctx.host.usable_cpus)?;
        let data = transport.channel()?;
        let counts = children::pipe()?;
        let child_rx = data.rx.as_raw_fd();
        let count_tx = counts.1.as_raw_fd();
        let parent_tx = data.tx.as_raw_fd();
        let partner = Partner::start(pair, move || {
            // SAFETY: closing the parent's ends in the child so end of input is seen.
            unsafe { libc::close(parent_tx) };
            discard_child(child_rx, count_tx, size)
        })?;
        drop(counts.1);
        drop(data.rx);
        Ok(Discard {
            partner,
            tx: Some(data.tx),
            counts: counts.0,
            buf: [0x5a; MAX_MESSAGE],
            size,
            transport,
            child_read_bytes: None,
        })
    }
}

/// The discarding child: read messages until end of input (or, for datagrams, a
/// zero-length datagram), then report the byte count.
fn discard_child(rx: i32, count_tx: i32, size: usize) -> i32 {
    let mut buf = [0u8; MAX_MESSAGE];
    let mut total: u64 = 0;
    loop {
        match children::read_some_raw(&rx, &mut buf[..size]) {
            Err(_) => return 4,
            Ok(0) => break,
            Ok(n) => total += n as u64,
        }
    }
    let bytes = total.to_ne_bytes();
    // SAFETY: writing from a stack buffer.
    let w = unsafe { libc::write(count_tx, bytes.as_ptr().cast(), bytes.len()) };
    if w == bytes.len() as isize {
        0
    } else {
        5
    }
}

impl Workload for Discard {
    fn run(&mut self, n: u64) -> Result<()> {
        self.partner.child_mut().check_alive("discarding child")?;
        let tx = self.tx.as_ref().expect("open until details");
        for _ in 0..n {
            if let Err(e) = write_all_raw(tx, &self.buf[..self.size]) {
                let err = io_error("write to the discarding child", e);
                return Err(self.partner.explain(err));
            }
            self.partner.ops += 1;
        }
        black_box(&self.buf);
        Ok(())
    }

    /// The child's byte count must equal what was written, and it must exit cleanly.
    fn finish(&mut self) -> Result<()> {
        let bytes = self.check_count().map_err(|e| self.partner.explain(e))?;
        self.child_read_bytes = Some(bytes);
        self.partner.wait_for_end("discarding child")
    }

    fn notes(&self) -> Vec<String> {
        self.partner.notes()
    }

    fn details(&mut self) -> Option<Details> {
        Some(Details::of(&Discarded {
            partner: self.partner.finish_record(),
            message_bytes: self.size,
            transport: self.transport.name().to_string(),
            child_read_bytes: self.child_read_bytes,
        }))
    }
}

impl Discard {
    /// End the input and compare the child's byte count with what was written.
    fn check_count(&mut self) -> Result<u64> {
        match self.transport {
            Transport::Pipe | Transport::UnixStream | Transport::Tcp(_) | Transport::Veth => {
                drop(self.tx.take())
            }
            // A datagram socket has no end of file for its peer: an empty datagram says it.
            Transport::UnixDatagram | Transport::Udp(_) => {
                let tx = self.tx.take().expect("open");
                // SAFETY: a zero-length write.
                unsafe { libc::write(tx.as_raw_fd(), std::ptr::null(), 0) };
            }
        }
        let mut bytes = [0u8; 8];
        read_exact_raw(&self.counts, &mut bytes)
            .map_err(|e| io_error("reading the child's byte count", e))
            .context("the discarding child did not report")?;
        let got = u64::from_ne_bytes(bytes);
        let sent = self.partner.ops * self.size as u64;
        if got != sent {
            bail!("the child read {got} bytes of the {sent} written");
        }
        Ok(got)
    }
}

/// Request/response with a child over two channels (or one socket pair both ways).
struct Back {
    partner: Partner,
    to_child: OwnedFd,
    from_child: OwnedFd,
    buf: [u8; MAX_MESSAGE],
    size: usize,
    fpu: bool,
    registers: [f64; 8],
    transport: Transport,
    wiring: Wiring,
    addresses: Vec<String>,
}

impl Back {
    fn start(
        ctx: &Ctx,
        transport: Transport,
        wiring: Wiring,
        size: usize,
        fpu: bool,
    ) -> Result<Back> {
        let ends = match wiring {
            Wiring::OnePerDirection => {
                let down = transport.channel()?;
                let up = transport.channel()?;
                (down.tx, up.rx, down.rx, up.tx)
            }
            Wiring::OneBothWays => both_ways(transport.channel()?)?,
        };
        Back::start_on(ctx, transport, wiring, ends, size, fpu, Scope::Loopback)
    }

    fn start_on(
        ctx: &Ctx,
        transport: Transport,
        wiring: Wiring,
        (parent_tx, parent_rx, child_rx, child_tx): Ends,
        size: usize,
        fpu: bool,
        scope: Scope,
    ) -> Result<Back> {
        let pair = Pair::resolve(ctx.options.placement, &ctx.host.usable_cpus)?;
        let mut addresses = Vec::new();
        for fd in [&parent_tx, &parent_rx] {
            addresses.extend(socket::checked(fd, scope)?);
        }
        addresses.dedup();
        let (rx, tx) = (child_rx.as_raw_fd(), child_tx.as_raw_fd());
        let partner = Partner::start(pair, move || echo_child(rx, tx, size, fpu))?;
        drop(child_rx);
        drop(child_tx);
        Ok(Back {
            partner,
            to_child: parent_tx,
            from_child: parent_rx,
            buf: [0x5a; MAX_MESSAGE],
            size,
            fpu,
            registers: [1.0; 8],
            transport,
            wiring,
            addresses,
        })
    }
}

/// The echoing child: read a message, send it back, until end of input.
fn echo_child(rx: i32, tx: i32, size: usize, fpu: bool) -> i32 {
    let mut buf = [0u8; MAX_MESSAGE];
    let mut regs = [1.0f64; 8];
    let (rx, tx) = (RawFd(rx), RawFd(tx));
    loop {
        match read_exact_raw(&rx, &mut buf[..size]) {
            Ok(()) => {}
            Err(0) => return 0,
            Err(_) => return 4,
        }
        if fpu {
            touch_vector_registers(&mut regs);
        }
        if write_all_raw(&tx, &buf[..size]).is_err() {
            return 5;
        }
    }
}

/// A borrowed raw descriptor for the async-signal-safe helpers.
struct RawFd(i32);
impl AsRawFd for RawFd {
    fn as_raw_fd(&self) -> i32 {
        self.0
    }
}

/// Keep floating-point/vector registers live across the switch: eight lanes of doubles
/// updated between every message, so the kernel must save and restore real state (002's
/// floating-point context cost, moved today into every context switch).
#[inline(always)]
fn touch_vector_registers(regs: &mut [f64; 8]) {
    for r in regs.iter_mut() {
        *r = black_box(*r) * 1.000_000_1 + 0.5;
    }
    black_box(regs);
}

impl Workload for Back {
    fn run(&mut self, n: u64) -> Result<()> {
        let size = self.size;
        let stamp = size.min(4);
        for _ in 0..n {
            let seq = self.partner.ops as u32;
            self.buf[..stamp].copy_from_slice(&seq.to_le_bytes()[..stamp]);
            if self.fpu {
                touch_vector_registers(&mut self.registers);
            }
            if let Err(e) = write_all_raw(&self.to_child, &self.buf[..size]) {
                let err = io_error("write to the echoing child", e);
                return Err(self.partner.explain(err));
            }
            if let Err(e) = read_message(&self.from_child, &mut self.buf[..size]) {
                let err = io_error("read from the echoing child", e);
                return Err(self.partner.explain(err));
            }
            let mut echoed = [0u8; 4];
            echoed[..stamp].copy_from_slice(&self.buf[..stamp]);
            let echoed = u32::from_le_bytes(echoed);
            let sent = seq & (u32::MAX >> (8 * (4 - stamp)));
            if echoed != sent {
                bail!("message {seq} came back as {echoed}");
            }
            self.partner.ops += 1;
        }
        Ok(())
    }

    fn notes(&self) -> Vec<String> {
        self.partner.notes()
    }

    fn details(&mut self) -> Option<Details> {
        Some(Details::of(&RoundTrip {
            partner: self.partner.finish_record(),
            message_bytes: self.size,
            transport: match self.wiring {
                Wiring::OnePerDirection => self.transport.name().to_string(),
                Wiring::OneBothWays => format!("{}, one pair both ways", self.transport.name()),
            },
            vector_registers_live: self.fpu,
            addresses: self.addresses.clone(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    // That twice the messages take about twice the time is a timing claim, checked by
    // `timeshare selftest message.doubling`.
    use crate::bench::micro::testing::{forking, with_ctx};
    use crate::model::Placement;

    #[test]
    fn the_discarding_child_counts_every_byte() {
        let _one_at_a_time = forking();
        with_ctx(Placement::Free, |ctx| {
            for t in [Transport::Pipe, Transport::UnixDatagram] {
                let mut w = prepare(ctx, t, Pattern::Discard, 512, false).unwrap();
                w.run(1000).unwrap();
                w.finish().unwrap();
                let d: Discarded = w.details().unwrap().read().unwrap();
                assert_eq!(d.child_read_bytes, Some(512_000), "{t:?}");
            }
        });
    }

    #[test]
    fn one_socket_pair_carries_both_directions_and_says_so() {
        let _one_at_a_time = forking();
        with_ctx(Placement::Free, |ctx| {
            let mut w = prepare_back_both_ways(ctx, Transport::UnixStream, 4).unwrap();
            w.run(300).unwrap();
            let d: RoundTrip = w.details().unwrap().read().unwrap();
            assert_eq!(d.transport, "unix stream socket, one pair both ways");
            assert_eq!(d.partner.child_cpu_time.unwrap().ops, 300);
            let mut w = prepare(ctx, Transport::UnixStream, Pattern::Back, 4, false).unwrap();
            w.run(10).unwrap();
            let d: RoundTrip = w.details().unwrap().read().unwrap();
            assert_eq!(d.transport, "unix stream socket");
        });
    }

    #[test]
    fn a_dead_partner_fails_the_operation_with_its_status() {
        let _one_at_a_time = forking();
        with_ctx(Placement::Free, |ctx| {
            let mut w =
                Back::start(ctx, Transport::Pipe, Wiring::OnePerDirection, 4, false).unwrap();
            w.run(10).unwrap();
            let pid = w.partner.child_mut().pid();
            // SAFETY: killing our own child.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            let err = format!("{:#}", w.run(10).unwrap_err());
            assert!(err.contains("killed by signal 9"), "{err}");
            assert!(err.contains("echoing child"), "{err}");
        });
    }
}
