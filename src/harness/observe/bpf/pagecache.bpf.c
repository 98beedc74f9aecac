// The page cache's reads counted in the kernel (docs/observe.md, "The caches"): the three
// filemap tracepoints tallied in BPF maps by the counting model of caches.rs, so that no
// record per page or read leaves the kernel.
//
// Built by build.rs with clang (with -g: bpf_loop's callback is known to the kernel by
// its BTF) when clang is there; loaded by src/harness/observe/kcache.rs.
// What the three programs share is in common.h.
#include "common.h"

// Keep in step with kcache.rs.
#define ADDS 16            // folio runs a thread may have added and not yet read
#define CLAIM_NS 1000000000ull // how long after adding a page a read may claim it
#define RANGES 8           // ranges of read-ahead pages kept a file (a power of two)

struct file {
    __u32 dev; // the kernel's dev_t: major << 20 | minor
    __u32 pad;
    __u64 ino;
};

// A run of pages one thread added to one file, not yet claimed by a read of its own.
struct added {
    __u64 time;
    struct file file;
    __u64 first;
    __u64 pages;
};

struct thread {
    struct file batch_file; // the thread's last read batch, to know a read's later ones
    __u64 batch_first;
    __u64 batch_last;
    __u32 has_batch;
    __u32 next; // where the next run goes: the oldest is overwritten when all are taken
    struct added adds[ADDS];
};

// As caches.rs's PageCounts, field for field.
struct counts {
    __u64 asked;
    __u64 batches;
    __u64 missed_by_read;
    __u64 read_ahead;
    __u64 read_ahead_used;
    __u64 read_ahead_evicted;
};

// A file's counts, and its pages read ahead and not yet asked for nor evicted, as up to
// RANGES ranges (a reader's read-ahead is one range ahead of it). Updated without a lock:
// two CPUs changing one file's ranges at the same instant may lose a change.
struct file_state {
    struct counts counts;
    __s64 ahead; // pages in the ranges
    __u64 lo[RANGES]; // range i is lo[i]..hi[i], half open; empty when equal
    __u64 hi[RANGES];
    __u32 oldest; // the range forgotten next when all are taken and a new one comes
    __u32 pad;
};

struct config {
    __u32 add_ino, add_index, add_dev, add_order; // add and delete share a layout
    __u32 read_ino, read_dev, read_index, read_last;
};

enum stat {
    STAT_ADDS_FORGOTTEN, // pages added whose run was overwritten within CLAIM_NS, unread
    STAT_AHEAD_FORGOTTEN, // read-ahead pages forgotten: more than RANGES ranges in a file
    STAT_FILES_FULL,     // reads of files not counted apart: the files map was full
    STATS
};

MAP(threads, BPF_MAP_TYPE_LRU_HASH, __u32, struct thread, 8192);
MAP(files, BPF_MAP_TYPE_LRU_HASH, struct file, struct file_state, 16384);
// A zeroed thread, never written: a new thread's entry is copied from it (a struct
// thread does not fit on the BPF stack).
MAP(blank, BPF_MAP_TYPE_PERCPU_ARRAY, __u32, struct thread, 1);
MAP(totals, BPF_MAP_TYPE_PERCPU_ARRAY, __u32, struct counts, 1);
MAP(stats, BPF_MAP_TYPE_PERCPU_ARRAY, __u32, __u64, STATS);

const volatile struct config cfg = {};

char LICENSE[] SEC("license") = "Dual MIT/GPL";

INLINE void bump(__u32 which, __u64 by) {
    __u64 *n = bpf_map_lookup_elem(&stats, &which);
    if (n)
        *n += by; // per CPU: no other writer
}

INLINE __u64 field_u64(void *ctx, __u32 at) {
    __u64 v = 0;
    bpf_probe_read_kernel(&v, sizeof(v), (char *)ctx + (at & 0xff));
    return v;
}

INLINE __u32 field_u32(void *ctx, __u32 at) {
    __u32 v = 0;
    bpf_probe_read_kernel(&v, sizeof(v), (char *)ctx + (at & 0xff));
    return v;
}

INLINE __u8 field_u8(void *ctx, __u32 at) {
    __u8 v = 0;
    bpf_probe_read_kernel(&v, sizeof(v), (char *)ctx + (at & 0xff));
    return v;
}

// The thread's entry, made if it has none (an LRU map: the longest idle is dropped).
INLINE struct thread *thread_of(__u32 tid) {
    struct thread *t = bpf_map_lookup_elem(&threads, &tid);
    if (t)
        return t;
    __u32 zero = 0;
    struct thread *blank_thread = bpf_map_lookup_elem(&blank, &zero);
    if (!blank_thread)
        return 0;
    bpf_map_update_elem(&threads, &tid, blank_thread, BPF_ANY);
    return bpf_map_lookup_elem(&threads, &tid);
}

INLINE int same_file(const struct file *a, const struct file *b) {
    return a->dev == b->dev && a->ino == b->ino;
}

