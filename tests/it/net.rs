//! The `net` family through the real binary: as an ordinary user every row runs but the
//! namespace variant, which is skipped with its reason.

use crate::common::{is_root, isolate, json};

fn have_setpriv() -> bool {
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .any(|d| d.join("setpriv").is_file())
}

#[test]
fn as_an_ordinary_user_every_net_row_runs_but_the_namespace_one() {
    // Run as root, the tests become nobody through setpriv; run as a user, they are one.
    let mut cmd = if is_root() {
        if !have_setpriv() {
            return;
        }
        let mut c = std::process::Command::new("setpriv");
        c.args([
            "--reuid",
            "65534",
            "--regid",
            "65534",
            "--clear-groups",
            "--",
        ])
        .arg(assert_cmd::cargo::cargo_bin("timeshare"));
        c
    } else {
        std::process::Command::new(assert_cmd::cargo::cargo_bin("timeshare"))
    };
    let out = isolate(&mut cmd)
        .args(["run", "net", "--quick", "--no-save", "--json", "-"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    if !out.status.success() && out.stdout.is_empty() {
        // The binary out of nobody's reach (a private target directory): nothing to learn.
        eprintln!("skipping the unprivileged case: {err}");
        return;
    }
    let run = json(&out.stdout);
    let results = run["results"].as_array().unwrap();
    let ids: Vec<&str> = results.iter().map(|r| r["id"].as_str().unwrap()).collect();
    for want in [
        "net.tcp.rtt",
        "net.tcp6.rtt",
        "net.udp.rtt",
        "net.unix.rtt",
        "net.tcp.connect",
        "net.tcp.bw",
        "net.udp.bw",
        "net.unix.bw",
        "net.veth.rtt",
    ] {
        assert!(ids.contains(&want), "{want} missing from {ids:?}");
    }
    for r in results {
        let id = r["id"].as_str().unwrap();
        let state = r["status"]["state"].as_str().unwrap();
        if id == "net.veth.rtt" {
            assert_eq!(state, "skipped", "{r}");
            let reason = r["status"]["reason"].as_str().unwrap();
            assert!(
                reason.contains("needs root: it creates two network namespaces"),
                "{reason}"
            );
        } else if id == "net.tcp6.rtt" && state == "failed" {
            // A machine without IPv6 loopback says so; nothing else may fail.
            let e = r["status"]["error"].as_str().unwrap();
            assert!(e.contains("::1"), "{e}");
        } else {
            assert_eq!(state, "ok", "{id}: {r}");
        }
    }
}
