//! The subsystem rules' and the profile builder's tests.
use super::*;

fn sample(pid: u32, kernel: &[&str], user: &[&str]) -> StackSample {
    let frames = kernel
        .iter()
        .map(|n| Frame {
            name: n.to_string(),
            kernel: true,
        })
        .chain(user.iter().map(|n| Frame {
            name: n.to_string(),
            kernel: false,
        }))
        .collect();
    StackSample {
        comm: "t".into(),
        pid,
        frames,
    }
}

#[test]
fn patterns_match_names_prefixes_and_substrings() {
    assert!(matches("tcp_*", "tcp_sendmsg"));
    assert!(!matches("tcp_*", "__tcp_push"));
    assert!(matches("*readahead*", "page_cache_async_readahead"));
    assert!(matches("dput", "dput"));
    assert!(!matches("dput", "dput2"));
    assert!(matches("tcp_*timer*", "tcp_write_timer_handler"));
    assert!(!matches("tcp_*timer*", "tcp_sendmsg"));
    assert!(
        !matches("ab*ba", "aba"),
        "the prefix and suffix may not overlap"
    );
}

#[test]
fn the_innermost_recognised_function_decides() {
    // A cached read: the copy to user space is nobody's, filemap_read is the cache's.
    let read = [
        "_copy_to_user",
        "copy_page_to_iter",
        "filemap_read",
        "vfs_read",
        "ksys_read",
        "do_syscall_64",
        "entry_SYSCALL_64_after_hwframe",
    ];
    assert_eq!(classify(&read), PAGE_CACHE);
    // stat: the name's copy from user space is part of looking the name up.
    let stat = [
        "strncpy_from_user",
        "getname_flags",
        "vfs_fstatat",
        "__do_sys_newfstatat",
        "do_syscall_64",
    ];
    assert_eq!(classify(&stat), VFS);
    let walk = [
        "__d_lookup_rcu",
        "lookup_fast",
        "walk_component",
        "path_lookupat",
    ];
    assert_eq!(classify(&walk), VFS);
    let fault = [
        "clear_page_erms",
        "do_anonymous_page",
        "handle_mm_fault",
        "exc_page_fault",
    ];
    assert_eq!(classify(&fault), MEMORY);
    let switch = ["__switch_to_asm", "__schedule", "schedule", "do_nanosleep"];
    assert_eq!(classify(&switch), SCHEDULER);
    let rx = [
        "__netif_receive_skb_core",
        "net_rx_action",
        "handle_softirqs",
        "irq_exit_rcu",
    ];
    assert_eq!(classify(&rx), NETWORK);
    let tick = [
        "native_write_msr",
        "lapic_next_deadline",
        "clockevents_program_event",
    ];
    assert_eq!(classify(&tick), TIMERS);
    let irq = [
        "vp_interrupt",
        "__handle_irq_event_percpu",
        "common_interrupt",
    ];
    assert_eq!(classify(&irq), INTERRUPTS);
    let io = [
        "virtqueue_notify",
        "virtio_queue_rq",
        "blk_mq_dispatch_rq_list",
    ];
    assert_eq!(classify(&io), BLOCK);
}

#[test]
fn a_call_with_no_subsystem_of_its_own_is_the_entry_path() {
    let getppid = [
        "__task_pid_nr_ns",
        "__x64_sys_getppid",
        "x64_sys_call",
        "do_syscall_64",
        "entry_SYSCALL_64_after_hwframe",
    ];
    assert_eq!(classify(&getppid), SYSCALL_ENTRY);
    assert_eq!(classify(&["mystery_function"]), OTHER);
    let none: [&str; 0] = [];
    assert_eq!(classify(&none), OTHER);
}

/// A frame name of each observer pattern, as the kernel names it.
const OBSERVER_EXAMPLES: &[&str] = &[
    "bpf_prog_1c2a3f4e5d6b7a80_timeshare_sys_enter",
    "__bpf_prog_run_save_cb",
    "__bpf_trace_sys_enter",
    "bpf_trace_run2",
    "trace_call_bpf",
    "__traceiter_sys_enter",
    "perf_tp_event",
    "perf_swevent_event",
    "perf_trace_buf_alloc",
    "perf_syscall_enter",
    "perf_syscall_exit",
    "perf_output_begin_forward",
    "perf_event_output_forward",
    "__perf_event_overflow",
    "perf_event_overflow",
    "perf_prepare_sample",
    "perf_callchain_kernel",
    "get_perf_callchain",
];

#[test]
fn every_observer_rule_names_a_real_frame_and_no_machine_frame() {
    for pattern in OBSERVER_FRAMES {
        assert!(
            OBSERVER_EXAMPLES.iter().any(|n| matches(pattern, n)),
            "no example frame for {pattern}"
        );
    }
    for name in OBSERVER_EXAMPLES {
        assert!(is_observer(&[*name]), "{name}");
    }
    // The machine's own work, perf's bookkeeping of mmap and the entry path included.
    for name in [
        "do_syscall_64",
        "syscall_trace_enter",
        "perf_event_mmap",
        "_raw_spin_unlock_irqrestore",
        "bpf_map_lookup_elem_sys",
        "filemap_read",
    ] {
        assert!(!is_observer(&[name]), "{name}");
    }
}

