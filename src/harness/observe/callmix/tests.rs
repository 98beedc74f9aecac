//! The call counter's tests: both paths against a known child and against strace.

use super::*;

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Count every call of the machine while `child` runs in a forked child; its tree's
/// mix, and the whole mix. None (and why, printed) where the machine does not allow it.
fn observe_child(child: fn()) -> Option<(CallMix, CommandCalls)> {
    let mut notes = Vec::new();
    let counting = match CallCounting::start(
        is_root(),
        LeaveOut::ThisProcess,
        CallTimes::OneIn(1),
        Processes::Apart,
        &mut notes,
    ) {
        Ok(c) => c,
        Err(why) => {
            eprintln!("skipped: {why}");
            assert!(!is_root(), "root can count every call: {why}");
            return None;
        }
    };
    let mix = count_child(counting, child);
    let tree = mix.command_tree.clone().unwrap();
    Some((mix, tree))
}

/// Run `child` in a forked child while `counting` counts, wait for it, and stop: the
/// mix, with the child's tree.
fn count_child(counting: CallCounting, child: fn()) -> CallMix {
    // SAFETY: the child makes only async-signal-safe calls and ends with _exit.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        child();
        // SAFETY: ends the forked child at once.
        unsafe { libc::_exit(0) };
    }
    let mut status = 0;
    // SAFETY: waits for our own child.
    unsafe { libc::waitpid(pid, &mut status, 0) };
    counting
        .stop(Some((pid as u32, "child".into())), &[])
        .unwrap()
}

const GETPPIDS: u64 = 20_000;
const READS: u64 = 12_345;
const SLEEPS: u64 = 200;

/// A child making exactly `n` getppid and `m` read calls, observed with the rest of
/// the machine: its tree's counts are within 1 % of the truth (they are exact unless
/// the kernel's buffer overflowed, which it says).
#[test]
fn a_known_workload_is_counted_apart_from_the_rest_of_the_machine() {
    let Some((mix, tree)) = observe_child(|| {
        let mut byte = [0u8; 1];
        // SAFETY: /dev/zero is opened and read into our buffer.
        unsafe {
            let fd = libc::open(c"/dev/zero".as_ptr(), libc::O_RDONLY);
            for _ in 0..GETPPIDS {
                libc::syscall(libc::SYS_getppid);
            }
            for _ in 0..READS {
                libc::read(fd, byte.as_mut_ptr().cast(), 1);
            }
        }
    }) else {
        return;
    };
    let within = |got: u64, want: u64| (got as f64 - want as f64).abs() <= 0.01 * want as f64;
    assert!(
        within(tree.count("getppid"), GETPPIDS),
        "{tree:?} lost {}",
        mix.lost
    );
    assert!(
        within(tree.count("read"), READS),
        "{tree:?} lost {}",
        mix.lost
    );
    assert!(
        mix.total >= tree.total,
        "the machine's total holds the child's"
    );
    assert!(mix
        .by_command
        .iter()
        .any(|c| c.count("getppid") >= GETPPIDS));
}

/// `SLEEPS` nanosleep calls of 1 ms, then `GETPPIDS` getppid calls.
fn sleep_then_getppid() {
    let ms = libc::timespec {
        tv_sec: 0,
        tv_nsec: 1_000_000,
    };
    // SAFETY: nanosleep reads the timespec we pass; getppid has no arguments.
    unsafe {
        for _ in 0..SLEEPS {
            libc::syscall(
                libc::SYS_nanosleep,
                &ms,
                std::ptr::null_mut::<libc::timespec>(),
            );
        }
        for _ in 0..GETPPIDS {
            libc::syscall(libc::SYS_getppid);
        }
    }
}

