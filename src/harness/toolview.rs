//! A private view of a directory a tool insists on at a fixed path in a shared place
//! (Debian's lmbench: `lat_proc exec` runs `/var/tmp/lmbench/hello`, `lat_fcntl` makes
//! `/var/tmp/lmbench/lmbench-fcntl*`; both paths are compiled in, no option or variable
//! moves them). `/var/tmp` is writable by every user, so anything timeshare put, copied,
//! chmod-ed or ran there could be another user's link or program.
//!
//! Nothing is put there. The tool runs in a mount namespace of its own where the fixed
//! directory's parent (`/var/tmp`) is covered by a fresh private directory (made with an
//! unpredictable name and mode 0700 inside the crosscheck's own private scratch
//! directory), holding the fixed directory and the files put in it. The real `/var/tmp`
//! is never read, written or searched; the mount ends with the tool. As root the
//! namespace is the mount namespace alone; as another user it is a user namespace
//! mapping only that user onto itself (the tool keeps its own uid and no privilege over
//! anything outside), and where the kernel allows neither, the tool is refused with the
//! reason.

use std::ffi::CString;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

/// A fixed directory's private stand-in, for as long as this lives.
#[derive(Debug)]
pub struct PrivateView {
    /// The private directory mounted over `covered` in the tool's namespace.
    root: tempfile::TempDir,
    /// The fixed directory's parent, which the tool sees as `root`.
    covered: PathBuf,
    /// The fixed directory as the tool sees it.
    fixed: PathBuf,
}

impl PrivateView {
    /// A private stand-in for the absolute directory `fixed`, made inside `scratch` (a
    /// directory of this process's own, mode 0700).
    pub fn new(fixed: &Path, scratch: &Path) -> Result<PrivateView> {
        let (Some(covered), Some(name)) = (fixed.parent(), fixed.file_name()) else {
            bail!("{} has no parent directory to cover", fixed.display());
        };
        if !fixed.is_absolute() || !covered.is_dir() {
            bail!(
                "{} is not an absolute path in an existing directory",
                fixed.display()
            );
        }
        // tempfile makes the directory with mkdtemp's rules: an unpredictable name,
        // created exclusively, mode 0700.
        let root = tempfile::Builder::new()
            .prefix("view-")
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir_in(scratch)
            .context("cannot make a private directory for the tool")?;
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(root.path().join(name))
            .context("cannot make the tool's private directory")?;
        Ok(PrivateView {
            root,
            covered: covered.to_path_buf(),
            fixed: fixed.to_path_buf(),
        })
    }

    /// Where the tool's `fixed/NAME` really is.
    pub fn real_path(&self, name: &str) -> PathBuf {
        let dir = self.fixed.file_name().expect("checked in new");
        self.root.path().join(dir).join(name)
    }

    /// Put a program the tool executes at `fixed/NAME`: a new file (never one that was
    /// there), executable by this user only.
    pub fn place_program(&self, name: &str, image: &[u8]) -> Result<PathBuf> {
        let path = self.real_path(name);
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o700)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path)
            .with_context(|| format!("cannot make the tool's {name}"))?;
        f.write_all(image)?;
        f.sync_all()?;
        Ok(path)
    }

    /// Make `cmd` run in its own mount namespace where `fixed`'s parent is this view.
    pub fn apply(&self, cmd: &mut Command) -> Result<()> {
        let c = |p: &Path| CString::new(p.as_os_str().as_bytes()).context("a NUL in a path");
        let source = c(self.root.path())?;
        let target = c(&self.covered)?;
        // SAFETY: geteuid/getegid cannot fail.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        let maps = (uid != 0).then(|| UserMaps::of(uid, gid));
        // SAFETY: the closure runs in the child between fork and exec; it calls only
        // async-signal-safe system calls on memory prepared before the fork.
        unsafe {
            cmd.pre_exec(move || enter(&source, &target, maps.as_ref()));
        }
        Ok(())
    }
}

