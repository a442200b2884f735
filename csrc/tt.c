/* tt.c -- allocation and clearing of the transposition table. */
#include <stdlib.h>
#include <string.h>

#include "tt.h"

int tt_init(tt_table *t, size_t bytes)
{
    t->entries = NULL;
    t->mask = 0;
    t->generation = 1;
    if (bytes < sizeof(tt_entry) * 2 * TT_PROBES) return 0;
    size_t count = 1;
    while (count * 2 * sizeof(tt_entry) <= bytes) count *= 2;
    /* TT_PROBES - 1 extra entries let a probe run past the last home slot. */
    t->entries = calloc(count + TT_PROBES - 1, sizeof(tt_entry));
    if (!t->entries) return -1;
    t->mask = count - 1;
    return 0;
}

void tt_free(tt_table *t)
{
    free(t->entries);
    t->entries = NULL;
}

void tt_clear(tt_table *t)
{
    if (++t->generation == 0) {
        /* After 2^32 clears the counter wraps: really wipe, then start at 1. */
        if (t->entries) memset(t->entries, 0, (t->mask + TT_PROBES) * sizeof(tt_entry));
        t->generation = 1;
    }
}
