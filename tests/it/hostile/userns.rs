//! The user-namespace path: `crosscheck` as an ordinary user (`nobody`), whose tools'
//! private network (`harness::netview`) and private `/var/tmp` (`harness::toolview`) can
//! only be made inside a user namespace; and, where the kernel refuses one, the row's
//! failure naming the setting or limit that refused it.

use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use super::others::{is_root, NOBODY};
use super::servers::{lat_tcp_servers, listening_lmbench_ports};
use crate::common::{binary_others_can_run, isolate};

const LMBENCH_DIR: &str = "/var/tmp/lmbench";

fn lmbench_installed() -> bool {
    Path::new("/usr/lib/lmbench/bin").exists()
}

/// What the kernel's settings say of an ordinary user's user namespaces, when they
/// forbid them (the three settings `harness::userns` reads).
fn forbidding_setting() -> Option<&'static str> {
    let is =
        |path: &str, value: &str| std::fs::read_to_string(path).is_ok_and(|s| s.trim() == value);
    if is("/proc/sys/kernel/unprivileged_userns_clone", "0") {
        Some("kernel.unprivileged_userns_clone = 0")
    } else if is("/proc/sys/user/max_user_namespaces", "0") {
        Some("user.max_user_namespaces = 0")
    } else if is(
        "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
        "1",
    ) {
        Some("kernel.apparmor_restrict_unprivileged_userns = 1")
    } else {
        None
    }
}

/// The crosscheck of a row with a server (`net.tcp.rtt`: lat_tcp) and a row with a tool
/// in the private `/var/tmp` (`proc.exec.null.0`: lat_proc exec), two pairs each, run by
/// `wrapper…` with `home` as its home and temporary directory.
fn crosscheck_by(wrapper: &[&str], exe: &Path, home: &Path) -> std::process::Command {
    let mut cmd = std::process::Command::new(wrapper[0]);
    isolate(&mut cmd);
    cmd.args(&wrapper[1..])
        .arg(exe)
        .args([
            "crosscheck",
            "net.tcp.rtt",
            "proc.exec.null.0",
            "--pairs",
            "2",
            "--max-pairs",
            "2",
        ])
        .env("HOME", home)
        .env("XDG_DATA_HOME", home.join("data"))
        .env("TMPDIR", home)
        .env("ENOUGH", "20000")
        .env("TIMING_O", "0")
        .env("LOOP_O", "0")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    cmd
}

/// As `nobody`, in a directory `nobody` owns: both tools run (their namespaces made in a
/// user namespace), nothing of theirs listens on the host while they run, nothing is made
/// in `/var/tmp`, nothing is left in the directory or running. Where the kernel forbids
/// ordinary users user namespaces, both rows fail naming the setting.
#[test]
fn crosscheck_as_nobody_makes_its_tools_namespaces_in_a_user_namespace() {
    if !is_root() || !lmbench_installed() {
        eprintln!("skipped: needs root (to become nobody) and lmbench");
        return;
    }
    let (_bin, exe) = binary_others_can_run();
    let top = tempfile::tempdir().unwrap();
    std::fs::set_permissions(top.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let home = top.path().join("nobody");
    std::fs::create_dir(&home).unwrap();
    std::os::unix::fs::chown(&home, Some(65534), Some(65534)).unwrap();
    let var_tmp_had_lmbench = std::fs::symlink_metadata(LMBENCH_DIR).is_ok();
    let _alone = super::servers::servers_counted_alone();
    let servers_before = lat_tcp_servers();
    let ports_before = listening_lmbench_ports();
    let setpriv = [
        "setpriv",
        "--reuid",
        NOBODY,
        "--regid",
        NOBODY,
        "--clear-groups",
    ];
    let mut child = crosscheck_by(&setpriv, &exe, &home).spawn().unwrap();
    let mut seen = BTreeSet::new();
    while child.try_wait().unwrap().is_none() {
        seen.extend(listening_lmbench_ports().difference(&ports_before).copied());
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    if let Some(setting) = forbidding_setting() {
        assert_eq!(out.status.code(), Some(1), "{text}\n{err}");
        assert!(text.contains("0 paired, 2 failing"), "{text}");
        assert!(text.contains(setting), "the reason is not named: {text}");
        eprintln!("this kernel forbids user namespaces ({setting}): the rows said so");
    } else {
        // Both rows paired: each tool ran in its namespaces and gave a figure (a row whose
        // tool failed is not paired). Their verdicts are the machine's, not this test's:
        // two pairs of net.tcp.rtt beside two busy loops came out 0.55× OUTSIDE once.
        assert!(text.contains("2 paired, "), "as nobody: {text}\n{err}");
    }
    assert!(
        seen.is_empty(),
        "a tool listened on the host: ports {seen:?}"
    );
    assert!(
        var_tmp_had_lmbench || std::fs::symlink_metadata(LMBENCH_DIR).is_err(),
        "nobody's crosscheck made {LMBENCH_DIR}"
    );
    let left: Vec<_> = std::fs::read_dir(&home)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .filter(|n| n != "data")
        .collect();
    assert!(left.is_empty(), "left in nobody's directory: {left:?}");
    assert!(
        lat_tcp_servers() <= servers_before,
        "lat_tcp's server left running"
    );
}

/// A user namespace refused by the kernel: here its limit of user namespaces reached, made
/// so in a user namespace of the test's own whose limit is 1 (the one `nobody` runs in
/// takes it), so the machine's settings are not touched. Both rows fail at once, naming
/// the limit rather than a bare "No space left on device"; nothing is left.
#[test]
fn a_user_namespace_the_kernel_refuses_fails_the_rows_naming_why() {
    if !lmbench_installed() {
        eprintln!("skipped: needs lmbench");
        return;
    }
    let (_bin, exe) = binary_others_can_run();
    let home = tempfile::tempdir().unwrap();
    let limited = "echo 1 > /proc/sys/user/max_user_namespaces && exec \"$@\"";
    let wrapper = [
        "unshare",
        "--user",
        "--map-root-user",
        "sh",
        "-c",
        limited,
        "sh",
        "unshare",
        "--user",
        "--map-user=65534",
        "--map-group=65534",
    ];
    let out = crosscheck_by(&wrapper, &exe, home.path()).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    if text.is_empty() && err.contains("unshare") {
        eprintln!("skipped: cannot make the test's own user namespaces here: {err}");
        return;
    }
    assert_eq!(out.status.code(), Some(1), "{text}\n{err}");
    assert!(text.contains("0 paired, 2 failing"), "{text}\n{err}");
    // One line per note once unwrapped (COLUMNS from `isolate`).
    let notes: Vec<&str> = text.lines().filter(|l| l.starts_with('[')).collect();
    assert_eq!(notes.len(), 2, "{text}");
    for note in notes {
        assert!(
            note.contains(
                "cannot make a network namespace: the limit of user namespaces was \
                 reached (user.max_user_namespaces = "
            ),
            "{note}"
        );
    }
    let left: Vec<_> = std::fs::read_dir(home.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .filter(|n| n != "data")
        .collect();
    assert!(left.is_empty(), "left: {left:?}");
}
