//! Room on the file system, checked before anything is written: a benchmark must never
//! fill the user's disk (or a small tmpfs) and leave the machine in trouble.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use anyhow::{bail, Context, Result};

use crate::harness::meminfo;

/// What must stay free after the test has written its files: the larger of this fraction
/// of the file system and [`MIN_FREE_BYTES`].
pub const MIN_FREE_FRACTION: f64 = 0.10;
pub const MIN_FREE_BYTES: u64 = 32 << 20;

/// Size and free space of the file system holding a path.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Room {
    pub total_bytes: u64,
    /// Free to an ordinary user (statvfs f_bavail).
    pub available_bytes: u64,
    pub read_only: bool,
}

pub fn room(dir: &Path) -> Result<Room> {
    let c = CString::new(dir.as_os_str().as_bytes()).context("path contains a NUL byte")?;
    // SAFETY: statvfs is plain data filled by the call; c is NUL-terminated.
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: the path is NUL-terminated and the struct is valid to write.
    if unsafe { libc::statvfs(c.as_ptr(), &mut s) } != 0 {
        let e = std::io::Error::last_os_error();
        bail!("statvfs {}: {e}", dir.display());
    }
    let unit = s.f_frsize as u64;
    let read_only = s.f_flag & libc::ST_RDONLY != 0;
    if s.f_blocks == 0 {
        // ramfs reports no size: it grows into memory, so memory is what can fill up.
        let memory = meminfo::read();
        return Ok(Room {
            total_bytes: memory.as_ref().map_or(0, |m| m.mem_total),
            available_bytes: memory.and_then(|m| m.mem_available).unwrap_or(0),
            read_only,
        });
    }
    Ok(Room {
        total_bytes: s.f_blocks as u64 * unit,
        available_bytes: s.f_bavail as u64 * unit,
        read_only,
    })
}

/// Refuse, with a message that says what to do, unless `bytes` can be written in the
/// scratch directory `scratch` and still leave the safety margin free. The message names
/// the directory the user chose (the scratch directory's parent).
pub fn ensure_room(scratch: &Path, bytes: u64) -> Result<()> {
    let shown = scratch.parent().unwrap_or(scratch);
    check(&room(scratch)?, bytes).map_err(|why| anyhow::anyhow!("{}: {why}", shown.display()))
}

/// The decision itself, pure, so it can be tested on made-up file systems.
pub fn check(r: &Room, bytes: u64) -> Result<(), String> {
    if r.read_only {
        return Err("refusing to write: the file system is read-only".into());
    }
    let margin = ((r.total_bytes as f64 * MIN_FREE_FRACTION) as u64).max(MIN_FREE_BYTES);
    let left = r.available_bytes.saturating_sub(bytes);
    if r.available_bytes < bytes || left < margin {
        return Err(format!(
            "refusing to write {}: only {} free of {}, and at least {} must stay free \
             (10% of the file system, 32 MiB at least); free some space or choose another --dir",
            mib(bytes),
            mib(r.available_bytes),
            mib(r.total_bytes),
            mib(margin),
        ));
    }
    Ok(())
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MB: u64 = 1 << 20;

    #[test]
    fn a_test_that_would_eat_the_margin_is_refused() {
        let r = Room {
            total_bytes: 1000 * MB,
            available_bytes: 150 * MB,
            read_only: false,
        };
        assert!(check(&r, 40 * MB).is_ok());
        let e = check(&r, 60 * MB).unwrap_err();
        assert!(e.contains("must stay free"), "{e}");
    }

    #[test]
    fn a_small_file_system_keeps_32_mib() {
        let r = Room {
            total_bytes: 64 * MB,
            available_bytes: 40 * MB,
            read_only: false,
        };
        assert!(check(&r, 8 * MB).is_ok());
        assert!(check(&r, 9 * MB).is_err());
    }

    #[test]
    fn read_only_is_refused_whatever_the_room() {
        let r = Room {
            total_bytes: 1000 * MB,
            available_bytes: 1000 * MB,
            read_only: true,
        };
        assert!(check(&r, 1).unwrap_err().contains("read-only"));
    }

    #[test]
    fn the_real_temporary_directory_can_be_measured() {
        let r = room(&std::env::temp_dir()).unwrap();
        assert!(r.total_bytes >= r.available_bytes && r.total_bytes > 0);
    }
}
