//! The kernel profile sampled in the kernel: the program of `bpf/kprofile.bpf.c` runs on
//! a software clock on every CPU ([`super::kprofile::OBSERVE_HZ`] times a second), and
//! counts each interrupted task's kernel frames with its command in a map; this side
//! folds the map's closed window into the profile's aggregate and deletes it. Where
//! `perf record` wrote every sample with its whole call chain to a file and `perf script`
//! read each back and named its frames (most of what observing a busy machine cost), here
//! no sample leaves the kernel and the frames are named from `/proc/kallsyms`, read once.
//!
//! Loading needs root (CAP_BPF and CAP_PERFMON) and kernel addresses this user may see;
//! where either is missing [`KernelSampling::start`] says why and `perf record` is used.

use std::time::Duration;

use super::kallsyms::KernelSymbols;
use crate::model::observation::subsystem::{Frame, StackSample};

/// The object clang built from `bpf/kprofile.bpf.c`, when it did (build.rs).
#[cfg(timeshare_bpf)]
const OBJECT: Option<&[u8]> = Some(aya::include_bytes_aligned!(concat!(
    env!("OUT_DIR"),
    "/kprofile.bpf.o"
)));
#[cfg(not(timeshare_bpf))]
const OBJECT: Option<&[u8]> = None;

const COMM_LEN: usize = 16;
/// Kernel frames a sample keeps, leaf first (as `MAX_FRAMES` in the program).
pub const MAX_FRAMES: usize = 64;
/// How long the programs are given, once the window is switched, to finish a sample of
/// the closed one (a sample takes microseconds).
const SETTLE: Duration = Duration::from_millis(10);
/// The program's `enum stat`.
const STAT_FULL: u32 = 0;

/// The program's `struct sample`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Sample {
    gen: u32,
    idle: u32,
    comm: [u8; COMM_LEN],
    ips: [u64; MAX_FRAMES],
}

// SAFETY: a plain C struct of integers laid out as the program's (repr(C)), without
// padding: 4 + 4 + 16 bytes, then the addresses at an offset of 24.
unsafe impl aya::Pod for Sample {}

/// Sampling the kernel's stacks in BPF; dropping it detaches the programs.
pub struct KernelSampling {
    bpf: aya::Ebpf,
    symbols: KernelSymbols,
    /// The window the programs count into now (0 or 1).
    open: u32,
    /// Samples the full map could not keep, already handed over.
    lost_folded: u64,
}

impl KernelSampling {
    /// Load the program and attach it to a clock of `hz` on every CPU, or say why not.
    pub fn start(hz: u32) -> Result<KernelSampling, String> {
        if std::env::var_os("TIMESHARE_NO_BPF").is_some() {
            return Err("TIMESHARE_NO_BPF is set".into());
        }
        let object = OBJECT.ok_or(
            "this timeshare was built without clang, so without its BPF sampler (build.rs)",
        )?;
        let symbols = KernelSymbols::load()?;
        // No relocation against the kernel's types is needed: not parsing its BTF (megabytes)
        // keeps the observer's memory down.
        let mut bpf = aya::EbpfLoader::new()
            .btf(None)
            .load(object)
            .map_err(|e| format!("loading the BPF maps: {e}"))?;
        attach(&mut bpf, hz).map_err(|e| {
            format!(
                "attaching the BPF sampler: {}",
                super::bpfobj::verdict_of(&e)
            )
        })?;
        Ok(KernelSampling {
            bpf,
            symbols,
            open: 0,
            lost_folded: 0,
        })
    }

    /// Switch the programs to the other window, then hand the closed one's samples to
    /// `into` and empty it from the map. Returns the samples the full map could not keep
    /// since the last window.
    pub fn fold_window(&mut self, into: &mut dyn FnMut(StackSample, u64)) -> anyhow::Result<u64> {
        let closed = self.open;
        self.open ^= 1;
        let open = self.open;
        {
            let mut window = aya::maps::Array::<_, u32>::try_from(self.map_mut("window")?)?;
            window.set(0, open, 0)?;
        }
        std::thread::sleep(SETTLE);
        let mut counts = aya::maps::HashMap::<_, Sample, u64>::try_from(self.map_mut("counts")?)?;
        let closed_samples: Vec<(Sample, u64)> = counts
            .iter()
            .filter_map(Result::ok)
            .filter(|(s, _)| s.gen == closed)
            .collect();
        for (s, _) in &closed_samples {
            let _ = counts.remove(s);
        }
        for (s, n) in closed_samples {
            into(self.stack_of(&s), n);
        }
        let lost = self.lost()?;
        let new = lost.saturating_sub(self.lost_folded);
        self.lost_folded = lost;
        Ok(new)
    }

    /// Detach the program: no sample is counted after this.
    pub fn detach(&mut self) {
        let p: Option<&mut aya::programs::PerfEvent> = self
            .bpf
            .program_mut("timeshare_sample")
            .and_then(|p| p.try_into().ok());
        if let Some(p) = p {
            let _ = p.unload();
        }
    }

