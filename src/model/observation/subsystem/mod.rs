//! Which kernel subsystem a sample of system time belongs to, and the kernel profile
//! built from the samples (gprof's self and inclusive columns, the shares by subsystem,
//! the folded stacks of the flame graph).
//!
//! # The assignment rules
//! A sample's kernel frames are walked from the leaf (where the CPU was) towards the root;
//! each frame's function name is tried against [`RULES`] in order, and the first frame
//! that matches any rule decides: the subsystem of the *innermost* recognised function.
//! Helpers that every subsystem calls (copying to user space, spin locks, `memcpy`) match
//! no rule, so a sample in `_copy_to_user` under `filemap_read` counts as page cache.
//! The system-call entry and exit path, and the `__x64_sys_*` wrappers, are tried only
//! when no frame of the sample matched a subsystem ([`ENTRY`]): a `getppid` spends its
//! time there. A sample matching nothing is "other kernel".
//!
//! # The observer's own time
//! Observing runs code in the kernel on the observed calls' path: the tracepoints'
//! dispatch, the BPF counter's programs, perf's handlers writing records, perf's sampling.
//! A sample with any frame of [`OBSERVER_FRAMES`] anywhere on its kernel stack is the
//! observer's, whatever its leaf: the handler is nested in the call it observes, and the
//! leaf under it (a spin lock, a copy) does the handler's work. Such a sample is counted
//! apart (`observer_samples`) and left out of system time, of the function table, the
//! shares and the flame graph, so that every figure set beside the paper is the
//! machine's without the observer. The system-call slow path (`syscall_trace_enter`,
//! `syscall_exit_work`) runs only when a call has work to do at its entry or exit — a
//! tracepoint, seccomp, audit, ptrace: while the observer traces every call
//! ([`SyscallTracing::On`]) a sample whose leaf is one of those two is the observer's too
//! (their own time is the tracepoints' dispatch, inlined into them; with the calls not
//! traced they are absent from the profile of a getppid loop, docs/observe.md). Samples
//! under them in seccomp's or audit's own functions stay the machine's.
//!
//! A rule is a list of globs: `name*` matches a prefix, `*name*` a substring, `a*b*` a prefix
//! then a substring, a name without `*` the whole name.

use std::collections::{BTreeMap, HashMap};

use super::{FoldedStack, KernelFunction, KernelProfile, SubsystemShare};

pub const VFS: &str = "VFS and name lookup";
pub const PAGE_CACHE: &str = "page cache and file I/O";
pub const MEMORY: &str = "memory management and faults";
pub const SCHEDULER: &str = "scheduler and context switch";
pub const NETWORK: &str = "network rx/tx and softirq";
pub const TIMERS: &str = "timers and clock";
pub const BLOCK: &str = "block I/O";
pub const INTERRUPTS: &str = "interrupts";
pub const SYSCALL_ENTRY: &str = "system-call entry";
pub const OTHER: &str = "other kernel";

