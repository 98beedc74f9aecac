//! A tmpfs of a run's own: mounted on a directory for one configuration of a sweep
//! (`run --configs tmp=tmpfs`, root only) and let go of after it, beside the scratch
//! directories it holds.

use std::path::Path;

/// Mount a fresh tmpfs on `dir` with mount `options` (`size=1g,mode=1777`), without
/// set-user-id programs or device files.
pub fn mount(dir: &Path, options: &str) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = |s: &[u8]| std::ffi::CString::new(s).expect("no NUL");
    let (src, target, kind, data) = (
        c(b"tmpfs"),
        c(dir.as_os_str().as_bytes()),
        c(b"tmpfs"),
        c(options.as_bytes()),
    );
    // SAFETY: NUL-terminated strings that live for the call.
    let rc = unsafe {
        libc::mount(
            src.as_ptr(),
            target.as_ptr(),
            kind.as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV,
            data.as_ptr().cast(),
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Let go of the mount on `dir`, lazily: it goes as soon as nothing holds it.
pub fn unmount(dir: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return;
    };
    // SAFETY: a NUL-terminated path; MNT_DETACH lets go even if something still holds it.
    unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) };
}
