//! `load.iointerference.K`: a compute-bound program alone (K = 0) and beside K concurrent
//! sequential readers (seed 000, Table 11: the chess program against 1–4 `dd` readers of
//! different disks).
//!
//! # Timing model
//! One operation: K reader children start, each reading its own file in the scratch
//! directory from start to end in 1 MiB requests, over and over; after 20 ms the compute
//! child starts (the kernel of `load.cpu` over a 256 KiB footprint, quick ≈ 0.3 s, full
//! ≈ 3 s of CPU alone) and the readers' byte counters (shared memory) are read; when the compute
//! child ends they are read again and the readers killed. Recorded per operation: the
//! compute child's user and system time (wait4), its real time, and the bytes the readers
//! read meanwhile. The headline is the operation's wall time; Table 11's columns are in the
//! details: user CPU, ratio alone = user CPU alone / user CPU with K readers (the seed's
//! .89 … .63), and bytes read per µs.
//!
//! Caches: the readers open their files with O_DIRECT, so every read goes to the device
//! and none is served from the page cache. Where the file system refuses O_DIRECT (tmpfs),
//! they fall back to buffered reads with posix_fadvise(DONTNEED) at every pass; the details
//! say which was used ("cache").

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use super::kernel::{SharedCounters, Work};
use super::{driver_cpu, lock, remembered, remembered_work, LoadState, Ticker};
use crate::harness::children::Child;
use crate::harness::contract::{Benchmark, Ctx, Workload};
use crate::harness::copies::{Children, Reaped};
use crate::harness::rusage::DriverMeter;
use crate::harness::state::Shared;
use crate::model::details::load::{self, DriverCpu};
use crate::model::median;
use crate::model::Details;
use crate::model::{Metric, Mode, Source};

const REQUEST: usize = 1 << 20;
const FOOTPRINT: u64 = 256 << 10;

struct IoInterference {
    id: String,
    readers: usize,
}

fn target_s(mode: Mode) -> f64 {
    match mode {
        Mode::Quick => 0.3,
        Mode::Full => 3.0,
    }
}

fn file_size(mode: Mode) -> usize {
    match mode {
        Mode::Quick => 32 << 20,
        Mode::Full => 256 << 20,
    }
}

pub fn row(k: usize) -> Benchmark {
    let it = IoInterference {
        id: format!("load.iointerference.{k}"),
        readers: k,
    };
    Benchmark::new(
        it.id.clone(),
        "user CPU of a compute-bound program beside K sequential readers; ratio alone",
        Source::seed("000", "Table 11"),
        move |ctx| it.prepare(ctx),
    )
    .with_metric(Metric::job())
    .per(load::PER_PROGRAM_RUN)
    .with_plan(super::plan)
    .measured_in_one_process(super::ONE_PROCESS)
}

impl IoInterference {
    fn prepare(&self, ctx: &Ctx) -> Result<Box<dyn Workload>> {
        let meter = DriverMeter::start();
        let shared = ctx.state.get::<LoadState>();
        let target = target_s(ctx.mode);
        let key = format!("io.{target}");
        let work = remembered_work(&shared, &key, || Work::calibrate(FOOTPRINT, target))?;
        let files = write_files(ctx.scratch, self.readers, file_size(ctx.mode))?;
        let direct = files.first().is_none_or(|f| direct_works(f));
        let counters = |n: usize| SharedCounters::new(n.max(1));
        let w = IoWorkload {
            budget: super::budget_note(
                ctx.mode,
                &format!(
                    "a program of {target} s of work beside readers of {} MiB files",
                    file_size(ctx.mode) >> 20
                ),
            ),
            shared: shared.clone(),
            id: self.id.clone(),
            readers: self.readers,
            work,
            files: files
                .iter()
                .map(|f| CString::new(f.as_os_str().as_bytes()).expect("no NUL in a path"))
                .collect(),
            direct,
            counters: counters(self.readers)?,
            samples: Vec::new(),
            base_key: format!("{key}.alone"),
            meter,
            driver: None,
        };
        if self.readers != 0 {
            // Ratio alone needs the program's user time without readers: measure it now if
            // the load.iointerference.0 row has not.
            remembered(&shared, &w.base_key, || {
                let alone = IoWorkload {
                    budget: String::new(),
                    shared: shared.clone(),
                    id: self.id.clone(),
                    readers: 0,
                    work,
                    files: Vec::new(),
                    direct,
                    counters: counters(1)?,
                    samples: Vec::new(),
                    base_key: String::new(),
                    meter,
                    driver: None,
                };
                let users: Result<Vec<f64>> = (0..3).map(|_| Ok(alone.once()?.0.user_s)).collect();
                Ok(median(&users?))
            })?;
        }
        Ok(Box::new(w))
    }
}

