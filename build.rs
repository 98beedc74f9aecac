//! Builds seed 001's null job and big job (`src/bench/proc/job.c`) as two minimal static
//! executables in `OUT_DIR`, which `timeshare` embeds (`src/bench/proc/jobs.rs`). They are
//! compiled with the C compiler the `cc` crate finds for the target — the one that already
//! builds the bundled SQLite — so a plain `cargo build` or `cargo install` needs nothing
//! more.
//!
//! It also builds the BPF programs that count system calls and the page cache's reads and
//! sample the kernel's stacks in the kernel (`src/harness/observe/bpf/*.bpf.c`) with
//! clang, when clang is there (`CLANG` names another): then `cfg(timeshare_bpf)` is set
//! and the objects are embedded. Without clang the build goes on, warns once, and
//! `observe` counts calls and pages through perf's records and profiles with `perf record`.

use std::path::{Path, PathBuf};

const SOURCE: &str = "src/bench/proc/job.c";

/// No C library, no start files, no dynamic loader, no position independence: the kernel
/// maps the file and jumps to `_start`. Headers and text share one page
/// (`noseparate-code`), and nothing is kept that the kernel does not map (no build id, no
/// symbols, no unwind tables, no compiler version note).
const FLAGS: &[&str] = &[
    "-static",
    "-nostdlib",
    "-fno-pie",
    "-no-pie",
    "-fno-asynchronous-unwind-tables",
    "-fno-ident",
    "-Wl,--build-id=none",
    "-Wl,-z,noseparate-code",
    "-s",
];

fn main() {
    println!("cargo:rerun-if-changed={SOURCE}");
    println!("cargo:rerun-if-changed=build.rs");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    build(&out.join("timeshare-null"), &[]);
    build(&out.join("timeshare-big"), &["-DTIMESHARE_BIG_JOB"]);
    build_bpf(&out);
}

/// The BPF programs: the call counter, the kernel profile's sampler and the page-cache
/// counter.
const BPF_SOURCES: &[&str] = &[
    "src/harness/observe/bpf/callmix.bpf.c",
    "src/harness/observe/bpf/kprofile.bpf.c",
    "src/harness/observe/bpf/pagecache.bpf.c",
];

/// What the BPF programs share, included by each.
const BPF_COMMON: &str = "src/harness/observe/bpf/common.h";

/// Compile the BPF programs with clang, or say why not (a warning, never a failure: the
/// perf path needs no clang). `cfg(timeshare_bpf)` only when every one was built.
fn build_bpf(out: &Path) {
    println!("cargo::rustc-check-cfg=cfg(timeshare_bpf)");
    println!("cargo:rerun-if-env-changed=CLANG");
    for source in BPF_SOURCES.iter().chain([&BPF_COMMON]) {
        println!("cargo:rerun-if-changed={source}");
    }
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    if arch != "x86_64" {
        // The call counter names exit and exit_group by their x86-64 numbers.
        println!("cargo:warning=the BPF programs are built for x86-64 only; observe counts calls and the page cache and samples the kernel through perf");
        return;
    }
    let clang = std::env::var("CLANG").unwrap_or_else(|_| "clang".into());
    for source in BPF_SOURCES {
        let object = Path::new(source)
            .file_stem()
            .expect("a file name")
            .to_string_lossy()
            .into_owned();
        let mut cmd = std::process::Command::new(&clang);
        // Debian keeps <asm/types.h>, which <linux/types.h> includes, under the multiarch
        // directory, which clang does not search when its target is bpf.
        cmd.args(["-O2", "-target", "bpf", "-Wall", "-Werror"])
            .arg("-I/usr/include/x86_64-linux-gnu")
            // The page-cache counter's bpf_loop callback needs its function's BTF; the
            // others carry none, which keeps them small.
            .args(source.contains("pagecache").then_some("-g"))
            .arg("-c")
            .arg(source)
            .arg("-o")
            .arg(out.join(format!("{object}.o")));
        match cmd.status() {
            Ok(s) if s.success() => {}
            Ok(s) => {
                println!(
                    "cargo:warning=building {source} failed ({s}): observe counts calls and the page cache and samples the kernel through perf"
                );
                return;
            }
            Err(e) => {
                println!(
                    "cargo:warning=no {clang} ({e}): the BPF programs are not built; observe counts calls and the page cache and samples the kernel through perf"
                );
                return;
            }
        }
    }
    println!("cargo:rustc-cfg=timeshare_bpf");
}

fn build(output: &Path, defines: &[&str]) {
    let compiler = cc::Build::new()
        .opt_level(2)
        .debug(false)
        .pic(false)
        .cargo_metadata(false)
        .get_compiler();
    let mut cmd = compiler.to_command();
    cmd.args(defines)
        .args(FLAGS)
        .arg("-o")
        .arg(output)
        .arg(SOURCE);
    let status = cmd
        .status()
        .unwrap_or_else(|e| panic!("cannot run the C compiler ({cmd:?}): {e}"));
    assert!(
        status.success(),
        "building {} failed ({status}): {cmd:?}",
        output.display()
    );
}
