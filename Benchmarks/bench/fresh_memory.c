/* How much first touch of fresh anonymous memory costs on this machine, 4 KB pages against 2 MB pages
 * (MADV_HUGEPAGE), optionally populated in one call (MADV_POPULATE_WRITE). On a guest whose kernel reports
 * free pages to its host, the 2 MB case swings by an order of magnitude with whether the host still backs
 * the blocks; see Benchmarks/RESULTS.md, "Index build speed", session 29.
 *   cc -O2 Benchmarks/bench/fresh_memory.c -o /tmp/fresh_memory
 *   for i in 1 2 3; do for h in 0 1; do sleep 3; /tmp/fresh_memory 100 $h 0; done; done   (MB HUGE POPULATE) */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: %s MB HUGE(0|1) POPULATE(0|1)\n", argv[0]); return 2; }
    size_t length = (size_t)atoi(argv[1]) << 20;
    int huge = atoi(argv[2]), populate = atoi(argv[3]);
    double t0 = now();
    char *p = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) { perror("mmap"); return 1; }
    if (huge) madvise(p, length, MADV_HUGEPAGE);
    if (populate) madvise(p, length, MADV_POPULATE_WRITE);
    double t1 = now();
    for (size_t i = 0; i < length; i += 4096) p[i] = 1;
    double t2 = now();
    printf("%s MB huge=%d populate=%d: map+populate %.1f ms, touch %.1f ms, total %.1f ms\n", argv[1], huge, populate,
           (t1 - t0) * 1e3, (t2 - t1) * 1e3, (t2 - t0) * 1e3);
    return 0;
}
