//! The io and fs families end to end: every id reported with what it bypassed, the page
//! cache against the device, and the safety rules (room checked, read-only refused,
//! nothing left behind on failure or Ctrl-C). Name translation growing with the path is a
//! timing claim, checked by `timeshare selftest fs.namei`.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{is_root, json, result, timeshare};

fn entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

fn ids_of(families: &[&str]) -> Vec<String> {
    let out = timeshare().arg("list").args(families).assert().success();
    String::from_utf8_lossy(&out.get_output().stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| w.contains('.') && !w.ends_with('.'))
        .map(String::from)
        .collect()
}

fn median(run: &serde_json::Value, id: &str) -> f64 {
    result(run, id)["summary"]["median"].as_f64().unwrap()
}

/// A tmpfs (or ramfs) mounted for one test, unmounted and removed on drop. Needs root
/// and the right to mount (a container may not have it): `None`, said on stderr, if not.
struct Mount {
    dir: tempfile::TempDir,
}

impl Mount {
    fn new(fstype: &str, options: &str) -> Option<Mount> {
        if !is_root() {
            eprintln!("not root: cannot mount a {fstype}; this test checks nothing here");
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let ok = Command::new("mount")
            .args(["-t", fstype, "-o", options, "none"])
            .arg(dir.path())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("mount -t {fstype} refused here; this test checks nothing here");
            return None;
        }
        Some(Mount { dir })
    }
    /// Mount a block device's file system (ext4 on a loop device).
    fn new_device(device: &str) -> Option<Mount> {
        let dir = tempfile::tempdir().unwrap();
        let ok = Command::new("mount")
            .arg(device)
            .arg(dir.path())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("mount {device} refused here; this test checks nothing here");
            return None;
        }
        Some(Mount { dir })
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        // Quietly: a LoopExt4 has unmounted it already, to detach its device.
        let _ = Command::new("umount")
            .arg(self.dir.path())
            .stderr(Stdio::null())
            .status();
    }
}

#[test]
fn io_fs_quick_reports_every_id_with_what_it_bypassed() {
    let dir = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
    let started = Instant::now();
    let out = timeshare()
        .args([
            "run",
            "io",
            "fs",
            "--quick",
            "--verbose",
            "--json",
            "-",
            "--dir",
        ])
        .arg(dir.path())
        .assert()
        .success();
    let took = started.elapsed();
    assert!(took < Duration::from_secs(90), "quick run took {took:?}");
    let run = json(&out.get_output().stdout);
    let memory = run["environment"]["workdir"]["memory_backed"] == true;
    let ids = ids_of(&["io", "fs"]);
    assert!(ids.len() >= 21, "{ids:?}");
    for id in &ids {
        let r = result(&run, id);
        if id.starts_with("fs.namei.cold.") && r["status"]["state"] == "skipped" {
            // Dropping the caches needs root and a disk: skipped with which is missing.
            let why = r["status"]["reason"].to_string();
            assert!(
                why.contains("needs root") || why.contains("cannot be evicted"),
                "{id}: {why}"
            );
            continue;
        }
        assert_eq!(r["status"]["state"], "ok", "{id}: {}", r["status"]);
        assert!(median(&run, id) > 0.0, "{id}");
        if id.starts_with("io.bw.") {
            // Page-cache bandwidth (lmbench's bw_file_rd, bw_mmap_rd): a cached file read on
            // purpose, said in the row's own text; not the disk rows' record.
            continue;
        }
        let d = &r["details"];
        assert!(
            d["cache"].is_string(),
            "{id}: no statement of what was cached"
        );
        if id.starts_with("io.") {
            assert!(d["cache"].is_string(), "{id}: no cache statement");
            assert!(d["bypassed"].is_boolean(), "{id}");
            assert!(d["fsync"].is_string(), "{id}");
            let refused = d["o_direct"].as_str().unwrap().starts_with("refused");
            if refused {
                // A file system without O_DIRECT (e.g. ramfs): said, never claimed bypassed.
                assert!(
                    d["cache"].as_str().unwrap().contains("refused"),
                    "{id}: {d}"
                );
            }
            let expect = !id.ends_with(".cached") && !memory && !refused;
            assert_eq!(d["bypassed"], expect, "{id}: {d}");
            let notes = r["notes"].to_string();
            assert!(notes.contains("fsync"), "{id}: {notes}");
        }
        if r["unit"] == "seconds_per_op" && d.get("latency").is_some() {
            let l = &d["latency"];
            assert!(
                l["p50_s"].as_f64().unwrap() <= l["p99_s"].as_f64().unwrap(),
                "{id}"
            );
        }
    }
    for id in [
        "io.randwrite",
        "io.disk.randread",
        "fs.create",
        "fs.namei.4",
    ] {
        assert!(
            result(&run, id)["details"]["latency"]["p99_s"].is_number(),
            "{id}"
        );
    }
    if result(&run, "io.disk.seqread")["details"]["bypassed"] == true {
        // The page cache against the device: well above, and each row says which it is.
        let (cached, device) = (
            median(&run, "io.disk.seqread.cached"),
            median(&run, "io.disk.seqread"),
        );
        assert!(
            cached > 3.0 * device,
            "cached {cached} B/s, device {device} B/s"
        );
    }
    let table = String::from_utf8_lossy(&out.get_output().stderr);
    assert!(table.contains("µs/word"), "{table}");
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}

