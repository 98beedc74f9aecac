//! §5 of the catalogue, second half: the file system's name space (seed 001 §3.2.2 "the
//! single most expensive function performed by the kernel is path name translation", and
//! §4.1.1's name cache, checked with `ls -l` on a 600-file directory), with creating and
//! deleting small files.
//!
//! # Timing model
//! One operation is one system call (or, for `fs.lsl`, one whole listing), on files and
//! directories made beforehand in the row's scratch directory; every call's result is
//! checked. Paths are relative to a descriptor of the scratch directory, so a path of D
//! components costs D translations whatever `--dir` is.
//!
//! # Cache states (001 Tables 4, 9 and 10: namei before and after its caches)
//! Linux has one dentry cache where 4.3BSD had a per-process and a system-wide one, and
//! three of its states can be made from user space. `fs.namei.D` is warm: every component
//! is a cached dentry, the cost §4.1.1's caches were built to reach. `fs.namei.neg.D`
//! looks up a name that does not exist below D − 1 cached directories: after the first
//! miss the kernel keeps a negative dentry, and each lookup is answered from it.
//! `fs.namei.cold.D` drops the dentry and inode caches (`2` into
//! `/proc/sys/vm/drop_caches`, root only) before each sample of a single lookup: every
//! component is looked up in its directory again and its inode read again — from the
//! page cache, which that write leaves alone, not from the disk. The drop is machine-wide
//! (every process's names are evicted), so the cold rows take few samples.

use std::ffi::CString;
use std::fs::File;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use anyhow::{bail, ensure, Context, Result};

use super::io::ops::{Op, OpWorkload};
use super::io::space::ensure_room;
use crate::harness::contract::{Batch, Benchmark, Ctx, Plan, Skip, Workload};
use crate::harness::{interrupt, interrupt::Interrupted};
use crate::model::details::io::{self, DentryState, DentryStates};
use crate::model::{Mode, Source};

const NAMEI: Source = Source::seed("001", "§3.2.2 path name translation");
const NAMEI_CACHES: Source =
    Source::seed("001", "Tables 4, 9, 10: namei before and after its caches");
const LSL: Source = Source::seed("001", "§4.1.1 ls -l on a directory containing 600 files");
const CREATE: Source = Source::Modern("catalogue §5: create and delete small files");

/// Bytes written into each file `fs.create` makes and `fs.unlink` removes.
pub const SMALL_FILE: usize = 1024;
/// Files created or removed per sample: few enough that quick mode stays quick when
/// other work keeps the journal busy (a create then costs milliseconds, not microseconds).
fn files_per_sample(mode: Mode) -> u64 {
    if mode == Mode::Quick {
        200
    } else {
        500
    }
}
/// Entries of `fs.lsl`'s directory (001 §4.1.1).
pub const LSL_FILES: usize = 600;
/// The name §3.2.2 translates: /tmp/tmp1234, with /tmp a symbolic link to /usr/tmp.
const SEED_NAME: &str = "tmp1234";
/// The name the negative rows look up beside it, which is never created.
const MISSING_NAME: &str = "tmp1235";
/// Writing `2` here evicts the dentry and inode caches (not the page cache).
const DROP_CACHES: &str = "/proc/sys/vm/drop_caches";
const DENTRY_STATE: &str = "/proc/sys/fs/dentry-state";

/// The family's section of `docs/benchmarks.md`.
#[linkme::distributed_slice(crate::model::catalogue::SECTIONS)]
fn section() -> crate::model::catalogue::Section {
    crate::model::catalogue::Section {
        order: 100,
        family: "fs",
        heading: "`fs` — the file system's names",
        seeds: "Seed 001 §3.2.2 and §4.1.1: name translation and `ls -l` of a 600-file directory.",
    }
}

/// The family's place in the catalogue: registered here, gathered by
/// [`crate::bench::Registry`].
#[linkme::distributed_slice(crate::bench::FAMILIES)]
fn family() -> crate::bench::Family {
    crate::bench::Family::rows("fs", 130, |_| all())
}

pub fn all() -> Vec<Benchmark> {
    rows()
}

macro_rules! namei_row {
    ($d:literal) => {
        Benchmark::new(
            concat!("fs.namei.", $d),
            concat!("stat a path of ", $d, " components (dentry cache warm)"),
            NAMEI,
            |ctx| namei(ctx, $d, Lookup::Warm),
        )
    };
}

