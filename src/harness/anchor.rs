//! Anchors: the tool a user would pick instead of a row (perf bench, lmbench, fio), declared
//! beside the benchmark with its command line, how to read its per-operation figure, what
//! that figure is per, and how close the two must come. `timeshare crosscheck` runs each
//! row and its anchor alternately, pinned, and sets the two side by side.
//!
//! An anchor only describes and parses; the pairing, the ratio and the verdict are
//! `model::crosscheck`, the pairs `usecase/crosscheck.rs`, the tools run by `harness/toolrun.rs`.

use std::path::{Path, PathBuf};

/// Where Debian's lmbench package puts its programs (not on PATH).
const LMBENCH_DIRS: &[&str] = &["/usr/lib/lmbench/bin"];

/// How a tool prints its per-operation figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parse {
    /// `perf bench`: the number before "usecs/op".
    PerfUsecsPerOp,
    /// lmbench's `lat_*`: "Label: 0.7015 microseconds" (the last such line).
    LmbenchMicroseconds,
    /// lmbench's `lat_ops`: "integer mul: 3.50 nanoseconds", the line of this label.
    LmbenchOpsNanoseconds(&'static str),
    /// lmbench's `bw_*`: "0.065536 1530.58 MB/sec" (bw_tcp, bw_unix: the number before
    /// "MB/sec") or "8.39 12536.57" (bw_mem: the size in MB and the rate), the last such
    /// line; MB = 10^6 bytes; read as seconds per byte.
    LmbenchMegabytesPerSecond,
    /// A program of our own (the C chase): "pointer chase: 1.0830 nanoseconds", the line
    /// of this label.
    Nanoseconds(&'static str),
    /// lmbench's `lat_mmap` ("1.048576 176": MB, microseconds) and `lat_ctx` ("2 6.36":
    /// processes, microseconds): the second number of the last line of two numbers.
    LmbenchPairMicroseconds,
    /// lmbench's `lat_ctx`: its "2 6.36" line (processes, microseconds per switch with
    /// its one-process pass subtracted) plus the `ovr=3.24` it subtracted (printed on the
    /// line before): the whole pass, switch, pipe write and read and working-set sum.
    LmbenchCtxWholePass,
    /// iperf3's `--json` report: the receiver's rate over the whole test
    /// (`end.sum_received.bits_per_second`, bits of payload, the omitted first seconds
    /// left out), read as seconds per byte of payload.
    Iperf3ReceivedJson,
}

impl Parse {
    /// Seconds per the tool's operation, read from its output (stdout and stderr joined),
    /// or `None` when the output does not hold the figure.
    pub fn seconds(self, output: &str) -> Option<f64> {
        match self {
            Parse::PerfUsecsPerOp => output
                .lines()
                .find_map(|l| number_before(l, "usecs/op"))
                .map(|us| us * 1e-6),
            Parse::LmbenchMicroseconds => output
                .lines()
                .rev()
                .find_map(|l| number_before(l, "microseconds"))
                .map(|us| us * 1e-6),
            Parse::LmbenchOpsNanoseconds(label) | Parse::Nanoseconds(label) => output
                .lines()
                .filter_map(|l| l.trim().split_once(':'))
                .find(|(name, _)| name.trim() == label)
                .and_then(|(_, rest)| number_before(rest, "nanoseconds"))
                .map(|ns| ns * 1e-9),
            Parse::LmbenchMegabytesPerSecond => output
                .lines()
                .rev()
                .find_map(|l| number_before(l, "MB/sec"))
                .or_else(|| last_pair(output))
                .map(|mb_s| 1.0 / (mb_s * 1e6)),
            Parse::LmbenchPairMicroseconds => last_pair(output).map(|us| us * 1e-6),
            Parse::LmbenchCtxWholePass => {
                let overhead = output.lines().rev().find_map(|l| {
                    let v: f64 = l
                        .split_once("ovr=")?
                        .1
                        .split_whitespace()
                        .next()?
                        .parse()
                        .ok()?;
                    (v.is_finite() && v >= 0.0).then_some(v)
                })?;
                last_pair(output).map(|us| (us + overhead) * 1e-6)
            }
            Parse::Iperf3ReceivedJson => {
                iperf3_received_bits_per_second(output).map(|bits_per_s| 8.0 / bits_per_s)
            }
        }
    }
}

/// The receiver's bits of payload per second from iperf3's JSON report (the object
/// iperf3 prints; anything around it, such as a warning line, is skipped).
fn iperf3_received_bits_per_second(output: &str) -> Option<f64> {
    let (open, close) = (output.find('{')?, output.rfind('}')?);
    let json = output.get(open..=close)?;
    let report: serde_json::Value = serde_json::from_str(json).ok()?;
    let v = report
        .pointer("/end/sum_received/bits_per_second")?
        .as_f64()?;
    (v.is_finite() && v > 0.0).then_some(v)
}

/// The second of the last line that is exactly two positive numbers: "8.39 12536.57".
fn last_pair(output: &str) -> Option<f64> {
    output.lines().rev().find_map(|l| {
        let mut words = l.split_whitespace();
        let (first, second) = (words.next()?, words.next()?);
        if words.next().is_some() {
            return None;
        }
        first.parse::<f64>().ok()?;
        let v: f64 = second.parse().ok()?;
        (v.is_finite() && v > 0.0).then_some(v)
    })
}

/// The last number on `line` before the word `unit`: "Pipe latency: 27.78 microseconds".
fn number_before(line: &str, unit: &str) -> Option<f64> {
    let (head, _) = line.split_once(unit)?;
    let v: f64 = head.split_whitespace().last()?.parse().ok()?;
    (v.is_finite() && v > 0.0).then_some(v)
}

/// A file the anchor reads, made by the crosscheck before it runs (`{file}` in its
/// arguments): lat_pagefault maps one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScratchFile {
    pub bytes: u64,
    /// Bytes per write call that made it, as the row makes its own: on this kernel a file
    /// written in large blocks is cached in large folios, which read, map and fault
    /// differently from single pages.
    pub block: usize,
}