#[test]
fn tmpfs_says_memory_is_the_device() {
    let Some(shm) = ["/dev/shm", "/run/shm"]
        .iter()
        .map(Path::new)
        .find(|p| p.is_dir() && is_tmpfs(p))
    else {
        eprintln!("no tmpfs mounted here: this test checks nothing");
        return;
    };
    let dir = tempfile::tempdir_in(shm).unwrap();
    let out = timeshare()
        .args(["run", "io.disk.seqread", "--quick", "--json", "-", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    let run = json(&out.get_output().stdout);
    assert_eq!(run["environment"]["workdir"]["fs_type"], "tmpfs");
    assert_eq!(run["environment"]["workdir"]["memory_backed"], true);
    let d = &result(&run, "io.disk.seqread")["details"];
    assert_eq!(d["bypassed"], false);
    assert!(
        d["cache"]
            .as_str()
            .unwrap()
            .contains("memory is the device"),
        "{d}"
    );
    assert!(entries(dir.path()).is_empty());
}

fn is_tmpfs(p: &Path) -> bool {
    let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap_or_default();
    mounts.lines().any(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        f.len() > 2 && Path::new(f[1]) == p && f[2] == "tmpfs"
    })
}

/// ramfs refuses O_DIRECT with EINVAL: the row measures through the page cache and says
/// so, instead of failing or claiming a bypass.
#[test]
fn a_refused_o_direct_is_stated() {
    let Some(m) = Mount::new("ramfs", "mode=0755") else {
        return;
    };
    let out = timeshare()
        .args(["run", "io.disk.randread", "--quick", "--json", "-", "--dir"])
        .arg(m.path())
        .assert()
        .success();
    let run = json(&out.get_output().stdout);
    let d = &result(&run, "io.disk.randread")["details"];
    assert!(
        d["o_direct"].as_str().unwrap().starts_with("refused"),
        "{d}"
    );
    assert!(
        d["cache"].as_str().unwrap().contains("refused by ramfs"),
        "{d}"
    );
    assert_eq!(d["bypassed"], false);
    assert!(entries(m.path()).is_empty());
}

/// A nearly full file system: every writing row refuses with the reason, exit status 1,
/// and only what was there before remains.
#[test]
fn a_full_file_system_is_refused_and_left_as_it_was() {
    let Some(m) = Mount::new("tmpfs", "size=40m") else {
        return;
    };
    std::fs::write(m.path().join("filler"), vec![1u8; 20 << 20]).unwrap();
    let out = timeshare()
        .args(["run", "io.copy", "io.disk.seqwrite", "fs.create", "fs.lsl"])
        .args(["--quick", "--json", "-", "--dir"])
        .arg(m.path())
        .assert()
        .code(1);
    let run = json(&out.get_output().stdout);
    for id in ["io.copy", "io.disk.seqwrite", "fs.create", "fs.lsl"] {
        let r = result(&run, id);
        assert_eq!(r["status"]["state"], "failed", "{id}");
        let e = r["status"]["error"].as_str().unwrap();
        assert!(
            e.contains("refusing to write") && e.contains("free"),
            "{id}: {e}"
        );
    }
    assert_eq!(entries(m.path()), vec!["filler".to_string()]);
}

/// Past the check (a write that really hits ENOSPC): a clear error, the half-written
/// file removed.
#[test]
fn a_write_that_fills_the_file_system_fails_clearly_and_leaves_nothing() {
    use timeshare::bench::io::cache::{DataFile, Want};
    let Some(m) = Mount::new("tmpfs", "size=1m") else {
        return;
    };
    let e = DataFile::create(m.path(), "big", 4096, 1024, Want::Bypass, "none")
        .err()
        .expect("a 4 MiB file cannot fit in 1 MiB");
    let msg = format!("{e:#}");
    assert!(msg.contains("No space left"), "{msg}");
    assert!(entries(m.path()).is_empty(), "{:?}", entries(m.path()));
}

/// A read-only --dir is refused before anything runs: exit 2, a one-line reason, no table.
#[test]
fn a_read_only_dir_is_refused_before_anything_runs() {
    let plain = tempfile::tempdir().unwrap();
    let mount;
    let dir = if is_root() {
        // Root ignores permissions: only a read-only mount makes a read-only directory.
        let Some(m) = Mount::new("tmpfs", "ro,size=1m") else {
            return;
        };
        mount = m;
        mount.path()
    } else {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(plain.path(), std::fs::Permissions::from_mode(0o555)).unwrap();
        plain.path()
    };
    let out = timeshare()
        .args(["run", "io", "fs", "--quick", "--dir"])
        .arg(dir)
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr);
    assert!(stderr.contains("cannot create files there"), "{stderr}");
    assert!(out.get_output().stdout.is_empty(), "something ran");
}

