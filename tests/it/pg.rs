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
use std::process::{Command, Stdio};

/// The password of the test cluster's superuser, so that masking is tested for real.
pub const PASSWORD: &str = "s3cret-pw";
const USER: &str = "timeshare";

pub struct PgServer {
    dir: tempfile::TempDir,
    bin: PathBuf,
    running: bool,
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
            running: false,
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
        let options = format!(
            "-k {} -c listen_addresses='' -c fsync=off -c max_connections=60",
            server.dir.path().display()
        );
        server.pg(
            "pg_ctl",
            &[
                "start",
                "-w",
                "-D",
                &server.data().display().to_string(),
                "-l",
                &server.dir.path().join("log").display().to_string(),
                "-o",
                &options,
            ],
        );
        server.running = true;
        server
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

    /// Run one of PostgreSQL's programs as the cluster's owner; panic with its output if
    /// it fails.
    fn pg(&self, program: &str, args: &[&str]) {
        let path = self.bin.join(program);
        let mut c = if is_root() {
            let mut c = Command::new("setpriv");
            let (uid, gid) = owner();
            c.args([
                format!("--reuid={uid}"),
                format!("--regid={gid}"),
                "--clear-groups".into(),
                "--".into(),
            ])
            .arg(&path);
            c
        } else {
            Command::new(&path)
        };
        let out = c
            .args(args)
            .current_dir(self.dir.path())
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", path.display()));
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
        if self.running {
            let data = self.data().display().to_string();
            let path = self.bin.join("pg_ctl");
            let mut c = if is_root() {
                let mut c = Command::new("setpriv");
                let (uid, gid) = owner();
                c.args([
                    format!("--reuid={uid}"),
                    format!("--regid={gid}"),
                    "--clear-groups".into(),
                    "--".into(),
                ])
                .arg(&path);
                c
            } else {
                Command::new(&path)
            };
            let _ = c
                .args(["stop", "-m", "immediate", "-w", "-D", &data])
                .current_dir(self.dir.path())
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
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
