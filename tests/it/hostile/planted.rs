//! What another user planted where root's timeshare looks: the results store's path
//! (`--db`, its `-wal`, a directory on the way) in a sticky world-writable directory,
//! and the fixed directory lmbench's tools use in `/var/tmp`. `nobody` plants links to
//! root's secret, links to nothing, files and programs of its own; root's commands must
//! neither open, create, write, copy, chmod nor run through them. The kernel's own guards
//! are turned off for the store cases, so that only timeshare's rules stand. Every case
//! needs root; as anyone else the tests say so and pass without trying.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::others::{as_nobody, is_root, Sysctl};
use crate::common::{command, FIXTURE};

const SECRET: &[u8] = b"";

/// Root's 0700 directory with an empty 0600 file (what SQLite would happily make a
/// database of), and a sticky world-writable directory beside it.
struct Scene {
    _tmp: tempfile::TempDir,
    secret_dir: PathBuf,
    secret: PathBuf,
    shared: PathBuf,
}

fn scene() -> Scene {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let secret_dir = tmp.path().join("root-only");
    std::fs::create_dir(&secret_dir).unwrap();
    std::fs::set_permissions(&secret_dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    let secret = secret_dir.join("secret.db");
    std::fs::write(&secret, SECRET).unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
    let shared = tmp.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
    Scene {
        _tmp: tmp,
        secret_dir,
        secret,
        shared,
    }
}

fn plant_link(to: &Path, at: &Path) {
    as_nobody("ln", &["-s".as_ref(), to.as_os_str(), at.as_os_str()]);
}

/// What root's directory holds, and its file's bytes, mode and owner.
fn state(s: &Scene) -> (Vec<String>, Vec<u8>, u32, u32) {
    let mut names: Vec<String> = std::fs::read_dir(&s.secret_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let m = std::fs::metadata(&s.secret).unwrap();
    (names, std::fs::read(&s.secret).unwrap(), m.mode(), m.uid())
}

/// Every shared directory's entry, with its owner and size.
fn listing(dir: &Path) -> Vec<(String, u32, u64)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let m = std::fs::symlink_metadata(e.path()).unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                m.uid(),
                m.len(),
            )
        })
        .collect();
    v.sort();
    v
}

/// Commands that open the store: one that writes a run, one that imports, readers, and an
/// observation (stored as it goes).
fn store_commands(db: &Path) -> Vec<Vec<std::ffi::OsString>> {
    let with_db = |args: &[&str]| -> Vec<std::ffi::OsString> {
        let mut v: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
        v.push("--db".into());
        v.push(db.into());
        v
    };
    vec![
        with_db(&["run", "syscall.getpid", "--quick"]),
        with_db(&["import", FIXTURE]),
        with_db(&["history"]),
        with_db(&["export", "last"]),
        with_db(&["report", "last", "-o", "-"]),
        with_db(&["observe", "--for", "1s", "--no-profile", "--no-calls"]),
    ]
}

#[test]
fn root_never_opens_or_makes_a_store_through_what_another_user_planted() {
    if !is_root() {
        eprintln!("skipped: needs root (to open as root and plant as nobody)");
        return;
    }
    let _links = Sysctl::set("/proc/sys/fs/protected_symlinks", "0");
    let _regular = Sysctl::set("/proc/sys/fs/protected_regular", "0");
    let s = scene();
    let sh = |name: &str| s.shared.join(name);
    // Each class: a link to root's file, a link to nothing in root's directory, a chain
    // of links, a file of nobody's own, a journal link beside a name nobody left free,
    // a directory on the way that is nobody's link, and a directory nobody owns.
    plant_link(&s.secret, &sh("to-file.db"));
    plant_link(&s.secret_dir.join("created.db"), &sh("dangling.db"));
    plant_link(&sh("to-file.db"), &sh("chain.db"));
    as_nobody("touch", &[sh("theirs.db").as_os_str()]);
    plant_link(&s.secret, &sh("wal.db-wal"));
    plant_link(&s.secret, &sh("shm.db-shm"));
    plant_link(&s.secret_dir, &sh("dirlink"));
    as_nobody("mkdir", &[sh("nobodys").as_os_str()]);
    as_nobody("chmod", &["0777".as_ref(), sh("nobodys").as_os_str()]);
    let before = state(&s);
    let planted = listing(&s.shared);
    let mut tried = 0;
    for (name, why) in [
        ("to-file.db", "sticky"),
        ("dangling.db", "sticky"),
        ("chain.db", "sticky"),
        ("theirs.db", "sticky"),
        ("wal.db", "is a link"),
        ("shm.db", "is a link"),
        ("dirlink/in.db", "sticky"),
        ("nobodys/in.db", "belongs to user 65534"),
    ] {
        for args in store_commands(&sh(name)) {
            let out = command().args(&args).output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert!(err.contains(why), "{args:?}: {err}");
            assert_eq!(state(&s), before, "{args:?} touched root's directory");
            assert_eq!(
                listing(&s.shared),
                planted,
                "{args:?} made or changed a file"
            );
            tried += 1;
        }
    }
    assert!(std::fs::read_dir(sh("nobodys")).unwrap().next().is_none());
    assert_eq!(tried, 48);
}

