//! `net`: the network subsystem over the loopback interface (seed 001 §3.2.7, §4.1.7,
//! §5.1.3), and what lmbench measures there: round trips over TCP, UDP and UNIX stream
//! sockets (lat_tcp, lat_udp, lat_unix), a TCP connection made and ended (lat_connect),
//! and throughput against message size (bw_tcp, bw_unix) with the CPU each end spent per
//! byte and the softirq time seen meanwhile.
//!
//! Every socket is on 127.0.0.1 or ::1 and is checked there when it is made
//! ([`socket`]); the one exception, `net.veth.rtt`, runs only as root, between two
//! network namespaces it creates and removes ([`netns`]).
//!
//! Timing models: the round trips are [`crate::bench::message`]'s `back` over one
//! connection used both ways (lmbench's wiring), with one-byte messages and the pipe rows'
//! placement; [`connect`] and [`sweep`] say theirs.

use anyhow::Result;

use super::message::{self, Transport};
use crate::harness::anchor::{Anchor, Parse, Server, ServerRuns};
use crate::harness::contract::{Benchmark, Ctx, Plan, Workload};
use crate::model::{Metric, Mode, Source};

pub mod connect;
pub mod cpustat;
pub mod login;
pub mod netns;
pub mod socket;
pub mod sweep;

use socket::Family;
use sweep::{Carrier, UDP_HEADLINE_BYTES, UDP_HEADLINE_DATAGRAMS};

/// The family's section of `docs/benchmarks.md`.
#[linkme::distributed_slice(crate::model::catalogue::SECTIONS)]
fn section() -> crate::model::catalogue::Section {
    crate::model::catalogue::Section {
        order: 50,
        family: "net",
        heading: "`net` — the network over loopback",
        seeds: "Seed 001 §3.2.7, §4.1.7 and §5.1.3: throughput by message size, the CPU protocol \
            work costs and where it is charged; lmbench's lat_tcp, lat_udp, lat_connect, bw_tcp \
            and bw_unix.",
    }
}

/// The family's place in the catalogue: registered here, gathered by
/// [`crate::bench::Registry`].
#[linkme::distributed_slice(crate::bench::FAMILIES)]
fn family() -> crate::bench::Family {
    crate::bench::Family::rows("net", 50, |_| all())
}

pub fn all() -> Vec<Benchmark> {
    let mut rows = round_trips();
    rows.push(connection());
    rows.extend(login::rows());
    rows.extend(throughput());
    rows.push(netns::benchmark());
    rows
}

fn berkeley_net(place: &'static str) -> Source {
    Source::seed("001", place)
}

fn rtt(ctx: &Ctx, transport: Transport) -> Result<Box<dyn Workload>> {
    message::prepare_back_both_ways(ctx, transport, 1)
}

/// lmbench's network servers: started with `-s` before the pairs, stopped after them
/// with `-S 127.0.0.1`.
const LMBENCH_SERVER: Server = Server {
    start: &["-s"],
    runs: ServerRuns::Detached {
        stop: &["-S", "127.0.0.1"],
    },
};

/// iperf3's server on 127.0.0.1 only, on a port of its own (iperf3's default is 5201),
/// in the foreground: the crosscheck ends it after the pairs.
const IPERF3_SERVER: Server = Server {
    start: &["-s", "-B", "127.0.0.1", "-p", "5299"],
    runs: ServerRuns::Foreground,
};

