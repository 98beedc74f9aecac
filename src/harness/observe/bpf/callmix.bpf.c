// The call mix counted in the kernel (docs/observe.md, "Counting in the kernel"): every
// system call's entry and exit on the machine, tallied in BPF maps that user space reads
// once an interval. No record per call leaves the kernel.
//
// Built by build.rs with clang (`-target bpf`) when clang is there; loaded by
// src/harness/observe/kcount.rs. What the three programs share is in common.h.
#include "common.h"

// Keep in step with kcount.rs.
#define COMM_LEN 16
#define MAX_CALL 512  // call numbers with a histogram (x86-64 has about 460)
#define SLOTS 48      // log2 slots of nanoseconds: up to 2^47 ns, 39 hours

struct key {
    __u32 tgid;
    __u32 nr;
    char comm[COMM_LEN];
};

struct tally {
    __u64 count;
    __u64 timed;
    __u64 ns;
};

struct pending {
    __u64 since;
    struct key key;
};

struct hist {
    __u64 slot[SLOTS];
    __u64 entries; // calls of this number entered on this CPU: which of them are timed
};

// What one CPU holds between two calls, so that the common call touches no shared map:
// the call its current thread is in (moved to `pending` if the thread is switched out
// inside it), and a run of calls of one key not yet added to `tallies` (added when the
// key changes; the reader adds what is left).
// What the CPU's current thread is in.
enum in_call { IN_NOTHING, IN_TIMED, IN_COUNTED };

struct cpu {
    __u32 tid;
    __u32 in_call; // enum in_call: a timed call waits for its exit; a counted one only
                   // for its exit to be recognised (it was tallied at its entry)
    __u64 since;
    struct key key;
    struct key run_key;
    struct tally run;
    __u64 calls; // entries counted on this CPU
};

struct config {
    __u32 skip_tgid;     // the observer's process
    __u32 only_threads;  // leave out only its threads in skip_tids, not the whole process
    __u32 timed;         // entries wait for their exits (the call's time)
    __u32 fork_child_at; // offset of child_pid in sched_process_fork's record
    __u32 empty;         // count nothing: what the tracepoints cost bare (--cost)
    __u32 sample_mask;   // time one call in mask + 1 of each number on each CPU (a power
                         // of two): the two clock reads are most of what timing costs
    __u32 per_process;   // key calls by process and keep forks, for the observed command's
                         // tree; else by command alone, so that the maps stay as small over
                         // a day of short-lived processes as over a minute
};

enum stat {
    STAT_TALLY_FULL,     // calls not kept: the tally map was full
    STAT_PENDING_FULL,   // entries not timed: the pending map was full (counted untimed)
    STAT_UNENTERED,      // exits whose entry was not seen (before the span)
    STAT_UNPAIRED,       // entries followed by another entry of the same thread
    STAT_FORKS_FULL,     // forks not kept: the parents map was full
    STATS
};

MAP(skip_tids, BPF_MAP_TYPE_HASH, __u32, __u8, 1024);
MAP(cpus, BPF_MAP_TYPE_PERCPU_ARRAY, __u32, struct cpu, 1);
MAP(tallies, BPF_MAP_TYPE_HASH, struct key, struct tally, 65536);
MAP(pending, BPF_MAP_TYPE_HASH, __u32, struct pending, 65536);
MAP(hists, BPF_MAP_TYPE_PERCPU_ARRAY, __u32, struct hist, MAX_CALL);
MAP(parents, BPF_MAP_TYPE_HASH, __u32, __u32, 65536);
MAP(stats, BPF_MAP_TYPE_PERCPU_ARRAY, __u32, __u64, STATS);

// Set once by the loader before the programs are attached (aya's set_global): a
// constant in .rodata costs nothing a call, where a map lookup was a helper call on
// every entry and exit.
const volatile struct config cfg = {};

char LICENSE[] SEC("license") = "Dual MIT/GPL";

INLINE void bump(__u32 which) {
    __u64 *n = bpf_map_lookup_elem(&stats, &which);
    if (n)
        *n += 1; // per CPU: no other writer
}

INLINE int same_key(const struct key *a, const struct key *b) {
    const __u64 *x = (const __u64 *)a, *y = (const __u64 *)b;
    return x[0] == y[0] && x[1] == y[1] && x[2] == y[2];
}

