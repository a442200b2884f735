/* tt.h -- the fixed-size transposition table of the search.
 *
 * Open addressing over a power-of-two array of entries, probing TT_PROBES
 * neighbouring slots. An entry is keyed by (board, remaining depth) and is
 * valid only in the generation it was written in, so clearing the whole table
 * is one increment. Nothing is allocated after tt_init().
 */
#ifndef TT_H_INCLUDED
#define TT_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#include "board.h"

#define TT_PROBES 4

typedef struct {
    board_t board;
    double value;
    uint32_t generation;  /* 0 = never written */
    uint32_t depth;       /* remaining depth the value was searched to */
} tt_entry;

typedef struct {
    tt_entry *entries;    /* NULL when the table is off */
    size_t mask;          /* entry count - 1 */
    uint32_t generation;
} tt_table;

/* Allocates the largest power-of-two table that fits in bytes (plus the probe
 * overhang). Returns 0, or -1 when out of memory. bytes = 0 turns it off. */
int tt_init(tt_table *t, size_t bytes);
void tt_free(tt_table *t);
void tt_clear(tt_table *t);

/* Returns the slot index where (board, depth) would start its probe. */
static inline size_t tt_home(const tt_table *t, board_t board, int depth)
{
    uint64_t h = (board ^ ((uint64_t)depth << 59)) * 0x9e3779b97f4a7c15ULL;
    h ^= h >> 29;
    return (size_t)h & t->mask;
}

/* Looks up (board, depth) in the current generation: 1 and *value when found. */
static inline int tt_probe(const tt_table *t, board_t board, int depth, double *value)
{
    if (!t->entries) return 0;
    const tt_entry *e = t->entries + tt_home(t, board, depth);
    for (int i = 0; i < TT_PROBES; i++, e++) {
        if (e->generation == t->generation && e->board == board && e->depth == (uint32_t)depth) {
            *value = e->value;
            return 1;
        }
    }
    return 0;
}

/* Stores (board, depth) -> value: in a stale or matching slot if the probe
 * window has one, else over the shallowest entry, the cheapest to redo. */
static inline void tt_store(tt_table *t, board_t board, int depth, double value)
{
    if (!t->entries) return;
    tt_entry *e = t->entries + tt_home(t, board, depth);
    tt_entry *victim = e;
    for (int i = 0; i < TT_PROBES; i++) {
        if (e[i].generation != t->generation) { victim = e + i; break; }
        if (e[i].depth < victim->depth) victim = e + i;
    }
    victim->board = board;
    victim->value = value;
    victim->generation = t->generation;
    victim->depth = (uint32_t)depth;
}

#endif /* TT_H_INCLUDED */
