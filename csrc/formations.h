/* formations.h -- what a formation of the endgame tables is: its shape, its
 * frozen and free cells, the caps on the free cells, the index of a board's
 * free cells in its table and the goal tests. The builder (tables_build.c)
 * and the look-up (tables_probe.c) both stand on it.
 *
 * A formation is a shape and k, the number of frozen cells: k cells that hold
 * big tiles that must not move; the other 16 - k cells are free. There are
 * four shapes: EG_SNAKE, EG_BLOCK, EG_CHAIN and EG_ENTRY (below). The anchor
 * is the last frozen cell, and the goal is a tile of the anchor's rank g on a
 * target cell (a snake or a block), a ready chain (a chain) or the block's
 * missing tile with a ready pair beside it (an entry). In a snake, the frozen
 * cells are the first k cells of the snake path, and the target is the first
 * free one:
 *
 *      path order            k = 7: F frozen, A anchor, T target, . free
 *    0  1  2  3               F  F  F  F
 *    7  6  5  4               T  A  F  F
 *    8  9 10 11               .  .  .  .
 *   15 14 13 12               .  .  .  .
 *
 * A table for (shape, k, g) holds, for every arrangement of ranks within the
 * caps on the free cells (ranks 0..g-1 for a snake or a block), the
 * probability of reaching the goal under optimal play without moving a frozen
 * tile, and the move that achieves it. Its index is the arrangement read as a
 * mixed-radix number, free cell j being digit j, of base cap_j + 1 (base g for
 * a snake or a block).
 */
#ifndef FORMATIONS_H_INCLUDED
#define FORMATIONS_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#include "board.h"

/* Shapes: how the frozen cells lie. EG_BLOCK formations freeze the top-left
 * block of 3 columns and k / 3 rows (k = 6 or 9), cells in reading order; the
 * anchor is the block's bottom-right cell and the goal may land on either
 * free neighbour of it:
 *
 *      k = 9: F frozen, A anchor, T targets, . free
 *               F  F  F  .
 *               F  F  F  .
 *               F  F  A  T
 *               .  .  T  .
 */
#define EG_SNAKE 0
#define EG_BLOCK 1
#define EG_CHAIN 2
#define EG_ENTRY 3
#define EG_SHAPES 4

/* EG_CHAIN (k = 6 only) freezes the top-left 3x2 block. Its anchor rank a is
 * the smallest tile of the block's lower row, and the table is named by a
 * (its "goal" parameter). The free cells are capped below the anchor so that
 * none can ever merge into the block, and the table plays for a ready chain:
 * a-1 and a-2 in a line leading away from the block, then a-3 with a second
 * a-3 beside it, which a few moves collapse into a tile of rank a next to the
 * block. The ranks allowed per free cell:
 *
 *               F  F  F  a-1        two such chains count:
 *               F  F  F  a-2          along row 2: a-1 a-2 a-3 at (2,0..2),
 *             a-1 a-2 a-3 a-3           the second a-3 at (3,2) or (2,3),
 *             a-3 a-3 a-3 a-3           or a-3 at (3,1) and at (3,0) or (3,2);
 *                                     down column 3: a-1 a-2 a-3 at (0..2,3),
 *                                       the second a-3 at (2,2) or (3,3).
 * A move that lifts a free tile over its cap fails, as does a 4 spawned on a
 * cell capped at rank 1 (only in tiny test tables). */
#define EG_CHAIN_FROZEN 6
#define EG_CHAIN_MIN_ANCHOR 4

/* EG_ENTRY (k = 5 only) builds the sixth tile of the chain block: the 3x2
 * block without (1,2) is frozen, and the table (named by its goal rank g)
 * plays for g on (1,2) with two tiles of rank g-1 side by side next to it,
 * one merge away from g+1 on (1,2). On a board, g is one below the smaller
 * of (1,1) and (0,2), or the highest table built when that is higher, so
 * the goal tile can never merge into the block. The ranks allowed:
 *
 *               F  F  F  g-1        the ready pair of g-1 (h = g-1):
 *               F  F  g  g-1          h on (1,3) and on (0,3) or (2,3);
 *             g-1 g-1 g-1 g-1         or h on (0,3), h-1 on (1,3) and (2,3);
 *             g-2 g-2 g-2 g-2         or h on (2,2) and on (2,1), (3,2) or (2,3). */
#define EG_ENTRY_FROZEN 5
#define EG_ENTRY_GOAL_CELL 6   /* (1,2): the block's cell an entry table fills */
#define EG_ENTRY_MIN_GOAL 3
/* From goal 512 on, the bottom row is capped at 32, not g-2. The tables AI's
 * big table, goal 512 with 128 on the bottom row, has 21.8 billion entries;
 * with 32 it has 6.9 billion (6.9 GB stored), and against a cap of 16 (3.3
 * billion, which in real depth-5 games holds 93% of the boards the wider caps
 * hold) it reached 32768 in 2.9 +- 1.1 points more of 1,000 paired games at
 * depth 5 (bench/RESULTS.md, "The goal-512 entry table with 32 on its bottom
 * row"). 64 would need 12.8 billion entries, 25.5 GB while it is built. */
#define EG_ENTRY_LOW_BOTTOM 9
#define EG_ENTRY_BOTTOM_CAP 5

#define EG_MIN_FROZEN 6     /* 10 free cells */
#define EG_MAX_FROZEN 13    /* 3 free cells */
#define EG_MIN_GOAL 3       /* a spawn (rank 1 or 2) is always below the goal */
#define EG_MAX_GOAL 13      /* frozen placeholders 14 and 15 stay above it */
#define EG_PROB_ONE 16383   /* the builder's probabilities are 14-bit fixed point */
#define EG_STORED_ONE 60    /* a stored entry's are steps of 1/60 */

