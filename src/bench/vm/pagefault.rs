//! `vm.pagefault`: the cost of one page fault on a mapped file whose pages are already in
//! the page cache (lmbench's lat_pagefault row; seed 001 Table 8 measured the service time
//! of faults that went to the disk, which `--memory-limit` reproduces for the other rows).
//!
//! # Timing model
//! One operation is one read of a page of a shared file mapping that is not mapped yet:
//! one minor fault, which maps the page from the page cache. The kernel maps more than the
//! faulting page — fault-around maps the cached neighbours in an aligned window (64 KiB by
//! default), and recent kernels map a whole large folio — so `prepare` probes how many
//! pages one fault maps here (reading page after page until the kernel counts the next
//! fault), and the reads are that stride apart, each in a window of its own; mapping the
//! neighbours is part of the figure. When every window of the 32 MiB file has been read,
//! the file is unmapped and mapped afresh inside the timed region (one mmap and munmap per
//! window count). The kernel's own fault count is checked after every batch.
//!
//! `vm.pagefault.page` is lmbench's basis instead: one operation is one page touched,
//! every page of the file in a shuffled order (as lat_pagefault does), most of them
//! already mapped by the fault-around of a neighbour. Its figure is the per-fault one
//! divided by about the pages one fault maps: that is what lat_pagefault prints, and why
//! `vm.pagefault` is 10–20 times lat_pagefault's figure. A sample is one whole pass over
//! the file, its unmapping and mapping afresh included, as lat_pagefault's loop is: early
//! in a pass nearly every touch faults, late in it hardly any (a batch of 883 touches read
//! 992 ns a touch after a fresh mapping and 20 ns a few batches on), so a sample of part
//! of a pass measures where in the pass it fell. Seed 001's "page fault" (Table 8, one
//! fault that maps one page) is `vm.pagefault`'s basis: per fault.
//!
//! The file is written a page at a time, so the page cache holds it in single pages and a
//! fault maps its fault-around window. Written in large blocks, on a kernel whose file
//! system caches large folios, one fault maps a whole folio: here lat_pagefault read 0.030
//! µs a page on a file written in 1 MiB blocks and 0.266 µs on the same file written a
//! page at a time. `timeshare crosscheck` gives lat_pagefault a file made as this one is.

use std::fs::File;
use std::io::{Read, Write};

use anyhow::{bail, Context, Result};

use super::region::{page_size, Advice, Region};
use crate::harness::anchor::{Anchor, Parse};
use crate::harness::contract::{Batch, Benchmark, Ctx, Plan, Workload};
use crate::harness::rusage::this_thread;
use crate::model::details::vm::PageFaults;
use crate::model::{Details, Mode, Source};

/// The file's size in pages (32 MiB of 4 KiB pages).
const FILE_PAGES: u64 = 8192;
/// The widest stride probed: a PMD-sized folio of 4 KiB pages.
const MAX_STRIDE: u64 = 512;

pub fn benchmarks() -> Vec<Benchmark> {
    let plan = |mode| {
        let mut plan = Plan::calibrated(mode);
        plan.subtract_loop = false;
        plan
    };
    vec![
        Benchmark::new(
            "vm.pagefault",
            "one minor fault on a mapped file whose pages are cached, with its fault-around",
            Source::Modern("a fault served from the page cache, per fault (seed 001's basis)"),
            |c| prepare(c, Basis::Fault),
        )
        .with_plan(plan)
        .per("page fault"),
        Benchmark::new(
            "vm.pagefault.page",
            "touch every page of a mapped, cached file in shuffled order (lat_pagefault)",
            Source::Modern("lmbench's lat_pagefault: per page touched, not per fault"),
            |c| prepare(c, Basis::Page),
        )
        .with_plan(pass_plan)
        .per("page touched")
        .anchor(
            Anchor::lmbench(
                "lmbench lat_pagefault",
                "lat_pagefault",
                &["{file}"],
                Parse::LmbenchMicroseconds,
                "per page touched of a cached 32 MiB file",
            )
            .with_file(FILE_PAGES * 4096),
        ),
    ]
}

/// `vm.pagefault.page`: one whole pass over the file per sample (see the module's text).
fn pass_plan(mode: Mode) -> Plan {
    Plan {
        batch: Batch::Fixed(FILE_PAGES),
        warmup: true,
        subtract_loop: false,
        ..Plan::calibrated(mode)
    }
}

/// What one operation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Basis {
    /// One read that faults: a page `stride` pages after the last.
    Fault,
    /// One page touched, in a shuffled order of all the file's pages.
    Page,
}

