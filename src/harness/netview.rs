//! A private network for a tool: a network namespace of its own, with only a loopback
//! interface, shared by every invocation of one tool run (its server, its clients, the
//! command that stops the server).
//!
//! lmbench's servers (`lat_tcp -s`, `bw_tcp -s`, `lat_udp -s`, `lat_connect -s`) bind
//! every address (`0.0.0.0`), and no option narrows that: on the host they are reachable
//! from the whole network while they run, and any local user who takes their fixed port
//! first becomes the server the client measures. In a namespace of their own, `0.0.0.0`
//! is the namespace's loopback alone: nothing outside can reach the server, and nothing
//! outside can sit on its port.
//!
//! A server and its clients are separate programs, started one after the other, so the
//! namespace must outlive each of them: a small holder process made for the tool run
//! creates it (a network namespace, and a PID namespace of which it is the first
//! process), brings `lo` up, and waits; every tool invocation joins it with `setns`
//! between fork and exec. The holder dies with timeshare (`PR_SET_PDEATHSIG`), even
//! after `kill -9`, and when it dies the kernel kills every process of its PID namespace:
//! the server that put itself in the background there goes with it, so no server is
//! left running after the crosscheck, however it ended.
//!
//! As root the namespaces are made directly; as another user, inside a user namespace
//! mapping only that user onto itself (as [`super::toolview`] does). Where the kernel
//! allows neither, the tool run fails with the reason, naming the setting that forbids
//! it when one does ([`super::userns`]).

use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{AsRawFd, FromRawFd, RawFd};
use std::os::unix::process::CommandExt;
use std::process::Command;

use anyhow::{bail, Context, Result};

/// A network namespace (and a PID namespace for servers) held open for one tool run.
#[derive(Debug)]
pub struct PrivateNet {
    /// The process that made the namespaces and waits in them (killed on drop).
    holder: i32,
    net: File,
    pid: File,
    /// The user namespace to enter first, when not root.
    user: Option<File>,
}

/// What the first holder process tells its parent: 0 and the pid of the namespace's
/// first process, or the failing step and its errno.
const STEP_OK: i32 = 0;
const STEP_NAMES: [&str; 4] = [
    "",
    "cannot make a network namespace",
    "cannot map this user in its namespace",
    "cannot bring the loopback interface up",
];

impl PrivateNet {
    /// Make the namespaces, with `lo` up.
    pub fn new() -> Result<PrivateNet> {
        // SAFETY: geteuid/getegid cannot fail.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        let maps = (uid != 0).then(|| {
            (
                format!("{uid} {uid} 1").into_bytes(),
                format!("{gid} {gid} 1").into_bytes(),
            )
        });
        let mut fds = [0; 2];
        // SAFETY: pipe2 fills two descriptors.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return Err(io::Error::last_os_error()).context("cannot make a pipe");
        }
        // SAFETY: both descriptors are ours alone from here on.
        let (mut reader, writer) = unsafe { (File::from_raw_fd(fds[0]), fds[1]) };
        // SAFETY: getpid cannot fail.
        let parent = unsafe { libc::getpid() };
        // SAFETY: the child runs only async-signal-safe system calls on memory prepared
        // before the fork, then exits without returning.
        let holder = unsafe { libc::fork() };
        if holder < 0 {
            return Err(io::Error::last_os_error()).context("cannot fork");
        }
        if holder == 0 {
            // SAFETY: see above.
            unsafe { hold(parent, writer, maps.as_ref()) }
        }
        // SAFETY: the child has its own copy; ours is closed so that its end is seen.
        unsafe { libc::close(writer) };
        let mut report = [0u8; 8];
        let read = reader.read_exact(&mut report);
        let step = i32::from_ne_bytes(report[..4].try_into().expect("4 bytes"));
        let value = i32::from_ne_bytes(report[4..].try_into().expect("4 bytes"));
        if read.is_err() || step != STEP_OK {
            kill_and_reap(holder);
            if read.is_err() {
                bail!("the network namespace's holder ended at once");
            }
            let what = STEP_NAMES.get(step as usize).copied().unwrap_or("failed");
            let error = io::Error::from_raw_os_error(value);
            if maps.is_some() {
                // In a user namespace: a setting of the kernel may be why.
                return Err(super::userns::explained(error).context(what));
            }
            return Err(error).context(what);
        }
        let open = |ns: &str| {
            File::open(format!("/proc/{value}/ns/{ns}"))
                .with_context(|| format!("cannot open the tool's {ns} namespace"))
        };
        let opened = (|| {
            Ok::<_, anyhow::Error>(PrivateNet {
                holder,
                net: open("net")?,
                pid: open("pid")?,
                user: maps.is_some().then(|| open("user")).transpose()?,
            })
        })();
        if opened.is_err() {
            kill_and_reap(holder);
        }
        opened
    }

    /// Make `cmd` run in this network namespace.
    pub fn apply(&self, cmd: &mut Command) {
        self.join(cmd, false);
    }

    /// Make `cmd` run in this network namespace, and the processes it starts (a server
    /// that puts itself in the background) in its PID namespace, which ends with it.
    pub fn apply_to_server(&self, cmd: &mut Command) {
        self.join(cmd, true);
    }

    fn join(&self, cmd: &mut Command, children_inside: bool) {
        let user = self.user.as_ref().map(AsRawFd::as_raw_fd);
        let net = self.net.as_raw_fd();
        let pid = children_inside.then(|| self.pid.as_raw_fd());
        // SAFETY: the closure runs in the child between fork and exec, making only
        // setns calls on descriptors that stay open until the Command is spawned.
        unsafe {
            cmd.pre_exec(move || enter(user, net, pid));
        }
    }
}