// Add a run of calls to its key's tally in the shared map.
INLINE void flush(const struct key *k, const struct tally *run) {
    if (!run->count)
        return;
    struct tally *t = bpf_map_lookup_elem(&tallies, k);
    if (!t) {
        struct tally zero = {};
        bpf_map_update_elem(&tallies, k, &zero, BPF_NOEXIST);
        t = bpf_map_lookup_elem(&tallies, k);
        if (!t) {
            bump(STAT_TALLY_FULL);
            return;
        }
    }
    __sync_fetch_and_add(&t->count, run->count);
    if (run->timed) {
        __sync_fetch_and_add(&t->timed, run->timed);
        __sync_fetch_and_add(&t->ns, run->ns);
    }
}

// Count one call (timed: with its time) in this CPU's run, the run first added to the
// shared map if it was of another key.
INLINE void tally(struct cpu *c, const struct key *k, int timed, __u64 ns) {
    if (!same_key(&c->run_key, k)) {
        flush(&c->run_key, &c->run);
        c->run_key = *k;
        c->run.count = 0;
        c->run.timed = 0;
        c->run.ns = 0;
    }
    c->run.count += 1;
    if (timed) {
        c->run.timed += 1;
        c->run.ns += ns;
    }
}

// floor(log2(v)) for v > 0, without a loop.
INLINE __u32 log2_u64(__u64 v) {
    __u32 r = 0, shift;
    shift = (v > 0xFFFFFFFFull) << 5; v >>= shift; r |= shift;
    shift = (v > 0xFFFF) << 4; v >>= shift; r |= shift;
    shift = (v > 0xFF) << 3; v >>= shift; r |= shift;
    shift = (v > 0xF) << 2; v >>= shift; r |= shift;
    shift = (v > 0x3) << 1; v >>= shift; r |= shift;
    r |= (v >> 1);
    return r;
}

INLINE void histogram(__u32 nr, __u64 ns) {
    if (nr >= MAX_CALL)
        return;
    struct hist *h = bpf_map_lookup_elem(&hists, &nr);
    if (!h)
        return;
    __u32 s = ns ? log2_u64(ns) : 0;
    if (s >= SLOTS)
        s = SLOTS - 1;
    h->slot[s] += 1; // per CPU: no other writer
}

// Whether this entry of call `nr` is one of those timed: every (mask + 1)th of its number on
// this CPU, the first included, so that each call's sample spreads over the span and a
// call made only a few times is timed at least once on each CPU it ran on.
INLINE int sampled(__u32 nr) {
    if (!cfg.sample_mask)
        return 1;
    if (nr >= MAX_CALL)
        return 1;
    struct hist *h = bpf_map_lookup_elem(&hists, &nr);
    if (!h)
        return 1;
    __u64 seen = h->entries;
    h->entries = seen + 1; // per CPU: no other writer
    return (seen & cfg.sample_mask) == 0;
}

INLINE struct cpu *this_cpu(void) {
    __u32 zero = 0;
    return bpf_map_lookup_elem(&cpus, &zero);
}