/// The user namespace's maps, prepared before the fork: only this uid and gid, each
/// onto itself.
struct UserMaps {
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
}

impl UserMaps {
    fn of(uid: u32, gid: u32) -> UserMaps {
        UserMaps {
            uid_map: format!("{uid} {uid} 1").into_bytes(),
            gid_map: format!("{gid} {gid} 1").into_bytes(),
        }
    }
}

/// In the child: a namespace of its own, nothing it mounts seen outside, `source` over
/// `target`.
fn enter(source: &CString, target: &CString, maps: Option<&UserMaps>) -> std::io::Result<()> {
    let check = |r: libc::c_int| {
        if r == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    };
    // SAFETY: system calls on NUL-terminated strings that outlive them.
    unsafe {
        match maps {
            None => check(libc::unshare(libc::CLONE_NEWNS))?,
            Some(m) => {
                check(libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS))?;
                write_proc(c"/proc/self/setgroups", b"deny")?;
                write_proc(c"/proc/self/uid_map", &m.uid_map)?;
                write_proc(c"/proc/self/gid_map", &m.gid_map)?;
            }
        }
        check(libc::mount(
            std::ptr::null(),
            c"/".as_ptr(),
            std::ptr::null(),
            libc::MS_REC | libc::MS_PRIVATE,
            std::ptr::null(),
        ))?;
        check(libc::mount(
            source.as_ptr(),
            target.as_ptr(),
            std::ptr::null(),
            libc::MS_BIND | libc::MS_NOSUID,
            std::ptr::null(),
        ))
    }
}

/// Write `bytes` to a file of /proc with open/write/close (no allocation: this runs
/// between fork and exec).
unsafe fn write_proc(path: &std::ffi::CStr, bytes: &[u8]) -> std::io::Result<()> {
    let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let n = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
    libc::close(fd);
    if n != bytes.len() as isize {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A shell that lists the fixed directory and writes a file into it, in the view.
    fn inside(view: &PrivateView, script: &str) -> std::process::Output {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", script]);
        view.apply(&mut cmd).unwrap();
        cmd.output().unwrap()
    }

    #[test]
    fn the_tool_sees_its_fixed_directory_private_and_the_real_one_is_untouched() {
        let scratch = tempfile::tempdir().unwrap();
        // A directory nobody else uses, standing for /var/tmp.
        let shared = tempfile::tempdir().unwrap();
        let fixed = shared.path().join("lmbench");
        let view = PrivateView::new(&fixed, scratch.path()).unwrap();
        let program = view
            .place_program("hello", b"#!/bin/sh\necho private\n")
            .unwrap();
        let mode = std::fs::metadata(&program).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        let dir_mode = std::fs::metadata(view.root.path())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(dir_mode & 0o777, 0o700);
        let out = inside(
            &view,
            &format!("{0}/hello && touch {0}/made", fixed.display()),
        );
        if !out.status.success() && String::from_utf8_lossy(&out.stderr).contains("ermission") {
            eprintln!("skipped: this kernel allows no namespace here");
            return;
        }
        assert!(out.status.success(), "{out:?}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), "private\n");
        assert!(view.real_path("made").exists(), "written in the view");
        assert!(!fixed.exists(), "nothing made at the real fixed path");
        assert_eq!(std::fs::read_dir(shared.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_program_already_there_is_never_reused() {
        let scratch = tempfile::tempdir().unwrap();
        let view = PrivateView::new(Path::new("/var/tmp/lmbench"), scratch.path()).unwrap();
        view.place_program("hello", b"one").unwrap();
        let e = view.place_program("hello", b"two").unwrap_err();
        assert!(
            format!("{e:#}").contains("cannot make the tool's hello"),
            "{e:#}"
        );
        assert_eq!(std::fs::read(view.real_path("hello")).unwrap(), b"one");
    }

    #[test]
    fn a_relative_fixed_path_is_refused() {
        let scratch = tempfile::tempdir().unwrap();
        assert!(PrivateView::new(Path::new("lmbench"), scratch.path()).is_err());
    }
}