/// The rules, tried in this order for each frame.
pub const RULES: &[(&str, &[&str])] = &[
    (
        NETWORK,
        &[
            "net_rx_action",
            "net_tx_action",
            "napi_*",
            "__napi_*",
            "netif_*",
            "__netif_*",
            "process_backlog",
            "tcp_*",
            "__tcp_*",
            "udp_*",
            "__udp*",
            "ip_*",
            "__ip_*",
            "ip6_*",
            "ipv6_*",
            "inet_*",
            "__inet_*",
            "sock_*",
            "__sock_*",
            "sk_*",
            "__sk_*",
            "skb_*",
            "__skb_*",
            "kfree_skb*",
            "alloc_skb*",
            "__alloc_skb",
            "dev_queue_xmit",
            "__dev_queue_xmit",
            "dev_hard_start_xmit",
            "loopback_xmit",
            "virtnet_*",
            "neigh_*",
            "nf_*",
            "unix_*",
            "__sys_sendto",
            "__sys_recvfrom",
            "__sys_sendmsg",
            "__sys_recvmsg",
            "___sys_sendmsg",
            "___sys_recvmsg",
            "____sys_sendmsg",
            "____sys_recvmsg",
            "__sys_connect",
            "__sys_accept4",
            "__sys_socket",
            "__sys_bind",
            "__sys_listen",
        ],
    ),
    (
        BLOCK,
        &[
            "blk_*",
            "__blk_*",
            "submit_bio*",
            "bio_*",
            "__bio_*",
            "virtio_queue_rq",
            "virtblk_*",
            "scsi_*",
            "nvme_*",
            "ext4_io_submit",
            "iomap_submit_ioend",
            "dd_*",
            "bfq_*",
        ],
    ),
    (
        VFS,
        &[
            "path_*",
            "link_path_walk",
            "walk_component",
            "lookup_*",
            "__lookup_*",
            "d_lookup",
            "__d_lookup*",
            "d_alloc*",
            "d_hash_and_lookup",
            "dput",
            "dget*",
            "lockref_*",
            "getname*",
            "putname",
            "filename_*",
            "vfs_statx*",
            "vfs_fstat*",
            "vfs_getattr*",
            "generic_fillattr",
            "cp_new_stat",
            "cp_statx",
            "do_statx",
            "__do_sys_newfstatat",
            "__do_sys_newstat",
            "__do_sys_newlstat",
            "__do_sys_statx",
            "__x64_sys_newfstatat",
            "__x64_sys_statx",
            "__x64_sys_newstat",
            "__x64_sys_newlstat",
            "do_sys_open*",
            "do_filp_open",
            "do_open",
            "vfs_open",
            "do_dentry_open",
            "alloc_empty_file",
            "fput*",
            "__fput*",
            "filp_close",
            "filp_flush",
            "close_fd*",
            "file_close_fd*",
            "fd_install",
            "alloc_fd",
            "__fdget*",
            "fdget*",
            "inode_permission",
            "generic_permission",
            "may_open",
            "terminate_walk",
            "complete_walk",
            "step_into",
            "pick_link",
            "try_to_unlazy*",
            "legitimize_*",
            "__legitimize_*",
            "mntput*",
            "mntget",
            "strncpy_from_user",
            "kern_path*",
            "user_path_at*",
            "do_readlinkat",
            "do_faccessat",
            "do_mkdirat",
            "do_unlinkat",
            "do_renameat2",
            "iterate_dir",
            "vfs_unlink",
            "vfs_mkdir",
            "vfs_rename",
            "dcache_*",
            "shrink_dcache*",
            "__dentry_kill",
            "d_invalidate",
            "security_inode_*",
            "security_file_open",
        ],
    ),
    (
        PAGE_CACHE,
        &[
            "filemap_*",
            "__filemap_*",
            "generic_file_*",
            "generic_perform_write",
            "generic_write_end",
            "ext4_file_*",
            "ext4_buffered_write*",
            "ext4_da_*",
            "ext4_readahead",
            "ext4_mpage_readpages",
            "page_cache_*",
            "*readahead*",
            "copy_page_to_iter",
            "copy_page_from_iter*",
            "copy_folio_to_iter",
            "__filemap_add_folio",
            "add_to_page_cache*",
            "vfs_read",
            "vfs_write",
            "ksys_read",
            "ksys_write",
            "ksys_pread64",
            "ksys_pwrite64",
            "new_sync_read",
            "new_sync_write",
            "vfs_readv",
            "vfs_writev",
            "do_iter_read*",
            "do_iter_write*",
            "shmem_file_*",
            "shmem_get_folio*",
            "shmem_write_*",
            "iomap_*",
            "pipe_read",
            "pipe_write",
            "folio_mark_accessed",
            "mark_page_accessed",
            "vfs_fsync*",
            "do_fsync",
            "file_write_and_wait_range",
            "writeback_*",
            "wb_*",
            "__writeback_*",
            "do_writepages",
            "ext4_writepages",
            "ext4_sync_file",
            "jbd2_*",
            "block_write_*",
            "truncate_inode_*",
        ],
    ),
    (
        MEMORY,
        &[
            "handle_mm_fault",
            "__handle_mm_fault",
            "do_user_addr_fault",
            "exc_page_fault",
            "asm_exc_page_fault",
            "do_anonymous_page",
            "do_fault",
            "do_read_fault",
            "do_cow_fault",
            "do_shared_fault",
            "do_wp_page",
            "wp_page_copy",
            "do_pte_missing",
            "handle_pte_fault",
            "clear_page*",
            "copy_page",
            "copy_mc_*",
            "alloc_pages*",
            "__alloc_pages*",
            "alloc_anon_folio",
            "folio_alloc*",
            "vma_alloc_folio*",
            "get_page_from_freelist",
            "rmqueue*",
            "free_pages*",
            "__free_pages*",
            "free_unref_*",
            "free_pcppages_bulk",
            "release_pages",
            "kmem_cache_*",
            "__kmem_cache_*",
            "__kmalloc*",
            "kmalloc*",
            "kfree",
            "__slab_*",
            "___slab_*",
            "slab_*",
            "mmap_region",
            "__mmap_region",
            "do_mmap",
            "vm_mmap*",
            "do_vmi_munmap",
            "do_vmi_align_munmap",
            "__vm_munmap",
            "unmap_*",
            "zap_*",
            "tlb_*",
            "flush_tlb*",
            "native_flush_tlb*",
            "lru_*",
            "__lru_*",
            "folio_add_lru*",
            "vma_*",
            "__vma_*",
            "anon_vma_*",
            "__anon_vma_*",
            "copy_page_range",
            "dup_mm*",
            "dup_mmap",
            "exit_mmap",
            "mmput",
            "__mmput",
            "do_mprotect*",
            "mprotect_fixup",
            "do_brk*",
            "__pte_*",
            "pte_*",
            "__pmd_*",
            "pmd_*",
            "mem_cgroup_*",
            "__mem_cgroup_*",
            "memcg_*",
            "__memcg_*",
            "shrink_*",
            "kswapd*",
            "compact_*",
            "__count_memcg_events",
            "set_pte_range",
            "finish_fault",
            "filemap_map_pages",
            "next_uptodate_folio",
            "__tlb_*",
            "mas_*",
            "mtree_*",
            "mmap_*",
            "vms_*",
            "page_remove_rmap",
            "folio_remove_rmap*",
            "folio_add_*_rmap*",
            "__folio_*",
            "uncharge_*",
            "percpu_counter_*",
        ],
    ),
    (
        SCHEDULER,
        &[
            "schedule*",
            "__schedule",
            "__cond_resched",
            "preempt_schedule*",
            "pick_next_task*",
            "__pick_next_task",
            "enqueue_task*",
            "dequeue_task*",
            "enqueue_entity",
            "dequeue_entity*",
            "try_to_wake_up",
            "wake_up_*",
            "__wake_up*",
            "autoremove_wake_function",
            "default_wake_function",
            "finish_task_switch*",
            "__switch_to*",
            "switch_mm*",
            "context_switch",
            "sched_*",
            "__sched_*",
            "update_curr*",
            "update_load_avg",
            "update_cfs_*",
            "load_balance",
            "newidle_balance",
            "sched_balance_*",
            "select_task_rq*",
            "ttwu_*",
            "psi_*",
            "check_preempt*",
            "wakeup_preempt*",
            "resched_curr",
            "set_next_entity",
            "put_prev_*",
            "do_sched_yield",
            "yield_task_fair",
            "__x64_sys_sched_yield",
            "pick_task_fair",
            "pick_eevdf",
            "raw_spin_rq_lock*",
            "_raw_spin_rq_lock*",
            "idle_cpu",
            "account_*",
            "cpuacct_*",
            "cgroup_rstat_*",
            "task_tick*",
            "reweight_*",
            "wait_woken",
            "prepare_to_wait*",
            "finish_wait",
            "io_schedule*",
            "futex_*",
            "__futex_*",
            "do_futex",
            "do_wait",
            "kernel_wait4",
            "__do_sys_wait4",
            "wait_consider_task",
        ],
    ),
    (
        TIMERS,
        &[
            "hrtimer_*",
            "__hrtimer_*",
            "tick_*",
            "update_process_times",
            "timekeeping_*",
            "ktime_get*",
            "clockevents_*",
            "lapic_next_*",
            "run_timer_softirq",
            "__run_timers",
            "__run_timer_base",
            "run_timer_base",
            "call_timer_fn",
            "sysvec_apic_timer_interrupt",
            "__sysvec_apic_timer_interrupt",
            "asm_sysvec_apic_timer_interrupt",
            "read_tsc",
            "native_sched_clock",
            "sched_clock*",
            "kvm_clock_*",
            "pvclock_*",
            "timer_*",
            "__timer_*",
            "add_timer*",
            "mod_timer",
            "__mod_timer",
            "del_timer*",
            "timer_delete*",
            "do_nanosleep",
            "hrtimer_nanosleep",
            "common_nsleep",
            "__x64_sys_clock_nanosleep",
            "__x64_sys_nanosleep",
            "posix_*",
            "do_timer_*",
            "clock_gettime",
            "__x64_sys_clock_gettime",
            "jiffies_*",
            "irqtime_account_irq",
        ],
    ),
    (
        INTERRUPTS,
        &[
            "asm_common_interrupt",
            "common_interrupt",
            "asm_sysvec_*",
            "sysvec_*",
            "__sysvec_*",
            "handle_irq*",
            "handle_edge_irq",
            "handle_fasteoi_irq",
            "__handle_irq_event*",
            "handle_irq_event*",
            "irq_exit*",
            "__irq_exit_rcu",
            "irq_enter*",
            "__do_softirq",
            "handle_softirqs",
            "do_softirq*",
            "__local_bh_enable_ip",
            "vring_interrupt",
            "vp_interrupt",
            "vp_vring_interrupt",
            "irq_work_*",
            "flush_smp_call_function_*",
            "__flush_smp_call_function_queue",
            "generic_smp_call_function_*",
            "rcu_core*",
            "rcu_do_batch",
            "tasklet_action*",
        ],
    ),
];

