// The kernel profile sampled in the kernel (docs/observe.md, "Kernel profile"): on every
// CPU a software clock fires 99 times a second and this program counts the interrupted
// task's kernel call chain with its command, in a map that user space folds once a
// window. No sample leaves the kernel as a record, and no perf process runs.
//
// Built by build.rs with clang (`-target bpf`) beside callmix.bpf.c; loaded by
// src/harness/observe/ksample.rs. What the three programs share is in common.h.
#include "common.h"

// Keep in step with ksample.rs.
#define COMM_LEN 16
#define MAX_FRAMES 64 // kernel frames kept, leaf first (the profile reads no more)
#define STACKS 10240  // distinct samples a window can hold (both windows together)

// One sample as counted: the stack itself is the key, so no two stacks can share an
// entry (a stack-id map drops or overwrites a stack whose hash collides). The window
// (`gen`) is in the key so that user space reads and deletes the closed window's
// entries while the open one's are counted.
struct sample {
    __u32 gen;
    __u32 idle; // the idle task (pid 0)
    char comm[COMM_LEN];
    __u64 ips[MAX_FRAMES]; // none in user mode; zero past the last frame
};

enum stat {
    STAT_FULL, // samples not kept: the map was full
    STATS
};

MAP(counts, BPF_MAP_TYPE_HASH, struct sample, __u64, STACKS);
MAP(scratch, BPF_MAP_TYPE_PERCPU_ARRAY, __u32, struct sample, 1); // too big for the stack
MAP(window, BPF_MAP_TYPE_ARRAY, __u32, __u32, 1);                 // the open window
MAP(stats, BPF_MAP_TYPE_PERCPU_ARRAY, __u32, __u64, STATS);

char LICENSE[] SEC("license") = "Dual MIT/GPL";

SEC("perf_event")
int timeshare_sample(void *ctx) {
    __u32 zero = 0;
    struct sample *s = bpf_map_lookup_elem(&scratch, &zero);
    __u32 *gen = bpf_map_lookup_elem(&window, &zero);
    if (!s || !gen)
        return 0;
    s->gen = *gen;
    s->idle = (bpf_get_current_pid_tgid() >> 32) == 0;
    bpf_get_current_comm(s->comm, sizeof(s->comm));
    // The kernel's frames only (flags 0). The helper zeroes what it does not fill, all
    // of it when the task was interrupted in user mode or on an error.
    bpf_get_stack(ctx, s->ips, sizeof(s->ips), 0);
    __u64 *n = bpf_map_lookup_elem(&counts, s);
    if (n) {
        __sync_fetch_and_add(n, 1);
        return 0;
    }
    __u64 one = 1;
    if (bpf_map_update_elem(&counts, s, &one, BPF_NOEXIST) == 0)
        return 0;
    // Another CPU may have made it meanwhile; else the map is full.
    n = bpf_map_lookup_elem(&counts, s);
    if (n) {
        __sync_fetch_and_add(n, 1);
        return 0;
    }
    __u32 full = STAT_FULL;
    __u64 *lost = bpf_map_lookup_elem(&stats, &full);
    if (lost)
        *lost += 1;
    return 0;
}
