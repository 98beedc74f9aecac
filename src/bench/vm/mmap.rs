//! `vm.mmap.SIZE`: map a cached file, write one byte in every 16 KiB of its first tenth,
//! unmap (lmbench's `lat_mmap SIZE file`).
//!
//! # Timing model
//! One operation is mmap(PROT_READ | PROT_WRITE, MAP_SHARED) of the whole file, a
//! one-byte store every 16 KiB from its start through its first tenth (each a write fault
//! on a page the page cache holds: no fault-around for writes to a shared mapping) and
//! munmap. lat_mmap touches only that tenth ("both sparse and full mappings reported":
//! the mapping's size and its faults both count), so 7 stores for 1 MiB, 52 for 8 MiB. The file is
//! written in `prepare` and read back, so every page is cached; the stores dirty its
//! pages, which the kernel writes back in its own time, as under lat_mmap.

use anyhow::{bail, Result};

use crate::bench::io::filebw::{cached_file, CACHED_FILE_BLOCK};
use crate::harness::anchor::{Anchor, Parse};
use crate::harness::contract::{Benchmark, Ctx, Workload};
use crate::model::Source;

/// One store per this many bytes, lat_mmap's stride.
pub const STRIDE: usize = 16 << 10;
/// The stores cover the mapping's first 1/TOUCHED_PART, as lat_mmap's do.
pub const TOUCHED_PART: usize = 10;

/// The rows: 1, 8 and 64 MiB.
pub fn benchmarks() -> Vec<Benchmark> {
    vec![
        row(1 << 20, "vm.mmap.1m", &["-N", "5", "1m", "{file}"]),
        row(8 << 20, "vm.mmap.8m", &["-N", "5", "8m", "{file}"]),
        row(64 << 20, "vm.mmap.64m", &["-N", "5", "64m", "{file}"]),
    ]
}

fn row(bytes: usize, id: &'static str, args: &'static [&'static str]) -> Benchmark {
    let about = match bytes >> 20 {
        1 => "mmap a cached 1 MiB file, store a byte every 16 KiB of its first tenth, munmap (lat_mmap 1m)",
        8 => "mmap a cached 8 MiB file, store a byte every 16 KiB of its first tenth, munmap (lat_mmap 8m)",
        _ => "mmap a cached 64 MiB file, store a byte every 16 KiB of its first tenth, munmap (lat_mmap 64m)",
    };
    Benchmark::new(
        id,
        about,
        Source::Modern("the cost of making and breaking a mapping, by size (lmbench lat_mmap)"),
        move |c| Ok(Box::new(MapTouch::prepare(c, bytes)?) as Box<dyn Workload>),
    )
    .with_plan(crate::bench::micro::processes)
    .per("mmap + stores + munmap")
    .anchor(
        Anchor::lmbench(
            "lmbench lat_mmap",
            "lat_mmap",
            args,
            Parse::LmbenchPairMicroseconds,
            "per mapping made, touched every 16 KiB of its first tenth and unmapped",
        )
        .with_file_in_blocks(bytes as u64, CACHED_FILE_BLOCK),
    )
}

struct MapTouch {
    file: std::fs::File,
    bytes: usize,
}

impl MapTouch {
    fn prepare(ctx: &Ctx, bytes: usize) -> Result<MapTouch> {
        let path = ctx.scratch.join("mapped-file");
        cached_file(&path, bytes)?;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)?;
        Ok(MapTouch { file, bytes })
    }
}

impl Workload for MapTouch {
    fn run(&mut self, n: u64) -> Result<()> {
        use std::os::fd::AsRawFd;
        for _ in 0..n {
            // SAFETY: a shared mapping of our own file of `bytes` bytes, written only
            // inside its length and unmapped before the next is made.
            unsafe {
                let p = libc::mmap(
                    std::ptr::null_mut(),
                    self.bytes,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_SHARED,
                    self.file.as_raw_fd(),
                    0,
                );
                if p == libc::MAP_FAILED {
                    bail!("mmap: {}", std::io::Error::last_os_error());
                }
                let base = p.cast::<u8>();
                let end = self.bytes / TOUCHED_PART;
                let mut off = 0;
                while off < end {
                    base.add(off).write_volatile(b'3');
                    off += STRIDE;
                }
                if libc::munmap(p, self.bytes) != 0 {
                    bail!("munmap: {}", std::io::Error::last_os_error());
                }
            }
        }
        Ok(())
    }
}
