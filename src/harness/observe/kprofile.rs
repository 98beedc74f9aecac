//! The whole machine's kernel profile for `timeshare observe` (001 §2.2: the kernel
//! profiled in production): `perf record -a -g` over the span ([`super::profile`]'s
//! recording), every sample's stack read back with `perf script`, and the profile built by
//! [`crate::model::observation::subsystem::build_profile`].

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::profile::{self, parse_frame, Recording};
use crate::model::observation::subsystem::{build_profile, Frame, NetShares, StackSample};
use crate::model::observation::KernelProfile;

/// Samples per second per CPU of `observe`'s profile: 99, near the 100 Hz clock 001's
/// profiled kernels were sampled by and out of step with the timer tick. `perf script`
/// takes about as long as the span to read back 999 samples a second with call chains on
/// this machine, so the rate that suits one benchmark row is too high for hours.
pub const OBSERVE_HZ: u32 = 99;

/// A recording of the whole machine.
pub struct KernelRecording {
    recording: Recording,
    hz: u32,
}

impl KernelRecording {
    /// Start `perf record -a -g` at `hz`, or say exactly why it cannot be.
    pub fn start(
        perf: Option<PathBuf>,
        is_root: bool,
        hz: u32,
    ) -> std::result::Result<Self, String> {
        let perf = profile::available(perf, is_root)?;
        start_at(&perf, hz).map_err(|e| format!("{e:#}"))
    }

    /// The `perf record` process (a child of this one, not part of an observed workload).
    pub fn pid(&self) -> Option<u32> {
        self.recording.pid()
    }

    /// Stop and build the profile.
    pub fn stop(self) -> Result<(KernelProfile, NetShares)> {
        let script = self.recording.stop_script("comm,pid,tid,ip,sym,dso")?;
        let samples = parse_stacks(&script.text);
        let (mut p, net) = build_profile(
            &samples,
            self.hz,
            &format!(
                "perf record -a -g -F {} (cpu-clock where there is no hardware PMU, cycles \
                 where there is one), every CPU, kernel and user call chains",
                self.hz
            ),
        );
        p.profiler_cpu_s = script.cpu_s;
        Ok((p, net))
    }
}

fn start_at(perf: &Path, hz: u32) -> Result<KernelRecording> {
    Ok(KernelRecording {
        recording: Recording::start_at(perf, hz)?,
        hz,
    })
}

/// The samples of `perf script -F comm,pid,tid,ip,sym,dso` (with call chains): a header
/// line `comm pid/tid` then one frame per line, leaf first.
pub fn parse_stacks(script: &str) -> Vec<StackSample> {
    let mut out = Vec::new();
    let mut lines = script.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim().is_empty() || line.starts_with(char::is_whitespace) {
            continue;
        }
        let head = line.trim_end();
        // The command may hold spaces: the task is the last word.
        let (comm, task) = head.rsplit_once(char::is_whitespace).unwrap_or(("", head));
        if task.starts_with("PERF_RECORD_") || head.contains("PERF_RECORD_") {
            continue;
        }
        let pid = task
            .split('/')
            .next()
            .and_then(|p| p.parse::<u32>().ok())
            .unwrap_or(u32::MAX);
        let mut frames = Vec::new();
        while let Some(next) = lines.peek() {
            if next.trim().is_empty() || !next.starts_with(char::is_whitespace) {
                break;
            }
            let addr = next.split_whitespace().next().unwrap_or("");
            let (name, dso) = parse_frame(next);
            let kernel = dso.contains("kernel.kallsyms")
                || dso.starts_with("[kernel")
                || u64::from_str_radix(addr, 16).is_ok_and(|a| a >= 0xffff_8000_0000_0000);
            let name = if name == "[unknown]" {
                format!("[unknown {}]", if kernel { "kernel" } else { dso.as_str() })
            } else {
                name
            };
            frames.push(Frame { name, kernel });
            lines.next();
        }
        out.push(StackSample {
            comm: comm.trim().to_string(),
            pid,
            frames,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::observe::profile::FREQUENCY_HZ;

    /// A child that stats a four-component path for 1.5 s: most of its system time is
    /// path-name translation and the rest of the VFS, by the written rules.
    #[test]
    fn a_stat_loop_spends_most_of_its_system_time_in_the_vfs() {
        use crate::model::observation::subsystem::{build_profile, VFS};
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        let host = crate::harness::contract::Host::detect();
        let rec = match KernelRecording::start(host.find_program("perf"), root, FREQUENCY_HZ) {
            Ok(r) => r,
            Err(why) => {
                eprintln!("skipped: {why}");
                return;
            }
        };
        // SAFETY: the child only calls stat and _exit.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            let end = std::time::Instant::now() + std::time::Duration::from_millis(1500);
            // SAFETY: stat is plain data; all zeroes is a valid value.
            let mut st: libc::stat = unsafe { std::mem::zeroed() };
            while std::time::Instant::now() < end {
                for _ in 0..1000 {
                    // SAFETY: a valid path and a stat buffer of our own.
                    unsafe { libc::stat(c"/usr/share/doc/../bin/env".as_ptr(), &mut st) };
                }
            }
            // SAFETY: ends the forked child at once.
            unsafe { libc::_exit(0) };
        }
        let mut status = 0;
        // SAFETY: waits for our own child.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        let script = rec
            .recording
            .stop_script("comm,pid,tid,ip,sym,dso")
            .unwrap();
        let ours: Vec<_> = parse_stacks(&script.text)
            .into_iter()
            .filter(|s| s.pid == pid as u32)
            .collect();
        let (p, _) = build_profile(&ours, FREQUENCY_HZ, "test");
        assert!(p.system_samples > 100, "{p:?}");
        assert!(
            p.share_of(VFS) > 0.5,
            "VFS {:.2}: {:?}",
            p.share_of(VFS),
            p.subsystems
        );
        assert!(p.namei_inclusive_share > 0.3, "{}", p.namei_inclusive_share);
    }

    #[test]
    fn stacks_are_read_with_their_command_and_kernel_frames() {
        let script = "\
lto cgu.03 24114/24277 
\t         881b9a1 llvm::run (/usr/lib/libLLVM.so)
\t               0 [unknown] ([unknown])

swapper     0/0     
\tffffffff81e8f0b4 pv_native_safe_halt+0x4 ([kernel.kallsyms])
\tffffffff81e8f3e5 default_idle+0x5 ([kernel.kallsyms])

stat 77/77 
\tffffffff8149b6b0 strncpy_from_user+0x30 ([kernel.kallsyms])
\tffffffff8147a2c0 getname_flags+0x50 ([kernel.kallsyms])
\t    7f00000012 __GI___stat (/usr/lib/libc.so.6)

  100/100  PERF_RECORD_FORK(200:200):(100:100)
";
        let s = parse_stacks(script);
        assert_eq!(s.len(), 3);
        assert_eq!(s[0].comm, "lto cgu.03");
        assert_eq!(s[0].pid, 24114);
        assert!(!s[0].frames[0].kernel);
        assert_eq!(s[1].pid, 0);
        assert_eq!(s[1].frames[0].name, "pv_native_safe_halt");
        assert!(s[1].frames[0].kernel);
        assert_eq!(s[2].frames.len(), 3);
        assert!(s[2].frames[1].kernel && !s[2].frames[2].kernel);
    }
}
