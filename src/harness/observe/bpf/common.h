// What the three BPF programs share (callmix, kprofile, pagecache): the section
// attribute, the helpers by their numbers in the kernel's UAPI, and the legacy map
// declaration their loaders read. Written against the kernel's UAPI header only (no
// vmlinux.h, no libbpf headers), so that Debian's clang alone builds them.
#ifndef TIMESHARE_BPF_COMMON_H
#define TIMESHARE_BPF_COMMON_H

#include <linux/types.h>
#include <linux/bpf.h>

#define SEC(name) __attribute__((section(name), used))
#define INLINE static __always_inline
// A helper a program does not call is no warning (the build has -Werror).
#define HELPER static __attribute__((unused))

HELPER void *(*bpf_map_lookup_elem)(void *map, const void *key) = (void *)BPF_FUNC_map_lookup_elem;
HELPER long (*bpf_map_update_elem)(void *map, const void *key, const void *value,
                                   __u64 flags) = (void *)BPF_FUNC_map_update_elem;
HELPER long (*bpf_map_delete_elem)(void *map, const void *key) = (void *)BPF_FUNC_map_delete_elem;
HELPER __u64 (*bpf_ktime_get_ns)(void) = (void *)BPF_FUNC_ktime_get_ns;
HELPER __u64 (*bpf_get_current_pid_tgid)(void) = (void *)BPF_FUNC_get_current_pid_tgid;
HELPER long (*bpf_get_current_comm)(void *buf, __u32 size) = (void *)BPF_FUNC_get_current_comm;
HELPER long (*bpf_probe_read_kernel)(void *dst, __u32 size,
                                     const void *src) = (void *)BPF_FUNC_probe_read_kernel;
HELPER long (*bpf_get_stack)(void *ctx, void *buf, __u32 size, __u64 flags) = (void *)BPF_FUNC_get_stack;
HELPER long (*bpf_loop)(__u32 nr_loops, void *callback, void *ctx,
                        __u64 flags) = (void *)BPF_FUNC_loop;

// What a classic tracepoint's program returns. The kernel hands an event to the perf
// buffers of everyone tracing that tracepoint only when the programs attached to it
// return non-zero (perf_trace_run_bpf_submit): returning 0 would hide the event from
// every `perf record -e filemap:...` (and timeshare's own record path) on the machine
// while observe runs. With no perf buffer listening, the kernel goes no further.
#define PASS_ON 1

// A map as the legacy "maps" section declares it (the loader reads the first five fields).
struct map_def {
    __u32 type, key_size, value_size, max_entries, map_flags;
};
#define MAP(name, kind, key, value, entries)                                                  \
    struct map_def name SEC("maps") = {                                                       \
        .type = kind, .key_size = sizeof(key), .value_size = sizeof(value),                  \
        .max_entries = entries}

#endif