/// A server the tool needs running while it is measured (lmbench's network programs,
/// iperf3): the same program with `start`, before the pairs, ended after them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Server {
    pub start: &'static [&'static str],
    pub runs: ServerRuns,
}

/// How a tool's server runs, and so how it is ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerRuns {
    /// It puts itself in the background (lmbench's `-s`) and is stopped by running the
    /// program again with these arguments (lmbench's `-S 127.0.0.1`).
    Detached { stop: &'static [&'static str] },
    /// It stays in the foreground (`iperf3 -s`): the crosscheck starts it as its own
    /// child, in a process group of its own, and ends that group after the pairs.
    Foreground,
}

/// A tool the crosscheck builds itself: a few lines of C it carries, compiled with the
/// system's `cc -O2` into its scratch directory (package `gcc`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuiltFromC {
    /// The program's file name in the scratch directory.
    pub name: &'static str,
    pub source: &'static str,
}

/// A file the tool executes from its fixed directory (lmbench's `lat_proc exec` runs
/// /var/tmp/lmbench/hello): put in the tool's private view of that directory (see
/// [`super::toolview`]), never at the shared path itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExecFile {
    /// Its name in the anchor's [`Anchor::dir`].
    pub name: &'static str,
    pub image: &'static [u8],
}

/// Which figure of the row is set beside the tool's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RowFigure {
    /// The row's headline (its median).
    #[default]
    Headline,
    /// `cpu.cache`'s sweep at one array size: the minimum of its repeats there (the tool
    /// prints the minimum of the same repeats).
    SweepMinimumAt { bytes: u64 },
}

/// The tool a row is checked against.
#[derive(Debug, Clone, PartialEq)]
pub struct Anchor {
    /// How a person would name it: "lmbench lat_proc fork".
    pub tool: &'static str,
    /// The program and its arguments (`{file}` is replaced by the scratch file's path).
    pub program: &'static str,
    pub args: &'static [&'static str],
    /// The Debian package that provides it.
    pub package: &'static str,
    pub parse: Parse,
    /// What its figure is per, in words.
    pub basis: &'static str,
    /// Row operations per tool operation: the row's figure is compared with the tool's
    /// divided by this (1 when both count the same thing).
    pub per_row_op: f64,
    /// The largest |ratio − 1| that still agrees (0.10 = ±10%).
    pub tolerance: f64,
    /// Why the tolerance is not the default ±10%, when it is not.
    pub why: Option<&'static str>,
    /// A known, stated reason why the two differ beyond the tolerance: a row outside it
    /// is then "explained", not a failure.
    pub explained: Option<&'static str>,
    pub file: Option<ScratchFile>,
    pub server: Option<Server>,
    /// Built by the crosscheck from C rather than found installed.
    pub built: Option<BuiltFromC>,
    /// A program the tool executes, put where it looks for it.
    pub exec_file: Option<ExecFile>,
    /// The row's figure the tool's is compared with.
    pub row_figure: RowFigure,
    /// A directory at a fixed path in a shared place that the tool uses (lmbench's
    /// `/var/tmp/lmbench`): the tool runs with a private view of it, a fresh directory of
    /// its own (see [`super::toolview`]); the shared path is never touched.
    pub dir: Option<&'static str>,
}

