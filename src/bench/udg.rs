//! §2 `udg`: the self / discard / back patterns of seed 001 over UNIX-domain datagram
//! sockets (`udgself`, `udgdiscard`, `udgback` in the seed's `run` script; their results
//! were not printed in Table 2). Same timing model and checks as the pipe rows
//! ([`super::message`]); each message is one datagram, and `back` uses a socket pair each
//! way, as the pipe rows use a pipe each way. `ustream.back.4` is lmbench's lat_unix: a
//! stream socket pair, one for both directions.

use super::message::{self, Pattern, Transport};
use super::micro::berkeley;
use crate::harness::anchor::{Anchor, Parse};
use crate::harness::contract::{Benchmark, Ctx, Workload};
use crate::model::Source;

/// The family's section of `docs/benchmarks.md`.
#[linkme::distributed_slice(crate::model::catalogue::SECTIONS)]
fn section() -> crate::model::catalogue::Section {
    crate::model::catalogue::Section {
        order: 40,
        family: "udg",
        heading: "`udg` — UNIX-domain datagrams",
        seeds: "Seed 001's run script: `udgself`, `udgdiscard`, `udgback`.",
    }
}

/// The family's place in the catalogue: registered here, gathered by
/// [`crate::bench::Registry`].
#[linkme::distributed_slice(crate::bench::FAMILIES)]
fn family() -> crate::bench::Family {
    crate::bench::Family::rows("udg", 40, |_| all())
}

pub fn all() -> Vec<Benchmark> {
    rows()
}

fn dg(ctx: &Ctx, pattern: Pattern, size: usize) -> anyhow::Result<Box<dyn Workload>> {
    message::prepare(ctx, Transport::UnixDatagram, pattern, size, false)
}

fn rows() -> Vec<Benchmark> {
    vec![
        Benchmark::new(
            "udg.self.4",
            "send then receive a 4-byte datagram on a UNIX socket pair (001 udgself 4)",
            berkeley("run script: udgself 10000 4"),
            |c| dg(c, Pattern::ToSelf, 4),
        ),
        Benchmark::new(
            "udg.self.512",
            "send then receive a 512-byte datagram on a UNIX socket pair (001 udgself 512)",
            berkeley("run script: udgself 10000 512"),
            |c| dg(c, Pattern::ToSelf, 512),
        ),
        Benchmark::new(
            "udg.discard.4",
            "send a 4-byte datagram to a child that discards it (001 udgdiscard 4)",
            berkeley("run script: udgdiscard 10000 4"),
            |c| dg(c, Pattern::Discard, 4),
        )
        .partnered(),
        Benchmark::new(
            "udg.discard.512",
            "send a 512-byte datagram to a child that discards it (001 udgdiscard 512)",
            berkeley("run script: udgdiscard 10000 512"),
            |c| dg(c, Pattern::Discard, 512),
        )
        .partnered(),
        Benchmark::new(
            "udg.back.4",
            "round trip of a 4-byte datagram with a child (001 udgback 4)",
            berkeley("run script: udgback 10000 4"),
            |c| dg(c, Pattern::Back, 4),
        )
        .partnered(),
        // The stream case, which lmbench's lat_unix measures (a datagram row is not the
        // same operation: no stream bookkeeping, one skb per message), wired as lat_unix
        // wires it: one socket pair, both directions (see message::Wiring for the cost).
        Benchmark::new(
            "ustream.back.4",
            "round trip of a 4-byte message with a child over one UNIX stream socket pair",
            Source::Modern("the stream case of udg.back.4, as lmbench's lat_unix measures it"),
            |c| message::prepare_back_both_ways(c, Transport::UnixStream, 4),
        )
        .with_family("udg")
        .partnered()
        .per("message round trip")
        .anchor(Anchor::lmbench(
            "lmbench lat_unix",
            "lat_unix",
            &[],
            Parse::LmbenchMicroseconds,
            "per round trip of a small message over one UNIX stream socket pair, used both ways",
        )),
        Benchmark::new(
            "udg.back.512",
            "round trip of a 512-byte datagram with a child (001 udgback 512)",
            berkeley("run script: udgback 10000 512"),
            |c| dg(c, Pattern::Back, 512),
        )
        .partnered(),
    ]
}
