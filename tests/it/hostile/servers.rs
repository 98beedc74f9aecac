//! Tool servers: lmbench's bind every address, so crosscheck runs each tool in a private
//! network namespace of its own. Seen from the host, nothing of theirs ever listens, and
//! nothing of theirs is left running.

use std::collections::BTreeSet;
use std::time::Duration;

use crate::common::command;

/// lmbench's fixed ports: lat_tcp, lat_udp, bw_tcp, lat_connect (and their neighbours).
const LMBENCH_PORTS: std::ops::RangeInclusive<u16> = 31230..=31240;

fn lat_tcp_installed() -> bool {
    std::fs::read_dir("/usr/lib/lmbench/bin")
        .map(|d| d.flatten().any(|e| e.path().join("lat_tcp").exists()))
        .unwrap_or(false)
}

/// The TCP ports in LISTEN state in this (the host's) network namespace.
fn listening_ports() -> BTreeSet<u16> {
    ["/proc/net/tcp", "/proc/net/tcp6"]
        .iter()
        .flat_map(|f| {
            std::fs::read_to_string(f)
                .unwrap_or_default()
                .lines()
                .skip(1)
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let listen = fields.get(3) == Some(&"0A");
            let port = fields.get(1)?.rsplit(':').next()?;
            listen.then(|| u16::from_str_radix(port, 16).ok()).flatten()
        })
        .collect()
}

/// The ports of lmbench's range in LISTEN state on the host.
pub(super) fn listening_lmbench_ports() -> BTreeSet<u16> {
    listening_ports()
        .into_iter()
        .filter(|p| LMBENCH_PORTS.contains(p))
        .collect()
}

/// Processes running `lat_tcp -s` (lmbench's server, put in the background).
/// The tests that start crosscheck's tool servers count lmbench's servers and listening
/// ports on the whole machine, before and after: they take this in turn, so that none
/// counts another's server as its own left running.
pub(super) fn servers_counted_alone() -> std::sync::MutexGuard<'static, ()> {
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|held| held.into_inner())
}

pub(super) fn lat_tcp_servers() -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .filter(|c| {
            let args: Vec<&[u8]> = c.split(|b| *b == 0).collect();
            args.first().is_some_and(|a| a.ends_with(b"lat_tcp"))
                && args.get(1) == Some(&&b"-s"[..])
        })
        .count()
}

#[test]
fn crosschecks_tool_servers_listen_nowhere_the_host_sees_and_end_with_it() {
    if !lat_tcp_installed() {
        eprintln!("skipped: needs lmbench's lat_tcp");
        return;
    }
    let _alone = servers_counted_alone();
    let servers_before = lat_tcp_servers();
    let ours_before: BTreeSet<u16> = listening_ports()
        .into_iter()
        .filter(|p| LMBENCH_PORTS.contains(p))
        .collect();
    let mut child = command()
        .args([
            "crosscheck",
            "net.tcp.rtt",
            "--pairs",
            "2",
            "--max-pairs",
            "2",
        ])
        .env("ENOUGH", "20000")
        .env("TIMING_O", "0")
        .env("LOOP_O", "0")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Looked at every 20 ms while it runs, as `ss -ltn` would.
    let mut seen = BTreeSet::new();
    let mut looks = 0;
    while child.try_wait().unwrap().is_none() {
        seen.extend(
            listening_ports()
                .into_iter()
                .filter(|p| LMBENCH_PORTS.contains(p) && !ours_before.contains(p)),
        );
        looks += 1;
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("1 paired,"),
        "the tool measured nothing: {text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(looks > 10, "looked only {looks} times");
    assert!(
        seen.is_empty(),
        "a tool listened on the host: ports {seen:?}"
    );
    assert!(
        lat_tcp_servers() <= servers_before,
        "lat_tcp's server was left running"
    );
}