/// The observer's own frames (module doc, "The observer's own time"): the tracepoints'
/// BPF dispatch and programs (JIT images are named `bpf_prog_<tag>_<name>`), perf's
/// tracepoint handlers and record output, and perf's sampling interrupt.
pub const OBSERVER_FRAMES: &[&str] = &[
    "bpf_prog_*",
    "__bpf_prog_run*",
    "__bpf_trace_*",
    "bpf_trace_run*",
    "trace_call_bpf",
    "__traceiter_*",
    "perf_tp_event*",
    "perf_swevent_*",
    "perf_trace_*",
    "perf_syscall_enter",
    "perf_syscall_exit",
    "perf_output_*",
    "perf_event_output*",
    "__perf_event_overflow",
    "perf_event_overflow",
    "perf_prepare_sample",
    "perf_callchain*",
    "get_perf_callchain",
];

/// The system-call slow path's own frames: the observer's as a leaf while it traces every
/// call (module doc).
pub const TRACED_SLOW_PATH: &[&str] = &["syscall_trace_enter", "syscall_exit_work"];

/// Whether every system call was traced (the observer's call mix) while the profile's
/// samples were taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SyscallTracing {
    #[default]
    Off,
    On,
}

/// Whether a sample's kernel frames are the observer's own.
pub fn is_observer<S: AsRef<str>>(kernel_frames_leaf_first: &[S]) -> bool {
    kernel_frames_leaf_first
        .iter()
        .any(|f| any(OBSERVER_FRAMES, f.as_ref()))
}