impl Anchor {
    /// `program args…`, whose output `parse` reads, with ±10% and the same basis.
    pub fn new(
        tool: &'static str,
        program: &'static str,
        args: &'static [&'static str],
        package: &'static str,
        parse: Parse,
        basis: &'static str,
    ) -> Anchor {
        Anchor {
            tool,
            program,
            args,
            package,
            parse,
            basis,
            per_row_op: 1.0,
            tolerance: 0.10,
            why: None,
            explained: None,
            file: None,
            server: None,
            built: None,
            exec_file: None,
            row_figure: RowFigure::Headline,
            dir: None,
        }
    }

    /// A program the crosscheck builds from `source` with the system's C compiler, its
    /// figure read as [`Parse::Nanoseconds`] of `label`.
    pub fn built_from_c(
        tool: &'static str,
        built: BuiltFromC,
        args: &'static [&'static str],
        label: &'static str,
        basis: &'static str,
    ) -> Anchor {
        Anchor {
            built: Some(built),
            ..Anchor::new(
                tool,
                built.name,
                args,
                "gcc",
                Parse::Nanoseconds(label),
                basis,
            )
        }
    }

    /// The tool executes `image` as `name` in its fixed directory `dir` (put in its
    /// private view of that directory for the pairs).
    pub fn with_exec_file(
        mut self,
        dir: &'static str,
        name: &'static str,
        image: &'static [u8],
    ) -> Anchor {
        self.dir = Some(dir);
        self.exec_file = Some(ExecFile { name, image });
        self
    }

    /// Compare the tool with this figure of the row instead of its headline.
    pub fn against(mut self, figure: RowFigure) -> Anchor {
        self.row_figure = figure;
        self
    }

    /// An lmbench program (package `lmbench`, Debian's non-free section).
    pub fn lmbench(
        tool: &'static str,
        program: &'static str,
        args: &'static [&'static str],
        parse: Parse,
        basis: &'static str,
    ) -> Anchor {
        Anchor::new(tool, program, args, "lmbench", parse, basis)
    }

    /// A `perf bench` collection (package `linux-perf`).
    pub fn perf(tool: &'static str, args: &'static [&'static str], basis: &'static str) -> Anchor {
        Anchor::new(
            tool,
            "perf",
            args,
            "linux-perf",
            Parse::PerfUsecsPerOp,
            basis,
        )
    }

    /// Agree within ±`tolerance` (a fraction), for the reason given.
    pub fn tolerance(mut self, tolerance: f64, why: &'static str) -> Anchor {
        self.tolerance = tolerance;
        self.why = Some(why);
        self
    }

    /// The two are known to differ, for this reason (said in the row's notes too).
    pub fn explained(mut self, why: &'static str) -> Anchor {
        self.explained = Some(why);
        self
    }

    /// One tool operation is `n` row operations.
    pub fn per_row_op(mut self, n: f64) -> Anchor {
        self.per_row_op = n;
        self
    }

    /// The tool reads a scratch file of `bytes` bytes, written a page (4 KiB) at a time.
    pub fn with_file(self, bytes: u64) -> Anchor {
        self.with_file_in_blocks(bytes, 4096)
    }

    /// The tool reads a scratch file of `bytes` bytes, written `block` bytes at a time.
    pub fn with_file_in_blocks(mut self, bytes: u64, block: usize) -> Anchor {
        self.file = Some(ScratchFile { bytes, block });
        self
    }

    /// The tool needs its server running (started before the pairs, stopped after).
    pub fn with_server(mut self, server: Server) -> Anchor {
        self.server = Some(server);
        self
    }

    /// The tool writes into `dir`, which it does not make itself.
    pub fn with_dir(mut self, dir: &'static str) -> Anchor {
        self.dir = Some(dir);
        self
    }

    /// The command line as a person would type it (`{file}` left as it is).
    pub fn command_line(&self) -> String {
        std::iter::once(self.program)
            .chain(self.args.iter().copied())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The arguments with `{file}` replaced, and `{cpus}` by the number of CPUs this
    /// process may use (bw_mem -P: one process per CPU).
    pub fn args_with(&self, file: Option<&Path>) -> Vec<String> {
        let cpus = super::cpu::usable_cpus().len().max(1);
        self.args
            .iter()
            .map(|a| match file {
                Some(f) if *a == "{file}" => f.display().to_string(),
                _ if *a == "{cpus}" => cpus.to_string(),
                _ => (*a).to_string(),
            })
            .collect()
    }

    /// The tool's figure converted to the row's basis: seconds per row operation.
    pub fn seconds_per_row_op(&self, output: &str) -> Option<f64> {
        self.parse.seconds(output).map(|s| s / self.per_row_op)
    }

    /// Where the program is: on PATH, or in lmbench's own directory; for a program the
    /// crosscheck builds, where its compiler is.
    pub fn locate(&self) -> Option<PathBuf> {
        match self.built {
            Some(_) => locate(C_COMPILER),
            None => locate(self.program),
        }
    }
}

/// The compiler a [`BuiltFromC`] tool is built with.
pub const C_COMPILER: &str = "cc";

/// Where a tool's `program` is: on PATH, or in lmbench's own directory.
pub fn locate(program: &str) -> Option<PathBuf> {
    locate_in(program, std::env::var_os("PATH"), LMBENCH_DIRS)
}

fn locate_in(program: &str, path: Option<std::ffi::OsString>, extra: &[&str]) -> Option<PathBuf> {
    let on_path = path
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(program));
    // lmbench's directory holds one folder per architecture triple.
    let lmbench = extra
        .iter()
        .filter_map(|d| std::fs::read_dir(d).ok())
        .flatten()
        .flatten()
        .map(|e| e.path().join(program));
    on_path.chain(lmbench).find(|p| is_executable(p))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    // The figure lines as perf 6.1 and lmbench 3.0-a9 printed them on this machine
    // (Debian 12); perf's header lines are added in its usual form.
    const PERF_SYSCALL: &str = "# Running 'syscall/basic' benchmark:\n# Executed 100000 getppid() calls\n\n       1.086700 usecs/op\n         920217 ops/sec\n";
    const PERF_PIPE: &str = "# Running 'sched/pipe' benchmark:\n# Executed 20000 pipe operations between two processes\n\n     Total time: 0.277 [sec]\n\n      13.850300 usecs/op\n          72200 ops/sec\n";
    const LAT_PROC: &str = "Process fork+exit: 704.9146 microseconds\n";
    const LAT_PAGEFAULT: &str = "Pagefaults on /tmp/x/pf: 0.1578 microseconds\n";
    const LAT_OPS: &str = "integer bit: 0.80 nanoseconds\ninteger add: 0.58 nanoseconds\ninteger mul: 3.50 nanoseconds\ninteger div: 11.42 nanoseconds\nint64 mul: 3.51 nanoseconds\n";

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1e-12)
    }

    #[test]
    fn perf_bench_figures_are_read_in_seconds() {
        let s = Parse::PerfUsecsPerOp.seconds(PERF_SYSCALL).unwrap();
        assert!(close(s, 1.0867e-6), "{s}");
        let s = Parse::PerfUsecsPerOp.seconds(PERF_PIPE).unwrap();
        assert!(close(s, 13.8503e-6), "{s}");
    }

    #[test]
    fn lmbench_latencies_are_read_in_seconds() {
        let s = Parse::LmbenchMicroseconds.seconds(LAT_PROC).unwrap();
        assert!(close(s, 704.9146e-6), "{s}");
        // A path with a colon-free name before the figure still parses.
        let s = Parse::LmbenchMicroseconds.seconds(LAT_PAGEFAULT).unwrap();
        assert!(close(s, 0.1578e-6), "{s}");
    }

    #[test]
    fn lat_ops_is_read_by_its_label_not_by_a_prefix() {
        let s = Parse::LmbenchOpsNanoseconds("integer mul")
            .seconds(LAT_OPS)
            .unwrap();
        assert!(close(s, 3.50e-9), "{s}");
        let s = Parse::LmbenchOpsNanoseconds("int64 mul")
            .seconds(LAT_OPS)
            .unwrap();
        assert!(close(s, 3.51e-9), "{s}");
        assert_eq!(
            Parse::LmbenchOpsNanoseconds("float mul").seconds(LAT_OPS),
            None
        );
    }

    #[test]
    fn a_built_tool_is_found_by_its_compiler_and_read_in_nanoseconds() {
        let a = Anchor::built_from_c(
            "C pointer chase",
            BuiltFromC {
                name: "chase",
                source: "int main(void) { return 0; }",
            },
            &["16384"],
            "pointer chase",
            "per dependent load",
        )
        .against(RowFigure::SweepMinimumAt { bytes: 16384 });
        assert_eq!(a.package, "gcc");
        assert_eq!(a.command_line(), "chase 16384");
        let s = a
            .seconds_per_row_op("pointer chase: 1.0830 nanoseconds\n")
            .unwrap();
        assert!(close(s, 1.083e-9), "{s}");
        assert_eq!(a.seconds_per_row_op("pointer chase: nanoseconds\n"), None);
        assert_eq!(
            a.locate().is_some(),
            locate(C_COMPILER).is_some(),
            "a built tool is there when its compiler is"
        );
    }

    #[test]
    fn lmbench_bandwidths_are_read_as_seconds_per_byte_of_decimal_megabytes() {
        let bw_tcp = "0.065536 1530.58 MB/sec\n";
        let s = Parse::LmbenchMegabytesPerSecond.seconds(bw_tcp).unwrap();
        assert!(close(s, 1.0 / 1530.58e6), "{s}");
        let bw_unix = "AF_UNIX sock stream bandwidth: 2170.99 MB/sec\n";
        let a = Anchor::lmbench(
            "lmbench bw_unix",
            "bw_unix",
            &[],
            Parse::LmbenchMegabytesPerSecond,
            "x",
        )
        .per_row_op(1.0 / 4e6);
        // Seconds per row operation of 4,000,000 bytes.
        let s = a.seconds_per_row_op(bw_unix).unwrap();
        assert!(close(s, 4e6 / 2170.99e6), "{s}");
        assert_eq!(Parse::LmbenchMegabytesPerSecond.seconds("0 MB/sec"), None);
    }

    #[test]
    fn lmbench_size_and_figure_lines_are_read() {
        // bw_mem 8m rd, lat_mmap 1m, lat_ctx -s 16 2 as they printed here.
        let s = Parse::LmbenchMegabytesPerSecond
            .seconds("8.39 12536.57\n")
            .unwrap();
        assert!(close(s, 1.0 / 12536.57e6), "{s}");
        let s = Parse::LmbenchPairMicroseconds
            .seconds("1.048576 176\n")
            .unwrap();
        assert!(close(s, 176e-6), "{s}");
        let s = Parse::LmbenchPairMicroseconds
            .seconds("\n\"size=16k ovr=3.24\n2 6.36\n")
            .unwrap();
        assert!(close(s, 6.36e-6), "{s}");
        assert_eq!(
            Parse::LmbenchPairMicroseconds.seconds("create: No such file\n"),
            None
        );
        assert_eq!(Parse::LmbenchMegabytesPerSecond.seconds("8.39 0\n"), None);
    }

    #[test]
    fn lat_ctx_s_overhead_is_added_back_and_needed() {
        let out = "\n\"size=16k ovr=3.24\n2 6.36\n";
        let s = Parse::LmbenchCtxWholePass.seconds(out).unwrap();
        assert!(close(s, 9.60e-6), "{s}");
        // Without the overhead line the whole pass is not known.
        assert_eq!(Parse::LmbenchCtxWholePass.seconds("2 6.36\n"), None);
        // lat_ctx prints no figure line when the switch came out at or below its overhead.
        assert_eq!(
            Parse::LmbenchCtxWholePass.seconds("\n\"size=0k ovr=1.93\n"),
            None
        );
    }

    #[test]
    fn output_without_a_figure_is_none_not_zero() {
        for p in [
            Parse::PerfUsecsPerOp,
            Parse::LmbenchMicroseconds,
            Parse::LmbenchOpsNanoseconds("integer mul"),
            Parse::LmbenchMegabytesPerSecond,
            Parse::LmbenchPairMicroseconds,
            Parse::LmbenchCtxWholePass,
            Parse::Iperf3ReceivedJson,
        ] {
            assert_eq!(p.seconds(""), None);
            assert_eq!(p.seconds("perf: command not found\n"), None);
            assert_eq!(p.seconds("x: nan microseconds usecs/op nanoseconds"), None);
            assert_eq!(
                p.seconds("integer mul: 0 nanoseconds 0 usecs/op 0 microseconds"),
                None
            );
        }
    }

    // iperf3 3.12's `--json` report of one TCP stream pinned to one CPU here, cut to the
    // fields around the one read (`-t 3 -O 1`: the omitted first second is in no sum).
    const IPERF3_JSON: &str = r#"{
        "start": {"test_start": {"protocol": "TCP", "num_streams": 1, "blksize": 65536, "omit": 1, "duration": 3}},
        "intervals": [{"sum": {"bytes": 2705326080, "bits_per_second": 21642608640.0, "omitted": true}}],
        "end": {
            "sum_sent": {"start": 0, "end": 2.998042, "seconds": 2.998042, "bytes": 6795427840, "bits_per_second": 18132975695.470577, "retransmits": 1, "sender": true},
            "sum_received": {"start": 0, "end": 2.997924, "seconds": 2.997924, "bytes": 6795427840, "bits_per_second": 18133689419.745132, "sender": true}
        }
    }"#;

    #[test]
    fn iperf3_s_receiver_rate_is_read_as_seconds_per_payload_byte() {
        let s = Parse::Iperf3ReceivedJson.seconds(IPERF3_JSON).unwrap();
        // 18.13 Gbit/s of payload = 2.267 GB/s: 0.4412 ns a byte.
        assert!(close(s, 8.0 / 18133689419.745132), "{s}");
        assert!((s * 1e9 - 0.4412).abs() < 1e-4, "{s}");
        // A warning printed before the report does not hide it.
        let warned = format!("iperf3: warning - something\n{IPERF3_JSON}\n");
        assert_eq!(Parse::Iperf3ReceivedJson.seconds(&warned), Some(s));
        // The sender's figure is not taken in its place, nor is a report without it.
        let no_receiver = IPERF3_JSON.replace("sum_received", "sum_other");
        assert_eq!(Parse::Iperf3ReceivedJson.seconds(&no_receiver), None);
        let error = r#"{"start": {}, "intervals": [], "end": {}, "error": "unable to connect to server: Connection refused"}"#;
        assert_eq!(Parse::Iperf3ReceivedJson.seconds(error), None);
        let zero = IPERF3_JSON.replace("18133689419.745132", "0");
        assert_eq!(Parse::Iperf3ReceivedJson.seconds(&zero), None);
        assert_eq!(Parse::Iperf3ReceivedJson.seconds("} {"), None);
    }

    #[test]
    fn a_tool_operation_of_several_row_operations_is_divided() {
        let a =
            Anchor::perf("perf bench sched pipe", &["bench", "sched", "pipe"], "x").per_row_op(2.0);
        let s = a.seconds_per_row_op(PERF_PIPE).unwrap();
        assert!(close(s, 13.8503e-6 / 2.0), "{s}");
    }

    #[test]
    fn the_scratch_file_is_put_in_its_place() {
        let a = Anchor::lmbench(
            "lmbench lat_pagefault",
            "lat_pagefault",
            &["-N", "3", "{file}"],
            Parse::LmbenchMicroseconds,
            "x",
        );
        assert_eq!(a.args_with(Some(Path::new("/t/pf"))), ["-N", "3", "/t/pf"]);
        let p = Anchor::lmbench(
            "x",
            "bw_mem",
            &["-P", "{cpus}"],
            Parse::LmbenchMicroseconds,
            "x",
        );
        let n = super::super::cpu::usable_cpus().len().to_string();
        assert_eq!(p.args_with(None), ["-P", n.as_str()]);
        assert_eq!(a.command_line(), "lat_pagefault -N 3 {file}");
    }

    #[test]
    fn programs_are_found_on_path_and_in_lmbench_s_directory() {
        let dir = tempfile::tempdir().unwrap();
        let arch = dir.path().join("lib/lmbench/bin/x86_64-linux-gnu");
        std::fs::create_dir_all(&arch).unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        for p in [arch.join("lat_proc"), bin.join("perf")] {
            std::fs::write(&p, "#!/bin/sh\n").unwrap();
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let lm = dir.path().join("lib/lmbench/bin");
        let extra = [lm.to_str().unwrap()];
        let path = Some(bin.clone().into_os_string());
        assert_eq!(
            locate_in("lat_proc", path.clone(), &extra),
            Some(arch.join("lat_proc"))
        );
        assert_eq!(
            locate_in("perf", path.clone(), &extra),
            Some(bin.join("perf"))
        );
        assert_eq!(locate_in("fio", path, &extra), None);
    }
}
