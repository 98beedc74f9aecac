//! Reading a file the page cache holds, through read and through mmap: lmbench's
//! `bw_file_rd` (io_only, open2close) and `bw_mmap_rd` (mmap_only), bytes per second.
//!
//! # Timing model
//! The file is 64 MiB (twice the 32 MiB last-level cache of the machine these rows were
//! written on, so the copy out of the page cache is not served from the CPU's cache),
//! written in `prepare` and read back once so every page is cached. One operation reads
//! the whole file: `io.bw.read` seeks to 0 on the descriptor it keeps open and reads
//! 64 KiB at a time into one buffer, summing every 64-bit word of each buffer with
//! lmbench's `bread` (as bw_file_rd does with each buffer it read); `io.bw.reread` opens,
//! reads the same way and closes every time; `io.bw.mmap` sums every 64-bit word of the
//! file the same way (as bw_mmap_rd does) through a read-only shared mapping made once
//! (its pages are mapped by the first pass, the warm-up). The sum is one chain of scalar
//! adds, as the tools' compiled `bread` is, not a vectorised one
//! ([`wordsum`](crate::bench::wordsum)).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::bench::pagebuf::PageBuf;
use crate::bench::wordsum::bread;
use crate::harness::anchor::{Anchor, Parse};
use crate::harness::contract::{Benchmark, Ctx, Workload};
use crate::model::{Metric, Source};

/// The file's size.
pub const FILE: usize = 64 << 20;
/// Bytes per read call, bw_file_rd's transfer size.
pub const XFER: usize = 64 << 10;

/// How the file is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Way {
    /// read() on a descriptor kept open (bw_file_rd io_only).
    Read,
    /// open, read(), close every time (bw_file_rd open2close).
    Reread,
    /// Sum through a mapping kept (bw_mmap_rd mmap_only).
    Mmap,
}

/// Bytes per write call that make [`cached_file`]'s file (the crosscheck writes its
/// tools' file the same way).
pub const CACHED_FILE_BLOCK: usize = 1 << 20;

/// A cached file of `bytes` bytes at `path`: written a MiB at a time, read back.
pub fn cached_file(path: &Path, bytes: usize) -> Result<()> {
    let mut f = File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    let chunk: Vec<u8> = (0..CACHED_FILE_BLOCK).map(|i| (i % 251) as u8).collect();
    let mut left = bytes;
    while left > 0 {
        let n = left.min(chunk.len());
        f.write_all(&chunk[..n])?;
        left -= n;
    }
    drop(f);
    std::fs::read(path)?;
    Ok(())
}

pub struct FileRead {
    way: Way,
    path: PathBuf,
    file: File,
    /// Begins on a page, as bw_file_rd's (valloc): see [`PageBuf`] for why it matters.
    buf: PageBuf,
    map: *const u32,
    sums: u32,
}

impl FileRead {
    pub fn prepare(ctx: &Ctx, way: Way) -> Result<FileRead> {
        let path = ctx.scratch.join("cached-file");
        cached_file(&path, FILE)?;
        let file = File::open(&path)?;
        let map = if way == Way::Mmap {
            use std::os::fd::AsRawFd;
            // SAFETY: a read-only shared mapping of a file of FILE bytes, unmapped in Drop.
            let p = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    FILE,
                    libc::PROT_READ,
                    libc::MAP_SHARED,
                    file.as_raw_fd(),
                    0,
                )
            };
            if p == libc::MAP_FAILED {
                bail!("mmap: {}", std::io::Error::last_os_error());
            }
            p as *const u32
        } else {
            std::ptr::null()
        };
        Ok(FileRead {
            way,
            path,
            file,
            buf: PageBuf::new(XFER, 0),
            map,
            sums: 0,
        })
    }

    /// Read the whole of `file` 64 KiB at a time from where it is, summing each buffer.
    fn read_all(file: &mut File, buf: &mut PageBuf, sums: &mut u32) -> Result<()> {
        let mut left = FILE;
        while left > 0 {
            let got = file.read(buf.bytes_mut())?;
            if got == 0 {
                bail!("the file ended {left} bytes early");
            }
            *sums = sums.wrapping_add(bread(buf.longs(got)) as u32);
            left -= got.min(left);
        }
        Ok(())
    }
}

