//! The store and its neighbours: an output that is the store, a wrong store URL, names
//! too long or empty, forgetting a run, FIFOs, limits (`ulimit -f`, `ulimit -s`),
//! inconsistent summaries, a store of another user.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::common::{command, stderr_of, store_with, timeshare, FIXTURE};

use super::{fixture, sha256};

#[test]
fn an_output_that_is_the_store_is_refused_and_the_store_kept() {
    let dir = store_with(FIXTURE.as_ref());
    let db = dir.path().join("runs.db");
    let link = dir.path().join("report.html");
    std::os::unix::fs::symlink(&db, &link).unwrap();
    let before = sha256(&db);
    let wal = dir.path().join("runs.db-wal");
    let cases: Vec<Vec<std::ffi::OsString>> = vec![
        vec!["export".into(), "1".into(), "-o".into(), db.clone().into()],
        vec![
            "export".into(),
            "1".into(),
            "--force".into(),
            "-o".into(),
            db.clone().into(),
        ],
        vec![
            "run".into(),
            "syscall.getpid".into(),
            "--quick".into(),
            "--json".into(),
            db.clone().into(),
        ],
        vec![
            "run".into(),
            "syscall.getpid".into(),
            "--quick".into(),
            "--html".into(),
            link.clone().into(),
        ],
        vec![
            "report".into(),
            "1".into(),
            "--force".into(),
            "-o".into(),
            wal.into(),
        ],
    ];
    for args in cases {
        let out = timeshare()
            .args(&args)
            .arg("--db")
            .arg(&db)
            .output()
            .unwrap();
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("results database"), "{args:?}: {err}");
        assert_eq!(sha256(&db), before, "{args:?} changed the store");
    }
    timeshare()
        .arg("history")
        .arg("--db")
        .arg(&db)
        .assert()
        .success();
}

#[test]
fn export_replaces_a_file_only_with_force() {
    let dir = store_with(FIXTURE.as_ref());
    let db = dir.path().join("runs.db");
    let out = dir.path().join("r.json");
    std::fs::write(&out, b"mine").unwrap();
    let run = |force: bool| {
        let mut c = timeshare();
        c.args(["export", "1", "-o"]).arg(&out).arg("--db").arg(&db);
        if force {
            c.arg("--force");
        }
        c.output().unwrap()
    };
    let refused = run(false);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr_of(&refused));
    assert!(stderr_of(&refused).contains("--force"));
    assert_eq!(std::fs::read(&out).unwrap(), b"mine");
    assert!(run(true).status.success());
    assert!(std::fs::read(&out).unwrap().starts_with(b"{"));
}

#[test]
fn a_wrong_store_url_is_refused_naming_the_scheme_not_the_password() {
    let tmp = tempfile::tempdir().unwrap();
    for (url, says) in [
        ("mysql://ts:hunter2@db/x", "mysql:// is not a store"),
        ("sqlite://ts:hunter2@runs.db", "sqlite:// is not a store"),
        ("Postgresql://ts:hunter2@db/x", "PGPASSWORD"),
        ("postgresql://ts:hunter2@db/x?sslmode=disable", "PGPASSWORD"),
    ] {
        let out = timeshare()
            .current_dir(tmp.path())
            .args(["history", "--db", url])
            .output()
            .unwrap();
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{url}: {err}");
        assert!(
            err.contains(says) && !err.contains("hunter2"),
            "{url}: {err}"
        );
    }
    // Through the environment a password is allowed; what the driver and the standard
    // would read two ways is not, and the refusal quotes none of it.
    for (url, says) in [
        ("postgresql://ts:hun@ter2@db/x", "%40"),
        ("postgresql://ts:hun/ter2@db/x", "%2F"),
        ("postgresql://ts:hun#ter2@db/x", "%23"),
        ("postgresql://ts:hun%ter2@db/x", "%25"),
        ("postgresql://ts:hunter2@db:hunter2/x", "port"),
        ("postgresql://ts:hunter2@db/x?password=hunter2", "both"),
        ("postgresql://ts:hunter2@db1,db2/x", "more than one host"),
    ] {
        let out = timeshare()
            .current_dir(tmp.path())
            .arg("history")
            .env("TIMESHARE_DB", url)
            .output()
            .unwrap();
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{url}: {err}");
        assert!(err.contains(says), "{url}: {err}");
        assert!(
            !err.contains("hun") && !err.contains("ter2"),
            "{url}: {err}"
        );
    }
    assert_eq!(
        std::fs::read_dir(tmp.path()).unwrap().count(),
        0,
        "made a file"
    );
}

