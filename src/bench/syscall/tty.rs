//! gtty: read a terminal's attributes (002 Figure 4, "gtty(s)" single-user). Today's
//! equivalent is ioctl(TCGETS); the benchmark opens its own pseudo-terminal so that it
//! runs the same with or without a controlling terminal (in CI, under nohup, in cron).

use std::ffi::CStr;
use std::fs::File;
use std::hint::black_box;
use std::os::unix::io::{AsRawFd, FromRawFd};

use anyhow::{bail, Context, Result};

use super::{fig, Calls, Convention};
use crate::harness::contract::{Benchmark, Ctx, Workload};

pub fn rows() -> Vec<Benchmark> {
    vec![Benchmark::new(
        "syscall.gtty",
        "read terminal attributes (ioctl TCGETS) of a pseudo-terminal opened for the purpose",
        fig("Figure 4: gtty(s)"),
        prepare,
    )
    .per("system call")]
}

fn prepare(_: &Ctx) -> Result<Box<dyn Workload>> {
    let (master, slave) = open_pty()?;
    // SAFETY: termios is plain data that TCGETS fills.
    let mut t: libc::termios = unsafe { std::mem::zeroed() };
    Ok(Calls::boxed("ioctl(TCGETS)", Convention::Libc, move || {
        let _keep_open = &master;
        // SAFETY: t is a valid termios to write; the descriptor is the pty slave kept open.
        unsafe { libc::ioctl(black_box(slave.as_raw_fd()), libc::TCGETS, &mut t) as i64 }
    }))
}

/// A new pseudo-terminal pair (master, slave), both closed on drop.
pub fn open_pty() -> Result<(File, File)> {
    // SAFETY: standard posix_openpt sequence; every descriptor is owned by a File at once.
    unsafe {
        let m = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC);
        if m < 0 {
            return Err(std::io::Error::last_os_error())
                .context("cannot open a pseudo-terminal (/dev/ptmx)");
        }
        let master = File::from_raw_fd(m);
        if libc::grantpt(m) != 0 || libc::unlockpt(m) != 0 {
            return Err(std::io::Error::last_os_error())
                .context("cannot unlock the pseudo-terminal");
        }
        let mut name = [0 as libc::c_char; 128];
        if libc::ptsname_r(m, name.as_mut_ptr(), name.len()) != 0 {
            bail!("cannot name the pseudo-terminal's slave");
        }
        let s = libc::open(
            name.as_ptr(),
            libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC,
        );
        if s < 0 {
            return Err(std::io::Error::last_os_error()).with_context(|| {
                format!(
                    "cannot open {}",
                    CStr::from_ptr(name.as_ptr()).to_string_lossy()
                )
            });
        }
        Ok((master, File::from_raw_fd(s)))
    }
}
