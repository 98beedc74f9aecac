//! Process ids, priorities and signals: the CPU-only calls 002 chose "because they require
//! no other resources than the CPU" (Figure 4, nofpp; Figure 5, fpp).

use std::hint::black_box;

use anyhow::Result;

use super::{check, fig, raw, Calls, Convention, ROOT_ONLY};
use crate::harness::anchor::{Anchor, Parse};
use crate::harness::contract::{Benchmark, Ctx, Workload};
use crate::model::Source;

/// A loop over one raw system call with constant arguments.
fn raw_loop(what: &'static str, nr: i64, args: &'static [i64]) -> Box<dyn Workload> {
    // SAFETY: only harmless calls are passed here (getters, or setters to current values).
    Calls::boxed(what, Convention::Raw, move || unsafe {
        raw::syscall(black_box(nr), args)
    })
}

pub fn rows() -> Vec<Benchmark> {
    vec![
        Benchmark::new(
            "syscall.getpid",
            "getpid by the raw syscall instruction: the minimum cost of entering the kernel",
            fig("Figure 4: gpid; also 003 Zilog 'System call'"),
            |_| Ok(raw_loop("getpid", libc::SYS_getpid, &[])),
        )
        .per("system call")
        .expects_syscalls(&[("getpid", 1.0)]),
        // The call the tools users compare with time: perf bench's and lmbench's loops
        // call getppid() through the C library, and on a machine with the kernel's
        // return-stack mitigations the wrapper is not free (measured on a 2-vCPU EPYC VM:
        // raw getpid 105 ns, getpid() 140 ns, raw getppid 116 ns, getppid() 164 ns; see
        // docs/crosscheck.md). So the tools are set beside this row, not beside getpid's.
        Benchmark::new(
            "syscall.getppid.libc",
            "getppid through the C library: the call perf bench syscall basic and lmbench's \
             lat_syscall null time",
            Source::Modern("the system call perf bench and lmbench time, for the cross-check"),
            |_| {
                Ok(Calls::boxed(
                    "getppid",
                    Convention::Libc,
                    // SAFETY: a plain system call with no memory arguments.
                    || unsafe { libc::getppid() } as i64,
                ))
            },
        )
        .per("system call")
        .expects_syscalls(&[("getppid", 1.0)])
        .anchor(Anchor::perf(
            "perf bench syscall basic",
            &["bench", "syscall", "basic", "-l", "2000000"],
            "per getppid system call",
        ))
        .anchor(Anchor::lmbench(
            "lmbench lat_syscall null",
            "lat_syscall",
            &["null"],
            Parse::LmbenchMicroseconds,
            "per getppid system call",
        )),
        Benchmark::new(
            "syscall.getpid.libc",
            "getpid through the C library wrapper (002's indirect path)",
            fig("Figure 3: direct vs indirect"),
            // SAFETY: no arguments.
            |_| {
                Ok(Calls::boxed(
                    "getpid",
                    Convention::Libc,
                    // SAFETY: a plain system call with no memory arguments.
                    || unsafe { libc::getpid() } as i64,
                ))
            },
        )
        .per("system call"),
        Benchmark::new(
            "syscall.getuid",
            "getuid by the raw syscall instruction",
            fig("Figure 4: guid"),
            |_| Ok(raw_loop("getuid", libc::SYS_getuid, &[])),
        )
        .per("system call"),
        Benchmark::new(
            "syscall.getgid",
            "getgid by the raw syscall instruction",
            fig("Figure 4: ggid"),
            |_| Ok(raw_loop("getgid", libc::SYS_getgid, &[])),
        )
        .per("system call"),
        Benchmark::new(
            "syscall.times",
            "times(2): the process's and its children's CPU times",
            fig("Figure 4: times"),
            |_| {
                // SAFETY: tms is plain data that times fills.
                let mut t: libc::tms = unsafe { std::mem::zeroed() };
                // SAFETY: t is a valid tms to write.
                Ok(Calls::boxed("times", Convention::Libc, move || unsafe {
                    libc::times(black_box(&mut t)) as i64
                }))
            },
        )
        .per("system call"),
        Benchmark::new(
            "syscall.alarm",
            "alarm(0): cancel a (non-existent) alarm",
            fig("Figure 4: alarm"),
            // SAFETY: alarm(0) sets no timer.
            |_| {
                Ok(Calls::boxed(
                    "alarm",
                    Convention::Libc,
                    // SAFETY: a plain system call with no memory arguments.
                    || unsafe { libc::alarm(black_box(0)) } as i64,
                ))
            },
        )
        .per("system call"),
        Benchmark::new(
            "syscall.signal",
            "sigaction: install a handler for SIGUSR2",
            fig("Figure 4: sig"),
            prepare_signal,
        )
        .per("system call"),
        Benchmark::new(
            "syscall.kill",
            "kill(self, 0): permission and existence check, no signal sent",
            fig("Figure 4: kill"),
            |_| {
                let me = std::process::id() as libc::pid_t;
                // SAFETY: signal 0 delivers nothing.
                Ok(Calls::boxed("kill", Convention::Libc, move || unsafe {
                    libc::kill(black_box(me), 0) as i64
                }))
            },
        )
        .per("system call"),
        Benchmark::new(
            "syscall.nice",
            "setpriority to the current nice value: nice(0)'s kernel work",
            fig("Figure 4: nice"),
            prepare_nice,
        )
        .per("system call"),
        Benchmark::new(
            "syscall.setuid",
            "setuid to the current uid (privileged path; root only)",
            fig("Figure 4: suid"),
            |_| {
                // SAFETY: a plain system call with no memory arguments.
                Ok(set_id_loop("setuid", libc::SYS_setuid, unsafe {
                    libc::getuid()
                }))
            },
        )
        .root_only(ROOT_ONLY)
        .per("system call"),
        Benchmark::new(
            "syscall.setgid",
            "setgid to the current gid (privileged path; root only)",
            fig("Figure 4: sgid"),
            |_| {
                // SAFETY: a plain system call with no memory arguments.
                Ok(set_id_loop("setgid", libc::SYS_setgid, unsafe {
                    libc::getgid()
                }))
            },
        )
        .root_only(ROOT_ONLY)
        .per("system call"),
    ]
}

