//! The `net` rows' sockets: connected pairs over the loopback interface (127.0.0.1 or
//! ::1), and the check that every socket they use is bound and connected there and
//! nowhere else. A benchmark must never put a packet on a real network: every socket made
//! here is checked when it is made (an address outside the allowed ones fails the row
//! before a byte is sent), and the addresses are kept for the row's details.
//!
//! The one exception is the root-only namespace variant ([`super::netns`]): its sockets
//! live in two network namespaces the row creates, joined by a veth pair and nothing
//! else, addressed in 198.18.0.0/15 (the range RFC 2544 sets aside for benchmarking).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::os::fd::{AsFd, OwnedFd};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use socket2::SockRef;

/// How long a UDP read waits before the row fails: a datagram lost in a round trip would
/// otherwise leave both sides waiting for ever.
pub const UDP_WAIT: Duration = Duration::from_secs(2);

/// The loopback address of each IP version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    V4,
    V6,
}

impl Family {
    pub fn loopback(self) -> IpAddr {
        match self {
            Family::V4 => IpAddr::V4(Ipv4Addr::LOCALHOST),
            Family::V6 => IpAddr::V6(Ipv6Addr::LOCALHOST),
        }
    }
}

/// Where a socket may be: on loopback always; in 198.18.0.0/15 only inside the network
/// namespaces a row created for itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Loopback,
    OwnNamespace,
}

/// Whether `addr` is allowed in `scope`. The wildcard (0.0.0.0, ::) is never allowed: a
/// socket bound there listens on every interface.
pub fn allowed(addr: &IpAddr, scope: Scope) -> bool {
    let benchmarking = |a: &IpAddr| match a {
        IpAddr::V4(v4) => v4.octets()[0] == 198 && (v4.octets()[1] & 0xfe) == 18,
        IpAddr::V6(_) => false,
    };
    addr.is_loopback() || (scope == Scope::OwnNamespace && benchmarking(addr))
}

/// The local and (when connected) peer address of a socket, each checked against
/// `scope`; UNIX-domain sockets and pipes have no IP address and pass. Returns the addresses as
/// text ("127.0.0.1:40112 → 127.0.0.1:38211") for the details.
pub fn checked(fd: &impl AsFd, scope: Scope) -> Result<Option<String>> {
    let sock = SockRef::from(fd);
    let local = match sock.local_addr() {
        Ok(a) => a,
        // A pipe: no address to check.
        Err(e) if e.raw_os_error() == Some(libc::ENOTSOCK) => return Ok(None),
        Err(e) => return Err(e).context("getsockname"),
    };
    let Some(local) = local.as_socket() else {
        return Ok(None);
    };
    check(&local, scope)?;
    let peer = match sock.peer_addr() {
        Ok(p) => p.as_socket(),
        Err(e) if e.raw_os_error() == Some(libc::ENOTCONN) => None,
        Err(e) => return Err(e).context("getpeername"),
    };
    Ok(Some(match peer {
        Some(p) => {
            check(&p, scope)?;
            format!("{local} → {p}")
        }
        None => local.to_string(),
    }))
}

fn check(addr: &SocketAddr, scope: Scope) -> Result<()> {
    if !allowed(&addr.ip(), scope) {
        bail!("refusing a socket at {addr}: the net rows use the loopback interface only");
    }
    Ok(())
}

/// A listening TCP socket on `ip`, port chosen by the kernel.
pub fn listener(ip: IpAddr, scope: Scope) -> Result<TcpListener> {
    check(&SocketAddr::new(ip, 0), scope)?;
    let l = TcpListener::bind((ip, 0)).with_context(|| format!("bind a TCP socket to {ip}"))?;
    checked(&l, scope)?;
    Ok(l)
}

/// A connected TCP pair (connecting end, accepted end), TCP_NODELAY as asked on both.
pub fn tcp_pair(family: Family, nodelay: bool) -> Result<(OwnedFd, OwnedFd)> {
    let l = listener(family.loopback(), Scope::Loopback)?;
    let to = l.local_addr()?;
    let a = TcpStream::connect(to).with_context(|| format!("connect to {to}"))?;
    let (b, _) = l.accept().context("accept")?;
    for s in [&a, &b] {
        s.set_nodelay(nodelay)?;
        checked(s, Scope::Loopback)?;
    }
    Ok((a.into(), b.into()))
}