    /// Kernel symbols known, for the profile's method line.
    pub fn symbols(&self) -> usize {
        self.symbols.len()
    }

    fn stack_of(&self, s: &Sample) -> StackSample {
        let name = |ip: u64| {
            self.symbols
                .name_of(ip)
                .map_or_else(|| "[unknown kernel]".to_string(), str::to_string)
        };
        let mut frames: Vec<Frame> = s
            .ips
            .iter()
            .take_while(|&&ip| ip != 0)
            .map(|&ip| Frame {
                name: name(ip),
                kernel: true,
            })
            .collect();
        if frames.is_empty() {
            frames.push(Frame {
                name: "[user]".into(),
                kernel: false,
            });
        }
        StackSample {
            comm: super::kcount::comm_name(&s.comm),
            pid: u32::from(s.idle == 0),
            frames,
        }
    }

    fn lost(&self) -> anyhow::Result<u64> {
        let map = self
            .bpf
            .map("stats")
            .ok_or_else(|| anyhow::anyhow!("no stats map in the BPF object"))?;
        let stats = aya::maps::PerCpuArray::<_, u64>::try_from(map)?;
        Ok(stats.get(&STAT_FULL, 0)?.iter().sum())
    }

    fn map_mut(&mut self, name: &str) -> anyhow::Result<&mut aya::maps::Map> {
        self.bpf
            .map_mut(name)
            .ok_or_else(|| anyhow::anyhow!("no {name} map in the BPF object"))
    }
}

fn attach(bpf: &mut aya::Ebpf, hz: u32) -> anyhow::Result<()> {
    use aya::programs::perf_event::{perf_sw_ids, PerfEventScope, PerfTypeId, SamplePolicy};
    let p: &mut aya::programs::PerfEvent = bpf
        .program_mut("timeshare_sample")
        .ok_or_else(|| anyhow::anyhow!("no program timeshare_sample in the BPF object"))?
        .try_into()?;
    p.load()?;
    let cpus = aya::util::online_cpus().map_err(|(what, e)| anyhow::anyhow!("{what}: {e}"))?;
    for cpu in cpus {
        p.attach(
            PerfTypeId::Software,
            perf_sw_ids::PERF_COUNT_SW_CPU_CLOCK as u64,
            PerfEventScope::AllProcessesOneCpu { cpu },
            SamplePolicy::Frequency(u64::from(hz)),
            false,
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sample_is_laid_out_as_the_programs() {
        // struct sample: gen, idle, comm[16], then 64 addresses.
        assert_eq!(
            std::mem::size_of::<Sample>(),
            4 + 4 + COMM_LEN + 8 * MAX_FRAMES
        );
        assert_eq!(std::mem::offset_of!(Sample, ips), 24);
    }

    /// As root with the programs built: a child that stats a path for a second is
    /// sampled, its frames named from kallsyms, and a window folded is gone from the map.
    #[test]
    fn a_busy_child_is_sampled_in_the_kernel_and_its_window_emptied() {
        let mut s = match KernelSampling::start(999) {
            Ok(s) => s,
            Err(why) => {
                eprintln!("skipped: {why}");
                return;
            }
        };
        // SAFETY: the child only calls stat and _exit.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            let end = std::time::Instant::now() + Duration::from_millis(1000);
            // SAFETY: stat is plain data; all zeroes is a valid value.
            let mut st: libc::stat = unsafe { std::mem::zeroed() };
            while std::time::Instant::now() < end {
                // SAFETY: a valid path and a stat buffer of our own.
                unsafe { libc::stat(c"/usr/share/doc/../bin/env".as_ptr(), &mut st) };
            }
            // SAFETY: ends the forked child at once.
            unsafe { libc::_exit(0) };
        }
        let mut status = 0;
        // SAFETY: waits for our own child.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        let mut samples = Vec::new();
        s.fold_window(&mut |sample, n| samples.push((sample, n)))
            .unwrap();
        let kernel_frames: Vec<&str> = samples
            .iter()
            .flat_map(|(s, _)| s.frames.iter())
            .filter(|f| f.kernel)
            .map(|f| f.name.as_str())
            .collect();
        assert!(
            kernel_frames.iter().any(|f| f.contains("syscall")),
            "a system call's frames named: {:?}",
            &kernel_frames[..kernel_frames.len().min(20)]
        );
        // Code loaded after kallsyms was read (another test's BPF program) has no name.
        let unknown = kernel_frames
            .iter()
            .filter(|f| f.starts_with("[unknown"))
            .count();
        assert!(
            unknown * 20 <= kernel_frames.len(),
            "{unknown} of {} kernel frames unnamed",
            kernel_frames.len()
        );
        // The closed window's entries are gone: only the open one's can be left.
        let counts =
            aya::maps::HashMap::<_, Sample, u64>::try_from(s.bpf.map("counts").unwrap()).unwrap();
        assert!(counts
            .iter()
            .filter_map(Result::ok)
            .all(|(k, _)| k.gen == s.open));
    }
}