/// `net.tcp.bw`'s second anchor: iperf3, one TCP stream to 127.0.0.1 in 64 KiB writes
/// (`-l 64K`, read 64 KiB at a time by its server too), for 3 s after 1 s left out
/// (`-O 1`: the connection's start), the receiver's rate of payload bytes (`--json`'s
/// `sum_received`), with 1 MiB socket buffers at both ends (`-w 1M`, which iperf3 sends
/// to its server too): bw_tcp's and the row's ([`sweep::TCP_SOCKET_BUFFER`]).
///
/// Explained ([`IPERF3_DOES_MORE`]): iperf3 does more work per byte than bw_tcp and the
/// row, a `select` before every read on its server and clock reads in its loops, which no
/// option of it turns off.
fn iperf3_anchor() -> Anchor {
    Anchor::new(
        "iperf3",
        "iperf3",
        &[
            "-c",
            "127.0.0.1",
            "-p",
            "5299",
            "-P",
            "1",
            "-l",
            "64K",
            "-t",
            "3",
            "-O",
            "1",
            "-w",
            "1M",
            "--json",
        ],
        "iperf3",
        Parse::Iperf3ReceivedJson,
        "per byte of payload received over one TCP stream on 127.0.0.1 in 64 KiB writes, \
         1 MiB socket buffers",
    )
    .with_server(IPERF3_SERVER)
    .explained(IPERF3_DOES_MORE)
}

/// Why iperf3 reads slower than the row and bw_tcp (docs/crosscheck.md, "The four pairs
/// left outside: causes measured"), measured with `strace -c -f` of both of its ends and
/// `perf record -e cpu-clock -C 1` of it and of bw_tcp, pinned to CPU 1 in turn, under
/// load (load average 4.5–5.3).
const IPERF3_DOES_MORE: &str =
    "iperf3 does more per byte than bw_tcp and the row: its server calls pselect6 before \
     every read (82,199 pselect6 for 82,210 reads of 64 KiB, strace -c), its client one per \
     10 writes, and both read the clock in their loops; bw_tcp and the row only read and \
     write. Per byte copied (the kernel's copy in and out, the same work on both sides), \
     iperf3's processes took 1.12-1.18x the CPU time of bw_tcp's in four profiles \
     (perf cpu-clock, pinned), the select path alone a tenth of the copy time: the 1.2x by \
     which the two tools disagreed at rest (0.42 against 0.35 ns a byte)";

fn round_trips() -> Vec<Benchmark> {
    vec![
        Benchmark::new(
            "net.tcp.rtt",
            "round trip of a 1-byte message with a child over one TCP connection on 127.0.0.1",
            Source::Modern("lmbench lat_tcp: TCP latency over the loopback interface"),
            |c| rtt(c, Transport::Tcp(Family::V4)),
        )
        .partnered()
        .per("message round trip")
        .anchor(
            Anchor::lmbench(
                "lmbench lat_tcp",
                "lat_tcp",
                &["-m", "1", "127.0.0.1"],
                Parse::LmbenchMicroseconds,
                "per round trip of a 1-byte message over one TCP connection on 127.0.0.1",
            )
            .with_server(LMBENCH_SERVER),
        ),
        Benchmark::new(
            "net.tcp6.rtt",
            "round trip of a 1-byte message with a child over one TCP connection on ::1",
            Source::Modern("net.tcp.rtt over IPv6's loopback address"),
            |c| rtt(c, Transport::Tcp(Family::V6)),
        )
        .partnered()
        .per("message round trip"),
        Benchmark::new(
            "net.udp.rtt",
            "round trip of a 1-byte datagram with a child over two connected UDP sockets",
            Source::Modern("lmbench lat_udp: UDP latency over the loopback interface"),
            |c| rtt(c, Transport::Udp(Family::V4)),
        )
        .partnered()
        .per("datagram round trip")
        .anchor(
            Anchor::lmbench(
                "lmbench lat_udp",
                "lat_udp",
                &["-m", "4", "127.0.0.1"],
                Parse::LmbenchMicroseconds,
                "per round trip of a small datagram (lat_udp's smallest, 4 bytes) on 127.0.0.1",
            )
            .with_server(LMBENCH_SERVER),
        ),
        Benchmark::new(
            "net.unix.rtt",
            "round trip of a 1-byte message with a child over one UNIX stream socket pair",
            Source::Modern("the UNIX-domain stream case beside net.tcp.rtt (lmbench lat_unix)"),
            |c| rtt(c, Transport::UnixStream),
        )
        .partnered()
        .per("message round trip")
        .anchor(Anchor::lmbench(
            "lmbench lat_unix",
            "lat_unix",
            &["-m", "1"],
            Parse::LmbenchMicroseconds,
            "per round trip of a 1-byte message over one UNIX stream socket pair",
        )),
    ]
}

