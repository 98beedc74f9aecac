//! Which benchmark row gives the cost of one system call, for `observe`'s prediction of
//! an observed call mix's system time (model::observation::predict). A row measures one
//! operation; when the operation is a pair (open and close), each call is given its
//! share. Calls without a row here are listed as such, never guessed.

use crate::model::observation::predict::CallCost;
use crate::model::{Run, Status, Unit};

/// (call as the kernel names it, row id, calls of it per operation of the row).
pub const CALL_ROWS: &[(&str, &str, f64)] = &[
    ("getpid", "syscall.getpid", 1.0),
    ("getppid", "syscall.getppid.libc", 1.0),
    ("getuid", "syscall.getuid", 1.0),
    ("geteuid", "syscall.getuid", 1.0),
    ("getgid", "syscall.getgid", 1.0),
    ("getegid", "syscall.getgid", 1.0),
    ("times", "syscall.times", 1.0),
    ("alarm", "syscall.alarm", 1.0),
    ("rt_sigaction", "syscall.signal", 1.0),
    ("kill", "syscall.kill", 1.0),
    ("setpriority", "syscall.nice", 1.0),
    ("setuid", "syscall.setuid", 1.0),
    ("setgid", "syscall.setgid", 1.0),
    ("dup", "syscall.dup", 1.0),
    ("stat", "syscall.stat", 1.0),
    ("newfstatat", "syscall.stat", 1.0),
    ("statx", "syscall.stat", 1.0),
    ("lstat", "syscall.stat", 1.0),
    ("fstat", "syscall.fstat", 1.0),
    ("read", "syscall.read", 1.0),
    ("pread64", "syscall.read", 1.0),
    ("write", "syscall.write", 1.0),
    ("pwrite64", "syscall.write", 1.0),
    ("ioctl", "syscall.gtty", 1.0),
    ("openat", "syscall.open_close", 2.0),
    ("open", "syscall.open_close", 2.0),
    ("close", "syscall.open_close", 2.0),
    ("clock_gettime", "syscall.time.raw", 1.0),
    ("clone", "proc.fork.0", 1.0),
];

/// The per-call costs `run` measured (its latency rows that ran), tagged with `run_id`.
pub fn costs_from(run: &Run, run_id: i64) -> Vec<CallCost> {
    CALL_ROWS
        .iter()
        .filter_map(|&(call, row, per_op)| {
            let r = run.results.iter().find(|r| r.id == row)?;
            if !matches!(r.status, Status::Ok) || r.unit != Unit::SecondsPerOp {
                return None;
            }
            Some(CallCost {
                call: call.to_string(),
                row: row.to_string(),
                seconds_per_call: r.median()? / per_op,
                run: run_id,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_named_is_a_benchmark() {
        let reg = crate::bench::Registry::with_defaults();
        for (call, row, _) in CALL_ROWS {
            assert!(reg.find(row).is_some(), "{call}: no row {row}");
        }
    }
}
