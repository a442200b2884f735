/* build_speed.c -- one endgame table built on one thread, timed: the builder
 * (csrc/tables_build.c) alone, without Python, so that two versions of it
 * can be run one after the other on the same machine and compared.
 *
 * Build it with every C source of csrc/ and run it (not part of the package,
 * nothing imports it), from the project's root:
 */
//   gcc -std=gnu11 -O3 -ffp-contract=off -Icsrc csrc/*.c bench/build_speed.c -o /tmp/build_speed -lm -pthread
//   /tmp/build_speed SHAPE FROZEN GOAL [FILE]
/* e.g. `/tmp/build_speed 3 5 6` for the goal-64 entry table (shapes: 0 snake,
 * 1 block, 2 chain, 3 entry). With FILE it writes the stored entries there,
 * to compare with a table file's body (`tail -c +65 TABLE.egt | cmp - FILE`).
 * Results: bench/RESULTS.md, "A build that holds three layers".
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "api.h"
#include "tables_build.h"

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s SHAPE FROZEN GOAL [FILE]\n", argv[0]);
        return 2;
    }
    int shape = atoi(argv[1]), frozen = atoi(argv[2]), goal = atoi(argv[3]);
    s2048_init();
    size_t entries = s2048_table_entries(shape, frozen, goal);
    s2048_builder *b = s2048_builder_new(shape, frozen, goal);
    uint8_t *stored = calloc(entries ? entries : 1, 1);
    if (!entries || !b || !stored) {
        fprintf(stderr, "%s: no such table, or no memory\n", argv[0]);
        return 2;
    }
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    int64_t written = 0;
    for (int sum = s2048_table_max_sum(shape, frozen, goal); sum >= 0; sum -= 2)
        written += s2048_builder_layer(b, sum, 0, 1, stored, NULL);
    clock_gettime(CLOCK_MONOTONIC, &end);
    printf("%lld of %zu entries in %.2f s; three layers of %zu entries held at 16 bits\n",
           (long long)written, entries,
           (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9,
           (size_t)s2048_table_widest_layer(shape, frozen, goal));
    if (argc > 4) {
        FILE *f = fopen(argv[4], "wb");
        if (!f || fwrite(stored, 1, entries, f) != entries || fclose(f) != 0) {
            fprintf(stderr, "%s: cannot write %s\n", argv[0], argv[4]);
            return 2;
        }
    }
    s2048_builder_free(b);
    free(stored);
    return written == (int64_t)entries ? 0 : 1;
}
