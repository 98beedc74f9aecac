/* The anchor of timeshare's cpu.cache (`timeshare crosscheck cpu.cache` builds it with cc),
 * doing the row's work the row's way: one array of BYTES, swept from 4 KiB doubling up to
 * BYTES as the row sweeps it. At each size the first word of each 64-byte line of the
 * array's first SIZE bytes holds the address of the next line in one random cycle
 * (Sattolo's shuffle driven by xorshift64 seeded with the line count: the row's cycle,
 * line for line); a whole turn of the cycle warms it up to 1 Mi lines (64 MiB), READS
 * loads past that; then timings of READS dependent loads, REPEATS of them and for MS
 * milliseconds at least, the minimum in ns per load. Prints each size, then "pointer chase: NS nanoseconds" for BYTES and the cycle's
 * hash there (FNV-1a over the line numbers from line 0, as the row computes it). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define LINE 64
#define WARM_LINES (1u << 20)

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

/* Link the first LINES lines of A into the cycle; its hash. */
static uint64_t link_cycle(char *a, uint32_t *order, size_t lines) {
    uint64_t x = 0x9e3779b97f4a7c15ull ^ lines, h = 0xcbf29ce484222325ull;
    size_t k0 = 0;
    for (size_t i = 0; i < lines; i++) order[i] = (uint32_t)i;
    for (size_t i = lines - 1; i > 0; i--) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t j = x % i;
        uint32_t t = order[i];
        order[i] = order[j], order[j] = t;
    }
    for (size_t k = 0; k < lines; k++) {
        *(void **)(a + (size_t)order[k] * LINE) = a + (size_t)order[(k + 1) % lines] * LINE;
        if (order[k] == 0) k0 = k;
    }
    for (size_t k = 0; k < lines; k++) h = (h ^ order[(k0 + k) % lines]) * 0x100000001b3ull;
    return h;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s BYTES READS REPEATS MS\n", argv[0]);
        return 2;
    }
    size_t bytes = strtoull(argv[1], 0, 10), reads = strtoull(argv[2], 0, 10);
    size_t repeats = strtoull(argv[3], 0, 10);
    double least_ns = strtoull(argv[4], 0, 10) * 1e6;
    if (bytes < 4096 || (bytes & (bytes - 1)) || bytes / LINE > UINT32_MAX || !reads || !repeats) {
        fprintf(stderr, "BYTES must be a power of two from 4096 (the row's sizes), READS and "
                        "REPEATS at least 1\n");
        return 2;
    }
    char *a = calloc(bytes, 1);
    uint32_t *order = malloc(bytes / LINE * sizeof *order);
    if (!a || !order) return 2;
    void **p = (void **)a;
    double best = 1e300;
    uint64_t hash = 0;
    for (size_t size = 4096; size <= bytes; size *= 2) {
        size_t lines = size / LINE;
        hash = link_cycle(a, order, lines);
        p = (void **)a;
        for (size_t i = 0, warm = lines <= WARM_LINES ? lines : reads; i < warm; i++) p = *p;
        best = 1e300;
        double began = now_ns();
        for (size_t r = 0; r < repeats || now_ns() - began < least_ns; r++) {
            double t0 = now_ns();
            for (size_t i = 0; i < reads; i++) p = *p;
            double t = (now_ns() - t0) / reads;
            if (t < best) best = t;
        }
        printf("at %zu bytes: %.4f nanoseconds\n", size, best);
    }
    printf("pointer chase: %.4f nanoseconds\n", best);
    printf("cycle hash: %016llx\n", (unsigned long long)hash);
    return p == 0;
}
