//! `net.veth.rtt` (root only): the TCP round trip of `net.tcp.rtt`, but through a veth
//! pair, the virtual cable containers are joined by, rather than the loopback device.
//!
//! The row creates two network namespaces of its own, moves one end of a new veth pair
//! into each, addresses them 198.18.0.1 and 198.18.0.2 (the range RFC 2544 sets aside for
//! benchmarking) and connects across: nothing in either namespace reaches any other
//! interface, and the host's own namespace gains nothing. Both namespaces (and with them
//! the pair) are deleted when the row ends, failed or not. An ordinary user cannot create
//! namespaces: the row is skipped, saying so.
//!
//! # Timing model
//! As `net.tcp.rtt` ([`crate::bench::message`]'s `back`, one connection both ways,
//! 1-byte messages, the pipe rows' placement): the socket of each end is made inside its
//! namespace, by switching the calling thread into it (`setns`) and back.

use std::fs::File;
use std::net::{IpAddr, Ipv4Addr, TcpStream};
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

use super::socket::{self, Scope};
use crate::bench::message::{self, Channel, Transport};
use crate::harness::contract::{Benchmark, Ctx, Host, Skip, Workload};
use crate::model::{Details, Source};

const NEAR: Ipv4Addr = Ipv4Addr::new(198, 18, 0, 1);
const FAR: Ipv4Addr = Ipv4Addr::new(198, 18, 0, 2);

pub fn benchmark() -> Benchmark {
    Benchmark::new(
        "net.veth.rtt",
        "round trip of a 1-byte message over TCP through a veth pair between two network \
         namespaces the row creates (root only)",
        Source::Modern("net.tcp.rtt through a veth pair, as between two containers"),
        prepare,
    )
    .root_only("it creates two network namespaces and a veth pair, and removes them")
    .requires(needs_ip)
    .partnered()
    .per("message round trip")
}

fn needs_ip(host: &Host) -> Result<(), Skip> {
    match host.find_program("ip") {
        Some(_) => Ok(()),
        None => Err(Skip::new(
            "needs the `ip` program (package iproute2) to create the veth pair",
        )),
    }
}

/// Two network namespaces joined by a veth pair; deleted on drop.
struct Namespaces {
    names: [String; 2],
}

impl Namespaces {
    fn create() -> Result<Namespaces> {
        let pid = std::process::id();
        let ns = Namespaces {
            names: [format!("timeshare-{pid}-a"), format!("timeshare-{pid}-b")],
        };
        let [a, b] = &ns.names;
        let (va, vb) = (format!("tsv{pid}a"), format!("tsv{pid}b"));
        ip(&["netns", "add", a])?;
        ip(&["netns", "add", b])?;
        ip(&[
            "link", "add", &va, "netns", a, "type", "veth", "peer", "name", &vb, "netns", b,
        ])?;
        for (name, dev, addr) in [(a, &va, NEAR), (b, &vb, FAR)] {
            ip(&["-n", name, "addr", "add", &format!("{addr}/30"), "dev", dev])?;
            ip(&["-n", name, "link", "set", dev, "up"])?;
        }
        Ok(ns)
    }

    fn path(&self, i: usize) -> PathBuf {
        PathBuf::from("/run/netns").join(&self.names[i])
    }
}

impl Drop for Namespaces {
    fn drop(&mut self) {
        for name in &self.names {
            let _ = ip(&["netns", "del", name]);
        }
    }
}

fn ip(args: &[&str]) -> Result<()> {
    let out = Command::new("ip")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .context("cannot run ip")?;
    if !out.status.success() {
        bail!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(())
}

/// The calling thread's network namespace, put back on drop.
struct InNamespace {
    home: File,
}

impl InNamespace {
    fn enter(home: &File, path: &PathBuf) -> Result<InNamespace> {
        let home = home.try_clone()?;
        let target = File::open(path).with_context(|| format!("open {}", path.display()))?;
        setns(&target)?;
        Ok(InNamespace { home })
    }
}

impl Drop for InNamespace {
    fn drop(&mut self) {
        let _ = setns(&self.home);
    }
}

fn setns(ns: &File) -> Result<()> {
    // SAFETY: setns on a namespace descriptor we hold, for this thread only.
    if unsafe { libc::setns(ns.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
        return Err(std::io::Error::last_os_error()).context("setns");
    }
    Ok(())
}

/// A connection from the first namespace to the second.
fn connect_across(ns: &Namespaces) -> Result<Channel> {
    let home = File::open("/proc/thread-self/ns/net").context("open my network namespace")?;
    let listener = {
        let _far = InNamespace::enter(&home, &ns.path(1))?;
        socket::listener(IpAddr::V4(FAR), Scope::OwnNamespace)?
    };
    let to = listener.local_addr()?;
    let near = {
        let _near = InNamespace::enter(&home, &ns.path(0))?;
        TcpStream::connect(to).with_context(|| format!("connect to {to} across the veth pair"))?
    };
    let (far, _) = listener.accept().context("accept")?;
    for s in [&near, &far] {
        s.set_nodelay(true)?;
    }
    Ok(Channel {
        tx: near.into(),
        rx: far.into(),
    })
}

/// The round trip, holding the namespaces until it is dropped.
struct Veth {
    back: Box<dyn Workload>,
    _namespaces: Namespaces,
}

fn prepare(ctx: &Ctx) -> Result<Box<dyn Workload>> {
    let namespaces = Namespaces::create()?;
    let chan = connect_across(&namespaces)?;
    let back = message::prepare_back_over(ctx, Transport::Veth, chan, 1, Scope::OwnNamespace)?;
    Ok(Box::new(Veth {
        back,
        _namespaces: namespaces,
    }))
}

impl Workload for Veth {
    fn run(&mut self, n: u64) -> Result<()> {
        self.back.run(n)
    }

    fn finish(&mut self) -> Result<()> {
        self.back.finish()
    }

    fn details(&mut self) -> Option<Details> {
        self.back.details()
    }

    fn notes(&self) -> Vec<String> {
        let mut notes = self.back.notes();
        notes.push(format!(
            "through a veth pair between two namespaces of its own, {NEAR} → {FAR}"
        ));
        notes
    }
}