INLINE struct file_state *file_state(const struct file *f) {
    struct file_state *s = bpf_map_lookup_elem(&files, f);
    if (s)
        return s;
    struct file_state zero = {};
    bpf_map_update_elem(&files, f, &zero, BPF_NOEXIST);
    s = bpf_map_lookup_elem(&files, f);
    if (!s)
        bump(STAT_FILES_FULL, 1);
    return s;
}

// Mark pages `a..b` (half open) of the file read ahead, joined to the ranges they touch;
// returns how many were not marked already. With every range taken and none touched,
// the oldest range is forgotten (counted).
INLINE __u64 set_ahead(struct file_state *s, __u64 a, __u64 b) {
    __u64 newly = b - a;
    int free = -1;
#pragma unroll
    for (int i = 0; i < RANGES; i++) {
        __u64 lo = s->lo[i], hi = s->hi[i];
        if (lo == hi) {
            free = i;
            continue;
        }
        if (hi < a || lo > b)
            continue; // apart, not touching
        __u64 from = lo > a ? lo : a, to = hi < b ? hi : b;
        if (to > from)
            newly -= to - from;
        a = lo < a ? lo : a;
        b = hi > b ? hi : b;
        s->lo[i] = s->hi[i] = 0;
        free = i;
    }
    if (free < 0) {
        free = s->oldest % RANGES;
        s->oldest = free + 1;
        __u64 gone = s->hi[free & (RANGES - 1)] - s->lo[free & (RANGES - 1)];
        bump(STAT_AHEAD_FORGOTTEN, gone);
        s->ahead -= gone;
    }
    s->lo[free & (RANGES - 1)] = a;
    s->hi[free & (RANGES - 1)] = b;
    s->ahead += newly;
    return newly;
}

// Unmark the read-ahead pages of `x..y` (half open); returns how many were marked. A
// range cut in two keeps its second half in a free slot, or forgets it (counted).
INLINE __u64 take_ahead(struct file_state *s, __u64 x, __u64 y) {
    if (s->ahead <= 0)
        return 0;
    __u64 taken = 0;
    __u64 rest_lo = 0, rest_hi = 0;
#pragma unroll
    for (int i = 0; i < RANGES; i++) {
        __u64 lo = s->lo[i], hi = s->hi[i];
        if (lo == hi || hi <= x || lo >= y)
            continue;
        __u64 from = lo > x ? lo : x, to = hi < y ? hi : y;
        taken += to - from;
        if (lo < x && hi > y) { // the middle: two halves
            s->hi[i] = x;
            rest_lo = y;
            rest_hi = hi;
        } else if (lo < x) {
            s->hi[i] = x;
        } else if (hi > y) {
            s->lo[i] = y;
        } else {
            s->lo[i] = s->hi[i] = 0;
        }
    }
    if (rest_hi > rest_lo) {
        int placed = 0;
#pragma unroll
        for (int i = 0; i < RANGES; i++) {
            if (!placed && s->lo[i] == s->hi[i]) {
                s->lo[i] = rest_lo;
                s->hi[i] = rest_hi;
                placed = 1;
            }
        }
        if (!placed) {
            bump(STAT_AHEAD_FORGOTTEN, rest_hi - rest_lo);
            s->ahead -= rest_hi - rest_lo;
        }
    }
    s->ahead -= taken;
    return taken;
}

INLINE void count(struct file_state *s, const struct counts *c) {
    __u32 zero = 0;
    struct counts *t = bpf_map_lookup_elem(&totals, &zero);
    if (t) { // per CPU: no other writer
        t->asked += c->asked;
        t->batches += c->batches;
        t->missed_by_read += c->missed_by_read;
        t->read_ahead += c->read_ahead;
        t->read_ahead_used += c->read_ahead_used;
        t->read_ahead_evicted += c->read_ahead_evicted;
    }
    if (!s)
        return;
    if (c->asked)
        __sync_fetch_and_add(&s->counts.asked, c->asked);
    if (c->batches)
        __sync_fetch_and_add(&s->counts.batches, c->batches);
    if (c->missed_by_read)
        __sync_fetch_and_add(&s->counts.missed_by_read, c->missed_by_read);
    if (c->read_ahead)
        __sync_fetch_and_add(&s->counts.read_ahead, c->read_ahead);
    if (c->read_ahead_used)
        __sync_fetch_and_add(&s->counts.read_ahead_used, c->read_ahead_used);
    if (c->read_ahead_evicted)
        __sync_fetch_and_add(&s->counts.read_ahead_evicted, c->read_ahead_evicted);
}