macro_rules! negative_row {
    ($d:literal) => {
        Benchmark::new(
            concat!("fs.namei.neg.", $d),
            concat!(
                "stat a path of ",
                $d,
                " components whose last does not exist (negative dentry)"
            ),
            NAMEI_CACHES,
            |ctx| namei(ctx, $d, Lookup::Negative),
        )
    };
}

macro_rules! cold_row {
    ($d:literal) => {
        Benchmark::new(
            concat!("fs.namei.cold.", $d),
            concat!(
                "stat a path of ",
                $d,
                " components after dropping the dentry and inode caches"
            ),
            NAMEI_CACHES,
            |ctx| namei(ctx, $d, Lookup::Cold),
        )
        .root_only("evicting the dentry cache writes /proc/sys/vm/drop_caches")
        .with_plan(cold_plan)
    };
}

pub fn rows() -> Vec<Benchmark> {
    vec![
        Benchmark::new(
            "fs.create",
            "create a new file, write 1 KiB into it, close it",
            CREATE,
            create,
        )
        .with_plan(files_plan),
        Benchmark::new("fs.unlink", "delete a 1 KiB file", CREATE, unlink).with_plan(files_plan),
        namei_row!(1),
        namei_row!(2),
        namei_row!(4),
        namei_row!(8),
        namei_row!(16),
        negative_row!(1),
        negative_row!(2),
        negative_row!(4),
        negative_row!(8),
        negative_row!(16),
        cold_row!(1),
        cold_row!(2),
        cold_row!(4),
        cold_row!(8),
        Benchmark::new(
            "fs.namei.symlink",
            "stat tmp/tmp1234 with tmp a symbolic link to usr/tmp (compare fs.namei.2)",
            NAMEI,
            symlink,
        ),
        Benchmark::new(
            "fs.lsl",
            "list a 600-file directory and lstat every entry (ls -l)",
            LSL,
            lsl,
        ),
    ]
}

fn files_plan(mode: Mode) -> Plan {
    Plan::fixed(files_per_sample(mode), samples_of(mode))
}

/// One lookup per sample, each after a drop of the caches (a second lookup in the same
/// sample would be warm). A drop is machine-wide and takes up to a few tenths of a second
/// when the cache is large, so few samples: 5 in quick mode, 15 in full. Nothing is culled
/// or replaced: a cold lookup may wait for its inode, and a sample is not repeatable.
fn cold_plan(mode: Mode) -> Plan {
    Plan {
        batch: Batch::Fixed(1),
        samples: if mode == Mode::Quick { 5 } else { 15 },
        target: std::time::Duration::ZERO,
        warmup: false,
        subtract_loop: false,
        resample: false,
        cull: false,
    }
}

fn samples_of(mode: Mode) -> usize {
    if mode == Mode::Quick {
        11
    } else {
        31
    }
}

/// Files one row makes up front: the warm-up batch, the samples and the percentile pass
/// of `plan`, the plan this process samples with (in a quick run across three processes a
/// third of one process's samples; making files for all of them in each process tripled
/// the row's set-up). More are made between samples when perturbed samples are replaced.
fn files_needed(plan: &Plan, pass: u64) -> u64 {
    files_per_batch(plan) * (plan.warmup as u64 + plan.samples as u64) + pass
}

/// The most files one row can make: the harness takes up to three times the planned
/// samples when it replaces perturbed ones.
fn files_at_most(plan: &Plan, pass: u64) -> u64 {
    let samples = if plan.resample {
        3 * plan.samples
    } else {
        plan.samples
    };
    files_per_batch(plan) * (plan.warmup as u64 + samples as u64) + pass
}

/// Operations in one batch of `plan` (a calibrated batch is never planned here: one).
fn files_per_batch(plan: &Plan) -> u64 {
    match plan.batch {
        Batch::Fixed(k) => k,
        Batch::Calibrated => 1,
    }
}

/// The plan `ctx`'s process samples a files row with.
fn files_plan_of(ctx: &Ctx) -> Plan {
    ctx.plan.unwrap_or_else(|| files_plan(ctx.mode))
}
const PASS_FILES: u64 = 500;

fn c_string(s: impl AsRef<[u8]>) -> Result<CString> {
    CString::new(s.as_ref()).context("name contains a NUL byte")
}