/// A child sleeping in `SLEEPS` nanosleep calls of 1 ms: each is counted and timed,
/// and together they took at least the time asked for (a busy machine only adds);
/// a getppid spends far less of it in the kernel than a sleep. The records are the
/// whole machine's: beside programs that make millions of calls a second (two `yes`
/// loops, in CI) the kernel's buffer overflows now and then (236,714 records lost in
/// one CI run) and the counts are not exact, so the observation is made again, up to
/// five times, until one loses nothing; what holds of the records kept is checked in
/// any case.
#[test]
fn a_sleeping_call_is_timed_with_its_sleep() {
    let mut observed = None;
    for _ in 0..5 {
        let Some((mix, tree)) = observe_child(sleep_then_getppid) else {
            return;
        };
        let clean = mix.lost == 0;
        observed = Some((mix, tree));
        if clean {
            break;
        }
    }
    let (mix, tree) = observed.expect("observed at least once");
    let call = |name: &str| tree.calls.iter().find(|c| c.name == name).unwrap().clone();
    let (sleep, getppid) = (call("nanosleep"), call("getppid"));
    let time = sleep.time.as_ref().expect("timed");
    assert!(
        time.timed > 0 && time.total_s >= time.timed as f64 * 1e-3,
        "each sleep of 1 ms took at least 1 ms: {time:?}"
    );
    assert!(
        getppid.mean_s().unwrap() < sleep.mean_s().unwrap(),
        "{getppid:?} {sleep:?}"
    );
    if mix.lost > 0 {
        eprintln!(
            "{} records lost in each of five observations: the exact counts are not checked",
            mix.lost
        );
        return;
    }
    assert_eq!(sleep.count, SLEEPS, "{sleep:?}");
    assert_eq!(
        time.timed, SLEEPS,
        "every sleep returned in the span: {time:?}"
    );
    assert_eq!(getppid.count, GETPPIDS);
    let timing = mix.timing.as_ref().and_then(Part::measured).expect("timed");
    assert!(timing.timed >= SLEEPS + GETPPIDS, "{timing:?}");
}

/// In the kernel with one call in 16 timed (the default): every call is still counted
/// exactly, about a sixteenth of them are timed (the per-CPU tally of each call number
/// is shared with the rest of the machine, so not exactly one in 16 of the child's), and
/// each call's time in the kernel is its sample's mean times its count, so a sleep of
/// 1 ms still adds up to at least 1 ms a call.
#[test]
fn a_sample_of_the_calls_is_timed_and_every_call_counted() {
    let counting = match CallCounting::start_in_kernel(
        LeaveOut::ThisProcess,
        CallTimes::DEFAULT,
        Processes::Apart,
    ) {
        Ok(c) => c,
        Err(why) => {
            eprintln!("skipped: {why}");
            assert!(!is_root() || !super::super::kcount::built(), "{why}");
            return;
        }
    };
    let mix = count_child(counting, sleep_then_getppid);
    let tree = mix.command_tree.clone().unwrap();
    let call = |name: &str| tree.calls.iter().find(|c| c.name == name).unwrap().clone();
    let (sleep, getppid) = (call("nanosleep"), call("getppid"));
    assert_eq!((sleep.count, getppid.count), (SLEEPS, GETPPIDS), "{tree:?}");
    let timed = getppid.time.as_ref().expect("timed").timed;
    assert!(
        (GETPPIDS / 32..=GETPPIDS / 8).contains(&timed),
        "about one getppid in 16 timed: {timed} of {GETPPIDS}"
    );
    let sleep_time = sleep.time.as_ref().expect("timed");
    assert!(
        sleep_time.timed >= 1 && sleep_time.timed < SLEEPS,
        "{sleep_time:?}"
    );
    assert!(
        sleep.total_s() >= SLEEPS as f64 * 1e-3,
        "the sample's mean times the count: {} s for {SLEEPS} sleeps of 1 ms",
        sleep.total_s()
    );
    let timing = mix.timing.as_ref().and_then(Part::measured).expect("timed");
    assert_eq!(timing.one_in, 16, "{timing:?}");
    assert!(
        timing.method.contains("one call in 16"),
        "{}",
        timing.method
    );
}

/// Which path a test counts on.
#[derive(Debug, Clone, Copy)]
enum Path {
    Kernel,
    Records,
}

fn start_on(path: Path) -> Option<CallCounting> {
    let started = match path {
        Path::Kernel => CallCounting::start_in_kernel(
            LeaveOut::ThisProcess,
            CallTimes::OneIn(1),
            Processes::Apart,
        ),
        Path::Records => CallCounting::start_records(
            is_root(),
            LeaveOut::ThisProcess,
            true,
            Processes::Apart,
            &mut Vec::new(),
        ),
    };
    match started {
        Ok(c) => Some(c),
        Err(why) => {
            eprintln!("skipped on the {path:?} path: {why}");
            assert!(
                !is_root() || (matches!(path, Path::Kernel) && !super::super::kcount::built()),
                "root can count every call on the {path:?} path: {why}"
            );
            None
        }
    }
}

/// The real work, smaller: tar piped to gzip, then find piped to xargs stat.
const TAR_FIND: &str = "tar cPf - /usr/include/linux | gzip -1 >/dev/null; \
                        find /usr/include/linux -name '*.h' | xargs stat >/dev/null";