impl Drop for PrivateNet {
    fn drop(&mut self) {
        kill_and_reap(self.holder);
    }
}

fn kill_and_reap(pid: i32) {
    // SAFETY: our own child; its namespace's first process gets SIGKILL from the kernel
    // when it dies (PR_SET_PDEATHSIG), which ends the whole PID namespace.
    unsafe {
        libc::kill(pid, libc::SIGKILL);
        let mut status = 0;
        while libc::waitpid(pid, &mut status, 0) < 0
            && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted
        {}
    }
}

/// In a tool's child: into the user namespace (when not root), the network namespace,
/// and for a server the PID namespace of its children.
fn enter(user: Option<RawFd>, net: RawFd, pid: Option<RawFd>) -> io::Result<()> {
    let check = |r: libc::c_int| {
        if r == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    };
    // SAFETY: setns on open namespace descriptors.
    unsafe {
        if let Some(fd) = user {
            check(libc::setns(fd, libc::CLONE_NEWUSER))?;
        }
        check(libc::setns(net, libc::CLONE_NEWNET))?;
        if let Some(fd) = pid {
            check(libc::setns(fd, libc::CLONE_NEWPID))?;
        }
    }
    Ok(())
}

/// The holder, in the forked child: make the namespaces, bring `lo` up, start the PID
/// namespace's first process, report, and wait to be killed.
///
/// # Safety
/// Only between fork and exit, in the child: async-signal-safe calls only.
unsafe fn hold(parent: i32, report_fd: RawFd, maps: Option<&(Vec<u8>, Vec<u8>)>) -> ! {
    let report = |step: i32, value: i32| {
        let mut bytes = [0u8; 8];
        bytes[..4].copy_from_slice(&step.to_ne_bytes());
        bytes[4..].copy_from_slice(&value.to_ne_bytes());
        libc::write(report_fd, bytes.as_ptr().cast(), bytes.len());
    };
    let fail = |step: i32| -> ! {
        report(step, *libc::__errno_location());
        libc::_exit(1)
    };
    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
    if libc::getppid() != parent {
        libc::_exit(1);
    }
    // The terminal's Ctrl-C reaches timeshare's whole group: the namespace stays until
    // timeshare itself ends it.
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        libc::signal(sig, libc::SIG_IGN);
    }
    let mut flags = libc::CLONE_NEWNET | libc::CLONE_NEWPID;
    if maps.is_some() {
        flags |= libc::CLONE_NEWUSER;
    }
    if libc::unshare(flags) != 0 {
        fail(1);
    }
    if let Some((uid_map, gid_map)) = maps {
        if write_proc(c"/proc/self/setgroups", b"deny").is_err()
            || write_proc(c"/proc/self/uid_map", uid_map).is_err()
            || write_proc(c"/proc/self/gid_map", gid_map).is_err()
        {
            fail(2);
        }
    }
    if loopback_up().is_err() {
        fail(3);
    }
    let first = libc::fork();
    if first < 0 {
        fail(1);
    }
    if first == 0 {
        // The PID namespace's first process: it dies with the holder, and every
        // process of the namespace with it.
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
        loop {
            libc::pause();
        }
    }
    report(STEP_OK, first);
    libc::close(report_fd);
    let mut status = 0;
    loop {
        libc::waitpid(first, &mut status, 0);
        libc::pause();
    }
}

