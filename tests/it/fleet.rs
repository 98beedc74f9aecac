//! Many machines: a shared PostgreSQL store written by many runs at once, and campaigns
//! run through the repository's Ansible playbook over real ssh (an `sshd` of the test's
//! own on loopback addresses), shown by `timeshare fleet`.
//!
//! Nothing here is skipped: where PostgreSQL, Ansible or sshd is missing, the test fails
//! and says what to install (`.ci/run` installs them).

use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::common::{self, timeshare};
use crate::pg::{PgServer, PASSWORD};

/// How many campaigns the odd-machine-out check runs before it gives up: a busy 2-core
/// machine can slow an unslowed host too, so one unlucky campaign is tried again.
const ATTEMPTS: usize = 3;

/// The rows each host of a campaign runs: a row long enough that a slowed host stands
/// out (the chess game), and a short one beside it.
const CAMPAIGN_ROWS: &[&str] = &["syscall.getpid", "cpu.chess"];

const HOSTS: [(&str, &str); 3] = [
    ("alpha", "127.0.0.2"),
    ("beta", "127.0.0.3"),
    ("gamma", "127.0.0.4"),
];

#[test]
fn eight_runs_writing_one_postgresql_store_at_once_lose_nothing() {
    let server = PgServer::start();
    let url = server.fresh("eight");
    // What `ps -eo args` shows any user while the runs go on.
    let watch = common::ArgvWatch::start(PASSWORD);
    let children: Vec<_> = (0..8)
        .map(|i| {
            common::command()
                .args(["run", "--quick", "syscall.getpid", "syscall.getuid"])
                .args(["--label", &format!("writer-{i}")])
                .env("TIMESHARE_DB", &url)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{err}");
        assert!(!err.contains(PASSWORD), "the password in a message: {err}");
        assert!(err.contains("postgresql://timeshare:***@"), "{err}");
    }
    let (seen, rounds) = watch.finish();
    assert!(
        seen.is_empty(),
        "the password in the process list: {seen:?}"
    );
    assert!(rounds > 1, "the process list was read {rounds} times");
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let mut count = |sql: &str| -> i64 { client.query_one(sql, &[]).unwrap().get(0) };
    assert_eq!(count("SELECT count(*) FROM runs"), 8);
    assert_eq!(
        count("SELECT count(*) FROM runs WHERE status = 'complete'"),
        8
    );
    assert_eq!(count("SELECT count(DISTINCT label) FROM runs"), 8);
    assert_eq!(count("SELECT count(*) FROM results"), 16);
    assert_eq!(count("SELECT count(DISTINCT run_id) FROM results"), 8);
    // Every run reads back whole through the CLI, and nothing shows the password.
    let history = timeshare()
        .args(["history"])
        .env("TIMESHARE_DB", &url)
        .assert()
        .success();
    let text = String::from_utf8_lossy(&history.get_output().stdout).to_string();
    for i in 0..8 {
        assert!(text.contains(&format!("writer-{i}")), "{text}");
    }
    assert!(!text.contains(PASSWORD));
    for cmd in [
        vec!["show", "writer-3"],
        vec!["export", "writer-5", "--format", "csv"],
        vec!["compare", "writer-1", "writer-2"],
    ] {
        let out = timeshare()
            .args(&cmd)
            .env("TIMESHARE_DB", &url)
            .assert()
            .success();
        let o = out.get_output();
        assert!(!String::from_utf8_lossy(&o.stdout).contains(PASSWORD));
        assert!(!String::from_utf8_lossy(&o.stderr).contains(PASSWORD));
    }
    // On the command line a password is refused before anything connects (ps shows
    // argv to every user); without it in the URL, PGPASSWORD gives it. The refused one is
    // a stand-in: the real one on an argv would trip the campaign test's process-list
    // watch, which runs at the same time.
    let on_argv = url.replace(PASSWORD, "argv-stand-in");
    let out = timeshare()
        .args(["history", "--db", &on_argv])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        err.contains("PGPASSWORD") && !err.contains("argv-stand-in"),
        "{err}"
    );
    let bare = url.replace(&format!(":{PASSWORD}@"), "@");
    let out = timeshare()
        .args(["history", "--db", &bare])
        .env("PGPASSWORD", PASSWORD)
        .assert()
        .success();
    assert!(String::from_utf8_lossy(&out.get_output().stdout).contains("writer-0"));
    // A wrong password is refused, with the URL masked.
    let wrong = url.replace(PASSWORD, "not-the-password");
    let out = timeshare()
        .args(["history"])
        .env("TIMESHARE_DB", &wrong)
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("password authentication failed"), "{err}");
    assert!(!err.contains("not-the-password"), "{err}");
}

