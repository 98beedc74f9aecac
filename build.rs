//! Builds seed 001's null job and big job (`src/bench/proc/job.c`) as two minimal static
//! executables in `OUT_DIR`, which `timeshare` embeds (`src/bench/proc/jobs.rs`). They are
//! compiled with the C compiler the `cc` crate finds for the target — the one that already
//! builds the bundled SQLite — so a plain `cargo build` or `cargo install` needs nothing
//! more.

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
