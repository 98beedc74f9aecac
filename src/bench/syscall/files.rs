//! Descriptors and paths: dup (002 Figure 4, tested there in groups of twelve because a
//! process could hold only 15 files), the PERQ note's file-status and open/close rows
//! (003 §3), and the one-byte read and write that are the cheapest I/O path.
//! Each workload owns its files: the closure holds them, so they close when it drops.

use std::ffi::CString;
use std::fs::File;
use std::hint::black_box;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::{fig, Calls, Convention};
use crate::harness::anchor::{Anchor, Parse};
use crate::harness::contract::{Benchmark, Ctx, Workload};
use crate::model::Source;

const PERQ_STAT: Source =
    Source::seed("003", "§3 C instructions (32 bits): file statistics (stat)");
const PERQ_OPEN: Source = Source::seed("003", "§3 C instructions (32 bits): open and close a file");

pub fn rows() -> Vec<Benchmark> {
    vec![
        Benchmark::new(
            "syscall.dup",
            "dup a descriptor and close the copy (one op = dup + close)",
            fig("Figure 4: dup"),
            |_| {
                let f = open("/dev/null")?;
                Ok(Calls::boxed("dup/close", Convention::Libc, move || {
                    // SAFETY: f is open for the closure's whole life.
                    let d = unsafe { libc::dup(black_box(f.as_raw_fd())) };
                    if d < 0 {
                        return -1;
                    }
                    // SAFETY: closes a descriptor this code opened and owns.
                    unsafe { libc::close(d) as i64 }
                }))
            },
        )
        .per("dup + close"),
        Benchmark::new(
            "syscall.stat",
            "stat a file by a three-component path in the scratch directory",
            PERQ_STAT,
            |ctx| {
                let path = c_path(&status_file(ctx)?)?;
                // SAFETY: stat is plain data; path is NUL-terminated.
                let mut st: libc::stat = unsafe { std::mem::zeroed() };
                // SAFETY: the path is NUL-terminated and the struct is valid to write.
                Ok(Calls::boxed("stat", Convention::Libc, move || unsafe {
                    libc::stat(black_box(path.as_ptr()), &mut st) as i64
                }))
            },
        )
        .per("stat of a file"),
        Benchmark::new("syscall.fstat", "fstat an open file", PERQ_STAT, |ctx| {
            let f = open(status_file(ctx)?)?;
            // SAFETY: plain C data, for which all-zero bytes are a valid value.
            let mut st: libc::stat = unsafe { std::mem::zeroed() };
            // SAFETY: the descriptor stays open in the closure and st is valid to write.
            Ok(Calls::boxed("fstat", Convention::Libc, move || unsafe {
                libc::fstat(black_box(f.as_raw_fd()), &mut st) as i64
            }))
        }),
        Benchmark::new(
            "syscall.open_close",
            "open a file read-only and close it (one op = open + close)",
            PERQ_OPEN,
            |ctx| {
                let path = c_path(&status_file(ctx)?)?;
                Ok(Calls::boxed("open/close", Convention::Libc, move || {
                    // SAFETY: path is NUL-terminated; the descriptor is closed at once.
                    let fd = unsafe {
                        libc::open(black_box(path.as_ptr()), libc::O_RDONLY | libc::O_CLOEXEC)
                    };
                    if fd < 0 {
                        return -1;
                    }
                    // SAFETY: closes a descriptor this code opened and owns.
                    unsafe { libc::close(fd) as i64 }
                }))
            },
        )
        .per("open and close of a file"),
        Benchmark::new(
            "syscall.read",
            "read 1 byte from /dev/zero",
            Source::Modern("the cheapest read: a device with no data to fetch"),
            |_| byte_loop("/dev/zero", false),
        )
        .anchor(Anchor::lmbench(
            "lmbench lat_syscall read",
            "lat_syscall",
            &["read"],
            Parse::LmbenchMicroseconds,
            "per 1-byte read of /dev/zero",
        )),
        Benchmark::new(
            "syscall.write",
            "write 1 byte to /dev/null",
            Source::Modern("the cheapest write: a device that discards"),
            |_| byte_loop("/dev/null", true),
        )
        .anchor(Anchor::lmbench(
            "lmbench lat_syscall write",
            "lat_syscall",
            &["write"],
            Parse::LmbenchMicroseconds,
            "per 1-byte write to /dev/null",
        )),
    ]
}

fn open(path: impl AsRef<Path>) -> Result<File> {
    let path = path.as_ref();
    std::fs::OpenOptions::new()
        .read(true)
        .write(path.starts_with("/dev/"))
        .open(path)
        .with_context(|| format!("cannot open {}", path.display()))
}

/// A small file at `scratch/a/b/status` (a path of a few components, as a user's would be).
fn status_file(ctx: &Ctx) -> Result<PathBuf> {
    let dir = ctx.scratch.join("a").join("b");
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let path = dir.join("status");
    std::fs::write(&path, b"timeshare\n")
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

fn c_path(path: &Path) -> Result<CString> {
    Ok(CString::new(path.as_os_str().as_bytes())?)
}

fn byte_loop(device: &'static str, write: bool) -> Result<Box<dyn Workload>> {
    let f = open(device)?;
    let mut byte = [0u8; 1];
    Ok(Calls::boxed(
        if write { "write" } else { "read" },
        Convention::Libc,
        move || {
            let fd = black_box(f.as_raw_fd());
            // SAFETY: byte is a valid one-byte buffer.
            let n = unsafe {
                if write {
                    libc::write(fd, byte.as_ptr().cast(), 1)
                } else {
                    libc::read(fd, byte.as_mut_ptr().cast(), 1)
                }
            };
            // A short transfer is a failure too: the figure would not be for one byte.
            if n == 1 {
                0
            } else {
                -1
            }
        },
    ))
}