impl Workload for FileRead {
    fn run(&mut self, n: u64) -> Result<()> {
        for _ in 0..n {
            match self.way {
                Way::Read => {
                    self.file.seek(SeekFrom::Start(0))?;
                    Self::read_all(&mut self.file, &mut self.buf, &mut self.sums)?;
                }
                Way::Reread => {
                    let mut f = File::open(&self.path)?;
                    Self::read_all(&mut f, &mut self.buf, &mut self.sums)?;
                }
                Way::Mmap => {
                    // SAFETY: the mapping made in prepare, FILE bytes, page-aligned, kept
                    // until Drop; only read.
                    let longs =
                        unsafe { std::slice::from_raw_parts(self.map.cast::<u64>(), FILE / 8) };
                    self.sums = self.sums.wrapping_add(bread(longs) as u32);
                }
            }
        }
        Ok(())
    }
}

impl Drop for FileRead {
    fn drop(&mut self) {
        if !self.map.is_null() {
            // SAFETY: the mapping made in prepare.
            unsafe { libc::munmap(self.map as *mut libc::c_void, FILE) };
        }
    }
}

/// The rows: read, reread and mmap of the cached 64 MiB file.
pub fn benchmarks() -> Vec<Benchmark> {
    vec![
        row(
            "io.bw.read",
            "read a cached 64 MiB file 64 KiB at a time, summing each read (bw_file_rd io_only)",
            Way::Read,
            "io_only",
            "byte read from the page cache",
        ),
        row(
            "io.bw.reread",
            "open, read a cached 64 MiB file 64 KiB at a time, close (bw_file_rd open2close)",
            Way::Reread,
            "open2close",
            "byte read from the page cache, open and close included",
        ),
        row(
            "io.bw.mmap",
            "sum a cached 64 MiB file through a mapping kept open (bw_mmap_rd mmap_only)",
            Way::Mmap,
            "mmap_only",
            "byte read through a mapping of the page cache",
        ),
    ]
}

fn row(
    id: &'static str,
    about: &'static str,
    way: Way,
    mode: &'static str,
    op: &'static str,
) -> Benchmark {
    let (program, args): (&'static str, &'static [&'static str]) = match mode {
        "io_only" => ("bw_file_rd", &["-N", "5", "64m", "io_only", "{file}"]),
        "open2close" => ("bw_file_rd", &["-N", "5", "64m", "open2close", "{file}"]),
        _ => ("bw_mmap_rd", &["-N", "5", "64m", "mmap_only", "{file}"]),
    };
    let tool = match mode {
        "io_only" => "lmbench bw_file_rd io_only",
        "open2close" => "lmbench bw_file_rd open2close",
        _ => "lmbench bw_mmap_rd mmap_only",
    };
    Benchmark::new(
        id,
        about,
        Source::Modern("reading a cached file, what lmbench's bw_file_rd and bw_mmap_rd measure"),
        move |c| Ok(Box::new(FileRead::prepare(c, way)?) as Box<dyn Workload>),
    )
    .with_metric(Metric::throughput(FILE as u64))
    .with_plan(crate::bench::micro::whole_transfers)
    .per(op)
    .anchor(
        Anchor::lmbench(
            tool,
            program,
            args,
            Parse::LmbenchMegabytesPerSecond,
            "per byte of a cached 64 MiB file",
        )
        .with_file_in_blocks(FILE as u64, CACHED_FILE_BLOCK),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::contract::StandaloneCtx;
    use crate::model::RunOptions;

    #[test]
    fn every_way_reads_the_whole_file() {
        let s = StandaloneCtx::new(RunOptions::default()).unwrap();
        for way in [Way::Read, Way::Reread, Way::Mmap] {
            let mut w = FileRead::prepare(&s.ctx(), way).unwrap();
            w.run(2).unwrap();
        }
    }

    #[test]
    fn a_short_file_is_an_error_not_a_figure() {
        let s = StandaloneCtx::new(RunOptions::default()).unwrap();
        let mut w = FileRead::prepare(&s.ctx(), Way::Read).unwrap();
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(&w.path)
            .unwrap();
        f.set_len(FILE as u64 / 2).unwrap();
        let err = w.run(1).unwrap_err().to_string();
        assert!(err.contains("ended"), "{err}");
    }
}