/// A directory descriptor for the *at() calls.
fn open_dir(path: &Path) -> Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_CLOEXEC)
        .open(path)
        .with_context(|| format!("cannot open {}", path.display()))
}

fn last_error(what: &str) -> anyhow::Error {
    let e = std::io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::ENOSPC) => anyhow::anyhow!("{what}: the file system is full (ENOSPC)"),
        _ => anyhow::anyhow!("{what}: {e}"),
    }
}

/// Space a small file takes: one block of the file system at least.
fn small_file_room(n: u64) -> u64 {
    n * 4096
}

// ---------------------------------------------------------------------------------------
// fs.create / fs.unlink. One operation: openat(O_CREAT|O_EXCL) + write 1 KiB + close, or
// one unlinkat. Names are made before sampling, so no formatting is timed.

struct Files {
    dir: File,
    path: PathBuf,
    names: Vec<CString>,
    /// Names[..made] exist; names[removed..made] are still there.
    made: usize,
    removed: usize,
    data: [u8; SMALL_FILE],
    create: bool,
}

impl Files {
    fn new(ctx: &Ctx, create: bool) -> Result<Files> {
        let plan = files_plan_of(ctx);
        let pass = ctx.percentile_ops(PASS_FILES);
        let n = files_needed(&plan, pass);
        ensure_room(ctx.scratch, small_file_room(files_at_most(&plan, pass)))?;
        let path = ctx.scratch.join("files");
        std::fs::create_dir(&path).with_context(|| format!("cannot create {}", path.display()))?;
        let mut f = Files {
            dir: open_dir(&path)?,
            path,
            names: Vec::new(),
            made: 0,
            removed: 0,
            data: [b'x'; SMALL_FILE],
            create,
        };
        f.add_names(n)?;
        if !create {
            f.make(n)?;
        }
        Ok(f)
    }

    fn add_names(&mut self, n: u64) -> Result<()> {
        let start = self.names.len();
        for i in start..start + n as usize {
            self.names.push(c_string(format!("f{i:06}"))?);
        }
        Ok(())
    }

    /// Create the next `n` named files (untimed for unlink; timed one by one for create).
    fn make(&mut self, n: u64) -> Result<()> {
        for i in 0..n {
            if i % 256 == 0 && interrupt::requested() {
                return Err(Interrupted.into());
            }
            self.create_one()?;
        }
        Ok(())
    }

    fn create_one(&mut self) -> Result<()> {
        if self.made == self.names.len() {
            bail!("out of prepared names: the plan asked for more files than prepared");
        }
        let name = &self.names[self.made];
        // SAFETY: name is NUL-terminated; the descriptor is closed below.
        let fd = unsafe {
            libc::openat(
                self.dir.as_raw_fd(),
                name.as_ptr(),
                libc::O_CREAT | libc::O_EXCL | libc::O_WRONLY | libc::O_CLOEXEC,
                0o644,
            )
        };
        if fd < 0 {
            return Err(last_error("create"));
        }
        // SAFETY: the buffer is valid for the length given; the descriptor is ours.
        let n = unsafe { libc::write(fd, self.data.as_ptr().cast(), SMALL_FILE) };
        let err = (n != SMALL_FILE as isize).then(|| last_error("write"));
        // SAFETY: closes a descriptor this code opened and owns.
        unsafe { libc::close(fd) };
        if let Some(e) = err {
            return Err(e);
        }
        self.made += 1;
        Ok(())
    }

    fn unlink_one(&mut self) -> Result<()> {
        if self.removed == self.made {
            bail!("no file left to delete: the plan asked for more than prepared");
        }
        let name = &self.names[self.removed];
        // SAFETY: name is NUL-terminated.
        if unsafe { libc::unlinkat(self.dir.as_raw_fd(), name.as_ptr(), 0) } != 0 {
            return Err(last_error("unlink"));
        }
        self.removed += 1;
        Ok(())
    }
}

impl Drop for Files {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

impl Op for Files {
    fn op(&mut self) -> Result<()> {
        if self.create {
            self.create_one()
        } else {
            self.unlink_one()
        }
    }

    fn before_pass(&mut self, n: u64) -> Result<()> {
        if self.create && self.names.len() - self.made < n as usize {
            self.add_names(n)?;
        }
        if !self.create && self.made - self.removed < n as usize {
            self.add_names(n)?;
            self.make(n)?;
        }
        Ok(())
    }