/// The readers' files under `dir`, `size` bytes of varied data each, written by a forked
/// child (the writing is a second of system time in full mode, which in the driver would
/// be its own load beside the program it measures), flushed to the device and dropped
/// from the page cache.
fn write_files(dir: &Path, count: usize, size: usize) -> Result<Vec<PathBuf>> {
    let paths: Vec<PathBuf> = (0..count)
        .map(|i| dir.join(format!("reader{i}.dat")))
        .collect();
    let c_paths: Vec<CString> = paths
        .iter()
        .map(|p| CString::new(p.as_os_str().as_bytes()).expect("no NUL in a path"))
        .collect();
    let mut block = vec![0u8; REQUEST];
    if count > 0 {
        let child = Child::fork(None, || write_in_child(&c_paths, &mut block, size))?;
        child
            .finish("writing the readers' files")
            .with_context(|| format!("cannot write the readers' files in {}", dir.display()))?;
    }
    Ok(paths)
}

/// The body of the writing child: 0, or 5 when a file cannot be created, 6 when a write or
/// the flush fails. Only system calls on memory the parent gave it (no allocation).
fn write_in_child(paths: &[CString], block: &mut [u8], size: usize) -> i32 {
    for (i, path) in paths.iter().enumerate() {
        for (b, byte) in block.iter_mut().enumerate() {
            *byte = (b * 31 + i * 7) as u8;
        }
        // SAFETY: plain system calls on a path and a buffer this child holds.
        unsafe {
            let fd = libc::open(
                path.as_ptr(),
                libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC,
                0o600,
            );
            if fd < 0 {
                return 5;
            }
            for _ in 0..size / block.len() {
                let n = libc::write(fd, block.as_ptr() as *const libc::c_void, block.len());
                if n != block.len() as isize {
                    return 6;
                }
            }
            if libc::fsync(fd) != 0 {
                return 6;
            }
            libc::posix_fadvise(fd, 0, 0, libc::POSIX_FADV_DONTNEED);
            libc::close(fd);
        }
    }
    0
}

fn direct_works(path: &Path) -> bool {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECT)
        .open(path)
        .is_ok()
}