/// [`is_observer`], or a leaf in the slow path the observer's tracing put every call on.
pub fn is_observer_while<S: AsRef<str>>(
    kernel_frames_leaf_first: &[S],
    tracing: SyscallTracing,
) -> bool {
    let slow_path_leaf = tracing == SyscallTracing::On
        && kernel_frames_leaf_first
            .first()
            .is_some_and(|leaf| any(TRACED_SLOW_PATH, leaf.as_ref()));
    slow_path_leaf || is_observer(kernel_frames_leaf_first)
}

/// The entry and exit path of a system call, tried only when no other rule matched.
pub const ENTRY: &[&str] = &[
    "entry_SYSCALL_64*",
    "do_syscall_64",
    "x64_sys_call",
    "syscall_exit_to_user_mode*",
    "syscall_trace_enter",
    "exit_to_user_mode*",
    "arch_exit_to_user_mode*",
    "syscall_return_via_sysret",
    "entry_SYSRETQ*",
    "fpregs_restore_userregs",
    "restore_fpregs_from_fpstate",
    "switch_fpu_return",
    "__x64_sys_*",
    "__do_sys_*",
    "__se_sys_*",
    "__ia32_sys_*",
    "srso_*",
    "__pfx_*",
    "int80_emulation",
    "do_int80_syscall_32",
    "__task_pid_nr_ns",
    "__rcu_read_lock",
    "__rcu_read_unlock",
];