    /// Count the directory: what was created must be there, what was removed must not.
    fn finish(&mut self) -> Result<()> {
        let present = std::fs::read_dir(&self.path)?.count();
        let expect = self.made - self.removed;
        ensure!(
            present == expect,
            "{present} files in the directory, {expect} expected"
        );
        Ok(())
    }

    fn notes(&self) -> Vec<String> {
        vec!["page cache and dentry cache (nothing bypassed); fsync: none".into()]
    }

    type Facts = io::Files;
    fn facts(&mut self) -> Result<io::Files> {
        Ok(io::Files {
            through: io::Through {
                cache: "page cache and dentry cache (nothing bypassed)".into(),
                fsync: Some("none".into()),
            },
            fs_type: crate::harness::sysinfo::workdir_info(&self.path).fs_type,
            file_bytes: SMALL_FILE,
            files_created: self.made,
            files_removed: self.removed,
            files_checked: std::fs::read_dir(&self.path)?.count(),
        })
    }
}

fn create(ctx: &Ctx) -> Result<Box<dyn Workload>> {
    Ok(OpWorkload::boxed(ctx, Files::new(ctx, true)?, PASS_FILES))
}

fn unlink(ctx: &Ctx) -> Result<Box<dyn Workload>> {
    Ok(OpWorkload::boxed(ctx, Files::new(ctx, false)?, PASS_FILES))
}

// ---------------------------------------------------------------------------------------
// fs.namei.D, fs.namei.neg.D, fs.namei.cold.D and fs.namei.symlink. One operation:
// fstatat(dir, path, 0), following links; the target is a regular file, checked, or for
// the negative rows a name that must not exist (ENOENT, checked).

/// Which cache state a lookup meets (see the module's documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lookup {
    Warm,
    Negative,
    Cold,
}

impl Lookup {
    fn name(self) -> &'static str {
        match self {
            Lookup::Warm => "warm",
            Lookup::Negative => "negative",
            Lookup::Cold => "cold",
        }
    }

    /// The cache line of the row's note and record.
    fn cache(self) -> &'static str {
        match self {
            Lookup::Warm => "dentry cache warm (nothing bypassed)",
            Lookup::Negative => {
                "negative dentry (the last name does not exist; the directories above it \
                 warm)"
            }
            Lookup::Cold => {
                "dentry and inode caches dropped before each lookup (machine-wide; the \
                 page cache kept)"
            }
        }
    }
}

struct Namei {
    dir: File,
    path: CString,
    shown: String,
    components: usize,
    translated: usize,
    via_link: bool,
    lookup: Lookup,
    /// dentry-state when the row was prepared (warm, negative) or before the first drop.
    dentry_before: Option<DentryState>,
    /// dentry-state right after the first drop (cold rows).
    dentry_after_drop: Option<DentryState>,
    drops: u64,
    st: libc::stat,
}

impl Namei {
    /// The negative rows' check: the lookup failed, and failed because the name is absent.
    fn expect_missing(&self, r: libc::c_int) -> Result<()> {
        if r == 0 {
            bail!(
                "stat {}: the name exists, but the row looks up a missing one",
                self.shown
            );
        }
        let e = std::io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::ENOENT) {
            bail!("stat {}: {e} (ENOENT expected)", self.shown);
        }
        Ok(())
    }

    fn expect_file(&self, r: libc::c_int) -> Result<()> {
        if r != 0 {
            return Err(last_error("stat"));
        }
        if self.st.st_mode & libc::S_IFMT != libc::S_IFREG {
            bail!(
                "stat {}: not the regular file made for the test",
                self.shown
            );
        }
        Ok(())
    }
}

impl Op for Namei {
    fn op(&mut self) -> Result<()> {
        // SAFETY: path is NUL-terminated; st is plain data.
        let r = unsafe { libc::fstatat(self.dir.as_raw_fd(), self.path.as_ptr(), &mut self.st, 0) };
        match self.lookup {
            Lookup::Negative => self.expect_missing(r),
            Lookup::Warm | Lookup::Cold => self.expect_file(r),
        }
    }

    /// The cold rows drop the caches before each sample (of one lookup).
    fn before_pass(&mut self, _n: u64) -> Result<()> {
        if self.lookup != Lookup::Cold {
            return Ok(());
        }
        let first = self.drops == 0;
        if first {
            self.dentry_before = dentry_state();
        }
        drop_dentries_and_inodes()?;
        self.drops += 1;
        if first {
            self.dentry_after_drop = dentry_state();
        }
        Ok(())
    }

