//! Bulk transfers through pipes: Kashtan kt9, kt10, kt11 and the Zilog piper (seed 003).
//!
//! # Timing model
//! - `pipe.bw.self` (kt9): one operation = 5 MiB written to and read back from one pipe,
//!   one 4 KiB chunk at a time, in one process.
//! - `pipe.bw.one` (kt10): one operation = 5 MiB written in 4 KiB chunks to a child that
//!   reads everything and then acknowledges with its byte count; the operation ends when
//!   the acknowledgement arrives, so the child's reading is inside the time.
//! - `pipe.bw.both` (kt11): one operation = parent and child each send 5 MiB to the other
//!   (4 KiB chunks, alternating write and read on each side); the figure counts the bytes
//!   of both directions.
//! - `pipe.piper` (Zilog): one operation = 2,000 writes of 512 bytes to a child that reads
//!   them and acknowledges the 1,024,000 bytes; the figure is the time for all of it, as
//!   the seed's table gives seconds per run.
//!
//! Checks: every chunk carries a sequence number checked on arrival (kt9, kt11); the
//! child's acknowledged count must equal what was sent (kt10, piper).

use std::os::fd::{AsRawFd, OwnedFd};

use anyhow::{bail, Result};

use crate::harness::children::{self, io_error, read_exact_raw, write_all_raw, Pair, Partner};
use crate::harness::contract::{Ctx, Workload};
use crate::model::details::micro::Transfer;
use crate::model::Details;

/// Kashtan's 5 MBytes.
pub const TRANSFER: usize = 5 * 1024 * 1024;
/// One write: a page.
pub const CHUNK: usize = 4096;
const CHUNKS: usize = TRANSFER / CHUNK;
/// Zilog piper: 2,000 writes of 512 bytes.
pub const PIPER_WRITES: usize = 2000;
pub const PIPER_SIZE: usize = 512;

fn stamp(buf: &mut [u8], seq: u64) {
    buf[..8].copy_from_slice(&seq.to_ne_bytes());
}

fn stamp_of(buf: &[u8]) -> u64 {
    u64::from_ne_bytes(buf[..8].try_into().expect("8 bytes"))
}

struct BwSelf {
    rx: OwnedFd,
    tx: OwnedFd,
    buf: Vec<u8>,
    seq: u64,
}

pub fn prepare_self(_: &Ctx) -> Result<Box<dyn Workload>> {
    let (rx, tx) = children::pipe()?;
    Ok(Box::new(BwSelf {
        rx,
        tx,
        buf: vec![0x5a; CHUNK],
        seq: 0,
    }))
}

impl Workload for BwSelf {
    fn run(&mut self, n: u64) -> Result<()> {
        for _ in 0..n {
            for _ in 0..CHUNKS {
                stamp(&mut self.buf, self.seq);
                write_all_raw(&self.tx, &self.buf).map_err(|e| io_error("write", e))?;
                read_exact_raw(&self.rx, &mut self.buf).map_err(|e| io_error("read", e))?;
                if stamp_of(&self.buf) != self.seq {
                    bail!("chunk {} came back as {}", self.seq, stamp_of(&self.buf));
                }
                self.seq += 1;
            }
        }
        Ok(())
    }

    fn details(&mut self) -> Option<Details> {
        Some(Details::of(&Transfer {
            partner: None,
            transfer_bytes: Some(TRANSFER),
            transfer_bytes_each_way: None,
            write_bytes: None,
            chunk_bytes: Some(CHUNK),
        }))
    }
}

/// A parent writing `per_op` bytes in `write_size` writes to a counting child that
/// acknowledges each `per_op` bytes with the count.
struct Sink {
    partner: Partner,
    tx: OwnedFd,
    acks: OwnedFd,
    buf: Vec<u8>,
    per_op: usize,
    write_size: usize,
}

/// The counting child: read everything, acknowledge every `per_op` bytes.
fn sink_child(rx: i32, ack_tx: i32, per_op: usize) -> i32 {
    let mut buf = [0u8; CHUNK];
    let mut got: usize = 0;
    loop {
        got += match children::read_some_raw(&rx, &mut buf) {
            Err(_) => return 4,
            Ok(0) => return if got == 0 { 0 } else { 6 },
            Ok(n) => n,
        };
        if got >= per_op {
            let count = (got as u64).to_ne_bytes();
            got = 0;
            // SAFETY: writing from a stack buffer.
            if unsafe { libc::write(ack_tx, count.as_ptr().cast(), 8) } != 8 {
                return 5;
            }
        }
    }
}

fn start_sink(ctx: &Ctx, per_op: usize, write_size: usize) -> Result<Sink> {
    let pair = Pair::resolve(ctx.options.placement, &ctx.host.usable_cpus)?;
    let (rx, tx) = children::pipe()?;
    let (ack_rx, ack_tx) = children::pipe()?;
    let (child_rx, child_ack, parent_tx) = (rx.as_raw_fd(), ack_tx.as_raw_fd(), tx.as_raw_fd());
    let partner = Partner::start(pair, move || {
        // SAFETY: the child closes the parent's write end so that it sees end of input.
        unsafe { libc::close(parent_tx) };
        sink_child(child_rx, child_ack, per_op)
    })?;
    drop(rx);
    drop(ack_tx);
    Ok(Sink {
        partner,
        tx,
        acks: ack_rx,
        buf: vec![0x5a; write_size],
        per_op,
        write_size,
    })
}