fn connection() -> Benchmark {
    Benchmark::new(
        "net.tcp.connect",
        "TCP connect + accept + close of both ends on 127.0.0.1, in one process",
        Source::Modern("lmbench lat_connect: connection set-up and tear-down"),
        connect::prepare,
    )
    .with_plan(|mode| {
        let mut plan = Plan::calibrated_no_loop(mode);
        // A few thousand connections per sample at most: each waits out TIME_WAIT on
        // the listener's side for a minute.
        if mode == Mode::Quick {
            plan.samples = 15;
        }
        plan
    })
    .per("connection made and ended")
    .anchor(
        Anchor::lmbench(
            "lmbench lat_connect",
            "lat_connect",
            &["127.0.0.1"],
            Parse::LmbenchMicroseconds,
            "per TCP connection to 127.0.0.1 made and closed (lat_connect's client side only)",
        )
        .with_server(LMBENCH_SERVER)
        .explained(
            "lat_connect's client closes first, so every connection waits out TIME_WAIT on an \
             ephemeral port; within a second tens of thousands do, and each connect then \
             searches for a free port (net.tcp.connect's server end closes first); its \
             server accepts in another process, after the client's figure is taken",
        ),
    )
}

/// The sweep rows' headline: calibrated batches of whole acknowledged transfers.
fn transfers(mode: Mode) -> Plan {
    Plan::calibrated_no_loop(mode)
}

/// UDP's headline: every call is a sample (its own figures count the bytes delivered).
fn udp_samples(mode: Mode) -> Plan {
    let mut plan = Plan::fixed(
        1,
        match mode {
            Mode::Quick => 15,
            Mode::Full => 41,
        },
    );
    plan.warmup = false;
    plan
}

/// Why a run across processes measures the throughput rows in its first process only:
/// each sweeps a score of sizes, moving every size three times (a full run's later
/// processes spent 62 s of their 112 s on the three sweeps when each process swept).
const SWEPT: &str = "the row sweeps a score of sizes, each moved three times";

