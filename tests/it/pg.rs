//! A throw-away PostgreSQL server for the tests: a cluster made with `initdb` in a
//! temporary directory, listening only on a Unix socket there, run as an ordinary user
//! (PostgreSQL refuses root: as root, the cluster is the `postgres` user's where Debian's
//! package made one, else `nobody`'s), with a password, and
//! stopped when the guard is dropped. Shared by the store's unit tests (through
//! `#[path]`) and the integration tests.
//!
//! Where PostgreSQL is not installed, [`PgServer::start`] panics and says why: the tests
//! that need it are not skipped (`.ci/run` installs it).

// Each of the two test binaries uses a part of it.
#![allow(dead_code)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The password of the test cluster's superuser, so that masking is tested for real.
pub const PASSWORD: &str = "s3cret-pw";
const USER: &str = "timeshare";

pub struct PgServer {
    dir: tempfile::TempDir,
    bin: PathBuf,
    /// The postmaster, a child of the test itself (not daemonized by `pg_ctl`), started
    /// with a parent-death signal: a test run killed outright takes its servers with it
    /// instead of leaving them running.
    postmaster: Option<Child>,
}

impl PgServer {
    /// Make and start a cluster, or panic saying why it cannot be done here.
    pub fn start() -> PgServer {
        let bin = bin_dir().unwrap_or_else(|| {
            panic!(
                "PostgreSQL's server programs (initdb, pg_ctl) are not installed: \
                 install Debian's `postgresql` (.ci/run does) to run the shared-store tests"
            )
        });
        let dir = tempfile::Builder::new()
            .prefix("timeshare-pg-")
            .tempdir()
            .expect("a temporary directory for the cluster");
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let pwfile = dir.path().join("pw");
        std::fs::write(&pwfile, format!("{PASSWORD}\n")).unwrap();
        let mut server = PgServer {
            dir,
            bin,
            postmaster: None,
        };
        if is_root() {
            let (uid, gid) = owner();
            for p in [server.dir.path(), pwfile.as_path()] {
                std::os::unix::fs::chown(p, Some(uid), Some(gid)).unwrap();
            }
        }
        server.pg(
            "initdb",
            &[
                "-D",
                &server.data().display().to_string(),
                "-U",
                USER,
                "--auth=scram-sha-256",
                &format!("--pwfile={}", pwfile.display()),
                "-E",
                "UTF8",
                "--no-sync",
                "--no-instructions",
            ],
        );
        server.start_postmaster();
        server
    }

    /// Start `postgres` in the foreground and wait until it accepts a connection.
    fn start_postmaster(&mut self) {
        let log = std::fs::File::create(self.dir.path().join("log")).unwrap();
        let dir = self.dir.path().display().to_string();
        let data = self.data().display().to_string();
        let child = self
            .as_owner("postgres", true)
            .args(["-D", &data, "-k", &dir])
            .args(["-c", "listen_addresses=", "-c", "fsync=off"])
            .args(["-c", "max_connections=60"])
            .current_dir(self.dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start postgres");
        self.postmaster = Some(child);
        let deadline = Instant::now() + Duration::from_secs(60);
        while postgres::Client::connect(&self.url("postgres"), postgres::NoTls).is_err() {
            let exited = self.postmaster.as_mut().unwrap().try_wait().unwrap();
            if exited.is_some() || Instant::now() > deadline {
                let log = std::fs::read_to_string(self.dir.path().join("log")).unwrap_or_default();
                panic!("postgres did not start ({exited:?}):\n{log}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// The socket's directory (the `host` of a URL).
    pub fn socket_dir(&self) -> &Path {
        self.dir.path()
    }

    /// The URL of database `db` on this server, password included.
    pub fn url(&self, db: &str) -> String {
        format!(
            "postgresql://{USER}:{PASSWORD}@localhost/{db}?host={}",
            self.socket_dir().display()
        )
    }

    /// A new, empty database on this server; returns its URL.
    pub fn fresh(&self, db: &str) -> String {
        let mut client = postgres::Client::connect(&self.url("postgres"), postgres::NoTls)
            .expect("connect to the test cluster");
        client
            .batch_execute(&format!("CREATE DATABASE \"{db}\""))
            .expect("create a database");
        self.url(db)
    }

    /// One of PostgreSQL's programs, to be run as the cluster's owner; with
    /// `dies_with_test`, it is sent SIGQUIT (PostgreSQL's immediate shutdown) when the test
    /// thread that started it ends.
    fn as_owner(&self, program: &str, dies_with_test: bool) -> Command {
        let path = self.bin.join(program);
        if !is_root() && !dies_with_test {
            return Command::new(&path);
        }
        let mut c = Command::new("setpriv");
        if is_root() {
            let (uid, gid) = owner();
            c.args([
                format!("--reuid={uid}"),
                format!("--regid={gid}"),
                "--clear-groups".into(),
            ]);
        }
        // setpriv sets the signal after changing the user, which would clear it.
        if dies_with_test {
            c.arg("--pdeathsig=QUIT");
        }
        c.arg("--").arg(&path);
        c
    }

    /// Run one of PostgreSQL's programs as the cluster's owner; panic with its output if
    /// it fails.
    fn pg(&self, program: &str, args: &[&str]) {
        let out = self
            .as_owner(program, false)
            .args(args)
            .current_dir(self.dir.path())
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("cannot start {program}: {e}"));
        if !out.status.success() {
            let log = std::fs::read_to_string(self.dir.path().join("log")).unwrap_or_default();
            panic!(
                "{program} failed ({}): {}{}\n{log}",
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        if let Some(mut postmaster) = self.postmaster.take() {
            let data = self.data().display().to_string();
            let _ = self
                .as_owner("pg_ctl", false)
                .args(["stop", "-m", "immediate", "-w", "-D", &data])
                .current_dir(self.dir.path())
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            let _ = postmaster.kill();
            let _ = postmaster.wait();
        }
    }
}

const NOBODY: u32 = 65534;

/// Who owns the cluster when the tests run as root: the `postgres` user, else `nobody`.
/// Not `nobody` when there is a choice: the cluster's processes would count against
/// `nobody`'s process limit, which other tests (the `load` family's) run into on purpose.
fn owner() -> (u32, u32) {
    std::fs::read_to_string("/etc/passwd")
        .ok()
        .and_then(|p| {
            p.lines().find_map(|l| {
                let f: Vec<&str> = l.split(':').collect();
                (f.len() > 3 && f[0] == "postgres")
                    .then(|| Some((f[2].parse().ok()?, f[3].parse().ok()?)))
                    .flatten()
            })
        })
        .unwrap_or((NOBODY, NOBODY))
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// `/usr/lib/postgresql/<newest>/bin`, where Debian puts the server's programs.
fn bin_dir() -> Option<PathBuf> {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let v = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("pg_ctl").exists().then_some((v, bin))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, b)| b)
}