#[test]
fn roots_own_store_link_in_a_sticky_directory_is_still_followed() {
    if !is_root() {
        eprintln!("skipped: needs root");
        return;
    }
    let s = scene();
    let own = s.shared.join("own.db");
    std::os::unix::fs::symlink(&s.secret, &own).unwrap();
    let out = command()
        .args(["import", FIXTURE, "--db"])
        .arg(&own)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(std::fs::read(&s.secret)
        .unwrap()
        .starts_with(b"SQLite format 3"));
    assert!(std::fs::symlink_metadata(&own)
        .unwrap()
        .file_type()
        .is_symlink());
}

/// The fixed directory Debian's lmbench compiles into lat_proc and lat_fcntl.
const LMBENCH_DIR: &str = "/var/tmp/lmbench";

fn lmbench_installed() -> bool {
    std::fs::read_dir("/usr/lib/lmbench/bin")
        .map(|d| d.flatten().any(|e| e.path().join("lat_proc").exists()))
        .unwrap_or(false)
}

/// Root's crosscheck of the rows whose tools use `/var/tmp/lmbench`, with lmbench's
/// calibration given (so it does not take a minute), two pairs each (the fewest it takes).
fn crosscheck_lmbench_rows() -> std::process::Output {
    command()
        .args([
            "crosscheck",
            "proc.exec.null.0",
            "wait.fcntl",
            "--pairs",
            "1",
            // Two pairs a row and no more: what is checked is what the tools touched, not
            // a verdict, and on a busy machine an undecided row took up to 13 pairs.
            "--max-pairs",
            "2",
        ])
        .env("ENOUGH", "20000")
        .env("TIMING_O", "0")
        .env("LOOP_O", "0")
        .output()
        .unwrap()
}

/// A class of planting, by name, and how it is done.
type Plant<'a> = (&'static str, Box<dyn Fn() + 'a>);

/// Removes what the test planted in `/var/tmp`, also when it fails.
struct Planted;

impl Drop for Planted {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(LMBENCH_DIR);
        let _ = std::fs::remove_file(LMBENCH_DIR);
    }
}

#[test]
fn roots_crosscheck_never_runs_copies_or_chmods_what_another_user_put_in_var_tmp() {
    if !is_root() || !lmbench_installed() {
        eprintln!("skipped: needs root and lmbench");
        return;
    }
    if std::fs::symlink_metadata(LMBENCH_DIR).is_ok() {
        eprintln!("skipped: {LMBENCH_DIR} exists already and is not this test's to plant");
        return;
    }
    let _cleanup = Planted;
    let s = scene();
    let marker = s.shared.join("ran-as-root");
    let script = format!("#!/bin/sh\ntouch {}\n", marker.display());
    let plant_dir = || {
        as_nobody("mkdir", &[LMBENCH_DIR.as_ref()]);
        as_nobody("chmod", &["0777".as_ref(), LMBENCH_DIR.as_ref()]);
    };
    let hello = Path::new(LMBENCH_DIR).join("hello");
    // Three classes: nobody's program where the tool looks, nobody's link from there to
    // root's file, and the whole directory a link to root's 0700 directory.
    let plants: [Plant; 3] = [
        (
            "program",
            Box::new(|| {
                plant_dir();
                as_nobody(
                    "sh",
                    &[
                        "-c".as_ref(),
                        format!(
                            "printf '%s' '{script}' > {0} && chmod 0755 {0}",
                            hello.display()
                        )
                        .as_ref(),
                    ],
                );
            }),
        ),
        (
            "link to root's file",
            Box::new(|| {
                plant_dir();
                plant_link(&s.secret, &hello);
            }),
        ),
        (
            "directory link",
            Box::new(|| plant_link(&s.secret_dir, Path::new(LMBENCH_DIR))),
        ),
    ];
    for (what, plant) in plants {
        plant();
        let before = state(&s);
        let planted = listing(Path::new("/var/tmp"));
        let inside = std::fs::metadata(LMBENCH_DIR)
            .ok()
            .filter(|m| m.is_dir() && m.uid() != 0)
            .map(|_| listing(Path::new(LMBENCH_DIR)));
        let out = crosscheck_lmbench_rows();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(!marker.exists(), "{what}: root ran nobody's program");
        assert_eq!(
            state(&s),
            before,
            "{what}: root's directory or file changed"
        );
        assert_eq!(listing(Path::new("/var/tmp")), planted, "{what}");
        if let Some(inside) = inside {
            assert_eq!(
                listing(Path::new(LMBENCH_DIR)),
                inside,
                "{what}: written into nobody's directory"
            );
        }
        // The tools ran, in their private view: both rows have a figure.
        assert!(
            text.contains("proc.exec.null.0") && text.contains("wait.fcntl"),
            "{what}: {text}"
        );
        assert!(
            text.contains("2 paired"),
            "{what}: {text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let _ = std::fs::remove_dir_all(LMBENCH_DIR);
        let _ = std::fs::remove_file(LMBENCH_DIR);
    }
}