/// `strace -f -c`'s count of each call of `script` run by sh.
fn strace_counts(script: &str) -> Option<HashMap<String, u64>> {
    let out = tempfile::NamedTempFile::new().unwrap();
    let status = std::process::Command::new("strace")
        .args(["-f", "-c", "-o"])
        .arg(out.path())
        .args(["sh", "-c", script])
        .status();
    match status {
        Ok(s) => assert!(s.success(), "strace of the workload failed: {s}"),
        Err(e) => {
            eprintln!("skipped: no strace ({e})");
            return None;
        }
    }
    let text = std::fs::read_to_string(out.path()).unwrap();
    // "% time seconds usecs/call calls [errors] syscall": calls is the fourth field
    // and the name the last; the total line is named "total".
    let counts = text
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let calls = f.get(3)?.parse().ok()?;
            Some((f.last()?.to_string(), calls))
        })
        .filter(|(name, _)| name != "total")
        .collect();
    Some(counts)
}

/// The tree of `sh -c script`'s calls as counted on `path`, with the records lost.
fn observed_counts(path: Path, script: &str) -> Option<(CommandCalls, u64)> {
    let counting = start_on(path)?;
    let child = std::process::Command::new("sh")
        .args(["-c", script])
        .spawn()
        .unwrap();
    let pid = child.id();
    let status = child.wait_with_output().unwrap().status;
    assert!(status.success(), "the workload failed: {status}");
    let mix = counting.stop(Some((pid, "sh".into())), &[]).unwrap();
    Some((mix.command_tree.unwrap(), mix.lost))
}

/// Each call the workload makes deterministically, at least 200 times, is counted
/// within 1 % of strace's count, on the kernel path and on the record path. The
/// record path may lose records beside a busy machine: it observes again, up to
/// three times, until none is lost.
fn matches_strace(path: Path) {
    let Some(truth) = strace_counts(TAR_FIND) else {
        return;
    };
    let calls = [
        "newfstatat",
        "close",
        "fcntl",
        "openat",
        "getdents64",
        "lseek",
        "statx",
    ];
    let compared: Vec<(&str, u64)> = calls
        .iter()
        .filter_map(|&c| truth.get(c).map(|&n| (c, n)))
        .filter(|&(_, n)| n >= 200)
        .collect();
    assert!(compared.len() >= 3, "strace saw too few calls: {truth:?}");
    for attempt in 1..=3 {
        let Some((tree, lost)) = observed_counts(path, TAR_FIND) else {
            return;
        };
        if lost > 0 && attempt < 3 {
            continue;
        }
        for &(call, want) in &compared {
            let got = tree.count(call);
            assert!(
                (got as f64 - want as f64).abs() <= 0.01 * want as f64,
                "{call}: {got} counted on the {path:?} path, strace {want} ({lost} lost)"
            );
        }
        return;
    }
}

#[test]
fn tar_and_find_match_strace_counted_in_the_kernel() {
    matches_strace(Path::Kernel);
}

#[test]
fn tar_and_find_match_strace_counted_from_records() {
    matches_strace(Path::Records);
}

/// The kernel path counts a known child exactly, apart from the machine, and times
/// each call into its histogram.
#[test]
fn the_kernel_path_counts_and_times_a_known_child() {
    let Some(counting) = start_on(Path::Kernel) else {
        return;
    };
    let mix = count_child(counting, sleep_then_getppid);
    assert!(
        mix.method.starts_with("counted in the kernel"),
        "{}",
        mix.method
    );
    let tree = mix.command_tree.clone().unwrap();
    assert_eq!(tree.count("getppid"), GETPPIDS, "{tree:?}");
    assert_eq!(tree.count("nanosleep"), SLEEPS, "{tree:?}");
    let sleep = mix.calls.iter().find(|c| c.name == "nanosleep").unwrap();
    let time = sleep.time.as_ref().unwrap();
    assert!(time.log2_ns.iter().sum::<u64>() >= SLEEPS, "{time:?}");
    // A sleep of 1 ms lies in slot 19 (2^19 ns = 0.52 ms) or above.
    let median = time.quantile_s(0.5).unwrap();
    assert!(median >= 1e-3, "median {median} s of 1 ms sleeps");
}

fn ids() -> Ids {
    Ids {
        enter: 21,
        exit: Some(22),
        enter_id_at: 8,
        exit_id_at: 8,
    }
}

/// A sample record's bytes after its header: pid, tid, time, the raw size, then
/// raw_syscalls' fields: the tracepoint's id first, the call's number at offset 8.
fn sample_record(pid: u32, tid: u32, time: u64, tracepoint: u16, id: u64) -> Vec<u8> {
    let mut raw = Vec::new();
    raw.extend(tracepoint.to_ne_bytes());
    raw.extend([0u8; 6]);
    raw.extend(id.to_ne_bytes());
    let mut b = Vec::new();
    b.extend(pid.to_ne_bytes());
    b.extend(tid.to_ne_bytes());
    b.extend(time.to_ne_bytes());
    b.extend((raw.len() as u32).to_ne_bytes());
    b.extend(raw);
    b
}

