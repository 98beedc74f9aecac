//! The cost of passing arguments (002 Figure 3): the same call made with 0 to 6 argument
//! registers loaded. In 1976 each argument cost 30–95 µs because the kernel fetched it from
//! user space after the trap; Linux on x86-64 saves all six argument registers on every
//! entry whatever the call, so the increment is now the cost of loading a register. The
//! call is getpid, which ignores its arguments.
//!
//! 002's indirect call (`sys indir`: the kernel fetched a copy of the call, assembled in
//! the data area, from user space) has no instruction today; its nearest counterpart is
//! the C library's generic `syscall(2)`, which takes the call number and its arguments
//! as a C variadic function and moves them into the registers before the instruction.
//! `syscall.indirect.N` make the call that way with N arguments, as Figure 3's
//! I(r0+N args) rows did, beside `syscall.args.N`'s direct instruction.

use std::hint::black_box;

use super::{fig, raw, Calls, Convention};
use crate::harness::contract::{Benchmark, Workload};

const SOURCE: crate::model::Source = fig("Figure 3: system call time per argument");

macro_rules! args_row {
    ($n:literal, $id:literal) => {
        Benchmark::new(
            $id,
            concat!("getpid with ", $n, " argument registers loaded"),
            SOURCE,
            |_| Ok(with_args::<$n>()),
        )
        .per("system call")
    };
}

/// 002's indirect call with `$n` arguments: through the C library's `syscall(2)`.
macro_rules! indirect_row {
    ($n:literal, $id:literal, $($arg:expr),*) => {
        Benchmark::new(
            $id,
            concat!("getpid through syscall(2) with ", $n, " arguments (002's indirect call)"),
            SOURCE,
            |_| {
                Ok(Calls::boxed("syscall(SYS_getpid)", Convention::Libc, || {
                    let v: [libc::c_long; 6] = black_box([11, 22, 33, 44, 55, 66]);
                    // SAFETY: getpid ignores its arguments, which are plain integers.
                    unsafe { libc::syscall(libc::SYS_getpid, $(v[$arg]),*) }
                }))
            },
        )
        .per("system call")
    };
}

pub fn rows() -> Vec<Benchmark> {
    vec![
        args_row!(0, "syscall.args.0"),
        args_row!(1, "syscall.args.1"),
        args_row!(2, "syscall.args.2"),
        args_row!(3, "syscall.args.3"),
        args_row!(4, "syscall.args.4"),
        args_row!(5, "syscall.args.5"),
        args_row!(6, "syscall.args.6"),
        indirect_row!(1, "syscall.indirect.1", 0),
        indirect_row!(2, "syscall.indirect.2", 0, 1),
        indirect_row!(3, "syscall.indirect.3", 0, 1, 2),
        indirect_row!(4, "syscall.indirect.4", 0, 1, 2, 3),
    ]
}

fn with_args<const N: usize>() -> Box<dyn Workload> {
    let values: [i64; 6] = [11, 22, 33, 44, 55, 66];
    Calls::boxed("getpid", Convention::Raw, move || {
        // black_box makes the compiler load each value afresh into its register.
        let v = black_box(values);
        // SAFETY: getpid ignores its arguments.
        unsafe { raw::syscall(libc::SYS_getpid, &v[..N]) }
    })
}

/// The rows Figure 3's per-argument increment is fitted over: its indirect calls with 1
/// to 4 arguments, as the paper's 95, 70 and 30 µs were read from them.
pub const INDIRECT: &[&str] = &[
    "syscall.indirect.1",
    "syscall.indirect.2",
    "syscall.indirect.3",
    "syscall.indirect.4",
];

/// The cost of one more argument: the least-squares slope of the medians of calls with
/// 1, 2, … arguments (`medians[k]` has k + 1 arguments), in seconds per argument.
pub fn per_argument(medians: &[f64]) -> f64 {
    let n = medians.len() as f64;
    let xs = (1..=medians.len()).map(|x| x as f64);
    let mean_x = xs.clone().sum::<f64>() / n;
    let mean_y = medians.iter().sum::<f64>() / n;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (x, y) in xs.zip(medians) {
        sxy += (x - mean_x) * (y - mean_y);
        sxx += (x - mean_x) * (x - mean_x);
    }
    sxy / sxx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_slope_of_figure_3_s_11_40_column_is_its_95_microseconds() {
        // I(r0+1…4 args) on the 11/40: 790, 890, 980, 1080 µs; the paper says about 95.
        let slope = per_argument(&[790e-6, 890e-6, 980e-6, 1080e-6]);
        assert!((slope - 96e-6).abs() < 1e-9, "{slope}");
        // A constant cost has no increment; a falling one a negative slope, not zero.
        assert!(per_argument(&[5.0, 5.0, 5.0, 5.0]).abs() < 1e-12);
        assert!(per_argument(&[4.0, 3.0, 2.0, 1.0]) < 0.0);
    }

    #[test]
    fn the_fit_is_over_registered_indirect_rows() {
        let rows = rows();
        for id in INDIRECT {
            let row = rows.iter().find(|b| b.id() == *id).expect("registered");
            assert_eq!(row.metric().basis.op, "system call");
        }
    }
}