/// `ip link set lo up`, with SIOCSIFFLAGS on a socket of the namespace.
unsafe fn loopback_up() -> io::Result<()> {
    let sock = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
    if sock < 0 {
        return Err(io::Error::last_os_error());
    }
    let mut req: libc::ifreq = std::mem::zeroed();
    for (dst, src) in req.ifr_name.iter_mut().zip(b"lo\0") {
        *dst = *src as libc::c_char;
    }
    let mut r = libc::ioctl(sock, libc::SIOCGIFFLAGS, &mut req);
    if r == 0 {
        req.ifr_ifru.ifru_flags |= (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
        r = libc::ioctl(sock, libc::SIOCSIFFLAGS, &req);
    }
    let err = io::Error::last_os_error();
    libc::close(sock);
    if r == 0 {
        Ok(())
    } else {
        Err(err)
    }
}

/// Write `bytes` to a file of /proc with open/write/close (no allocation: this runs
/// after fork).
unsafe fn write_proc(path: &std::ffi::CStr, bytes: &[u8]) -> io::Result<()> {
    let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    let n = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
    libc::close(fd);
    if n != bytes.len() as isize {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_in(net: &PrivateNet, script: &str, server: bool) -> String {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", script]);
        if server {
            net.apply_to_server(&mut cmd);
        } else {
            net.apply(&mut cmd);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    }

    fn make() -> Option<PrivateNet> {
        match PrivateNet::new() {
            Ok(n) => Some(n),
            Err(e) if format!("{e:#}").contains("ermission") => {
                eprintln!("skipped: this kernel allows no namespace here ({e:#})");
                None
            }
            Err(e) => panic!("{e:#}"),
        }
    }

    #[test]
    fn every_invocation_joins_the_same_private_network_with_only_lo_up() {
        let Some(net) = make() else { return };
        let ours = std::fs::read_link("/proc/self/ns/net").unwrap();
        let first = run_in(&net, "readlink /proc/self/ns/net", false);
        let second = run_in(&net, "readlink /proc/self/ns/net", true);
        assert_eq!(first, second, "two invocations, one namespace");
        assert_ne!(first.trim(), ours.to_str().unwrap(), "not the host's");
        let devices = run_in(&net, "cat /proc/self/net/dev", false);
        let names: Vec<&str> = devices
            .lines()
            .skip(2)
            .filter_map(|l| l.split(':').next())
            .map(str::trim)
            .collect();
        assert_eq!(names, ["lo"], "{devices}");
        // Up: the kernel gave it its local route to 127.0.0.1.
        let local = run_in(&net, "cat /proc/self/net/fib_trie", false);
        assert!(local.contains("127.0.0.1"), "lo is down: {local}");
    }

    #[test]
    fn a_background_process_of_a_server_ends_with_the_namespace() {
        let Some(net) = make() else { return };
        // The shell starts a sleeper in the background, as lmbench's `-s` does, and
        // prints its pid as the host sees it (through its parent's children).
        let out = run_in(
            &net,
            "sleep 300 </dev/null >/dev/null 2>&1 & cat /proc/self/task/*/children 2>/dev/null; \
             for c in /proc/$$/task/*/children; do cat $c; done",
            true,
        );
        let pid: i32 = out
            .split_whitespace()
            .filter_map(|w| w.parse().ok())
            .next()
            .unwrap_or_else(|| panic!("no child pid in {out:?}"));
        assert!(std::path::Path::new(&format!("/proc/{pid}")).exists());
        drop(net);
        let gone = (0..200).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(10));
            !std::path::Path::new(&format!("/proc/{pid}")).exists()
        });
        assert!(
            gone,
            "the server's background process outlived the namespace"
        );
    }
}