    fn notes(&self) -> Vec<String> {
        vec![self.lookup.cache().into()]
    }

    type Facts = io::Namei;
    fn facts(&mut self) -> Result<io::Namei> {
        let (after, between) = match self.lookup {
            Lookup::Cold => (
                self.dentry_after_drop,
                "one drop of the dentry and inode caches",
            ),
            _ => (dentry_state(), "the row's samples"),
        };
        let dentry_state = self
            .dentry_before
            .zip(after)
            .map(|(before, after)| DentryStates {
                before,
                after,
                between: between.into(),
            });
        Ok(io::Namei {
            through: io::Through {
                cache: self.lookup.cache().into(),
                fsync: None,
            },
            path: self.shown.clone(),
            components: self.components,
            components_translated: self.translated,
            through_symlink: self.via_link,
            relative_to: "a descriptor of the scratch directory".into(),
            compare_with: self.via_link.then(|| "fs.namei.2".into()),
            cache_state: Some(self.lookup.name().into()),
            dentry_state,
            caches_dropped: (self.lookup == Lookup::Cold).then_some(self.drops),
        })
    }
}

/// The kernel's dentry counts now, if it reports them.
fn dentry_state() -> Option<DentryState> {
    let text = std::fs::read_to_string(DENTRY_STATE).ok()?;
    DentryState::parse(&text, kernel_major()?).ok()
}

/// The running kernel's major version, from its release ("6.18.44-…" → 6).
fn kernel_major() -> Option<u32> {
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").ok()?;
    release.split('.').next()?.trim().parse().ok()
}

fn drop_dentries_and_inodes() -> Result<()> {
    std::fs::write(DROP_CACHES, b"2\n").with_context(|| format!("cannot write {DROP_CACHES}"))
}

/// Why the cold rows cannot run here, if they cannot: a file system that keeps its names
/// only in the dentry cache, or a kernel setting this process may not write.
fn cold_refused(scratch: &Path) -> Option<Skip> {
    let work = crate::harness::sysinfo::workdir_info(scratch);
    if work.memory_backed {
        return Some(Skip::new(format!(
            "the scratch directory is on {}, whose names exist only in the dentry cache: \
             they cannot be evicted (use --dir on a disk)",
            work.fs_type
        )));
    }
    let writable = std::fs::OpenOptions::new().write(true).open(DROP_CACHES);
    writable.err().map(|e| {
        Skip::new(format!(
            "cannot write {DROP_CACHES} ({e}): the caches cannot be dropped from here"
        ))
    })
}

/// Flush the scratch file system's dirty inodes, so that a drop can evict them.
fn sync_file_system(dir: &File) -> Result<()> {
    // SAFETY: syncfs takes a descriptor this code owns.
    if unsafe { libc::syncfs(dir.as_raw_fd()) } != 0 {
        return Err(last_error("syncfs"));
    }
    Ok(())
}

fn namei(ctx: &Ctx, depth: usize, lookup: Lookup) -> Result<Box<dyn Workload>> {
    if lookup == Lookup::Cold {
        if let Some(skip) = cold_refused(ctx.scratch) {
            return Err(skip.into());
        }
    }
    ensure_room(ctx.scratch, small_file_room(depth as u64))?;
    let mut rel = PathBuf::new();
    for _ in 1..depth {
        rel.push("sub");
    }
    std::fs::create_dir_all(ctx.scratch.join(&rel))?;
    std::fs::write(ctx.scratch.join(&rel).join(SEED_NAME), b"")?;
    rel.push(match lookup {
        Lookup::Negative => MISSING_NAME,
        Lookup::Warm | Lookup::Cold => SEED_NAME,
    });
    let path = Target {
        rel: &rel,
        components: depth,
        translated: depth,
        via_link: false,
    };
    namei_workload(ctx, path, lookup)
}

/// 001 §3.2.2: "/tmp/tmp1234 … now requires four component translations plus the cost of
/// reading the contents of the symbolic link".
fn symlink(ctx: &Ctx) -> Result<Box<dyn Workload>> {
    ensure_room(ctx.scratch, small_file_room(4))?;
    let real = ctx.scratch.join("usr/tmp");
    std::fs::create_dir_all(&real)?;
    std::fs::write(real.join(SEED_NAME), b"")?;
    std::os::unix::fs::symlink("usr/tmp", ctx.scratch.join("tmp"))?;
    let rel = Path::new("tmp").join(SEED_NAME);
    let path = Target {
        rel: &rel,
        components: 2,
        translated: 4,
        via_link: true,
    };
    namei_workload(ctx, path, Lookup::Warm)
}