#[test]
fn the_slow_path_is_the_observers_only_while_it_traces_every_call() {
    let leaf = ["syscall_trace_enter", "do_syscall_64"];
    let exit = ["syscall_exit_work", "do_syscall_64"];
    let seccomp = ["__seccomp_filter", "syscall_trace_enter", "do_syscall_64"];
    for frames in [&leaf[..], &exit[..]] {
        assert!(is_observer_while(frames, SyscallTracing::On), "{frames:?}");
        assert!(
            !is_observer_while(frames, SyscallTracing::Off),
            "{frames:?}"
        );
    }
    assert!(!is_observer_while(&seccomp, SyscallTracing::On));
    let samples = [
        sample(10, &leaf, &["getppid"]),
        sample(10, &seccomp, &["getppid"]),
        sample(10, &["do_syscall_64"], &["getppid"]),
    ];
    let traced =
        build_weighted_profile(samples.iter().map(|s| (s, 1)), 999, "t", SyscallTracing::On).0;
    let untraced = build_profile(&samples, 999, "t").0;
    assert_eq!((traced.system_samples, traced.observer_samples), (2, 1));
    assert_eq!((untraced.system_samples, untraced.observer_samples), (3, 0));
}

#[test]
fn the_observer_is_its_own_line_and_the_shares_are_the_machine_without_it() {
    let traced_getppid = [
        "_raw_spin_unlock_irqrestore",
        "perf_swevent_event",
        "perf_tp_event",
        "perf_syscall_enter",
        "syscall_trace_enter",
        "do_syscall_64",
    ];
    let counted = [
        "bpf_prog_0123456789abcdef_timeshare_sys_exit",
        "bpf_trace_run2",
    ];
    let samples = vec![
        sample(10, &traced_getppid, &["getppid"]),
        sample(10, &counted, &["getppid"]),
        sample(10, &["do_syscall_64"], &["getppid"]),
        sample(
            10,
            &["_copy_to_user", "filemap_read", "do_syscall_64"],
            &["read"],
        ),
    ];
    let (p, _) = build_profile(&samples, 999, "test");
    assert_eq!((p.system_samples, p.observer_samples), (2, 2));
    assert_eq!(p.observer_share(), 0.5);
    assert_eq!(p.share_of(SYSCALL_ENTRY), 0.5);
    assert_eq!(p.share_of(PAGE_CACHE), 0.5);
    assert_eq!(p.share_of(OTHER), 0.0);
    let names = |f: &KernelFunction| f.name.clone();
    let table: Vec<String> = p.functions.iter().map(names).collect();
    assert!(
        table
            .iter()
            .all(|n| !is_observer(&[n.as_str()]) && n != "_raw_spin_unlock_irqrestore"),
        "{table:?}"
    );
    assert!(p.folded.iter().all(|f| !f.stack.contains("perf_")));
    let entry = p
        .functions
        .iter()
        .find(|f| f.name == "do_syscall_64")
        .unwrap();
    assert_eq!(entry.inclusive_share, 1.0);
}

#[test]
fn the_profile_has_gprof_columns_shares_and_folded_stacks() {
    let samples = vec![
        sample(
            10,
            &["strncpy_from_user", "getname_flags", "do_syscall_64"],
            &["stat"],
        ),
        sample(
            10,
            &["__d_lookup_rcu", "lookup_fast", "do_syscall_64"],
            &["stat"],
        ),
        sample(
            10,
            &["_copy_to_user", "filemap_read", "do_syscall_64"],
            &["read"],
        ),
        sample(10, &["do_syscall_64"], &["getppid"]),
        sample(10, &[], &["main"]),
        sample(0, &["pv_native_safe_halt", "default_idle", "do_idle"], &[]),
        sample(
            0,
            &["tcp_write_timer", "call_timer_fn", "__run_timers"],
            &[],
        ),
    ];
    let (p, net) = build_profile(&samples, 999, "test");
    assert_eq!(p.samples, 7);
    assert_eq!(p.idle_samples, 1, "an idle CPU is not system time");
    assert_eq!(p.user_samples, 1);
    assert_eq!(p.system_samples, 5);
    assert_eq!(p.share_of(VFS), 0.4);
    // strncpy_from_user (the name's copy) and __d_lookup_rcu are namei's own.
    assert_eq!((p.namei_self_share, p.namei_inclusive_share), (0.4, 0.4));
    assert_eq!(p.share_of(PAGE_CACHE), 0.2);
    assert_eq!(p.share_of(SYSCALL_ENTRY), 0.2);
    assert_eq!(p.share_of(NETWORK), 0.2, "tcp's timer is the network's");
    assert_eq!(net.timers, 0.2);
    assert_eq!(net.receive, 0.0);
    let total: f64 = p.subsystems.iter().map(|s| s.share).sum();
    assert!((total - 1.0).abs() < 1e-12);
    let entry = p
        .functions
        .iter()
        .find(|f| f.name == "do_syscall_64")
        .unwrap();
    assert_eq!((entry.self_samples, entry.inclusive_samples), (1, 4));
    assert_eq!(entry.inclusive_share, 0.8);
    let stat = p
        .folded
        .iter()
        .find(|f| f.stack == "t;do_syscall_64_[k];getname_flags_[k];strncpy_from_user_[k]")
        .unwrap();
    assert_eq!(stat.count, 1);
    assert!(p.folded.iter().all(|f| !f.stack.contains("default_idle")));
    assert!(
        p.folded.iter().all(|f| !f.stack.contains("main")),
        "system time only"
    );
}

#[test]
fn rare_stacks_are_merged_per_command() {
    let mut m = HashMap::new();
    m.insert("a;x".to_string(), 5);
    m.insert("a;y".to_string(), 1);
    m.insert("a;z".to_string(), 1);
    let kept = keep_top_stacks(m, 1);
    assert_eq!(kept[0].stack, "a;x");
    assert_eq!(kept[1].stack, "a;[other stacks]");
    assert_eq!(kept[1].count, 2);
}