fn prepare(ctx: &Ctx, basis: Basis) -> Result<Box<dyn Workload>> {
    let path = ctx.scratch.join("pagefault");
    let mut file = File::options()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)
        .with_context(|| format!("cannot create {}", path.display()))?;
    // Page-sized writes, so the page cache holds small folios where the kernel lets it.
    let page = vec![7u8; page_size() as usize];
    for _ in 0..FILE_PAGES {
        file.write_all(&page)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    // Read it back so every page is in the page cache: the faults are minor.
    let mut back = Vec::new();
    File::open(&path)?.read_to_end(&mut back)?;
    let stride = probe_stride(&file)?;
    let order: Vec<u64> = match basis {
        Basis::Fault => (0..FILE_PAGES / stride).map(|w| w * stride).collect(),
        Basis::Page => shuffled(FILE_PAGES),
    };
    Ok(Box::new(Faulting {
        file,
        region: None,
        stride,
        basis,
        next: order.len(),
        order,
        touches: 0,
        faults: 0,
        sum: 0,
    }))
}

/// How many pages one read fault maps here: read page after page of a fresh mapping until
/// the kernel counts a second fault.
fn probe_stride(file: &File) -> Result<u64> {
    let region = Region::map(FILE_PAGES, Some(file), Advice::Normal)?;
    let faults = || {
        let u = this_thread();
        u.minor_faults + u.major_faults
    };
    region.read(0);
    let after_first = faults();
    for p in 1..MAX_STRIDE {
        region.read(p);
        if faults() > after_first {
            return Ok(p.next_power_of_two());
        }
    }
    Ok(MAX_STRIDE)
}

/// 0..n in an order of its own (a fixed-seed xorshift Fisher–Yates shuffle, so every run
/// reads the same order).
fn shuffled(n: u64) -> Vec<u64> {
    let mut v: Vec<u64> = (0..n).collect();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for i in (1..v.len()).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.swap(i, (x % (i as u64 + 1)) as usize);
    }
    v
}

struct Faulting {
    file: File,
    region: Option<Region>,
    /// Pages between two reads: what one fault maps here.
    stride: u64,
    basis: Basis,
    /// The pages read, in order, per mapping of the file.
    order: Vec<u64>,
    /// The next read in `order`; its length means map afresh first.
    next: usize,
    touches: u64,
    faults: u64,
    /// What the reads returned, kept so they cannot be optimised away and checked.
    sum: u64,
}

impl Workload for Faulting {
    fn run(&mut self, n: u64) -> Result<()> {
        let before = this_thread();
        let mut sum = 0u64;
        for _ in 0..n {
            if self.next == self.order.len() {
                self.region = None;
                self.region = Some(Region::map(FILE_PAGES, Some(&self.file), Advice::Normal)?);
                self.next = 0;
            }
            let region = self.region.as_ref().expect("mapped above");
            sum += region.read(self.order[self.next]) as u64;
            self.next += 1;
        }
        let faults = this_thread().since(&before);
        let faults = faults.minor_faults + faults.major_faults;
        if sum != 7 * n {
            bail!("the mapped file read back wrong: {sum} for {n} reads of 7");
        }
        if self.basis == Basis::Fault && (faults as f64) < 0.9 * n as f64 {
            bail!("{n} reads of unmapped pages took only {faults} faults");
        }
        self.touches += n;
        self.faults += faults;
        self.sum += sum;
        Ok(())
    }

    fn notes(&self) -> Vec<String> {
        let per = self.faults as f64 / self.touches.max(1) as f64;
        vec![match self.basis {
            Basis::Fault => format!(
                "per fault; one fault maps {} pages here (fault-around): per page touched, \
                 as lmbench's lat_pagefault counts, see vm.pagefault.page",
                self.stride
            ),
            Basis::Page => format!(
                "per page touched, as lat_pagefault counts; {per:.3} faults per page here \
                 (one fault maps {} pages): per fault, see vm.pagefault",
                self.stride
            ),
        }]
    }

    fn details(&mut self) -> Option<Details> {
        Some(Details::of(&PageFaults {
            touches: self.touches,
            faults: self.faults,
            faults_per_touch: self.faults as f64 / self.touches.max(1) as f64,
            stride_pages: self.stride,
            file_bytes: FILE_PAGES * page_size(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_of_the_per_page_row_is_one_whole_pass() {
        for mode in [crate::model::Mode::Quick, crate::model::Mode::Full] {
            assert_eq!(pass_plan(mode).batch, Batch::Fixed(FILE_PAGES));
        }
    }

    #[test]
    fn the_shuffled_order_reads_every_page_once_and_not_in_order() {
        let v = shuffled(FILE_PAGES);
        let mut sorted = v.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..FILE_PAGES).collect::<Vec<_>>());
        let in_place = v
            .iter()
            .enumerate()
            .filter(|(i, &p)| *i as u64 == p)
            .count();
        assert!(in_place < 100, "{in_place} pages in their own place");
    }
}
