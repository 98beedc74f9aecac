//! `net.tcp.connect`: a TCP connection made and ended over the loopback interface, in one
//! process (lmbench's lat_connect idea).
//!
//! # Timing model
//! One operation = `connect` to a listener on 127.0.0.1 (the three-way handshake, done by
//! the kernel before `connect` returns), `accept`, then `close` of the accepted end
//! followed by `close` of the connecting end (the closing handshake). Everything is in
//! the measuring process, so no scheduling of a partner is in the figure.
//!
//! The accepted end closes first, as a server that answers and hangs up: the connection
//! then waits out TIME_WAIT on the listener's side, whose port is fixed, and the
//! connecting side's ephemeral ports are free again at once. Closing the connecting end
//! first instead (as lat_connect's client does) leaves tens of thousands of connections
//! in TIME_WAIT on ephemeral ports within a second, and each new `connect` then searches
//! longer for a free port.
//!
//! Checks: every connection's two ends are on 127.0.0.1 (checked on the first), and the
//! accepted connection's peer is the connecting end's own address.

use std::net::{TcpListener, TcpStream};

use anyhow::{bail, Context, Result};

use super::socket::{self, Family, Scope};
use crate::harness::contract::{Ctx, Workload};
use crate::model::details::net::ConnectCycle;
use crate::model::Details;

struct Connect {
    listener: TcpListener,
    connections: u64,
}

pub fn prepare(_: &Ctx) -> Result<Box<dyn Workload>> {
    let listener = socket::listener(Family::V4.loopback(), Scope::Loopback)?;
    let mut c = Connect {
        listener,
        connections: 0,
    };
    c.cycle(true)?;
    Ok(Box::new(c))
}

impl Connect {
    /// One connection made and ended; `check` compares the two ends' addresses.
    fn cycle(&mut self, check: bool) -> Result<()> {
        let to = self.listener.local_addr()?;
        let client = TcpStream::connect(to).with_context(|| format!("connect to {to}"))?;
        let (server, peer) = self.listener.accept().context("accept")?;
        if check {
            socket::checked(&client, Scope::Loopback)?;
            socket::checked(&server, Scope::Loopback)?;
            if peer != client.local_addr()? {
                bail!(
                    "accepted {peer}, but the connection came from {:?}",
                    client.local_addr()
                );
            }
        }
        drop(server);
        drop(client);
        self.connections += 1;
        Ok(())
    }
}

impl Workload for Connect {
    fn run(&mut self, n: u64) -> Result<()> {
        for _ in 0..n {
            self.cycle(false)?;
        }
        Ok(())
    }

    fn details(&mut self) -> Option<Details> {
        Some(Details::of(&ConnectCycle {
            listener: self
                .listener
                .local_addr()
                .map(|a| a.to_string())
                .unwrap_or_default(),
            closes_first: "the accepted end (TIME_WAIT on the listener's side)".into(),
            connections: self.connections,
            tcp_tw_reuse: std::fs::read_to_string("/proc/sys/net/ipv4/tcp_tw_reuse")
                .ok()
                .map(|s| s.trim().to_string()),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::micro::testing::with_ctx;
    use crate::model::Placement;

    #[test]
    fn connections_are_made_on_loopback_and_counted() {
        with_ctx(Placement::Free, |ctx| {
            let mut w = prepare(ctx).unwrap();
            w.run(50).unwrap();
            let d: ConnectCycle = w.details().unwrap().read().unwrap();
            assert_eq!(d.connections, 51);
            assert!(d.listener.starts_with("127.0.0.1:"), "{}", d.listener);
        });
    }
}
