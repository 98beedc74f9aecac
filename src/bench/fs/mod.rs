//! §5 of the catalogue, second half: the file system's name space (seed 001 §3.2.2 "the
//! single most expensive function performed by the kernel is path name translation", and
//! §4.1.1's name cache, checked with `ls -l` on a 600-file directory), with creating and
//! deleting small files.
//!
//! # Timing model
//! One operation is one system call (or, for `fs.lsl`, one whole listing), on files and
//! directories made beforehand in the row's scratch directory; every call's result is
//! checked. Paths are relative to a descriptor of the scratch directory, so a path of D
//! components costs D translations whatever `--dir` is. The kernel's dentry cache is warm:
//! these are the costs §4.1.1's cache was built to cut, as today's kernel has them.

use std::ffi::CString;
use std::fs::File;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use anyhow::{bail, ensure, Context, Result};

use super::io::ops::{Op, OpWorkload};
use super::io::space::ensure_room;
use crate::harness::contract::{Benchmark, Ctx, Plan, Workload};
use crate::harness::{interrupt, interrupt::Interrupted};
use crate::model::details::io;
use crate::model::{Mode, Source};

const NAMEI: Source = Source::seed("001", "§3.2.2 path name translation");
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

pub fn all() -> Vec<Benchmark> {
    rows()
}

macro_rules! namei_row {
    ($d:literal) => {
        Benchmark::new(
            concat!("fs.namei.", $d),
            concat!("stat a path of ", $d, " components (dentry cache warm)"),
            NAMEI,
            |ctx| namei(ctx, $d),
        )
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

fn samples_of(mode: Mode) -> usize {
    if mode == Mode::Quick {
        11
    } else {
        31
    }
}

/// Files one row makes up front: the warm-up batch, the samples, the percentile pass.
/// More are made between samples when perturbed samples are replaced.
fn files_needed(mode: Mode) -> u64 {
    files_per_sample(mode) * (samples_of(mode) as u64 + 1) + PASS_FILES
}

/// The most files one row can make: the harness takes up to three times the planned
/// samples when it replaces perturbed ones.
fn files_at_most(mode: Mode) -> u64 {
    files_per_sample(mode) * (3 * samples_of(mode) as u64 + 1) + PASS_FILES
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
        let n = files_needed(ctx.mode);
        ensure_room(ctx.scratch, small_file_room(files_at_most(ctx.mode)))?;
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
    Ok(OpWorkload::boxed(Files::new(ctx, true)?, PASS_FILES))
}

fn unlink(ctx: &Ctx) -> Result<Box<dyn Workload>> {
    Ok(OpWorkload::boxed(Files::new(ctx, false)?, PASS_FILES))
}

// ---------------------------------------------------------------------------------------
// fs.namei.D and fs.namei.symlink. One operation: fstatat(dir, path, 0), following links;
// the target is a regular file, checked.

struct Namei {
    dir: File,
    path: CString,
    shown: String,
    components: usize,
    translated: usize,
    via_link: bool,
    st: libc::stat,
}

impl Op for Namei {
    fn op(&mut self) -> Result<()> {
        // SAFETY: path is NUL-terminated; st is plain data.
        let r = unsafe { libc::fstatat(self.dir.as_raw_fd(), self.path.as_ptr(), &mut self.st, 0) };
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

    fn notes(&self) -> Vec<String> {
        vec!["dentry cache warm (nothing bypassed)".into()]
    }

    type Facts = io::Namei;
    fn facts(&mut self) -> Result<io::Namei> {
        Ok(io::Namei {
            through: io::Through {
                cache: "dentry cache warm (nothing bypassed)".into(),
                fsync: None,
            },
            path: self.shown.clone(),
            components: self.components,
            components_translated: self.translated,
            through_symlink: self.via_link,
            relative_to: "a descriptor of the scratch directory".into(),
            compare_with: self.via_link.then(|| "fs.namei.2".into()),
        })
    }
}

fn namei(ctx: &Ctx, depth: usize) -> Result<Box<dyn Workload>> {
    ensure_room(ctx.scratch, small_file_room(depth as u64))?;
    let mut rel = PathBuf::new();
    for _ in 1..depth {
        rel.push("sub");
    }
    std::fs::create_dir_all(ctx.scratch.join(&rel))?;
    rel.push(SEED_NAME);
    std::fs::write(ctx.scratch.join(&rel), b"")?;
    namei_workload(ctx.scratch, &rel, depth, depth, false)
}

/// 001 §3.2.2: "/tmp/tmp1234 … now requires four component translations plus the cost of
/// reading the contents of the symbolic link".
fn symlink(ctx: &Ctx) -> Result<Box<dyn Workload>> {
    ensure_room(ctx.scratch, small_file_room(4))?;
    let real = ctx.scratch.join("usr/tmp");
    std::fs::create_dir_all(&real)?;
    std::fs::write(real.join(SEED_NAME), b"")?;
    std::os::unix::fs::symlink("usr/tmp", ctx.scratch.join("tmp"))?;
    namei_workload(ctx.scratch, &Path::new("tmp").join(SEED_NAME), 2, 4, true)
}

fn namei_workload(
    scratch: &Path,
    rel: &Path,
    components: usize,
    translated: usize,
    via_link: bool,
) -> Result<Box<dyn Workload>> {
    let mut op = Namei {
        dir: open_dir(scratch)?,
        path: c_string(rel.as_os_str().as_bytes())?,
        shown: rel.display().to_string(),
        components,
        translated,
        via_link,
        // SAFETY: plain data.
        st: unsafe { std::mem::zeroed() },
    };
    op.op()?;
    Ok(OpWorkload::boxed(op, 2000))
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
    Ok(OpWorkload::boxed(Lsl { path, listings: 0 }, 100))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::contract::StandaloneCtx;
    use crate::model::RunOptions;

    fn with_ctx<T>(f: impl FnOnce(&Ctx) -> T) -> (T, StandaloneCtx) {
        let standalone = StandaloneCtx::new(RunOptions::default()).unwrap();
        (f(&standalone.ctx()), standalone)
    }

    #[test]
    fn unlink_notices_a_file_that_vanished_behind_its_back() {
        let (w, dir) = with_ctx(unlink);
        let mut w = w.unwrap();
        w.run(10).unwrap();
        w.finish().unwrap();
        std::fs::remove_file(dir.path().join("files/f000100")).unwrap();
        assert!(w.finish().is_err());
        drop(w);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_path_of_d_components_has_d_components() {
        let (w, _dir) = with_ctx(|ctx| namei(ctx, 4));
        let d: io::OpRecord<io::Namei> = w.unwrap().details().unwrap().read().unwrap();
        assert_eq!(d.facts.path, "sub/sub/sub/tmp1234");
        assert_eq!(d.facts.components, 4);
    }

    #[test]
    fn the_symlink_row_goes_through_a_link() {
        let (w, dir) = with_ctx(symlink);
        let mut w = w.unwrap();
        let link = std::fs::symlink_metadata(dir.path().join("tmp")).unwrap();
        assert!(link.file_type().is_symlink());
        w.run(5).unwrap();
        std::fs::remove_file(dir.path().join("usr/tmp/tmp1234")).unwrap();
        assert!(w.run(1).is_err(), "a dangling path must fail the row");
    }
}