#[test]
fn records_are_decoded_by_their_tracepoint() {
    let getppid = libc::SYS_getppid as u64;
    let enter = decode(
        RECORD_SAMPLE,
        &sample_record(5, 6, 100, 21, getppid),
        &ids(),
    );
    assert_eq!(
        enter,
        Some((
            100,
            Event::Enter {
                pid: 5,
                tid: 6,
                id: getppid as u32
            }
        ))
    );
    let exit = decode(
        RECORD_SAMPLE,
        &sample_record(5, 6, 150, 22, getppid),
        &ids(),
    );
    assert!(matches!(exit, Some((150, Event::Exit { .. }))), "{exit:?}");
    assert_eq!(
        decode(RECORD_SAMPLE, &sample_record(5, 6, 1, 99, getppid), &ids()),
        None,
        "another tracepoint"
    );
    let mut comm = Vec::new();
    comm.extend(7u32.to_ne_bytes());
    comm.extend(7u32.to_ne_bytes());
    comm.extend(b"make\0\0\0\0");
    comm.extend(7u64.to_ne_bytes());
    comm.extend(300u64.to_ne_bytes());
    assert_eq!(
        decode(RECORD_COMM, &comm, &ids()),
        Some((
            300,
            Event::Comm {
                pid: 7,
                name: "make".into()
            }
        ))
    );
    assert_eq!(call_name(libc::SYS_getppid as u32), "getppid");
    assert_eq!(call_name(99_999), "syscall_99999");
}

fn enter(pid: u32, tid: u32, id: i64) -> Event {
    Event::Enter {
        pid,
        tid,
        id: id as u32,
    }
}

fn exit(pid: u32, tid: u32, id: i64) -> Event {
    Event::Exit {
        pid,
        tid,
        id: id as u32,
    }
}

fn nobody() -> Mine {
    Mine {
        pid: 1,
        threads: None,
    }
}

#[test]
fn records_are_counted_by_process_command_and_tree() {
    let mut t = Tally::default();
    let mine = nobody();
    let comm = |pid: u32, name: &str| Event::Comm {
        pid,
        name: name.into(),
    };
    let fork = |pid, ppid| Event::Fork { pid, ppid };
    t.take(0, comm(100, "make"), &mine);
    t.take(0, fork(101, 100), &mine);
    t.take(0, comm(101, "cc"), &mine);
    t.take(0, fork(102, 101), &mine);
    t.take(0, comm(200, "other"), &mine);
    let (getppid, read) = (libc::SYS_getppid, libc::SYS_read);
    for _ in 0..3 {
        assert_eq!(t.take(0, enter(102, 102, getppid), &mine), 1);
    }
    t.take(0, enter(100, 100, read), &mine);
    t.take(0, enter(200, 200, read), &mine);
    assert_eq!(t.take(0, enter(1, 1, read), &mine), 0, "ours");
    t.take(0, Event::Lost(5), &mine);
    let mix = summarise(&t, 2.0, Some((100, "make".into())), &[]);
    assert_eq!(mix.total, 5);
    assert_eq!(mix.lost, 5);
    assert_eq!(mix.count("getppid"), 3);
    assert_eq!(mix.calls[0].per_s, 1.5);
    assert!(
        mix.timing.is_none() && mix.calls[0].time.is_none(),
        "not timed"
    );
    let tree = mix.command_tree.unwrap();
    assert_eq!(
        tree.total, 4,
        "make, its child and grandchild; not the other"
    );
    assert_eq!(tree.count("getppid"), 3);
    // The grandchild forked from cc inherits its name.
    assert_eq!(mix.by_command[0].command, "cc");
    assert_eq!(mix.by_command[0].total, 3);
}

