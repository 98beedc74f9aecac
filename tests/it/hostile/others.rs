//! Other users: root writing outputs into a sticky world-writable directory (like
//! `/tmp`) where `nobody` planted links and files, with the kernel's own guard
//! (`fs.protected_symlinks`) off, so that only timeshare's rules stand between them.
//! Every case needs root (to be root writing, and to become `nobody`); as anyone else
//! the tests say so and pass without trying.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::common::{command, timeshare};

pub const NOBODY: &str = "65534";

pub fn is_root() -> bool {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// `program args…` run as `nobody`, which must succeed.
pub fn as_nobody(program: &str, args: &[&std::ffi::OsStr]) {
    let out = std::process::Command::new("setpriv")
        .args([
            "--reuid",
            NOBODY,
            "--regid",
            NOBODY,
            "--clear-groups",
            program,
        ])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "as nobody: {program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A sysctl set for the life of the guard, and set back when it ends (also when the
/// test fails).
pub struct Sysctl {
    path: &'static str,
    old: Option<String>,
}

impl Sysctl {
    pub fn set(path: &'static str, value: &str) -> Sysctl {
        let old = std::fs::read_to_string(path).ok();
        let changed =
            old.as_deref().map(str::trim) != Some(value) && std::fs::write(path, value).is_ok();
        Sysctl {
            path,
            old: old.filter(|_| changed),
        }
    }
}

impl Drop for Sysctl {
    fn drop(&mut self) {
        if let Some(old) = &self.old {
            let _ = std::fs::write(self.path, old.trim());
        }
    }
}

/// Root's secret, nobody's playground, and the links planted there.
struct Scene {
    _tmp: tempfile::TempDir,
    secret_dir: PathBuf,
    secret: PathBuf,
    shared: PathBuf,
}

const SECRET: &[u8] = b"root's own bytes\n";

fn scene() -> Scene {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let secret_dir = tmp.path().join("root-only");
    std::fs::create_dir(&secret_dir).unwrap();
    std::fs::set_permissions(&secret_dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    let secret = secret_dir.join("secret");
    std::fs::write(&secret, SECRET).unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
    let shared = tmp.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let plant = |name: &str, to: &Path| {
        as_nobody(
            "ln",
            &["-s".as_ref(), to.as_os_str(), shared.join(name).as_os_str()],
        )
    };
    plant("to-file.json", &secret);
    plant("dangling.json", &secret_dir.join("created"));
    plant("chain.json", &shared.join("to-file.json"));
    as_nobody("touch", &[shared.join("planted.json").as_os_str()]);
    as_nobody("mkfifo", &[shared.join("planted.fifo").as_os_str()]);
    Scene {
        _tmp: tmp,
        secret_dir,
        secret,
        shared,
    }
}

/// What the secret directory holds, and the secret's bytes, mode and owner.
fn state(s: &Scene) -> (Vec<String>, Vec<u8>, u32, u32) {
    let mut names: Vec<String> = std::fs::read_dir(&s.secret_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let m = std::fs::metadata(&s.secret).unwrap();
    (names, std::fs::read(&s.secret).unwrap(), m.mode(), m.uid())
}

/// Every output command, writing `out`.
fn every_output_command(db: &Path, out: &Path) -> Vec<Vec<std::ffi::OsString>> {
    let c = |args: &[&str], flag: &str| -> Vec<std::ffi::OsString> {
        let mut v: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
        v.push(flag.into());
        v.push(out.into());
        v.push("--db".into());
        v.push(db.into());
        v
    };
    vec![
        c(&["run", "syscall.getpid", "--quick", "--no-save"], "--json"),
        c(&["run", "syscall.getpid", "--quick", "--no-save"], "--html"),
        c(&["exercise", "--quick", "--no-save"], "--json"),
        vec![
            "ab".into(),
            "self".into(),
            "self".into(),
            "syscall.getpid".into(),
            "--json-a".into(),
            out.into(),
        ],
        c(&["export", "1", "--force"], "-o"),
        c(&["export", "1", "--format", "csv", "--force"], "-o"),
        c(&["report", "1", "--force"], "-o"),
        c(&["fleet"], "-o"),
    ]
}

#[test]
fn root_never_writes_through_a_link_or_into_a_file_another_user_planted() {
    if !is_root() {
        eprintln!("skipped: needs root (to write as root and plant as nobody)");
        return;
    }
    let _guard = Sysctl::set("/proc/sys/fs/protected_symlinks", "0");
    let _regular = Sysctl::set("/proc/sys/fs/protected_regular", "0");
    let _fifos = Sysctl::set("/proc/sys/fs/protected_fifos", "0");
    let s = scene();
    let store = crate::common::store_with(crate::common::FIXTURE.as_ref());
    let db = store.path().join("runs.db");
    let before = state(&s);
    let planted_before = std::fs::read_dir(&s.shared).unwrap().count();
    let mut tried = 0;
    for name in [
        "to-file.json",
        "dangling.json",
        "chain.json",
        "planted.json",
        "planted.fifo",
    ] {
        let out = s.shared.join(name);
        for args in every_output_command(&db, &out) {
            let mut cmd = command();
            // Guard the test against a command that would wait on the FIFO.
            let run = cmd.args(&args).output().unwrap();
            let err = String::from_utf8_lossy(&run.stderr);
            assert_eq!(run.status.code(), Some(2), "{args:?}: {err}");
            assert!(err.contains("sticky"), "{args:?}: {err}");
            assert_eq!(state(&s), before, "{args:?} touched root's directory");
            tried += 1;
        }
    }
    assert_eq!(
        std::fs::read_dir(&s.shared).unwrap().count(),
        planted_before,
        "something was created in the shared directory"
    );
    assert_eq!(tried, 40);
}

#[test]
fn roots_own_link_and_a_link_of_the_directorys_owner_are_followed_keeping_the_mode() {
    if !is_root() {
        eprintln!("skipped: needs root");
        return;
    }
    let s = scene();
    let store = crate::common::store_with(crate::common::FIXTURE.as_ref());
    let db = store.path().join("runs.db");
    let own = s.shared.join("own.json");
    std::os::unix::fs::symlink(&s.secret, &own).unwrap();
    timeshare()
        .args(["export", "1", "--force", "-o"])
        .arg(&own)
        .arg("--db")
        .arg(&db)
        .assert()
        .success();
    let m = std::fs::metadata(&s.secret).unwrap();
    assert_eq!(m.mode() & 0o7777, 0o600, "the mode was not kept");
    assert!(std::fs::read(&s.secret).unwrap().starts_with(b"{"));
    assert!(std::fs::symlink_metadata(&own)
        .unwrap()
        .file_type()
        .is_symlink());
}

#[test]
fn a_file_of_another_user_keeps_its_owner_when_root_replaces_it() {
    if !is_root() {
        eprintln!("skipped: needs root");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let theirs = tmp.path().join("theirs.json");
    std::fs::write(&theirs, b"x").unwrap();
    std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).unwrap();
    std::fs::set_permissions(&theirs, std::fs::Permissions::from_mode(0o640)).unwrap();
    timeshare()
        .args(["run", "syscall.getpid", "--quick", "--no-save", "--json"])
        .arg(&theirs)
        .assert()
        .success();
    let m = std::fs::metadata(&theirs).unwrap();
    assert_eq!((m.uid(), m.gid(), m.mode() & 0o777), (65534, 65534, 0o640));
}