/* The cells of the snake path, row-major indices. */
extern const int eg_path[16];

/* A built entry (16 bits, while a table is built): probability
 * q / EG_PROB_ONE in the high 14 bits, direction in the low 2. */
static inline double eg_entry_prob(uint16_t entry) { return (double)(entry >> 2) / EG_PROB_ONE; }

/* A stored entry (8 bits, in a table file and in play): probability
 * c / EG_STORED_ONE in the high 6 bits, the same direction in the low 2.
 * Storing halves the set (15.0 GB to 7.5 GB for the six tables of
 * 2026-12-04). The moves are the exact ones of the build; only the
 * probability is coarser, and it is rounded down, so that "at least t" gives
 * the exact answer for every t on the 1/60 grid above 1/60 (the thresholds
 * 0.1, 0.8, 0.9 and 0.95 measured so far all are), and a probability above 0
 * stays above 0 (a chain table's threshold is "above 0"). */
static inline uint8_t eg_store(uint16_t entry)
{
    unsigned q = entry >> 2;
    unsigned c = q * EG_STORED_ONE / EG_PROB_ONE;
    if (q && !c) c = 1;
    return (uint8_t)(c << 2 | (entry & 3));
}
static inline double eg_stored_prob(uint8_t entry) { return (double)(entry >> 2) / EG_STORED_ONE; }
static inline int eg_stored_dir(uint8_t entry) { return entry & 3; }

/* One (shape, frozen, goal) triple, with everything the inner loops need. */
typedef struct {
    int shape;             /* EG_SNAKE, EG_BLOCK, EG_CHAIN or EG_ENTRY */
    int goal;              /* g; the anchor rank a of a chain */
    int free_count;        /* n = 16 - k */
    int order[16];         /* the frozen cells (anchor last), then the free ones */
    int targets[2];        /* cells where a snake's or a block's goal tile counts, -1 = none */
    board_t frozen_bits;   /* nibble mask of the frozen cells */
    board_t placeholders;  /* the frozen cells as ranks 14/15 */
    int shift[16];         /* free cell j lives at bit shift[j] */
    int cap[16];           /* the highest rank free cell j may hold */
    int sum_after[17];     /* the most free cells j.. can hold together */
    size_t power[16];      /* the weight of digit j: the product of cap + 1 below j */
    size_t entries;        /* the product of every cap + 1 */
} formation;

/* Fills f for (shape, frozen, goal). Returns 0, or -1 when the triple names
 * no formation with a table. */
int eg_formation_init(formation *f, int shape, int frozen, int goal);

/* The chain shape's cap on free cell `cell`, given the anchor rank. */
static inline int eg_chain_cap(int cell, int anchor)
{
    switch (cell) {
    case 3: case 8: return anchor - 1;   /* beside the block's ends */
    case 7: case 9: return anchor - 2;   /* one step further */
    default:        return anchor - 3;
    }
}

/* The index of board's free cells in f's table, or -1 when one is over its
 * cap. Inline: the builder calls it for every move of every entry. */
static inline int64_t eg_free_index(const formation *f, board_t b)
{
    size_t index = 0;
    for (int j = 0; j < f->free_count; j++) {
        int rank = (int)(b >> f->shift[j] & 0xf);
        if (rank > f->cap[j]) return -1;
        index += (size_t)rank * f->power[j];
    }
    return (int64_t)index;
}

/* 1 when the free cells of a chain formation with anchor rank a hold a ready
 * chain (above). */
static inline int eg_chain_ready(board_t b, int a)
{
    int r1 = a - 1, r2 = a - 2, r3 = a - 3;
    int along_row = board_at(b, 2, 0) == r1 && board_at(b, 2, 1) == r2
        && ((board_at(b, 2, 2) == r3 && (board_at(b, 3, 2) == r3 || board_at(b, 2, 3) == r3))
            || (board_at(b, 3, 1) == r3 && (board_at(b, 3, 0) == r3 || board_at(b, 3, 2) == r3)));
    int down_column = board_at(b, 0, 3) == r1 && board_at(b, 1, 3) == r2 && board_at(b, 2, 3) == r3
        && (board_at(b, 2, 2) == r3 || board_at(b, 3, 3) == r3);
    return along_row || down_column;
}

/* 1 when the free cells of an entry formation with goal rank g hold g on
 * (1,2) and a ready pair of g-1 beside it (above). */
static inline int eg_entry_ready(board_t b, int g)
{
    int h = g - 1;
    if (board_at(b, 1, 2) != g) return 0;
    return (board_at(b, 1, 3) == h && (board_at(b, 0, 3) == h || board_at(b, 2, 3) == h))
        || (board_at(b, 0, 3) == h && board_at(b, 1, 3) == h - 1 && board_at(b, 2, 3) == h - 1)
        || (board_at(b, 2, 2) == h
            && (board_at(b, 2, 1) == h || board_at(b, 3, 2) == h || board_at(b, 2, 3) == h));
}

/* 1 when `moved` has reached the formation's goal. */
static inline int eg_goal_reached(const formation *f, board_t moved)
{
    if (f->shape == EG_CHAIN) return eg_chain_ready(moved, f->goal);
    if (f->shape == EG_ENTRY) return eg_entry_ready(moved, f->goal);
    for (int t = 0; t < 2; t++)
        if (f->targets[t] >= 0 && (int)(moved >> (4 * f->targets[t]) & 0xf) == f->goal) return 1;
    return 0;
}

#endif /* FORMATIONS_H_INCLUDED */