/// Each thread's entry is paired with its next exit; what cannot be paired is
/// counted apart, never timed.
#[test]
fn entries_and_exits_are_paired_per_thread() {
    let mut t = Tally {
        timing: true,
        ..Tally::default()
    };
    let mine = nobody();
    let (sleep, getppid, exit_group, read) = (
        libc::SYS_nanosleep,
        libc::SYS_getppid,
        libc::SYS_exit_group,
        libc::SYS_read,
    );
    // Two threads of one process interleaved: a sleep of 1 ms and two getppid.
    t.take(1_000, enter(10, 10, sleep), &mine);
    t.take(1_100, enter(10, 11, getppid), &mine);
    t.take(1_300, exit(10, 11, getppid), &mine);
    t.take(1_400, enter(10, 11, getppid), &mine);
    t.take(1_500, exit(10, 11, getppid), &mine);
    t.take(1_001_000, exit(10, 10, sleep), &mine);
    // A signal handler's return: its exit says -1.
    t.take(1_600, enter(10, 11, libc::SYS_rt_sigreturn), &mine);
    t.take(1_700, exit(10, 11, -1), &mine);
    // An exit whose entry came before the span; a call that never returns; one
    // still in the kernel at the end; an entry whose exit was lost.
    t.take(2_000, exit(20, 20, read), &mine);
    t.take(2_000, enter(30, 30, exit_group), &mine);
    t.take(3_000, enter(40, 40, read), &mine);
    t.take(4_000, enter(50, 50, read), &mine);
    t.take(5_000, enter(50, 50, getppid), &mine);
    t.take(5_100, exit(50, 50, getppid), &mine);
    let mix = summarise(&t, 1.0, None, &[]);
    let call = |name: &str| mix.calls.iter().find(|c| c.name == name).unwrap().clone();
    let s = call("nanosleep");
    assert_eq!(s.time.as_ref().unwrap().timed, 1);
    assert!((s.mean_s().unwrap() - 1e-3).abs() < 1e-12, "{s:?}");
    let g = call("getppid");
    assert_eq!((g.count, g.time.as_ref().unwrap().timed), (3, 3));
    assert!(
        (g.mean_s().unwrap() - 400e-9 / 3.0 * 1.0).abs() < 1e-15,
        "{g:?}"
    );
    let r = call("read");
    assert_eq!(r.count, 2, "entries count; the exit without one does not");
    assert_eq!(r.time.as_ref().unwrap().timed, 0);
    assert_eq!(r.time.as_ref().unwrap().unfinished, 1, "pid 40's");
    let e = call("exit_group");
    assert_eq!((e.count, e.time.as_ref().unwrap().timed), (1, 0));
    let timing = mix.timing.unwrap();
    let timing = timing.measured().unwrap();
    assert_eq!(call("rt_sigreturn").time.as_ref().unwrap().timed, 1);
    assert_eq!(timing.timed, 5);
    assert_eq!(timing.exits_unentered, 1);
    assert_eq!(timing.unfinished, 1);
    assert_eq!(timing.unpaired, 1, "pid 50's read, followed by its getppid");
    assert!((timing.total_s - (1e-3 + 500e-9)).abs() < 1e-12);
}

/// Processes counted together (a span of the whole machine): every call is counted,
/// under process 0, and no fork is kept, whatever the processes' number.
#[test]
fn records_of_processes_counted_together_keep_one_key_a_command_and_call() {
    let mut t = Tally {
        processes: Processes::Together,
        ..Tally::default()
    };
    let mine = nobody();
    for pid in 100..1100 {
        t.take(0, Event::Fork { pid, ppid: 99 }, &mine);
        t.take(0, enter(pid, pid, libc::SYS_getppid), &mine);
    }
    assert!(t.parent_of.is_empty());
    assert!(t.counts.keys().all(|k| k.0 == 0));
    let mix = summarise(&t, 1.0, None, &[]);
    assert_eq!(mix.count("getppid"), 1000);
}

/// Beside a workload of its own, only the observer's threads are left out: the
/// process's other threads and its children are the workload, but for a child that is
/// the observer's (perf record), cut from the tree with its own children.
#[test]
fn beside_a_workload_only_the_observing_threads_are_left_out() {
    let call = |pid: u32, tid: u32| enter(pid, tid, libc::SYS_getppid);
    let fork = |pid, ppid| Event::Fork { pid, ppid };
    let mine = Mine {
        pid: 10,
        threads: Some(vec![11]),
    };
    let mut t = Tally::default();
    t.take(0, fork(20, 10), &mine);
    t.take(0, fork(30, 10), &mine);
    t.take(0, fork(31, 30), &mine);
    assert_eq!(t.take(0, call(10, 11), &mine), 0);
    for (pid, tid) in [(10, 10), (10, 12), (20, 20), (30, 30), (31, 31)] {
        assert_eq!(t.take(0, call(pid, tid), &mine), 1);
    }
    let mix = summarise(&t, 1.0, Some((10, "run".into())), &[30]);
    assert_eq!(mix.total, 5, "all but the observing thread's");
    let tree = mix.command_tree.unwrap();
    assert_eq!(
        tree.total, 3,
        "the run's two threads and its child, not perf's tree"
    );
}