/// Path-name translation, today's namei: the path walk and the dentry-cache lookups it
/// makes, with the copy of the name from user space. A sample is in namei's *self* when
/// its leaf is one of these, and in its inclusive time when one is anywhere on its stack.
pub const NAMEI: &[&str] = &[
    "filename_lookup",
    "filename_parentat",
    "path_lookupat",
    "path_parentat",
    "path_openat",
    "link_path_walk",
    "walk_component",
    "lookup_fast",
    "lookup_slow",
    "__lookup_slow",
    "lookup_one*",
    "__lookup_hash",
    "lookup_dcache",
    "d_lookup",
    "__d_lookup*",
    "d_alloc_parallel",
    "getname*",
    "strncpy_from_user",
    "step_into",
    "pick_link",
    "handle_dots*",
    "follow_dotdot*",
    "terminate_walk",
    "complete_walk",
    "try_to_unlazy*",
    "legitimize_*",
    "__legitimize_*",
    "may_lookup",
    "nd_jump_root",
    "set_root",
    "path_init",
    "user_path_at*",
    "kern_path*",
];

/// Functions an idle CPU waits in: a sample there is idle time, not system time.
pub const IDLE: &[&str] = &[
    "default_idle",
    "native_safe_halt",
    "pv_native_safe_halt",
    "arch_cpu_idle",
    "cpuidle_enter_state",
    "acpi_idle_*",
    "intel_idle*",
    "mwait_idle*",
    "poll_idle",
    "amd_e400_idle",
    "do_idle",
    "cpu_idle_poll*",
    "default_idle_call",
];