#[test]
fn a_campaign_runs_through_ansible_and_the_slowed_host_is_the_odd_one_out() {
    let server = PgServer::start();
    let url = server.fresh("fleet");
    let sshd = Sshd::start();
    let work = tempfile::tempdir().unwrap();

    // One host, picked anew each time, runs pinned beside a CPU-bound competitor started
    // with it, at a lower priority; the fleet view must mark that host, and only it.
    // A campaign that would name a path outside the fetch directory stops the play
    // before anything is installed or run.
    let inventory_once = inventory(&sshd, work.path(), &url, None, &[], CAMPAIGN_ROWS);
    let bad = playbook(&sshd, work.path(), &inventory_once, "../../x");
    assert!(!bad.status.success(), "{}", bad.text);
    assert!(bad.text.contains("no '/', no leading '.'"), "{}", bad.text);
    assert!(
        !bad.text.contains("Install the timeshare binary"),
        "{}",
        bad.text
    );

    let mut failures = Vec::new();
    let mut landed = false;
    for attempt in 1..=ATTEMPTS {
        let slowed = (std::process::id() as usize + attempt) % HOSTS.len();
        let campaign = format!("lab-{attempt}");
        let inventory = inventory(&sshd, work.path(), &url, Some(slowed), &[], CAMPAIGN_ROWS);
        let watch = common::ArgvWatch::start(PASSWORD);
        let out = playbook(&sshd, work.path(), &inventory, &campaign);
        let (seen, rounds) = watch.finish();
        assert!(
            seen.is_empty(),
            "the password in the process list during the role: {seen:?}"
        );
        assert!(rounds > 1, "the process list was read {rounds} times");
        assert!(
            out.status.success(),
            "the playbook failed:\n{}\nsshd's log:\n{}",
            out.text,
            sshd.log()
        );
        assert!(
            !out.text.contains(PASSWORD),
            "the password in Ansible's output"
        );
        assert!(
            out.text.contains("did not land on none"),
            "every host lands:\n{}",
            out.text
        );

        // Three labelled runs landed in the shared store, one per host.
        let history = text(timeshare().env("TIMESHARE_DB", &url).args(["history"]));
        for (name, _) in HOSTS {
            assert!(
                history.contains(&format!("{campaign}/{name}")),
                "no run of {name}:\n{history}"
            );
        }
        landed = true;
        let view =
            text(
                timeshare()
                    .env("TIMESHARE_DB", &url)
                    .args(["fleet", "--campaign", &campaign]),
            );
        let header = view.lines().find(|l| l.contains("benchmark")).unwrap();
        for (name, _) in HOSTS {
            assert!(header.contains(name), "no column for {name}:\n{view}");
        }
        let json = common::json(
            timeshare()
                .args(["fleet", "--campaign", &campaign, "cpu.chess"])
                .args(["--format", "json"])
                .env("TIMESHARE_DB", &url)
                .assert()
                .success()
                .get_output()
                .stdout
                .as_slice(),
        );
        let names: Vec<&str> = json["hosts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["alpha", "beta", "gamma"]);
        let row = &json["rows"][0];
        assert_eq!(row["id"], "cpu.chess");
        let outside: Vec<&str> = row["hosts"]
            .as_array()
            .unwrap()
            .iter()
            .zip(&names)
            .filter(|(h, _)| h["outside"] == true)
            .map(|(_, n)| *n)
            .collect();
        if outside == [HOSTS[slowed].0] {
            // `compare` takes the campaign (a column per host) and a host's name.
            let slow = format!("{campaign}/{}", HOSTS[slowed].0);
            let cmp = text(
                timeshare()
                    .env("TIMESHARE_DB", &url)
                    .args(["compare", &campaign, &slow]),
            );
            assert!(cmp.contains("alpha (run"), "{cmp}");
            return unreachable_host_is_reported(&sshd, work.path(), &url);
        }
        failures.push(format!(
            "attempt {attempt}: slowed {}, marked {outside:?}:\n{view}",
            HOSTS[slowed].0
        ));
    }
    assert!(landed);
    panic!(
        "the slowed host was not the only one marked in {ATTEMPTS} campaigns (is the \
         machine too busy?):\n{}",
        failures.join("\n")
    );
}

/// A host that cannot be reached is reported, and the other two runs land. What they run
/// is not what is checked here (that they land, and the view's columns): the one quick
/// row, not the chess game the odd-one-out check needs.
fn unreachable_host_is_reported(sshd: &Sshd, work: &Path, url: &str) {
    let inventory = inventory(sshd, work, url, None, &["gamma"], &["syscall.getpid"]);
    let out = playbook(sshd, work, &inventory, "lab-down");
    assert!(
        !out.status.success(),
        "an unreachable host is a failure (gamma on port {}, sshd on {}):\n{}",
        sshd.closed_port,
        sshd.port,
        out.text
    );
    assert!(out.text.contains("UNREACHABLE"), "{}", out.text);
    assert!(
        out.text
            .contains("landed on alpha, beta; did not land on gamma"),
        "{}",
        out.text
    );
    let view = text(
        timeshare()
            .env("TIMESHARE_DB", url)
            .args(["fleet", "--campaign", "lab-down"]),
    );
    let header = view.lines().find(|l| l.contains("benchmark")).unwrap();
    assert!(
        header.contains("alpha") && header.contains("beta"),
        "{view}"
    );
    assert!(!header.contains("gamma"), "{view}");
}

/// The standard output of a command that must succeed.
fn text(cmd: &mut assert_cmd::Command) -> String {
    String::from_utf8_lossy(&cmd.assert().success().get_output().stdout).into_owned()
}

/// An inventory (YAML) of the three hosts in one group that runs one host at a time.
/// `slowed`: that host runs beside a competitor ([`slowing_wrapper`]).
/// `down`: hosts given a port nobody listens on. `select`: the rows each host runs.
fn inventory(
    sshd: &Sshd,
    work: &Path,
    url: &str,
    slowed: Option<usize>,
    down: &[&str],
    select: &[&str],
) -> PathBuf {
    let home = common::pristine_home();
    let mut hosts = serde_json::Map::new();
    for (i, (name, addr)) in HOSTS.iter().enumerate() {
        let port = if down.contains(name) {
            sshd.closed_port
        } else {
            sshd.port
        };
        // The slowed host runs beside its competitor (see [`slowing_wrapper`]); the
        // others run as the scheduler places them.
        let (cpu, wrapper) = match slowed {
            Some(s) if s == i => ("--cpu 0", slowing_wrapper(work).display().to_string()),
            _ => ("", String::new()),
        };
        hosts.insert(
            name.to_string(),
            serde_json::json!({
                "ansible_host": addr,
                "ansible_port": port,
                "timeshare_dir": work.join("hosts").join(name),
                "timeshare_run_args": cpu,
                "timeshare_wrapper": wrapper,
            }),
        );
    }
    // JSON is YAML: the inventory is written as JSON.
    let inventory = serde_json::json!({
        "all": {
            "vars": {
                "ansible_user": "root",
                "ansible_python_interpreter": "/usr/bin/python3",
                "ansible_remote_tmp": work.join("remote-tmp"),
                "timeshare_binary": assert_cmd::cargo::cargo_bin("timeshare"),
                "timeshare_select": select,
                "timeshare_db": url,
                "timeshare_environment": {
                    "HOME": home.join("home"),
                    "XDG_DATA_HOME": home.join("data"),
                    "COLUMNS": common::UNWRAPPED,
                },
            },
            "children": {
                "lab": {
                    "vars": { "timeshare_throttle": 1 },
                    "hosts": hosts,
                },
            },
        },
    });
    let path = work.join("inventory.yml");
    std::fs::write(&path, serde_json::to_string_pretty(&inventory).unwrap()).unwrap();
    path
}

struct Played {
    status: std::process::ExitStatus,
    text: String,
}

/// Run the repository's playbook against `inventory`, with Ansible's state (its home,
/// temporary files, ssh control sockets) in the test's directory.
fn playbook(sshd: &Sshd, work: &Path, inventory: &Path, campaign: &str) -> Played {
    let ansible = which("ansible-playbook").unwrap_or_else(|| {
        panic!("ansible-playbook is not installed: install Debian's `ansible-core` (.ci/run does)")
    });
    let home = work.join("controller-home");
    std::fs::create_dir_all(&home).unwrap();
    let playbook = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/ansible/fleet.yml");
    let out = Command::new(ansible)
        .arg("-i")
        .arg(inventory)
        .arg(&playbook)
        .args(["-e", &format!("timeshare_campaign={campaign}")])
        .current_dir(work)
        .env("HOME", &home)
        .env("ANSIBLE_CONFIG", work.join("no-ansible.cfg"))
        .env("ANSIBLE_LOCAL_TEMP", work.join("local-tmp"))
        .env("ANSIBLE_SSH_CONTROL_PATH_DIR", work.join("cp"))
        .env("ANSIBLE_HOST_KEY_CHECKING", "False")
        .env(
            "ANSIBLE_PRIVATE_KEY_FILE",
            sshd.dir.path().join("client_key"),
        )
        .env(
            "ANSIBLE_SSH_ARGS",
            "-o UserKnownHostsFile=/dev/null -o StrictHostKeyChecking=no \
             -o IdentitiesOnly=yes -o ConnectTimeout=5 -o ControlMaster=no",
        )
        .env("ANSIBLE_NOCOLOR", "1")
        .env("ANSIBLE_RETRY_FILES_ENABLED", "0")
        .env("ANSIBLE_FORKS", "5")
        // Each task's module sent down its ssh connection's standard input, not copied to
        // a file, made executable and run by three more connections: Ansible's overhead,
        // not the runs, was most of this test's time beside two busy loops.
        .env("ANSIBLE_PIPELINING", "True")
        // A busy machine can reset an ssh handshake now and then: try again, as a fleet would.
        .env("ANSIBLE_SSH_RETRIES", "3")
        .stdin(Stdio::null())
        .output()
        .expect("start ansible-playbook");
    Played {
        status: out.status,
        text: format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

/// The command the slowed host runs timeshare under: a CPU-bound competitor pinned to
/// CPU 0 for the length of the run, and timeshare at nice 10 pinned there too (`--cpu 0`),
/// so that it gets about a tenth of that CPU. The competitor is started by the same
/// command, in the same session as the run: with the kernel's autogroups, a competitor
/// in another session (the test's) would share the CPU by sessions and take only half.
fn slowing_wrapper(work: &Path) -> PathBuf {
    let path = work.join("slowed.sh");
    std::fs::write(
        &path,
        "#!/bin/sh\n\
         taskset -c 0 sh -c 'while :; do :; done' &\n\
         competitor=$!\n\
         trap 'kill $competitor' EXIT INT TERM\n\
         nice -n 10 \"$@\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    path
}

/// An `sshd` of the test's own on 127.0.0.2–4, one free port, a temporary host key and
/// a temporary authorized key; killed when dropped.
struct Sshd {
    dir: tempfile::TempDir,
    child: Child,
    port: u16,
    /// A port on the same addresses that nobody listens on.
    closed_port: u16,
}

impl Sshd {
    /// What sshd wrote to its log (its errors: `LogLevel ERROR`).
    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("sshd.log")).unwrap_or_default()
    }

    fn start() -> Sshd {
        let sshd = Path::new("/usr/sbin/sshd");
        assert!(
            sshd.exists() && which("ssh-keygen").is_some(),
            "sshd or ssh-keygen is not installed: install Debian's `openssh-server` and \
             `openssh-client` (.ci/run does)"
        );
        let dir = tempfile::tempdir().unwrap();
        for key in ["host_key", "client_key"] {
            let ok = Command::new("ssh-keygen")
                .args(["-q", "-t", "ed25519", "-N", "", "-f"])
                .arg(dir.path().join(key))
                .status()
                .unwrap()
                .success();
            assert!(ok, "ssh-keygen failed");
        }
        std::fs::copy(
            dir.path().join("client_key.pub"),
            dir.path().join("authorized_keys"),
        )
        .unwrap();
        let [port, closed_port] = free_ports();
        let mut config = String::new();
        for (_, addr) in HOSTS {
            config.push_str(&format!("ListenAddress {addr}:{port}\n"));
        }
        config.push_str(&format!(
            "HostKey {d}/host_key\nAuthorizedKeysFile {d}/authorized_keys\nPidFile {d}/sshd.pid\n\
             StrictModes no\nUsePAM no\nPasswordAuthentication no\nPermitRootLogin prohibit-password\n\
             MaxStartups 50\nMaxSessions 50\nSubsystem sftp internal-sftp\nLogLevel ERROR\n",
            d = dir.path().display()
        ));
        std::fs::write(dir.path().join("sshd_config"), config).unwrap();
        let privsep = Path::new("/run/sshd");
        // SAFETY: geteuid has no preconditions and cannot fail.
        let root = unsafe { libc::geteuid() } == 0;
        // Made if missing and left in place, as the openssh-server package leaves it: a
        // test run that removed it at its end broke the sshd of another test run beside
        // it (every new connection then reset during the key exchange).
        if root && !privsep.exists() {
            let _ = std::fs::create_dir(privsep);
        }
        let mut command = Command::new(sshd);
        // The signal makes a test run killed outright take its sshd with it.
        let test = std::process::id() as libc::pid_t;
        // SAFETY: die_with_parent only calls prctl, getppid and kill, async-signal-safe.
        unsafe {
            command.pre_exec(move || {
                timeshare::harness::children::die_with_parent(libc::SIGTERM, test)
            });
        }
        let child = command
            .args(["-D", "-e", "-f"])
            .arg(dir.path().join("sshd_config"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.path().join("sshd.log")).unwrap())
            .spawn()
            .expect("start sshd");
        let mut s = Sshd {
            dir,
            child,
            port,
            closed_port,
        };
        // Ready when all three addresses accept a connection.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        loop {
            let up = HOSTS
                .iter()
                .all(|(_, a)| std::net::TcpStream::connect((*a, port)).is_ok());
            if up {
                break;
            }
            if let Ok(Some(status)) = s.child.try_wait() {
                panic!("sshd exited at start ({status})");
            }
            assert!(
                std::time::Instant::now() < deadline,
                "sshd did not listen on port {port} within 20 s"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        s.port = port;
        s
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A TCP port free on the loopback addresses at the time of asking.
/// Two ports free on the loopback, and distinct: both are held while the second is
/// chosen (one port freed and asked for again can come back the same, and the "closed"
/// host would then reach sshd).
fn free_ports() -> [u16; 2] {
    let bind = || TcpListener::bind(("127.0.0.2", 0)).unwrap();
    let (a, b) = (bind(), bind());
    [a, b].map(|l| l.local_addr().unwrap().port())
}

fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| Path::new(d).join(program))
        .find(|p| p.exists())
}

/// Every figure of a run's JSON (summaries and samples) times `k`.
fn scale_figures(run: &mut serde_json::Value, k: f64) {
    for r in run["results"].as_array_mut().unwrap() {
        for key in ["summary", "raw_summary"] {
            if let Some(s) = r[key].as_object_mut() {
                for f in ["median", "mean", "sd", "min", "max", "ci_low", "ci_high"] {
                    if let Some(x) = s.get(f).and_then(|x| x.as_f64()) {
                        s.insert(f.into(), (x * k).into());
                    }
                }
            }
        }
        for sample in r["samples"].as_array_mut().into_iter().flatten() {
            if let Some(x) = sample["value"].as_f64() {
                sample["value"] = (x * k).into();
            }
        }
    }
}

#[test]
fn the_fleet_page_marks_the_hosts_outside_as_the_table_does() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("runs.db");
    let base: serde_json::Value =
        serde_json::from_slice(&std::fs::read(common::FIXTURE).unwrap()).unwrap();
    for (i, host) in ["alpha", "beta", "gamma"].into_iter().enumerate() {
        let mut run = base.clone();
        run["options"]["fleet"] = serde_json::json!({"campaign": "c", "host": host});
        run["started_at"] = format!("2026-11-23T1{i}:42:01Z").into();
        run["finished_at"] = format!("2026-11-23T1{i}:52:53Z").into();
        if host == "gamma" {
            scale_figures(&mut run, 10.0);
        }
        let file = tmp.path().join(format!("{host}.json"));
        std::fs::write(&file, serde_json::to_vec(&run).unwrap()).unwrap();
        timeshare()
            .arg("import")
            .arg(&file)
            .arg("--db")
            .arg(&db)
            .assert()
            .success();
    }
    let fleet = |format: &str| {
        text(
            timeshare()
                .args(["fleet", "--campaign", "c", "--format", format, "--db"])
                .arg(&db),
        )
    };
    let table = fleet("text");
    // Each mark in the table, and once more in the legend under it.
    let marked_rows = table.matches('◆').count() - 1;
    assert!(marked_rows > 0, "{table}");
    let page = fleet("html");
    assert!(page.starts_with("<!DOCTYPE html>"), "{page}");
    assert_eq!(
        page.matches("<td class=\"n outside\">◆").count(),
        marked_rows,
        "{page}"
    );
    assert!(page.contains("<td class=\"outside\">gamma</td>"), "{page}");
    assert!(
        page.contains("outside the fleet: beyond its median"),
        "{page}"
    );
}