// filemap:mm_filemap_add_to_page_cache: a folio of a file enters the cache; the thread
// that added it keeps it, joined to its last run when it follows on, for its next read.
SEC("tracepoint/filemap/mm_filemap_add_to_page_cache")
int timeshare_page_added(void *ctx) {
    __u32 tid = (__u32)bpf_get_current_pid_tgid();
    struct file f = {.dev = field_u32(ctx, cfg.add_dev), .ino = field_u64(ctx, cfg.add_ino)};
    __u64 first = field_u64(ctx, cfg.add_index);
    __u64 pages = 1ull << (field_u8(ctx, cfg.add_order) & 15);
    struct thread *t = thread_of(tid);
    if (!t)
        return PASS_ON;
    __u64 now = bpf_ktime_get_ns();
    __u32 last = (t->next + ADDS - 1) % ADDS;
    struct added *run = &t->adds[last];
    if (run->pages && same_file(&run->file, &f) && run->first + run->pages == first) {
        run->pages += pages;
        run->time = now;
        return PASS_ON;
    }
    __u32 at = t->next % ADDS;
    run = &t->adds[at];
    // A run older than CLAIM_NS could no longer be claimed (pages written, or faulted
    // in): overwriting it loses nothing, as the record path forgets it too.
    if (run->pages && now - run->time <= CLAIM_NS)
        bump(STAT_ADDS_FORGOTTEN, run->pages);
    run->time = now;
    run->file = f;
    run->first = first;
    run->pages = pages;
    t->next = (at + 1) % ADDS;
    return PASS_ON;
}

// filemap:mm_filemap_delete_from_page_cache: a folio leaves the cache; its pages read
// ahead and never asked for were evicted unused.
SEC("tracepoint/filemap/mm_filemap_delete_from_page_cache")
int timeshare_page_deleted(void *ctx) {
    struct file f = {.dev = field_u32(ctx, cfg.add_dev), .ino = field_u64(ctx, cfg.add_ino)};
    struct file_state *s = bpf_map_lookup_elem(&files, &f);
    if (!s || s->ahead <= 0)
        return PASS_ON;
    __u64 first = field_u64(ctx, cfg.add_index);
    __u64 pages = 1ull << (field_u8(ctx, cfg.add_order) & 15);
    struct counts c = {.read_ahead_evicted = take_ahead(s, first, first + pages)};
    if (c.read_ahead_evicted)
        count(s, &c);
    return PASS_ON;
}

// Pages `a..b` (half open) outside `first..=last` become read ahead; returns how many
// were new.
INLINE __u64 ahead_outside(struct file_state *s, __u64 a, __u64 b, __u64 first, __u64 last) {
    if (!s)
        return 0;
    __u64 newly = 0;
    if (a < first)
        newly += set_ahead(s, a, b < first ? b : first);
    if (b > last + 1)
        newly += set_ahead(s, a > last + 1 ? a : last + 1, b);
    return newly;
}

// A read batch claiming its thread's runs of pages added, one run a step of bpf_loop.
struct claim {
    struct thread *t;
    struct file_state *s;
    struct file file;
    __u64 first;
    __u64 last;
    __u64 now;
    __u64 missed;
    __u64 read_ahead;
};

static __attribute__((noinline)) long claim_step(__u64 i, void *ctx) {
    struct claim *cl = ctx;
    struct thread *t = cl->t;
    if (!t || i >= ADDS)
        return 1;
    struct added *run = &t->adds[i];
    __u64 pages = run->pages;
    if (!pages)
        return 0;
    run->pages = 0;
    if (!same_file(&run->file, &cl->file) || cl->now - run->time > CLAIM_NS)
        return 0;
    __u64 a = run->first, b = run->first + pages;
    __u64 lo = a > cl->first ? a : cl->first;
    __u64 hi = b < cl->last + 1 ? b : cl->last + 1;
    if (hi > lo)
        cl->missed += hi - lo;
    cl->read_ahead += ahead_outside(cl->s, a, b, cl->first, cl->last);
    return 0;
}

// filemap:mm_filemap_get_pages: a batch of a read, its pages in the cache, asking for
// `index..=last_index`. The pages its thread added to the file within CLAIM_NS are its
// misses inside that range and read ahead outside it.
SEC("tracepoint/filemap/mm_filemap_get_pages")
int timeshare_pages_read(void *ctx) {
    __u32 tid = (__u32)bpf_get_current_pid_tgid();
    struct file f = {.dev = field_u32(ctx, cfg.read_dev), .ino = field_u64(ctx, cfg.read_ino)};
    __u64 first = field_u64(ctx, cfg.read_index);
    __u64 last = field_u64(ctx, cfg.read_last);
    if (last < first)
        return PASS_ON;
    struct counts c = {.batches = 1};
    struct file_state *s = file_state(&f);
    struct thread *t = thread_of(tid);
    if (!t) {
        c.asked = last - first + 1;
        count(s, &c);
        return PASS_ON;
    }
    int later = t->has_batch && same_file(&t->batch_file, &f) && t->batch_last == last &&
                t->batch_first < first;
    if (!later)
        c.asked = last - first + 1;
    t->batch_file = f;
    t->batch_first = first;
    t->batch_last = last;
    t->has_batch = 1;
    struct claim cl = {.t = t, .s = s, .file = f, .first = first, .last = last,
                       .now = bpf_ktime_get_ns()};
    bpf_loop(ADDS, claim_step, &cl, 0);
    c.missed_by_read = cl.missed;
    c.read_ahead = cl.read_ahead;
    t->next = 0;
    if (s)
        c.read_ahead_used = take_ahead(s, first, last + 1);
    count(s, &c);
    return PASS_ON;
}
