//! System calls by the raw instruction: no C library in between, so no wrapper can cache
//! a result (glibc once cached getpid) and the number of argument registers loaded is
//! exactly the number asked for — which `syscall.args.N` needs (002 Figure 3).
//!
//! On x86-64 the kernel takes the call number in rax and up to six arguments in rdi, rsi,
//! rdx, r10, r8, r9, and clobbers rcx and r11. Elsewhere we fall back to libc's
//! `syscall()`, which loads all six registers whatever N is (said in `syscall.args`' notes).

#[cfg(target_arch = "x86_64")]
mod imp {
    use std::arch::asm;

    /// # Safety
    /// `nr` must be a system call that is harmless with the given arguments.
    #[inline(always)]
    pub unsafe fn syscall(nr: i64, args: &[i64]) -> i64 {
        let ret: i64;
        match args.len() {
            0 => asm!("syscall", inlateout("rax") nr => ret, out("rcx") _, out("r11") _,
                      options(nostack)),
            1 => asm!("syscall", inlateout("rax") nr => ret, in("rdi") args[0],
                      out("rcx") _, out("r11") _, options(nostack)),
            2 => asm!("syscall", inlateout("rax") nr => ret, in("rdi") args[0],
                      in("rsi") args[1], out("rcx") _, out("r11") _, options(nostack)),
            3 => asm!("syscall", inlateout("rax") nr => ret, in("rdi") args[0],
                      in("rsi") args[1], in("rdx") args[2], out("rcx") _, out("r11") _,
                      options(nostack)),
            4 => asm!("syscall", inlateout("rax") nr => ret, in("rdi") args[0],
                      in("rsi") args[1], in("rdx") args[2], in("r10") args[3],
                      out("rcx") _, out("r11") _, options(nostack)),
            5 => asm!("syscall", inlateout("rax") nr => ret, in("rdi") args[0],
                      in("rsi") args[1], in("rdx") args[2], in("r10") args[3],
                      in("r8") args[4], out("rcx") _, out("r11") _, options(nostack)),
            _ => asm!("syscall", inlateout("rax") nr => ret, in("rdi") args[0],
                      in("rsi") args[1], in("rdx") args[2], in("r10") args[3],
                      in("r8") args[4], in("r9") args[5], out("rcx") _, out("r11") _,
                      options(nostack)),
        }
        ret
    }

    pub const LOADS_ONLY_N_REGISTERS: bool = true;
}

#[cfg(not(target_arch = "x86_64"))]
mod imp {
    /// # Safety
    /// `nr` must be a system call that is harmless with the given arguments.
    #[inline(always)]
    pub unsafe fn syscall(nr: i64, args: &[i64]) -> i64 {
        let a = |i: usize| args.get(i).copied().unwrap_or(0);
        libc::syscall(nr as libc::c_long, a(0), a(1), a(2), a(3), a(4), a(5)) as i64
    }

    pub const LOADS_ONLY_N_REGISTERS: bool = false;
}

pub use imp::{syscall, LOADS_ONLY_N_REGISTERS};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_getpid_agrees_with_libc() {
        // SAFETY: a plain system call with no memory arguments.
        let raw = unsafe { syscall(libc::SYS_getpid, &[]) };
        assert_eq!(raw, std::process::id() as i64);
        // SAFETY: a plain system call with no memory arguments.
        let with_args = unsafe { syscall(libc::SYS_getpid, &[1, 2, 3, 4, 5, 6]) };
        assert_eq!(with_args, raw);
    }
}
