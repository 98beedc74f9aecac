//! `vm.pagefault`: the cost of one page fault on a mapped file whose pages are already in
//! the page cache (lmbench's lat_pagefault row; seed 001 Table 8 measured the service time
//! of faults that went to the disk, which `--memory-limit` reproduces for the other rows).
//!
//! # Timing model
//! One operation is one read of a page of a shared file mapping that is not mapped yet:
//! one minor fault, which maps the page from the page cache. The kernel's fault-around
//! maps the neighbours of a faulting page within an aligned 64 KiB window, so the reads
//! are 16 pages apart and each lands in a window of its own; the mapping of those
//! neighbours is part of the figure. When every window of the 32 MiB file has been read,
//! the file is unmapped and mapped afresh inside the timed region (one mmap and munmap per
//! 512 faults). The kernel's own fault count is checked after every batch.

use std::fs::File;
use std::io::{Read, Write};

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

use super::region::{page_size, Advice, Region};
use crate::bench::{Benchmark, Ctx, Plan, Workload};
use crate::harness::rusage::this_thread;
use crate::model::{Mode, Source};

/// Pages between two reads: the default fault-around window (64 KiB of 4 KiB pages).
const STRIDE: u64 = 16;
/// Faults per mapping of the file.
const WINDOWS: u64 = 512;

pub struct PageFault;

impl Benchmark for PageFault {
    fn id(&self) -> &'static str {
        "vm.pagefault"
    }
    fn about(&self) -> &'static str {
        "one minor fault on a mapped file whose pages are cached (lat_pagefault)"
    }
    fn source(&self) -> Source {
        Source::Modern("lmbench's lat_pagefault: a fault served from the page cache")
    }
    fn plan(&self, mode: Mode) -> Plan {
        let mut plan = Plan::calibrated(mode);
        plan.subtract_loop = false;
        plan
    }
    fn prepare(&self, ctx: &Ctx) -> Result<Box<dyn Workload>> {
        let path = ctx.scratch.join("pagefault");
        let mut file = File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .with_context(|| format!("cannot create {}", path.display()))?;
        let bytes = (WINDOWS * STRIDE * page_size()) as usize;
        file.write_all(&vec![7u8; bytes])
            .with_context(|| format!("cannot write {}", path.display()))?;
        // Read it back so every page is in the page cache: the faults are minor.
        let mut back = Vec::with_capacity(bytes);
        File::open(&path)?.read_to_end(&mut back)?;
        Ok(Box::new(Faulting {
            file,
            region: None,
            next: WINDOWS,
            touches: 0,
            faults: 0,
            sum: 0,
        }))
    }
}

struct Faulting {
    file: File,
    region: Option<Region>,
    /// The next window to read; `WINDOWS` means map afresh first.
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
            if self.next == WINDOWS {
                self.region = None;
                self.region = Some(Region::map(
                    WINDOWS * STRIDE,
                    Some(&self.file),
                    Advice::Normal,
                )?);
                self.next = 0;
            }
            let region = self.region.as_ref().expect("mapped above");
            sum += region.read(self.next * STRIDE) as u64;
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

    fn details(&mut self) -> Option<Value> {
        Some(json!({
            "touches": self.touches,
            "faults": self.faults,
            "faults_per_touch": self.faults as f64 / self.touches.max(1) as f64,
            "stride_pages": STRIDE,
            "file_bytes": WINDOWS * STRIDE * page_size(),
        }))
    }
}