fn throughput() -> Vec<Benchmark> {
    vec![
        Benchmark::new(
            "net.tcp.bw",
            "TCP throughput to a child on 127.0.0.1 swept by message size (1 B–1 MiB, odd sizes \
             too; Nagle on/off up to 1 KiB); headline: 64 KiB writes, MB/s",
            berkeley_net("§3.2.7/§4.1.7: network throughput by message size"),
            |c| sweep::prepare(c, Carrier::Tcp(Family::V4)),
        )
        .with_metric(Metric::throughput(
            Carrier::Tcp(Family::V4).headline_op_bytes() as u64,
        ))
        .with_plan(transfers)
        .measured_in_one_process(SWEPT)
        .partnered()
        .per("byte sent over TCP on 127.0.0.1 in 64 KiB writes")
        .anchor(
            Anchor::lmbench(
                "lmbench bw_tcp",
                "bw_tcp",
                &["-m", "65536", "-M", "16m", "127.0.0.1"],
                Parse::LmbenchMegabytesPerSecond,
                "per byte over one TCP connection on 127.0.0.1 in 64 KiB writes (MB = 10^6 bytes)",
            )
            .with_server(LMBENCH_SERVER),
        )
        .anchor(iperf3_anchor()),
        Benchmark::new(
            "net.udp.bw",
            "UDP throughput to a child on 127.0.0.1 swept by datagram size (1 B–64 KiB), lost \
             datagrams counted; headline: 8 KiB datagrams, MB/s delivered",
            berkeley_net("§3.2.7/§4.1.7: network throughput by message size"),
            |c| sweep::prepare(c, Carrier::Udp(Family::V4)),
        )
        .with_metric(Metric::throughput(
            (UDP_HEADLINE_DATAGRAMS * UDP_HEADLINE_BYTES) as u64,
        ))
        .with_plan(udp_samples)
        .measured_in_one_process(SWEPT)
        .partnered()
        .per("byte delivered over UDP on 127.0.0.1 in 8 KiB datagrams"),
        Benchmark::new(
            "net.unix.bw",
            "UNIX stream socket throughput to a child swept by message size (1 B–1 MiB, odd \
             sizes too); headline: 64 KiB writes, MB/s",
            Source::Modern("the UNIX-domain stream case beside net.tcp.bw (lmbench bw_unix)"),
            |c| sweep::prepare(c, Carrier::UnixStream),
        )
        .with_metric(Metric::throughput(
            Carrier::UnixStream.headline_op_bytes() as u64
        ))
        .with_plan(transfers)
        .measured_in_one_process(SWEPT)
        .partnered()
        .per("byte sent over a UNIX stream socket in 64 KiB writes")
        // bw_unix moves -M bytes a pass but counts its built-in 10 MiB whatever -M says
        // (with -M 16m it printed 0.6 of the rate with -M 10m, as 10/16 predicts), so
        // -M is 10 MiB, the bytes it counts.
        .anchor(Anchor::lmbench(
            "lmbench bw_unix",
            "bw_unix",
            &["-m", "65536", "-M", "10m"],
            Parse::LmbenchMegabytesPerSecond,
            "per byte over one UNIX stream socket pair in 64 KiB writes (MB = 10^6 bytes)",
        )),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::micro::testing::{forking, with_ctx};
    use crate::model::details::micro::RoundTrip;
    use crate::model::details::net::{ConnectCycle, NetSweep};
    use crate::model::Placement;

    /// Every row but the namespace variant runs once, and every IP address its sockets
    /// had (as the kernel reports them, local and peer) is a loopback address.
    #[test]
    fn every_socket_of_every_row_is_on_loopback() {
        let _one_at_a_time = forking();
        let mut seen = 0;
        with_ctx(Placement::Free, |ctx| {
            // The remote-login chain's hops are made by `socket::tcp_pair`, the TCP rows'
            // own pairs, whose addresses are checked here through those rows.
            for b in all()
                .iter()
                .filter(|b| b.id() != "net.veth.rtt" && !b.id().starts_with("net.rlogin."))
            {
                let mut w = b
                    .prepare(ctx)
                    .unwrap_or_else(|e| panic!("{}: {e:#}", b.id()));
                w.run(1).unwrap();
                w.finish().unwrap();
                let d = w.details().unwrap();
                let addresses: Vec<String> = if let Some(r) = d.read::<NetSweep>() {
                    r.addresses
                } else if let Some(r) = d.read::<RoundTrip>() {
                    r.addresses
                } else {
                    vec![d.read::<ConnectCycle>().unwrap().listener]
                };
                for a in &addresses {
                    for end in a.split(" → ") {
                        let ip: std::net::SocketAddr = end.parse().unwrap();
                        assert!(ip.ip().is_loopback(), "{}: {a}", b.id());
                        seen += 1;
                    }
                }
            }
        });
        // TCP, TCP over ::1, UDP, the connection and the two IP sweeps: each end.
        assert!(seen >= 12, "only {seen} addresses checked");
    }

    /// Every address a tool is pointed at, or told to bind or stop, is a loopback
    /// address: the cross-check sends nothing outside the machine either.
    #[test]
    fn every_anchor_of_the_net_rows_is_pointed_at_loopback() {
        let mut addresses = 0;
        for b in all() {
            for a in b.anchors() {
                let stop = a.server.map(|s| match s.runs {
                    ServerRuns::Detached { stop } => stop,
                    ServerRuns::Foreground => &[],
                });
                let args = a
                    .args
                    .iter()
                    .chain(a.server.iter().flat_map(|s| s.start))
                    .chain(stop.into_iter().flatten());
                for arg in args {
                    if let Ok(ip) = arg.parse::<std::net::IpAddr>() {
                        assert!(ip.is_loopback(), "{} {}: {arg}", b.id(), a.tool);
                        addresses += 1;
                    }
                    assert!(
                        !arg.contains("localhost"),
                        "{}: a name, not an address",
                        b.id()
                    );
                }
            }
        }
        // lat_tcp, lat_udp, lat_connect and bw_tcp with their stops, iperf3's client and
        // server.
        assert!(addresses >= 10, "only {addresses} addresses checked");
    }

    #[test]
    fn net_tcp_bw_has_iperf3_beside_bw_tcp_on_the_same_basis() {
        let b = all().into_iter().find(|b| b.id() == "net.tcp.bw").unwrap();
        let tools: Vec<&str> = b.anchors().iter().map(|a| a.tool).collect();
        assert_eq!(tools, ["lmbench bw_tcp", "iperf3"]);
        let iperf3 = &b.anchors()[1];
        assert_eq!(iperf3.package, "iperf3");
        assert_eq!(iperf3.parse, Parse::Iperf3ReceivedJson);
        // The same write size as the row's headline and bw_tcp's -m, one stream, and the
        // port the client asks for is the port its server listens on.
        let args = iperf3.command_line();
        assert!(args.contains("-l 64K") && args.contains("-P 1"), "{args}");
        // The same socket buffers on all three: bw_tcp's fixed 1 MiB, the row's, iperf3's.
        assert!(args.contains("-w 1M"), "{args}");
        assert_eq!(sweep::TCP_SOCKET_BUFFER, 1 << 20);
        let bw_tcp = b.anchors()[0].command_line();
        assert!(bw_tcp.contains("-m 65536"), "{bw_tcp}");
        assert_eq!(sweep::Carrier::Tcp(Family::V4).headline_bytes(), 64 << 10);
        fn port(args: &'static [&'static str]) -> Option<&'static str> {
            args.windows(2).find(|w| w[0] == "-p").map(|w| w[1])
        }
        let server = iperf3.server.unwrap();
        assert_eq!(port(iperf3.args), port(server.start));
        assert_eq!(server.runs, ServerRuns::Foreground);
        // Both tools' figures are per byte, as the row's is (a throughput row).
        assert_eq!(iperf3.per_row_op, 1.0);
        assert_eq!(b.anchors()[0].per_row_op, 1.0);
    }

    /// iperf3 is explained by the extra system calls measured on its ends; bw_tcp, which
    /// does only the row's reads and writes, is not, so a gap from bw_tcp still fails.
    #[test]
    fn only_iperf3_is_explained_and_by_its_measured_system_calls() {
        let b = all().into_iter().find(|b| b.id() == "net.tcp.bw").unwrap();
        let (bw_tcp, iperf3) = (&b.anchors()[0], &b.anchors()[1]);
        assert_eq!(bw_tcp.explained, None);
        let why = iperf3.explained.expect("iperf3 explained");
        assert!(
            why.contains("pselect6") && why.contains("1.12-1.18x"),
            "{why}"
        );
        assert_eq!(iperf3.tolerance, 0.10);
    }

    #[test]
    fn the_namespace_row_needs_root_and_says_why() {
        let b = netns::benchmark();
        let reason = b.root_only_reason().unwrap();
        assert!(reason.contains("network namespaces"), "{reason}");
        let mut host = crate::harness::contract::Host::detect();
        host.is_root = false;
        let skip = b.supported(&host).unwrap_err().to_string();
        assert!(
            skip.starts_with("needs root: it creates two network namespaces"),
            "{skip}"
        );
    }
}
