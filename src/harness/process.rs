//! This process: who it runs as, and the limits met before anything else runs: `ulimit
//! -f` (a file past it raises SIGXFSZ, which kills silently; ignored, the write fails
//! with EFBIG and the error is reported like any other) and `ulimit -s` (a stack too
//! small for the command-line parser and the reports overflows and aborts; refused
//! first, in one line). The command line asks here rather than the C library itself.

use std::sync::atomic::{AtomicBool, Ordering};

/// The least stack the commands need (parsing, reports, the chess search), with room.
const MIN_STACK: u64 = 1024 * 1024;

/// Ignore SIGXFSZ, so that a file size limit is an error message, not a silent death.
pub fn ignore_file_size_signal() {
    // SAFETY: setting a signal's disposition to SIG_IGN installs no handler code.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

/// The user this process acts as (its effective user id).
pub fn effective_uid() -> u32 {
    // SAFETY: geteuid cannot fail and touches no memory of ours.
    unsafe { libc::geteuid() }
}

/// Whether this process acts as root: what mounting, cgroups and loop devices need.
pub fn is_root() -> bool {
    effective_uid() == 0
}

/// Whether descriptor 1 was closed when the process started (`timeshare history >&-`),
/// which Rust's runtime hides before `main` by opening `/dev/null` in its place.
pub fn stdout_closed_at_start() -> bool {
    STDOUT_CLOSED_AT_START.load(Ordering::Relaxed)
}

/// Set before Rust's runtime starts (and hides it) when descriptor 1 was closed.
static STDOUT_CLOSED_AT_START: AtomicBool = AtomicBool::new(false);

/// Look at descriptor 1 before Rust's runtime does: the C library runs `.init_array`
/// entries before it calls `main`, whose first step is to fill closed standard
/// descriptors with `/dev/null`.
extern "C" fn note_stdout_at_start() {
    // SAFETY: F_GETFD on a descriptor number reads no memory of ours.
    let closed = unsafe { libc::fcntl(1, libc::F_GETFD) } == -1;
    STDOUT_CLOSED_AT_START.store(closed, Ordering::Relaxed);
}

#[used]
#[link_section = ".init_array"]
static NOTE_STDOUT_AT_START: extern "C" fn() = note_stdout_at_start;

/// Why the stack limit is too small to run, if it is.
pub fn stack_too_small() -> Option<String> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes only into `lim`, which outlives the call.
    if unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut lim) } != 0 {
        return None;
    }
    too_small(lim.rlim_cur)
}

fn too_small(limit: libc::rlim_t) -> Option<String> {
    (limit != libc::RLIM_INFINITY && limit < MIN_STACK).then(|| {
        format!(
            "the stack limit is {} KiB (ulimit -s) and timeshare needs at least {} KiB: \
             raise it (ulimit -s {})",
            limit / 1024,
            MIN_STACK / 1024,
            8192
        )
    })
}

/// Whether `program` can be started: a path that is an executable file, or a name found
/// so on PATH. Checked before any tracing starts, so a typo costs nothing and leaves
/// nothing behind.
pub fn runnable(program: &str) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &std::path::Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    let found = if program.contains('/') {
        executable(std::path::Path::new(program))
    } else {
        std::env::var_os("PATH").is_some_and(|path| {
            std::env::split_paths(&path).any(|dir| executable(&dir.join(program)))
        })
    };
    if found {
        Ok(())
    } else {
        Err(format!(
            "cannot run {program}: no such executable file{}",
            if program.contains('/') {
                ""
            } else {
                " on PATH"
            }
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_stack_is_named_and_an_ordinary_one_passes() {
        assert!(too_small(64 * 1024).unwrap().contains("64 KiB"));
        assert_eq!(too_small(8 * 1024 * 1024), None);
        assert_eq!(too_small(libc::RLIM_INFINITY), None);
    }
}