/// Ctrl-C in the middle of the family: exit 130, every file and directory removed.
#[test]
fn ctrl_c_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = crate::common::command()
        .args(["run", "io", "fs", "--full", "--dir"])
        .arg(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(2500));
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{status:?}");
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}

/// A device with 4 KiB logical blocks refuses kt6's 512-byte O_DIRECT writes (EINVAL):
/// the row goes through the page cache and says why, while the 4 KiB rows still bypass.
/// Needs root, a loop device and mkfs.ext4; says so and checks nothing otherwise.
#[test]
fn a_device_with_4k_sectors_states_why_512_byte_writes_are_cached() {
    let Some(dev) = LoopExt4::new() else {
        return;
    };
    let out = timeshare()
        .args([
            "run",
            "io.randwrite",
            "io.disk.randread",
            "--quick",
            "--json",
            "-",
        ])
        .arg("--dir")
        .arg(dev.mount.path())
        .assert()
        .success();
    let run = json(&out.get_output().stdout);
    let kt6 = &result(&run, "io.randwrite")["details"];
    assert_eq!(kt6["bypassed"], false, "{kt6}");
    assert!(
        kt6["cache"].as_str().unwrap().contains("512-byte requests"),
        "{kt6}"
    );
    assert_eq!(
        result(&run, "io.disk.randread")["details"]["bypassed"],
        true
    );
    let left: Vec<String> = entries(dev.mount.path())
        .into_iter()
        .filter(|e| e != "lost+found")
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// An ext4 file system on a loop device with 4 KiB sectors, torn down on drop.
struct LoopExt4 {
    mount: Mount,
    device: String,
    _image: tempfile::TempDir,
}

impl LoopExt4 {
    fn new() -> Option<LoopExt4> {
        if !is_root() {
            eprintln!("not root: cannot make a loop device; this test checks nothing here");
            return None;
        }
        let image_dir = tempfile::tempdir_in("/var/tmp").ok()?;
        let image = image_dir.path().join("disk.img");
        std::fs::File::create(&image).ok()?.set_len(96 << 20).ok()?;
        let out = Command::new("losetup")
            .args(["-f", "--show", "-b", "4096"])
            .arg(&image)
            .stderr(Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success());
        let Some(out) = out else {
            eprintln!("losetup refused here; this test checks nothing here");
            return None;
        };
        let device = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let detach = |d: &str| {
            let _ = Command::new("losetup").args(["-d", d]).status();
        };
        let formatted = Command::new("mkfs.ext4")
            .args(["-q", &device])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !formatted {
            eprintln!("mkfs.ext4 unavailable or refused; this test checks nothing here");
            detach(&device);
            return None;
        }
        let Some(mount) = Mount::new_device(&device) else {
            detach(&device);
            return None;
        };
        Some(LoopExt4 {
            mount,
            device,
            _image: image_dir,
        })
    }
}

impl Drop for LoopExt4 {
    fn drop(&mut self) {
        // Captured: a device the kernel let go already is no news for the test's log.
        let _ = Command::new("umount").arg(self.mount.path()).output();
        let _ = Command::new("losetup").args(["-d", &self.device]).output();
    }
}