// raw_syscalls:sys_enter, raw: (struct pt_regs *regs, long id).
SEC("raw_tracepoint/sys_enter")
int timeshare_sys_enter(struct bpf_raw_tracepoint_args *ctx) {
    if (cfg.empty)
        return 0;
    struct cpu *c = this_cpu();
    if (!c)
        return 0;
    __u64 id = bpf_get_current_pid_tgid();
    __u32 tgid = id >> 32, tid = (__u32)id;
    if (tgid == cfg.skip_tgid &&
        (!cfg.only_threads || bpf_map_lookup_elem(&skip_tids, &tid)))
        return 0;
    c->calls += 1;
    __u32 nr = (__u32)ctx->args[1];
    if (c->in_call && c->tid == tid) {
        // The thread's last entry had no exit: count it untimed (a counted one already was).
        if (c->in_call == IN_TIMED) {
            struct key k = c->key;
            tally(c, &k, 0, 0);
        }
        bump(STAT_UNPAIRED);
    }
    // The command is the thread's comm, read again only when another thread calls on
    // this CPU or the last call may have changed it (execve, execveat, prctl): the
    // helper is a good part of what a call costs.
    __u32 last = c->key.nr;
    __u32 keyed = cfg.per_process ? tgid : 0;
    if (c->tid != tid || c->key.tgid != keyed || last == 59 || last == 322 || last == 157)
        bpf_get_current_comm(c->key.comm, sizeof(c->key.comm));
    c->key.tgid = keyed;
    c->key.nr = nr;
    c->tid = tid;
    // exit and exit_group never return: counted now, untimed.
    if (!cfg.timed || nr == 60 || nr == 231) {
        c->in_call = IN_NOTHING;
        struct key k = c->key;
        tally(c, &k, 0, 0);
        return 0;
    }
    if (!sampled(nr)) {
        // Counted now; its exit only clears the mark.
        c->in_call = IN_COUNTED;
        struct key k = c->key;
        tally(c, &k, 0, 0);
        return 0;
    }
    c->in_call = IN_TIMED;
    c->since = bpf_ktime_get_ns();
    return 0;
}

// raw_syscalls:sys_exit, raw: (struct pt_regs *regs, long ret). Attached only when calls
// are timed; the call is counted here, with its time, from its thread's entry: on this
// CPU still, or moved to `pending` when the thread was switched out inside the call.
SEC("raw_tracepoint/sys_exit")
int timeshare_sys_exit(struct bpf_raw_tracepoint_args *ctx) {
    if (cfg.empty)
        return 0;
    struct cpu *c = this_cpu();
    if (!c)
        return 0;
    __u32 tid = (__u32)bpf_get_current_pid_tgid();
    struct key k;
    __u64 since;
    if (c->in_call && c->tid == tid) {
        int timed = c->in_call == IN_TIMED;
        c->in_call = IN_NOTHING;
        if (!timed)
            return 0;
        k = c->key;
        since = c->since;
    } else {
        struct pending *p = bpf_map_lookup_elem(&pending, &tid);
        if (!p) {
            bump(STAT_UNENTERED);
            return 0;
        }
        k = p->key;
        since = p->since;
        bpf_map_delete_elem(&pending, &tid);
        if (!since)
            return 0; // counted at its entry, not timed
    }
    // The clock read only for a timed call: it is what timing costs most.
    __u64 now = bpf_ktime_get_ns();
    __u64 ns = now > since ? now - since : 0;
    tally(c, &k, 1, ns);
    histogram(k.nr, ns);
    return 0;
}

// sched:sched_switch, raw: (bool preempt, struct task_struct *prev, *next, ...), run
// while the outgoing thread is still current: a thread leaving the CPU inside a call
// takes its entry along, in `pending`, to be found at its exit on whatever CPU.
SEC("raw_tracepoint/sched_switch")
int timeshare_switch(struct bpf_raw_tracepoint_args *ctx) {
    struct cpu *c = this_cpu();
    if (!c || !c->in_call)
        return 0;
    __u32 tid = (__u32)bpf_get_current_pid_tgid();
    if (c->tid != tid)
        return 0;
    // A counted call goes with a time of 0, so that its exit knows it and times nothing.
    int timed = c->in_call == IN_TIMED;
    struct pending p = {.since = timed ? c->since : 0, .key = c->key};
    c->in_call = IN_NOTHING;
    if (bpf_map_update_elem(&pending, &tid, &p, BPF_ANY) && timed) {
        bump(STAT_PENDING_FULL);
        tally(c, &p.key, 0, 0);
    }
    return 0;
}

// sched:sched_process_fork, in the parent: the child's number and the parent's process,
// for the observed command's tree.
SEC("tracepoint/sched/sched_process_fork")
int timeshare_fork(void *ctx) {
    if (!cfg.per_process)
        return PASS_ON;
    __u32 child = 0, at = cfg.fork_child_at & 0xff;
    bpf_probe_read_kernel(&child, sizeof(child), (char *)ctx + at);
    __u32 parent = bpf_get_current_pid_tgid() >> 32;
    if (child && bpf_map_update_elem(&parents, &child, &parent, BPF_ANY))
        bump(STAT_FORKS_FULL);
    return PASS_ON;
}