/// setuid/setgid by the raw instruction: glibc's wrappers would signal every thread of
/// the process to change its ids too, which is not what 002 measured.
fn set_id_loop(what: &'static str, nr: i64, id: u32) -> Box<dyn Workload> {
    // SAFETY: setting the id the thread already has changes nothing.
    Calls::boxed(what, Convention::Raw, move || unsafe {
        raw::syscall(black_box(nr), &[id as i64])
    })
}

extern "C" fn ignore(_: libc::c_int) {}

fn prepare_signal(_: &Ctx) -> Result<Box<dyn Workload>> {
    // SAFETY: sigaction is plain data; the handler does nothing and SIGUSR2 is never sent.
    let mut act: libc::sigaction = unsafe { std::mem::zeroed() };
    act.sa_sigaction = ignore as *const () as usize;
    // SAFETY: plain C data, for which all-zero bytes are a valid value.
    let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
    check(
        // SAFETY: act and old are valid sigaction structs; the handler is an extern "C" fn.
        unsafe { libc::sigaction(libc::SIGUSR2, &act, &mut old) } as i64,
        "sigaction(SIGUSR2)",
    )?;
    Ok(Box::new(RestoreSignal {
        old,
        // SAFETY: act and old are valid sigaction structs; the handler is an extern "C" fn.
        inner: Calls::boxed("sigaction", Convention::Libc, move || unsafe {
            libc::sigaction(libc::SIGUSR2, black_box(&act), std::ptr::null_mut()) as i64
        }),
    }))
}

/// The signal loop, putting back the disposition it found when done.
struct RestoreSignal {
    old: libc::sigaction,
    inner: Box<dyn Workload>,
}

impl Workload for RestoreSignal {
    fn run(&mut self, n: u64) -> Result<()> {
        self.inner.run(n)
    }
}

impl Drop for RestoreSignal {
    fn drop(&mut self) {
        // SAFETY: restoring what sigaction reported.
        unsafe { libc::sigaction(libc::SIGUSR2, &self.old, std::ptr::null_mut()) };
    }
}

fn prepare_nice(_: &Ctx) -> Result<Box<dyn Workload>> {
    // getpriority may legitimately return -1 (nice -1), so errno tells errors apart.
    // SAFETY: errno is thread-local; getpriority has no memory arguments.
    let current = unsafe {
        *libc::__errno_location() = 0;
        let p = libc::getpriority(libc::PRIO_PROCESS, 0);
        if *libc::__errno_location() != 0 {
            return Err(std::io::Error::last_os_error().into());
        }
        p
    };
    check(
        // SAFETY: a plain system call with no memory arguments.
        unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, current) } as i64,
        "setpriority to the current value",
    )?;
    // SAFETY: setting the priority the process already has.
    Ok(Calls::boxed(
        "setpriority",
        Convention::Libc,
        move || unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, black_box(current)) as i64 },
    ))
}