/// Two UDP sockets on the loopback address, each connected to the other; reads give up
/// after [`UDP_WAIT`].
pub fn udp_pair(family: Family) -> Result<(OwnedFd, OwnedFd)> {
    let ip = family.loopback();
    let a = UdpSocket::bind((ip, 0)).with_context(|| format!("bind a UDP socket to {ip}"))?;
    let b = UdpSocket::bind((ip, 0)).with_context(|| format!("bind a UDP socket to {ip}"))?;
    a.connect(b.local_addr()?)?;
    b.connect(a.local_addr()?)?;
    for s in [&a, &b] {
        s.set_read_timeout(Some(UDP_WAIT))?;
        checked(s, Scope::Loopback)?;
    }
    Ok((a.into(), b.into()))
}

/// TCP_NODELAY on or off (Nagle's algorithm off or on).
pub fn set_nodelay(fd: &impl AsFd, on: bool) -> Result<()> {
    SockRef::from(fd)
        .set_tcp_nodelay(on)
        .context("setsockopt TCP_NODELAY")
}

/// SO_RCVBUF and SO_SNDBUF both asked for `bytes` (the kernel doubles what it grants
/// and turns off its own tuning of the receive buffer).
pub fn set_buffers(fd: &impl AsFd, bytes: usize) -> Result<()> {
    let s = SockRef::from(fd);
    s.set_recv_buffer_size(bytes)
        .context("setsockopt SO_RCVBUF")?;
    s.set_send_buffer_size(bytes)
        .context("setsockopt SO_SNDBUF")
}

/// The receive and send buffer sizes the kernel reports (SO_RCVBUF, SO_SNDBUF).
pub fn buffers(fd: &impl AsFd) -> Result<(usize, usize)> {
    let s = SockRef::from(fd);
    Ok((
        s.recv_buffer_size().context("getsockopt SO_RCVBUF")?,
        s.send_buffer_size().context("getsockopt SO_SNDBUF")?,
    ))
}

/// The largest UDP payload of one datagram over IPv4 (65,535 − 8 − 20).
pub const UDP_MAX_PAYLOAD: usize = 65_507;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_is_allowed_and_the_benchmark_range_only_in_a_namespace() {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        for ok in ["127.0.0.1", "127.1.2.3", "::1"] {
            assert!(allowed(&ip(ok), Scope::Loopback), "{ok}");
        }
        for bad in [
            "0.0.0.0",
            "::",
            "10.0.0.1",
            "192.168.1.1",
            "8.8.8.8",
            "198.18.0.1",
            "fe80::1",
        ] {
            assert!(!allowed(&ip(bad), Scope::Loopback), "{bad}");
        }
        assert!(allowed(&ip("198.18.0.1"), Scope::OwnNamespace));
        assert!(allowed(&ip("198.19.255.2"), Scope::OwnNamespace));
        assert!(!allowed(&ip("198.20.0.1"), Scope::OwnNamespace));
        assert!(!allowed(&ip("10.0.0.1"), Scope::OwnNamespace));
    }

    #[test]
    fn pairs_are_on_loopback_and_say_so() {
        let (a, b) = tcp_pair(Family::V4, true).unwrap();
        let s = checked(&a, Scope::Loopback).unwrap().unwrap();
        assert!(
            s.starts_with("127.0.0.1:") && s.contains("→ 127.0.0.1:"),
            "{s}"
        );
        assert!(checked(&b, Scope::Loopback).unwrap().is_some());
        let (a, _b) = udp_pair(Family::V4).unwrap();
        assert!(checked(&a, Scope::Loopback).unwrap().unwrap().contains("→"));
        if let Ok((a, _)) = tcp_pair(Family::V6, false) {
            let s = checked(&a, Scope::Loopback).unwrap().unwrap();
            assert!(s.starts_with("[::1]:"), "{s}");
        }
    }

    #[test]
    fn a_socket_on_another_address_is_refused() {
        let wild = UdpSocket::bind((Ipv4Addr::UNSPECIFIED, 0)).unwrap();
        let err = checked(&wild, Scope::Loopback).unwrap_err().to_string();
        assert!(err.contains("refusing a socket at 0.0.0.0:"), "{err}");
        assert!(listener(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)), Scope::Loopback).is_err());
        let (u, _) = std::os::unix::net::UnixStream::pair().unwrap();
        assert_eq!(checked(&u, Scope::Loopback).unwrap(), None);
    }
}