#[test]
fn a_postgresql_port_that_never_answers_is_an_error_not_a_hang() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    // Accept, and say nothing.
    let _held = std::thread::spawn(move || {
        let conns: Vec<_> = listener.incoming().take(2).collect();
        std::thread::sleep(Duration::from_secs(60));
        drop(conns);
    });
    let start = Instant::now();
    let out = timeshare()
        .arg("history")
        .env(
            "TIMESHARE_DB",
            format!("postgresql://ts@127.0.0.1:{port}/x"),
        )
        .timeout(Duration::from_secs(40))
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("no answer from the server"), "{err}");
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn names_are_capped_and_checked_before_anything_is_measured() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("runs.db");
    let long = "x".repeat(300);
    for (flag, value, says) in [
        ("--label", long.as_str(), "longer than the 256"),
        ("--host-name", "", "empty"),
        ("--campaign", "../../x", "cannot name a file"),
        ("--host-name", "a/../../x", "cannot name a file"),
    ] {
        let out = timeshare()
            .args(["run", "cpu.chess", "--quick", flag, value, "--db"])
            .arg(&db)
            .timeout(Duration::from_secs(20))
            .output()
            .unwrap();
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{flag}: {err}");
        assert!(err.contains(flag) && err.contains(says), "{flag}: {err}");
    }
    assert!(!db.exists(), "a refused run opened the store");
    // The same cap at import.
    let mut run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(fixture("hostile.json")).unwrap()).unwrap();
    run["options"]["label"] = "y".repeat(5_000_000).into();
    let file = tmp.path().join("long.json");
    std::fs::write(&file, serde_json::to_vec(&run).unwrap()).unwrap();
    let out = timeshare()
        .arg("import")
        .arg(&file)
        .arg("--db")
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // The strict reader's cap on any imported string (16 KiB) refuses it before the
    // label's own cap is looked at; the message is folded to the width, so words compared.
    let said = stderr_of(&out)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        said.contains("options.label: a string of 5000000 bytes"),
        "{said}"
    );
}

/// A case: its name, how it spoils a run's JSON, and what the refusal must say.
type Spoil = (&'static str, fn(&mut serde_json::Value), &'static str);

#[test]
fn inconsistent_summaries_are_refused_by_import_and_by_report() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("runs.db");
    let base: serde_json::Value =
        serde_json::from_slice(&std::fs::read(fixture("hostile.json")).unwrap()).unwrap();
    let cases: [Spoil; 3] = [
        (
            "ci",
            |s| {
                s["ci_low"] = 2.0.into();
                s["ci_high"] = 1.0.into();
            },
            "summary.ci_low",
        ),
        (
            "minmax",
            |s| {
                s["min"] = 3.0.into();
                s["max"] = 1.0.into();
            },
            "summary.min",
        ),
        ("level", |s| s["ci_level"] = 5.0.into(), "summary.ci_level"),
    ];
    for (name, spoil, field) in cases {
        let mut run = base.clone();
        spoil(&mut run["results"][0]["summary"]);
        let file = tmp.path().join(format!("{name}.json"));
        std::fs::write(&file, serde_json::to_vec(&run).unwrap()).unwrap();
        for args in [&["import"][..], &["report", "-o", "-"]] {
            let out = timeshare()
                .args(args)
                .arg(&file)
                .arg("--db")
                .arg(&db)
                .output()
                .unwrap();
            let err = stderr_of(&out);
            assert_eq!(out.status.code(), Some(2), "{name} {args:?}: {err}");
            assert!(err.contains(field), "{name} {args:?}: {err}");
        }
    }
    let out = timeshare()
        .args(["report", "-o", "-"])
        .arg(fixture("bad-negative-median.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains("results[0].summary.median"));
}

#[test]
fn forget_deletes_a_run_only_with_yes() {
    let dir = store_with(FIXTURE.as_ref());
    let db = dir.path().join("runs.db");
    let out = timeshare()
        .args(["forget", "1", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("give --yes"));
    timeshare()
        .args(["show", "1", "--db"])
        .arg(&db)
        .assert()
        .success();
    timeshare()
        .args(["forget", "1", "--yes", "--db"])
        .arg(&db)
        .assert()
        .success();
    timeshare()
        .args(["show", "1", "--db"])
        .arg(&db)
        .assert()
        .code(2);
}

fn mkfifo(path: &Path) {
    assert!(std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap()
        .success());
}

#[test]
fn fifos_neither_hang_an_output_nor_a_store() {
    let dir = store_with(FIXTURE.as_ref());
    let db = dir.path().join("runs.db");
    let fifo = dir.path().join("fifo");
    mkfifo(&fifo);
    let start = Instant::now();
    let out = timeshare()
        .args(["export", "1", "-o"])
        .arg(&fifo)
        .arg("--db")
        .arg(&db)
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        stderr_of(&out).contains("no process is reading"),
        "{}",
        stderr_of(&out)
    );
    let out = timeshare()
        .arg("history")
        .arg("--db")
        .arg(&fifo)
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains("not a regular file"));
    assert!(start.elapsed() < Duration::from_secs(15));
}

