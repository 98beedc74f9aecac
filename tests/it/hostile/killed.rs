//! `kill -9` at several moments of `run` (one process and three) and of `crosscheck`,
//! then `clean`: nothing left in the scratch directory, no process of ours working
//! there, no tool server left.

use std::path::Path;
use std::time::Duration;

use crate::common::command;

/// Processes whose working directory or command line is inside `dir`.
fn processes_in(dir: &Path) -> Vec<String> {
    let needle = dir.to_string_lossy().into_owned();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().parse::<i32>().is_ok())
        .filter_map(|e| {
            let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            let cwd = std::fs::read_link(e.path().join("cwd")).ok();
            let inside = cmdline.contains(&needle) || cwd.is_some_and(|c| c.starts_with(dir));
            inside.then(|| format!("{}: {cmdline}", e.file_name().to_string_lossy()))
        })
        .collect()
}

/// Start `args` with its scratch (and temporary directory) in a fresh directory, kill
/// it with SIGKILL after `after`, then `clean` that directory: what is left.
fn kill_then_clean(args: &[&str], after: Duration) -> (Vec<String>, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = command();
    cmd.args(args);
    if args[0] != "crosscheck" {
        cmd.arg("--dir").arg(dir.path());
    }
    let mut child = cmd
        .env("TMPDIR", dir.path())
        .env("ENOUGH", "20000")
        .env("TIMING_O", "0")
        .env("LOOP_O", "0")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(after);
    child.kill().unwrap();
    child.wait().unwrap();
    let out = command()
        .args(["clean", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    // What the kernel still has to reap after a SIGKILL, given a moment.
    let mut procs = processes_in(dir.path());
    for _ in 0..100 {
        if procs.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
        procs = processes_in(dir.path());
    }
    let left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    (left, procs)
}

#[test]
fn kill_9_in_any_phase_of_run_then_clean_leaves_nothing() {
    let moments = [100, 600, 1500, 3000].map(Duration::from_millis);
    for invocations in ["1", "3"] {
        for after in moments {
            let (left, procs) = kill_then_clean(
                &[
                    "run",
                    "proc.fork.0",
                    "fs.create.0",
                    "--quick",
                    "--no-save",
                    "--invocations",
                    invocations,
                ],
                after,
            );
            let case = format!("--invocations {invocations}, killed after {after:?}");
            assert!(left.is_empty(), "{case}: left {left:?}");
            assert!(procs.is_empty(), "{case}: still running {procs:?}");
        }
    }
}

#[test]
fn kill_9_in_any_phase_of_crosscheck_then_clean_leaves_nothing_and_no_server() {
    if !std::path::Path::new("/usr/lib/lmbench/bin").exists() {
        eprintln!("skipped: needs lmbench");
        return;
    }
    let before = super::servers::lat_tcp_servers();
    for after in [200, 1000, 2500, 5000].map(Duration::from_millis) {
        let (left, procs) = kill_then_clean(
            &[
                "crosscheck",
                "net.tcp.rtt",
                "--pairs",
                "2",
                "--max-pairs",
                "2",
            ],
            after,
        );
        let case = format!("killed after {after:?}");
        assert!(left.is_empty(), "{case}: left {left:?}");
        assert!(procs.is_empty(), "{case}: still running {procs:?}");
        // The server dies with its namespace's holder, which dies with crosscheck.
        let mut servers = super::servers::lat_tcp_servers();
        for _ in 0..100 {
            if servers <= before {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
            servers = super::servers::lat_tcp_servers();
        }
        assert!(servers <= before, "{case}: lat_tcp's server left running");
    }
}