/// The path a namei row looks up, relative to the scratch directory.
struct Target<'a> {
    rel: &'a Path,
    components: usize,
    translated: usize,
    via_link: bool,
}

fn namei_workload(ctx: &Ctx, path: Target, lookup: Lookup) -> Result<Box<dyn Workload>> {
    let dir = open_dir(ctx.scratch)?;
    let mut op = Namei {
        path: c_string(path.rel.as_os_str().as_bytes())?,
        shown: path.rel.display().to_string(),
        components: path.components,
        translated: path.translated,
        via_link: path.via_link,
        lookup,
        dentry_before: None,
        dentry_after_drop: None,
        drops: 0,
        // SAFETY: plain data.
        st: unsafe { std::mem::zeroed() },
        dir,
    };
    // The first lookup checks the path and, for the negative rows, makes the negative
    // dentry the samples then find.
    op.op()?;
    if lookup == Lookup::Cold {
        sync_file_system(&op.dir)?;
    } else {
        op.dentry_before = dentry_state();
    }
    // A percentile pass of cold lookups would be warm after its first: none.
    let pass = if lookup == Lookup::Cold { 0 } else { 2000 };
    Ok(OpWorkload::boxed(ctx, op, pass))
}

// ---------------------------------------------------------------------------------------
// fs.lsl — 001 §4.1.1. One operation: read the 600-entry directory and lstat every entry
// by name relative to it (what `ls -l` does in the kernel, without the formatting).

struct Lsl {
    path: PathBuf,
    listings: u64,
}

impl Op for Lsl {
    fn op(&mut self) -> Result<()> {
        let mut n = 0usize;
        let mut bytes = 0u64;
        for entry in std::fs::read_dir(&self.path)? {
            let m = entry?.metadata()?;
            bytes += m.len();
            n += 1;
        }
        ensure!(n == LSL_FILES, "listed {n} entries, {LSL_FILES} expected");
        std::hint::black_box(bytes);
        self.listings += 1;
        Ok(())
    }

    fn notes(&self) -> Vec<String> {
        vec!["dentry and inode caches warm (nothing bypassed)".into()]
    }

    type Facts = io::Lsl;
    fn facts(&mut self) -> Result<io::Lsl> {
        Ok(io::Lsl {
            through: io::Through {
                cache: "dentry and inode caches warm (nothing bypassed)".into(),
                fsync: None,
            },
            fs_type: crate::harness::sysinfo::workdir_info(&self.path).fs_type,
            entries: LSL_FILES,
            listings: self.listings,
            per_entry: "median / 600".into(),
        })
    }
}

