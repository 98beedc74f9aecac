//! The cost of passing arguments (002 Figure 3): the same call made with 0 to 6 argument
//! registers loaded. In 1976 each argument cost 30–95 µs because the kernel fetched it from
//! user space after the trap; Linux on x86-64 saves all six argument registers on every
//! entry whatever the call, so the increment is now the cost of loading a register. The
//! call is getpid, which ignores its arguments.

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

pub fn rows() -> Vec<Benchmark> {
    vec![
        args_row!(0, "syscall.args.0"),
        args_row!(1, "syscall.args.1"),
        args_row!(2, "syscall.args.2"),
        args_row!(3, "syscall.args.3"),
        args_row!(4, "syscall.args.4"),
        args_row!(5, "syscall.args.5"),
        args_row!(6, "syscall.args.6"),
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
