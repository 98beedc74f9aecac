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

use std::fs::File;
use std::io::{Read, Write};

use anyhow::{bail, Context, Result};

use super::region::{page_size, Advice, Region};
use crate::harness::contract::{Benchmark, Ctx, Plan, Workload};
use crate::harness::rusage::this_thread;
use crate::model::details::vm::PageFaults;
use crate::model::{Details, Source};

/// The file's size in pages (32 MiB of 4 KiB pages).
const FILE_PAGES: u64 = 8192;
/// The widest stride probed: a PMD-sized folio of 4 KiB pages.
const MAX_STRIDE: u64 = 512;

pub fn benchmark() -> Benchmark {
    Benchmark::new(
        "vm.pagefault",
        "one minor fault on a mapped file whose pages are cached (lat_pagefault)",
        Source::Modern("lmbench's lat_pagefault: a fault served from the page cache"),
        prepare,
    )
    .with_plan(|mode| {
        let mut plan = Plan::calibrated(mode);
        plan.subtract_loop = false;
        plan
    })
}

fn prepare(ctx: &Ctx) -> Result<Box<dyn Workload>> {
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
    let windows = FILE_PAGES / stride;
    Ok(Box::new(Faulting {
        file,
        region: None,
        stride,
        windows,
        next: windows,
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

struct Faulting {
    file: File,
    region: Option<Region>,
    /// Pages between two reads: what one fault maps here.
    stride: u64,
    /// Reads per mapping of the file.
    windows: u64,
    /// The next window to read; `windows` means map afresh first.
    next: u64,
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
            if self.next == self.windows {
                self.region = None;
                self.region = Some(Region::map(FILE_PAGES, Some(&self.file), Advice::Normal)?);
                self.next = 0;
            }
            let region = self.region.as_ref().expect("mapped above");
            sum += region.read(self.next * self.stride) as u64;
            self.next += 1;
        }
        let faults = this_thread().since(&before);
        let faults = faults.minor_faults + faults.major_faults;
        if sum != 7 * n {
            bail!("the mapped file read back wrong: {sum} for {n} reads of 7");
        }
        if (faults as f64) < 0.9 * n as f64 {
            bail!("{n} reads of unmapped pages took only {faults} faults");
        }
        self.touches += n;
        self.faults += faults;
        self.sum += sum;
        Ok(())
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
