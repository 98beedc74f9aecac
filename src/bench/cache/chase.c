/* The anchor of timeshare's cpu.cache (`timeshare crosscheck cpu.cache` builds it with cc):
 * a pointer chase over BYTES, the first word of each 64-byte line holding the address of
 * the next line in one random cycle (Sattolo's shuffle), timed as the row times a size:
 * REPEATS timings of READS dependent loads, the minimum printed in ns per load. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s BYTES READS REPEATS\n", argv[0]);
        return 2;
    }
    size_t bytes = strtoull(argv[1], 0, 10), reads = strtoull(argv[2], 0, 10);
    size_t repeats = strtoull(argv[3], 0, 10), lines = bytes / 64;
    char *a = malloc(bytes);
    uint32_t *order = malloc(lines * sizeof *order);
    if (lines < 2 || !a || !order || !reads || !repeats) return 2;
    uint64_t x = 0x9e3779b97f4a7c15ull ^ lines;
    for (size_t i = 0; i < lines; i++) order[i] = (uint32_t)i;
    for (size_t i = lines - 1; i > 0; i--) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t j = x % i;
        uint32_t t = order[i];
        order[i] = order[j], order[j] = t;
    }
    for (size_t k = 0; k < lines; k++)
        *(void **)(a + (size_t)order[k] * 64) = a + (size_t)order[(k + 1) % lines] * 64;
    void **p = (void **)a;
    for (size_t i = 0, warm = lines <= (1u << 20) ? lines : reads; i < warm; i++) p = *p;
    double best = 1e300;
    for (size_t r = 0; r < repeats; r++) {
        double t0 = now_ns();
        for (size_t i = 0; i < reads; i++) p = *p;
        double t = (now_ns() - t0) / reads;
        if (t < best) best = t;
    }
    printf("pointer chase: %.4f nanoseconds\n", best);
    return p == 0;
}
