//! §2 `pipe`: seed 001's `pipeself`, `pipediscard` and `pipeback` with 4- and 512-byte
//! messages (Table 1/2, Appendix A), a floating-point variant of `pipeback`, the PERQ
//! note's Kashtan kt9–kt11 (5 MB through a pipe: to yourself, to a child, both ways at
//! once) and the Zilog piper (2,000 writes of 512 bytes).
//!
//! Timing models: see [`super::message`] for the message rows and [`bandwidth`] for the
//! transfers.

use anyhow::Result;

use super::message::{self, Pattern, Transport};
use super::micro::{berkeley, perq, whole_transfers};
use crate::harness::anchor::{Anchor, Parse};
use crate::harness::contract::{Benchmark, Ctx, Workload};
use crate::model::{Metric, Source};

pub mod bandwidth;

/// The family's section of `docs/benchmarks.md`.
#[linkme::distributed_slice(crate::model::catalogue::SECTIONS)]
fn section() -> crate::model::catalogue::Section {
    crate::model::catalogue::Section {
        order: 30,
        family: "pipe",
        heading: "`pipe` — messages and transfers through pipes",
        seeds: "Seed 001 Table 1/2: `pipeself`, `pipediscard`, `pipeback`; seed 003's kt9–kt11 and the \
            Zilog piper.",
    }
}

/// The family's place in the catalogue: registered here, gathered by
/// [`crate::bench::Registry`].
#[linkme::distributed_slice(crate::bench::FAMILIES)]
fn family() -> crate::bench::Family {
    crate::bench::Family::rows("pipe", 30, |_| all())
}

pub fn all() -> Vec<Benchmark> {
    rows()
}

fn msg(ctx: &Ctx, pattern: Pattern, size: usize) -> Result<Box<dyn Workload>> {
    message::prepare(ctx, Transport::Pipe, pattern, size, false)
}

fn rows() -> Vec<Benchmark> {
    vec![
        Benchmark::new(
            "pipe.self.4",
            "write then read a 4-byte message on one pipe (001 pipeself4)",
            berkeley("Table 1/2: pipeself4"),
            |c| msg(c, Pattern::ToSelf, 4),
        )
        .per("message to oneself"),
        Benchmark::new(
            "pipe.self.512",
            "write then read a 512-byte message on one pipe (001 pipeself512)",
            berkeley("Table 1/2: pipeself512"),
            |c| msg(c, Pattern::ToSelf, 512),
        )
        .per("message to oneself"),
        Benchmark::new(
            "pipe.discard.4",
            "write a 4-byte message to a child that reads and discards it (001 pipediscard4)",
            berkeley("Table 1/2: pipediscard4"),
            |c| msg(c, Pattern::Discard, 4),
        )
        .partnered()
        .per("message to a child"),
        Benchmark::new(
            "pipe.discard.512",
            "write a 512-byte message to a child that discards it (001 pipediscard512)",
            berkeley("Table 1/2: pipediscard512"),
            |c| msg(c, Pattern::Discard, 512),
        )
        .partnered()
        .per("message to a child"),
        Benchmark::new(
            "pipe.back.4",
            "round trip of a 4-byte message with a child over two pipes (001 pipeback4)",
            berkeley("Table 1/2: pipeback4"),
            |c| msg(c, Pattern::Back, 4),
        )
        .partnered()
        .per("message round trip")
        .anchor(Anchor::perf(
            "perf bench sched pipe",
            &["bench", "sched", "pipe", "-l", "50000"],
            "per round trip of a 4-byte message between two processes",
        ))
        .anchor(Anchor::lmbench(
            "lmbench lat_pipe",
            "lat_pipe",
            &[],
            Parse::LmbenchMicroseconds,
            "per round trip of a small message between two processes",
        )),
        Benchmark::new(
            "pipe.back.512",
            "round trip of a 512-byte message with a child over two pipes (001 pipeback512)",
            berkeley("Table 1/2: pipeback512"),
            |c| msg(c, Pattern::Back, 512),
        )
        .partnered()
        .per("message round trip"),
        Benchmark::new(
            "pipe.back.4.fpu",
            "pipe.back.4 with vector registers live in both processes (002's FP context cost)",
            Source::seed(
                "002",
                "floating-point save per call, moved into the context switch",
            ),
            |c| message::prepare(c, Transport::Pipe, Pattern::Back, 4, true),
        )
        .partnered()
        .per("message round trip"),
        Benchmark::new(
            "pipe.bw.self",
            "5 MB written to yourself through a pipe, 4 KB at a time (Kashtan kt9); MB/s",
            perq("Kashtan kt9"),
            bandwidth::prepare_self,
        )
        .with_metric(Metric::throughput(bandwidth::TRANSFER as u64))
        .with_plan(whole_transfers)
        .per("byte written to oneself through a pipe"),
        Benchmark::new(
            "pipe.bw.one",
            "5 MB through a pipe to a child that reads it all (Kashtan kt10); MB/s",
            perq("Kashtan kt10"),
            bandwidth::prepare_one,
        )
        .with_metric(Metric::throughput(bandwidth::TRANSFER as u64))
        .with_plan(whole_transfers)
        .partnered()
        .per("byte sent to another process through a pipe"),
        Benchmark::new(
            "pipe.bw.both",
            "two processes each send 5 MB to the other at once (Kashtan kt11); MB/s of both",
            perq("Kashtan kt11"),
            bandwidth::prepare_both,
        )
        .with_metric(Metric::throughput(2 * bandwidth::TRANSFER as u64))
        .with_plan(whole_transfers)
        .partnered()
        .per("byte through a pipe, both directions counted"),
        Benchmark::new(
            "pipe.piper",
            "2,000 pipe writes of 512 bytes to a reading child, time for all (Zilog piper)",
            perq("Zilog programs: piper"),
            bandwidth::prepare_piper,
        )
        .with_metric(Metric::job())
        .with_plan(whole_transfers)
        .partnered()
        .per_job(2_000, "512-byte pipe write"),
    ]
}