#[test]
fn a_file_size_limit_is_an_error_message_and_a_tiny_stack_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("big.json");
    let (code, err) = super::under_rlimit(
        libc::RLIMIT_FSIZE,
        4096,
        &[
            "run",
            "syscall.getpid",
            "--quick",
            "--no-save",
            "--json",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("File too large"), "{err}");
    assert!(!out.exists());
    let (code, err) = super::under_rlimit(libc::RLIMIT_STACK, 64 * 1024, &["list"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("stack limit is 64 KiB"), "{err}");
}

#[test]
fn clean_removes_only_names_of_the_exact_shape() {
    let dir = tempfile::tempdir().unwrap();
    let not_ours = dir.path().join("timeshare-999997-EEEEEEE");
    std::fs::create_dir(&not_ours).unwrap();
    command()
        .args(["clean", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(not_ours.exists(), "clean removed a name it does not make");
}

#[test]
fn another_user_reads_a_root_store_and_is_told_it_cannot_write_it() {
    if !super::others::is_root() {
        eprintln!("skipped: needs root");
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let dir = store_with(FIXTURE.as_ref());
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let db = dir.path().join("runs.db");
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).unwrap();
    let before = sha256(&db);
    let as_nobody = |args: &[&str], db: &Path| {
        let mut c = std::process::Command::new("setpriv");
        crate::common::isolate(&mut c);
        c.args([
            "--reuid",
            super::others::NOBODY,
            "--regid",
            super::others::NOBODY,
        ])
        .arg("--clear-groups")
        .arg(command().get_program())
        .args(args)
        .arg("--db")
        .arg(db)
        .current_dir("/")
        .output()
        .unwrap()
    };
    let read = as_nobody(&["history"], &db);
    assert!(read.status.success(), "{}", stderr_of(&read));
    // A copy nobody can read: the checkout may be in a home only its owner may enter.
    let hostile = dir.path().join("hostile.json");
    std::fs::copy(super::fixture("hostile.json"), &hostile).unwrap();
    std::fs::set_permissions(&hostile, std::fs::Permissions::from_mode(0o644)).unwrap();
    let import = as_nobody(&["import", hostile.to_str().unwrap()], &db);
    let err = stderr_of(&import);
    assert_eq!(import.status.code(), Some(2), "{err}");
    assert!(err.contains("may not write it"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(sha256(&db), before);
    // A read-only file (0444) in the root-owned directory reads as well, by every reader.
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o444)).unwrap();
    for args in [&["history"][..], &["show", "1"], &["export", "1"]] {
        let out = as_nobody(args, &db);
        assert!(out.status.success(), "{args:?}: {}", stderr_of(&out));
        assert!(!out.stdout.is_empty(), "{args:?}");
    }
    // A new store in the root-owned directory: said in one line, nothing made.
    let new = dir.path().join("new.db");
    let import = as_nobody(&["import", hostile.to_str().unwrap()], &new);
    let err = stderr_of(&import);
    assert_eq!(import.status.code(), Some(2), "{err}");
    assert!(err.contains("may not make a file in"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!new.exists());
    assert_eq!(sha256(&db), before);
}

#[test]
fn fleet_csv_neutralises_formulas_in_host_names() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("runs.db");
    let mut run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(fixture("hostile.json")).unwrap()).unwrap();
    for (i, host) in ["=cmd|' /C calc'!A0", "@sum(1)"].into_iter().enumerate() {
        run["options"]["fleet"] = serde_json::json!({"campaign": "c", "host": host, "group": "+g"});
        run["started_at"] = format!("2026-11-23T1{i}:42:01Z").into();
        run["finished_at"] = format!("2026-11-23T1{i}:42:53Z").into();
        let file = tmp.path().join(format!("fleet{i}.json"));
        std::fs::write(&file, serde_json::to_vec(&run).unwrap()).unwrap();
        timeshare()
            .arg("import")
            .arg(&file)
            .arg("--db")
            .arg(&db)
            .assert()
            .success();
    }
    let out = timeshare()
        .args(["fleet", "--campaign", "c", "--format", "csv", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let mut rows = 0;
    for line in text.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        assert!(
            cells[1].starts_with("'=") || cells[1].starts_with("'@"),
            "{line}"
        );
        assert!(cells[2].starts_with("'+"), "{line}");
        rows += 1;
    }
    assert!(rows > 0, "{text}");
}

/// A "server" that answers the start-up message with an error of `size` bytes over
/// many lines, with escapes in it: the error is one line of bounded length.
#[test]
fn a_huge_server_error_is_cut_to_one_line() {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let size = 8 << 20;
    std::thread::spawn(move || {
        for conn in listener.incoming().take(2) {
            let Ok(mut conn) = conn else { continue };
            let mut len = [0u8; 4];
            if conn.read_exact(&mut len).is_err() {
                continue;
            }
            let mut startup = vec![0u8; u32::from_be_bytes(len) as usize - 4];
            let _ = conn.read_exact(&mut startup);
            let message = "no such thing\n\x1b[2Jforged line\n".repeat(size / 30);
            let mut body = Vec::new();
            for (code, text) in [(b'S', "FATAL"), (b'C', "28000"), (b'M', message.as_str())] {
                body.push(code);
                body.extend_from_slice(text.as_bytes());
                body.push(0);
            }
            body.push(0);
            let mut packet = vec![b'E'];
            packet.extend_from_slice(&(body.len() as u32 + 4).to_be_bytes());
            packet.extend_from_slice(&body);
            let _ = conn.write_all(&packet);
        }
    });
    let out = timeshare()
        .arg("history")
        .env(
            "TIMESHARE_DB",
            format!("postgresql://ts@127.0.0.1:{port}/x"),
        )
        .env(
            "PGPASSFILE",
            std::env::temp_dir().join("timeshare-no-such-passfile"),
        )
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        &err[..err.len().min(2000)]
    );
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "{}",
        &err[..err.len().min(2000)]
    );
    assert!(err.len() < 2000, "{} bytes of error", err.len());
    assert!(
        err.contains("no such thing") && !err.contains('\x1b'),
        "{err}"
    );
}

/// A file size limit while the store is opened (its `-shm` cannot grow) is named as
/// such, not as "not a timeshare database"; a `-wal` beside the store that is a link is
/// named as the link.
#[test]
fn a_file_size_limit_and_a_wal_link_are_named_at_the_store() {
    let dir = store_with(FIXTURE.as_ref());
    let db = dir.path().join("runs.db");
    let big = dir.path().join("big.json");
    let (code, err) = super::under_rlimit(
        libc::RLIMIT_FSIZE,
        1024,
        &[
            "export",
            "1",
            "--db",
            db.to_str().unwrap(),
            "-o",
            big.to_str().unwrap(),
        ],
    );
    assert_ne!(code, 0, "{err}");
    assert!(err.contains("File too large"), "{err}");
    assert!(!err.contains("not a timeshare database"), "{err}");
    let elsewhere = dir.path().join("elsewhere");
    std::fs::write(&elsewhere, b"").unwrap();
    let wal = dir.path().join("runs.db-wal");
    let _ = std::fs::remove_file(&wal);
    std::os::unix::fs::symlink(&elsewhere, &wal).unwrap();
    let out = timeshare()
        .args(["history", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_ne!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("-wal") && err.contains("link"), "{err}");
    assert!(!err.contains("not a timeshare database"), "{err}");
}