fn lsl(ctx: &Ctx) -> Result<Box<dyn Workload>> {
    ensure_room(ctx.scratch, small_file_room(LSL_FILES as u64))?;
    let path = ctx.scratch.join("dir600");
    std::fs::create_dir(&path)?;
    for i in 0..LSL_FILES {
        if interrupt::requested() {
            return Err(Interrupted.into());
        }
        std::fs::write(path.join(format!("file{i:03}")), b"")?;
    }
    Ok(OpWorkload::boxed(ctx, Lsl { path, listings: 0 }, 100))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::micro::testing::with_kept_ctx;
    use crate::harness::contract::StandaloneCtx;
    use crate::model::RunOptions;

    #[test]
    fn unlink_notices_a_file_that_vanished_behind_its_back() {
        let (w, dir) = with_kept_ctx(unlink);
        let mut w = w.unwrap();
        w.run(10).unwrap();
        w.finish().unwrap();
        std::fs::remove_file(dir.path().join("files/f000100")).unwrap();
        assert!(w.finish().is_err());
        drop(w);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    /// Files `fs.unlink`'s set-up left in its directory, prepared by a process of a quick
    /// run across `invocations` processes (`first` or a later one).
    fn files_made_for(invocations: usize, first: bool) -> usize {
        let options = RunOptions {
            invocations: Some(invocations),
            ..RunOptions::default()
        };
        let row = rows().into_iter().find(|b| b.id() == "fs.unlink").unwrap();
        let plan = crate::harness::invocations::plan_for(&row, &options);
        let standalone = StandaloneCtx::new(options).unwrap();
        let ctx = Ctx {
            plan: Some(plan),
            first_process: first,
            ..standalone.ctx()
        };
        let w = unlink(&ctx).unwrap();
        let made = std::fs::read_dir(ctx.scratch.join("files"))
            .unwrap()
            .count();
        drop(w);
        made
    }

    #[test]
    fn files_are_made_for_the_samples_this_process_takes_not_for_a_whole_quick_run() {
        assert_eq!(RunOptions::default().mode, Mode::Quick);
        // One process: the warm-up batch, 11 samples of 200, the 500-file percentile pass.
        assert_eq!(files_made_for(1, true), 200 * (1 + 11) + 500);
        // Three processes share the 11 samples: 4 each; the pass in the first only.
        assert_eq!(files_made_for(3, true), 200 * (1 + 4) + 500);
        assert_eq!(files_made_for(3, false), 200 * (1 + 4));
        // Outside a run: the row's own plan.
        let (w, dir) = with_kept_ctx(unlink);
        assert_eq!(
            std::fs::read_dir(dir.path().join("files")).unwrap().count(),
            200 * (1 + 11) + 500
        );
        drop(w);
    }

    #[test]
    fn a_path_of_d_components_has_d_components() {
        let (w, _dir) = with_kept_ctx(|ctx| namei(ctx, 4, Lookup::Warm));
        let d: io::OpRecord<io::Namei> = w.unwrap().details().unwrap().read().unwrap();
        assert_eq!(d.facts.path, "sub/sub/sub/tmp1234");
        assert_eq!(d.facts.components, 4);
    }

    #[test]
    fn a_negative_lookup_fails_the_row_once_the_name_exists() {
        let (w, dir) = with_kept_ctx(|ctx| namei(ctx, 2, Lookup::Negative));
        let mut w = w.unwrap();
        w.run(5).unwrap();
        let d: io::OpRecord<io::Namei> = w.details().unwrap().read().unwrap();
        assert_eq!(d.facts.path, "sub/tmp1235");
        assert_eq!(d.facts.cache_state.as_deref(), Some("negative"));
        assert_eq!(d.facts.caches_dropped, None);
        std::fs::write(dir.path().join("sub/tmp1235"), b"").unwrap();
        let e = w.run(1).unwrap_err().to_string();
        assert!(e.contains("the name exists"), "{e}");
    }

    #[test]
    fn a_negative_lookup_that_fails_for_another_reason_fails_the_row() {
        let (w, dir) = with_kept_ctx(|ctx| namei(ctx, 3, Lookup::Negative));
        let mut w = w.unwrap();
        // A file where a directory of the path should be: ENOTDIR, not ENOENT.
        std::fs::remove_dir_all(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub"), b"").unwrap();
        let e = w.run(1).unwrap_err().to_string();
        assert!(e.contains("ENOENT expected"), "{e}");
    }

    #[test]
    fn the_cold_rows_refuse_a_memory_backed_directory() {
        let shm = Path::new("/dev/shm");
        if !crate::harness::sysinfo::workdir_info(shm).memory_backed {
            eprintln!("/dev/shm is not memory-backed here: nothing to check");
            return;
        }
        let why = cold_refused(shm).expect("refused").to_string();
        assert!(why.contains("cannot be evicted"), "{why}");
    }

    #[test]
    fn the_cold_plan_times_one_lookup_per_sample_and_few_samples() {
        for mode in [Mode::Quick, Mode::Full] {
            let p = cold_plan(mode);
            assert_eq!(p.batch, Batch::Fixed(1));
            assert!(!p.warmup && !p.resample, "{p:?}");
            assert!((3..=15).contains(&p.samples), "{p:?}");
        }
    }

    #[test]
    fn the_symlink_row_goes_through_a_link() {
        let (w, dir) = with_kept_ctx(symlink);
        let mut w = w.unwrap();
        let link = std::fs::symlink_metadata(dir.path().join("tmp")).unwrap();
        assert!(link.file_type().is_symlink());
        w.run(5).unwrap();
        std::fs::remove_file(dir.path().join("usr/tmp/tmp1234")).unwrap();
        assert!(w.run(1).is_err(), "a dangling path must fail the row");
    }
}
