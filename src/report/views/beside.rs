//! The rows the closing summary sets beside the papers' machines: each one operation the
//! seeds timed the same way as today's row does — a system call, a signal, a pipe round
//! trip, a fork, an exec.

/// The rows, in the order they are shown.
pub const LIKE_FOR_LIKE: &[&str] = &[
    "syscall.getpid",
    "signal.self",
    "pipe.back.4",
    "proc.fork.0",
    "proc.exec.null.0",
];