/// Whether `name` matches `pattern`: `*` stands for any run of characters (a glob with
/// `*` only).
pub fn matches(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return name == pattern;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !name.starts_with(first) || name.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &name[first.len()..];
    for middle in &parts[1..parts.len() - 1] {
        match rest.find(middle) {
            Some(i) => rest = &rest[i + middle.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

fn any(patterns: &[&str], name: &str) -> bool {
    patterns.iter().any(|p| matches(p, name))
}

/// The subsystem of one function, by [`RULES`] alone (not the entry path).
pub fn subsystem_of_function(name: &str) -> Option<&'static str> {
    RULES
        .iter()
        .find(|(_, patterns)| any(patterns, name))
        .map(|(s, _)| *s)
}

/// The subsystem of a sample's kernel frames, leaf first.
pub fn classify<S: AsRef<str>>(kernel_frames_leaf_first: &[S]) -> &'static str {
    kernel_frames_leaf_first
        .iter()
        .find_map(|f| subsystem_of_function(f.as_ref()))
        .or_else(|| {
            kernel_frames_leaf_first
                .iter()
                .any(|f| any(ENTRY, f.as_ref()))
                .then_some(SYSCALL_ENTRY)
        })
        .unwrap_or(OTHER)
}

/// Whether the leaf of an idle task's sample is the idle loop.
pub fn is_idle(pid: u32, leaf: &str) -> bool {
    pid == 0 && any(IDLE, leaf)
}

/// One sample: the process, and its frames leaf first, each with whether it is the
/// kernel's.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StackSample {
    pub comm: String,
    pub pid: u32,
    pub frames: Vec<Frame>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Frame {
    pub name: String,
    pub kernel: bool,
}

/// How many kernel functions and folded stacks a profile keeps.
pub const TOP_FUNCTIONS: usize = 60;
pub const TOP_STACKS: usize = 3000;

/// Network timers: the protocols' own (001 §3.2.7's "protocol timers").
const NET_TIMERS: &[&str] = &[
    "tcp_*timer*",
    "tcp_keepalive*",
    "tcp_delack*",
    "tcp_retransmit_timer",
    "inet_csk_*timer*",
];

/// Network receive: what runs for incoming packets.
const NET_RECEIVE: &[&str] = &[
    "net_rx_action",
    "napi_*",
    "__napi_*",
    "netif_receive*",
    "__netif_receive*",
    "process_backlog",
    "ip_rcv*",
    "ip_local_deliver*",
    "tcp_v4_rcv",
    "tcp_v6_rcv",
    "udp_rcv",
    "__udp4_lib_rcv",
    "tcp_rcv_*",
    "virtnet_poll*",
];

/// The kernel profile of `samples` (taken at `frequency_hz`), with the network's time
/// split (system share, timers' share, receive share) beside it.
pub fn build_profile(
    samples: &[StackSample],
    frequency_hz: u32,
    method: &str,
) -> (KernelProfile, NetShares) {
    build_weighted_profile(
        samples.iter().map(|s| (s, 1)),
        frequency_hz,
        method,
        SyscallTracing::Off,
    )
}

/// [`build_profile`] of samples folded as they came: each distinct stack with how many
/// times it was sampled, so that hours of samples need not be held one by one.
pub fn build_weighted_profile<'a>(
    samples: impl IntoIterator<Item = (&'a StackSample, u64)>,
    frequency_hz: u32,
    method: &str,
    tracing: SyscallTracing,
) -> (KernelProfile, NetShares) {
    let mut tally = ProfileTally::default();
    let mut flame: HashMap<String, u64> = HashMap::new();
    for (s, w) in samples {
        tally.add(s, w, tracing);
        if let Some(stack) = flame_stack(s, tracing) {
            *flame.entry(stack).or_default() += w;
        }
    }
    tally.profile(flame, frequency_hz, method)
}

/// What a profile's tables are made of, added to sample by sample: counts by kernel
/// function, subsystem and kind of time. It grows with the kernel functions seen (a few
/// thousand), never with the samples or their distinct stacks, so that a day's profile
/// is as exact as a minute's even where the stacks kept for the flame graph are capped.
#[derive(Debug, Default, Clone)]
pub struct ProfileTally {
    samples: u64,
    idle: u64,
    user: u64,
    system: u64,
    observer: u64,
    self_n: HashMap<String, u64>,
    incl_n: HashMap<String, u64>,
    by_sub: BTreeMap<&'static str, u64>,
    /// namei as the leaf, namei anywhere in the stack.
    namei: (u64, u64),
    /// network, its protocol timers, its receive side.
    net: (u64, u64, u64),
}

impl ProfileTally {
    /// Count `w` samples of stack `s`.
    pub fn add(&mut self, s: &StackSample, w: u64, tracing: SyscallTracing) {
        self.samples += w;
        let kernel = match kind_of(s, tracing) {
            SampleKind::Unnamed => return,
            SampleKind::Idle => return self.idle += w,
            SampleKind::User => return self.user += w,
            SampleKind::Observer => return self.observer += w,
            SampleKind::System(kernel) => kernel,
        };
        self.system += w;
        *count(&mut self.self_n, kernel[0]) += w;
        let mut seen: Vec<&str> = Vec::with_capacity(kernel.len());
        for f in &kernel {
            if !seen.contains(f) {
                seen.push(f);
                *count(&mut self.incl_n, f) += w;
            }
        }
        if any(NAMEI, kernel[0]) {
            self.namei.0 += w;
        }
        if kernel.iter().any(|f| any(NAMEI, f)) {
            self.namei.1 += w;
        }
        let sub = classify(&kernel);
        *self.by_sub.entry(sub).or_default() += w;
        if sub == NETWORK {
            self.net.0 += w;
            if kernel.iter().any(|f| any(NET_TIMERS, f)) {
                self.net.1 += w;
            }
            if kernel.iter().any(|f| any(NET_RECEIVE, f)) {
                self.net.2 += w;
            }
        }
    }

    /// The profile of what was counted, with `flame`'s folded stacks (each with its
    /// samples) for the flame graph.
    pub fn profile(
        &self,
        flame: HashMap<String, u64>,
        frequency_hz: u32,
        method: &str,
    ) -> (KernelProfile, NetShares) {
        let denom = self.system.max(1) as f64;
        let mut p = KernelProfile {
            method: method.to_string(),
            frequency_hz,
            samples: self.samples,
            idle_samples: self.idle,
            user_samples: self.user,
            system_samples: self.system,
            observer_samples: self.observer,
            namei_self_share: self.namei.0 as f64 / denom,
            namei_inclusive_share: self.namei.1 as f64 / denom,
            ..KernelProfile::default()
        };
        let mut functions: Vec<KernelFunction> = self
            .incl_n
            .iter()
            .map(|(name, &incl)| {
                let own = self.self_n.get(name).copied().unwrap_or(0);
                KernelFunction {
                    name: name.clone(),
                    self_share: own as f64 / denom,
                    inclusive_share: incl as f64 / denom,
                    self_samples: own,
                    inclusive_samples: incl,
                }
            })
            .collect();
        functions.sort_by(|a, b| {
            b.self_samples
                .cmp(&a.self_samples)
                .then(b.inclusive_samples.cmp(&a.inclusive_samples))
                .then(a.name.cmp(&b.name))
        });
        functions.truncate(TOP_FUNCTIONS);
        p.functions = functions;
        let mut subs: Vec<SubsystemShare> = self
            .by_sub
            .iter()
            .map(|(subsystem, &samples)| SubsystemShare {
                subsystem: subsystem.to_string(),
                samples,
                share: samples as f64 / denom,
            })
            .collect();
        subs.sort_by(|a, b| {
            b.samples
                .cmp(&a.samples)
                .then(a.subsystem.cmp(&b.subsystem))
        });
        p.subsystems = subs;
        p.folded = keep_top_stacks(flame, TOP_STACKS);
        let shares = (self.system > 0).then(|| NetShares {
            system: self.net.0 as f64 / denom,
            timers: self.net.1 as f64 / denom,
            receive: self.net.2 as f64 / denom,
        });
        (p, shares.unwrap_or_default())
    }
}

/// The entry of `name` in `map`, made without copying the name when it is there.
fn count<'m>(map: &'m mut HashMap<String, u64>, name: &str) -> &'m mut u64 {
    if !map.contains_key(name) {
        map.insert(name.to_string(), 0);
    }
    map.get_mut(name).expect("just made")
}