/// A reader child: read `path` sequentially forever, counting bytes. No allocation (the
/// parent may have threads): the buffer is an mmap, page-aligned as O_DIRECT wants.
fn reader(path: &CString, direct: bool, counter: &AtomicU64) -> i32 {
    let flags = libc::O_RDONLY | if direct { libc::O_DIRECT } else { 0 };
    // SAFETY: plain system calls on memory and descriptors this child owns.
    unsafe {
        let fd = libc::open(path.as_ptr(), flags);
        if fd < 0 {
            return 5;
        }
        let buf = libc::mmap(
            std::ptr::null_mut(),
            REQUEST,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        if buf == libc::MAP_FAILED {
            return 6;
        }
        loop {
            let n = libc::read(fd, buf, REQUEST);
            if n < 0 {
                return 7;
            }
            if n == 0 {
                if !direct {
                    libc::posix_fadvise(fd, 0, 0, libc::POSIX_FADV_DONTNEED);
                }
                libc::lseek(fd, 0, libc::SEEK_SET);
                continue;
            }
            counter.fetch_add(n as u64, Ordering::Relaxed);
        }
    }
}

struct IoWorkload {
    /// The note saying what time the row was given (empty for the baseline's).
    budget: String,
    /// The run's load state: baselines and the knee's points.
    shared: Shared<LoadState>,
    id: String,
    readers: usize,
    work: Work,
    files: Vec<CString>,
    direct: bool,
    counters: SharedCounters,
    /// Per operation: the compute child, and the bytes the readers read meanwhile.
    samples: Vec<(Reaped, u64)>,
    base_key: String,
    /// Started with the row's set-up; read once the last run is reaped.
    meter: DriverMeter,
    driver: Option<DriverCpu>,
}

impl IoWorkload {
    /// One operation: readers, then the compute child; its accounting and the bytes read.
    fn once(&self) -> Result<(Reaped, u64)> {
        let mut readers = Children::new();
        for (i, path) in self.files.iter().enumerate() {
            let counter = self.counters.get(i);
            let direct = self.direct;
            readers.fork_with(i, move || reader(path, direct, counter))?;
        }
        if self.readers > 0 {
            std::thread::sleep(Duration::from_millis(20));
        }
        let before = self.counters.total();
        let mut compute = Children::new();
        let work = self.work;
        compute.fork_with(0, move || work.run_in_child())?;
        let mut ticker = Ticker::new(&self.id);
        let r = loop {
            if let Some(r) = compute.wait_next(Instant::now() + Duration::from_secs(1))? {
                break r;
            }
            ticker.tick(0, 1, "runs");
        };
        let bytes = self.counters.total() - before;
        if let Some(dead) = readers.wait_next(Instant::now())? {
            bail!(
                "reader {} stopped by itself ({}; 5: open, 7: read failed)",
                dead.tag + 1,
                dead.exit
            );
        }
        drop(readers);
        if !r.exit.success() {
            bail!(
                "the compute program ended with {} (3: wrong checksum)",
                r.exit
            );
        }
        Ok((r, bytes))
    }
}

impl Workload for IoWorkload {
    fn run(&mut self, n: u64) -> Result<()> {
        for _ in 0..n {
            let s = self.once()?;
            self.samples.push(s);
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<()> {
        self.driver = Some(driver_cpu(&self.meter));
        Ok(())
    }

    fn notes(&self) -> Vec<String> {
        std::iter::once(self.budget.clone())
            .filter(|b| !b.is_empty())
            .chain(self.driver.iter().map(DriverCpu::note))
            .collect()
    }

    fn details(&mut self) -> Option<Details> {
        if self.samples.is_empty() {
            return None;
        }
        let over_runs = |f: &dyn Fn(&(Reaped, u64)) -> f64| {
            median(&self.samples.iter().map(f).collect::<Vec<_>>())
        };
        let user = over_runs(&|s| s.0.user_s);
        if self.readers == 0 {
            lock(&self.shared).set(&self.base_key, user);
        }
        let alone = lock(&self.shared).get(&self.base_key);
        Some(Details::of(&load::IoInterference {
            readers: self.readers,
            user_s: user,
            system_s: over_runs(&|s| s.0.system_s),
            real_s: over_runs(&|s| s.0.real_s),
            alone_user_s: alone,
            ratio_alone: alone.map(|a| a / user),
            bytes_per_us: over_runs(&|(r, b)| *b as f64 / (r.real_s * 1e6)),
            cache: if self.readers == 0 {
                "no readers"
            } else if self.direct {
                "O_DIRECT: page cache bypassed"
            } else {
                "O_DIRECT refused by the file system: buffered reads, fadvise(DONTNEED) each pass"
            }
            .into(),
            per_run_user_sys_real_bytes: self
                .samples
                .iter()
                .map(|(r, b)| (r.user_s, r.system_s, r.real_s, *b))
                .collect(),
            driver: self.driver,
        }))
    }
}