pub fn prepare_one(ctx: &Ctx) -> Result<Box<dyn Workload>> {
    Ok(Box::new(start_sink(ctx, TRANSFER, CHUNK)?))
}

pub fn prepare_piper(ctx: &Ctx) -> Result<Box<dyn Workload>> {
    Ok(Box::new(start_sink(
        ctx,
        PIPER_WRITES * PIPER_SIZE,
        PIPER_SIZE,
    )?))
}

impl Workload for Sink {
    fn run(&mut self, n: u64) -> Result<()> {
        for _ in 0..n {
            for _ in 0..self.per_op / self.write_size {
                if let Err(e) = write_all_raw(&self.tx, &self.buf) {
                    return Err(self.partner.explain(io_error("write to the child", e)));
                }
            }
            let mut ack = [0u8; 8];
            if let Err(e) = read_exact_raw(&self.acks, &mut ack) {
                return Err(self
                    .partner
                    .explain(io_error("reading the child's acknowledgement", e)));
            }
            let got = u64::from_ne_bytes(ack);
            if got != self.per_op as u64 {
                bail!("the child received {got} bytes of {}", self.per_op);
            }
            self.partner.ops += 1;
        }
        Ok(())
    }

    fn notes(&self) -> Vec<String> {
        self.partner.notes()
    }

    fn details(&mut self) -> Option<Details> {
        Some(Details::of(&Transfer {
            partner: Some(self.partner.finish_record()),
            transfer_bytes: Some(self.per_op),
            transfer_bytes_each_way: None,
            write_bytes: Some(self.write_size),
            chunk_bytes: None,
        }))
    }
}

/// kt11: both sides send at once, each alternating one chunk out and one chunk in, so
/// neither can block the other for good (a pipe holds 16 chunks).
struct Both {
    partner: Partner,
    to_child: OwnedFd,
    from_child: OwnedFd,
    out: Vec<u8>,
    inp: Vec<u8>,
    seq: u64,
}

pub fn prepare_both(ctx: &Ctx) -> Result<Box<dyn Workload>> {
    let pair = Pair::resolve(ctx.options.placement, &ctx.host.usable_cpus)?;
    let (down_rx, down_tx) = children::pipe()?;
    let (up_rx, up_tx) = children::pipe()?;
    let (crx, ctx_fd) = (down_rx.as_raw_fd(), up_tx.as_raw_fd());
    let partner = Partner::start(pair, move || both_child(crx, ctx_fd))?;
    drop(down_rx);
    drop(up_tx);
    Ok(Box::new(Both {
        partner,
        to_child: down_tx,
        from_child: up_rx,
        out: vec![0x5a; CHUNK],
        inp: vec![0; CHUNK],
        seq: 0,
    }))
}

/// kt11's child: send stamped chunks and take the parent's, forever.
fn both_child(rx: i32, tx: i32) -> i32 {
    struct Fd(i32);
    impl AsRawFd for Fd {
        fn as_raw_fd(&self) -> i32 {
            self.0
        }
    }
    let (rx, tx) = (Fd(rx), Fd(tx));
    let mut out = [0x33u8; CHUNK];
    let mut inp = [0u8; CHUNK];
    let mut seq: u64 = 0;
    loop {
        stamp(&mut out, seq);
        if write_all_raw(&tx, &out).is_err() {
            return 5;
        }
        match read_exact_raw(&rx, &mut inp) {
            Ok(()) => {}
            Err(0) => return 0,
            Err(_) => return 4,
        }
        seq += 1;
    }
}

impl Workload for Both {
    fn run(&mut self, n: u64) -> Result<()> {
        for _ in 0..n {
            for _ in 0..CHUNKS {
                if let Err(e) = write_all_raw(&self.to_child, &self.out) {
                    return Err(self.partner.explain(io_error("write to the child", e)));
                }
                if let Err(e) = read_exact_raw(&self.from_child, &mut self.inp) {
                    return Err(self.partner.explain(io_error("read from the child", e)));
                }
                if stamp_of(&self.inp) != self.seq {
                    bail!(
                        "chunk {} from the child arrived as {}",
                        self.seq,
                        stamp_of(&self.inp)
                    );
                }
                self.seq += 1;
            }
            self.partner.ops += 1;
        }
        Ok(())
    }

    fn notes(&self) -> Vec<String> {
        self.partner.notes()
    }

    fn details(&mut self) -> Option<Details> {
        Some(Details::of(&Transfer {
            partner: Some(self.partner.finish_record()),
            transfer_bytes: None,
            transfer_bytes_each_way: Some(TRANSFER),
            write_bytes: None,
            chunk_bytes: Some(CHUNK),
        }))
    }
}