/// What a sample's time was.
enum SampleKind<'a> {
    /// No frame at all.
    Unnamed,
    Idle,
    User,
    /// The observer's own handlers (or the slow path it makes every call take).
    Observer,
    /// System time, its kernel frames leaf first.
    System(Vec<&'a str>),
}

fn kind_of(s: &StackSample, tracing: SyscallTracing) -> SampleKind<'_> {
    let Some(leaf) = s.frames.first() else {
        return SampleKind::Unnamed;
    };
    if is_idle(s.pid, &leaf.name) {
        return SampleKind::Idle;
    }
    if !leaf.kernel {
        return SampleKind::User;
    }
    // The kernel frames from the leaf to the first user frame.
    let kernel: Vec<&str> = s
        .frames
        .iter()
        .take_while(|f| f.kernel)
        .map(|f| f.name.as_str())
        .collect();
    if is_observer_while(&kernel, tracing) {
        return SampleKind::Observer;
    }
    SampleKind::System(kernel)
}

/// The folded stack a sample adds to the flame graph: system time only.
pub fn flame_stack(s: &StackSample, tracing: SyscallTracing) -> Option<String> {
    match kind_of(s, tracing) {
        SampleKind::System(kernel) => Some(fold(&s.comm, &kernel)),
        _ => None,
    }
}

/// The network's shares of system time.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct NetShares {
    pub system: f64,
    pub timers: f64,
    pub receive: f64,
}

/// `comm;outermost;…;leaf` of a sample's kernel frames (system time only: the flame graph
/// is the kernel's, as 001's profile was), marked `_[k]` as perf's folded stacks do.
fn fold(comm: &str, kernel_leaf_first: &[&str]) -> String {
    let mut out = sanitize(comm);
    for f in kernel_leaf_first.iter().rev() {
        out.push(';');
        out.push_str(&sanitize(f));
        out.push_str("_[k]");
    }
    out
}

/// Folded stacks separate frames by `;` and the count by the last space.
fn sanitize(name: &str) -> String {
    name.replace([';', ' ', '\n'], "_")
}

/// The `top` commonest stacks; the rest merged into `comm;[other stacks]` per command.
fn keep_top_stacks(folded: HashMap<String, u64>, top: usize) -> Vec<FoldedStack> {
    let mut all: Vec<(String, u64)> = folded.into_iter().collect();
    all.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let rest = all.split_off(all.len().min(top));
    let mut merged: BTreeMap<String, u64> = BTreeMap::new();
    for (stack, n) in rest {
        let comm = stack.split(';').next().unwrap_or("?").to_string();
        *merged.entry(format!("{comm};[other stacks]")).or_default() += n;
    }
    all.into_iter()
        .chain(merged)
        .map(|(stack, count)| FoldedStack { stack, count })
        .collect()
}

#[cfg(test)]
mod tests;
