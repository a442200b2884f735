/* tables_build.c -- building the endgame tables, layer by layer, and their
 * checksum: the C half of solver/tables_build.py, which drives it.
 *
 * See formations.h for the formations. solver/reference_tables.py solves the
 * same tables in plain Python from the rules; tests compare the two entry for
 * entry.
 *
 * An entry's probability is the best, over the moves that leave every frozen
 * cell unchanged, of
 *   1                          when the move reaches the goal (rank g on a
 *                              target cell for a snake or a block; a ready
 *                              chain for a chain; g on (1,2) with a ready
 *                              pair beside it for an entry),
 *   0                          when it lifts a free tile over its cap (rank
 *                              g anywhere else, for a snake or a block),
 *   the mean over the free empty cells of 0.9 P(spawn 2) + 0.1 P(spawn 4)
 *                              otherwise, with P read from the table itself.
 * No allowed move gives 0. The frozen cells are built as placeholders of rank
 * 14 and 15 in a checkerboard, so they are above every free tile and no two
 * neighbours merge: on a real board the same holds when every frozen tile
 * beside a free cell is above that cell's cap and no two frozen neighbours
 * are equal, and then the real board and the table's board move alike.
 */
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "formations.h"
#include "moves.h"
#include "tables_build.h"

/* A table is built a layer at a time, and a layer reads only the two above
 * it, so only three layers are held at 16 bits: each in a *window* of its
 * own, where an arrangement stands at its rank in its layer (its place among
 * the arrangements of the same sum, in index order). The entries of the whole
 * table are written once, as stored (8-bit) or built (16-bit) entries, and
 * never read back: the peak memory of a build is the table at one byte an
 * entry and three layers at two, instead of the table at two bytes. */
struct s2048_builder {
    formation f;
    int stride;          /* sums 0, 2, .. the most the free cells hold, and 2 over */
    uint8_t *reach;      /* reach[j * stride + s / 2]: cells 0..j-1 can hold s together */
    uint32_t *below;     /* below[(j * stride + s / 2) * 16 + r], s held by cells 0..j: the
                          * arrangements of their sum whose digit j is under r */
    const uint32_t *line[16];   /* cell j's part of below: the 16 terms of sum s from line[j] + 8 s */
    size_t widest;       /* the most arrangements of one layer */
    uint16_t *window[3]; /* the layer of sum s is window[s / 2 % 3] */
};

static uint32_t below(const s2048_builder *b, int j, int sum, int rank)
{
    return b->below[((size_t)j * b->stride + sum / 2) * 16 + rank];
}

static uint16_t *window_of(const s2048_builder *b, int sum)
{
    return b->window[sum / 2 % 3];
}

/* Where the spawns after `moved` (in layer `sum`) stand in the windows of
 * the layers above: for each empty free cell j, bit j of *empty_cells,
 * r2[j] in layer sum + 2 and r4[j] in layer sum + 4. Returns -1, and
 * nothing, when a free tile of `moved` is over its cap. A board's rank is the sum over its digits of
 * below(j, sum of cells 0..j, digit j); a spawn on cell j leaves the terms of
 * the cells under j as they are and adds its value to the sums of the cells
 * over it, so every spawn's rank comes from one pass each way, and each pass
 * goes only as far as the empty cells need. */
static int spawn_ranks(const s2048_builder *b, board_t moved, unsigned *empty_cells, uint32_t *r2, uint32_t *r4)
{
    const formation *f = &b->f;
    int n = f->free_count;
    /* Each cell's term at its own sum, and at 2 and 4 more (the next two
     * lines of the table); for an empty cell, where a spawn's term is. */
    uint32_t at0[16], at2[16], at4[16], spawn2[16], spawn4[16];
    int sum = 0, lowest = n, highest = -1;
    unsigned empties = 0;
    for (int j = 0; j < n; j++) {
        int digit = (int)(moved >> f->shift[j] & 0xf);
        if (digit > f->cap[j]) return -1;
        sum += digit ? 1 << digit : 0;
        const uint32_t *line = b->line[j] + sum * 8;
        at0[j] = line[digit];
        at2[j] = line[16 + digit];
        at4[j] = line[32 + digit];
        if (!digit) {
            if (lowest == n) lowest = j;
            highest = j;
            empties |= 1u << j;
            spawn2[j] = line[16 + 1];
            spawn4[j] = line[32 + 2];
        }
    }
    *empty_cells = empties;
    if (highest < 0) return 0;   /* no spawn: never after an allowed move */
    uint64_t under[16];   /* under[j]: the terms of cells 0..j-1 */
    uint64_t u = 0;
    for (int j = 0; j <= highest; j++) {
        under[j] = u;
        u += at0[j];
    }
    uint64_t over2 = 0, over4 = 0;   /* the terms of the cells over j, at 2 or 4 more */
    for (int j = n - 1; j >= lowest; j--) {
        if (empties >> j & 1) {
            r2[j] = (uint32_t)(under[j] + spawn2[j] + over2);
            r4[j] = f->cap[j] >= 2 ? (uint32_t)(under[j] + spawn4[j] + over4) : 0;
        }
        over2 += at2[j];
        over4 += at4[j];
    }
    return 0;
}

/* The moves of one arrangement: the board after each, whether it is allowed
 * (-2: it changes nothing or moves a frozen tile; -1: it lifts a free tile
 * over its cap; 0: it stays in the formation), and where its spawns stand. */
typedef struct {
    board_t moved[4];
    int kind[4];
    unsigned empties[4];   /* bit j: free cell j is empty after the move */
    uint32_t r2[4][16], r4[4][16];
} moves_of;

static void find_moves(const s2048_builder *b, board_t board, moves_of *m)
{
    const formation *f = &b->f;
    for (int dir = 0; dir < 4; dir++) {
        m->moved[dir] = board_move(board, dir);
        int allowed = m->moved[dir] != board && !((m->moved[dir] ^ board) & f->frozen_bits);
        m->kind[dir] = !allowed ? -2 : spawn_ranks(b, m->moved[dir], &m->empties[dir], m->r2[dir], m->r4[dir]);
    }
}

/* Asks the memory for every entry after_move will read for move dir. */
static void prefetch_spawns(const s2048_builder *b, int sum, const moves_of *m, int dir)
{
    const formation *f = &b->f;
    const uint16_t *above2 = window_of(b, sum + 2), *above4 = window_of(b, sum + 4);
    for (unsigned left = m->empties[dir]; left; left &= left - 1) {
        int j = __builtin_ctz(left);
        __builtin_prefetch(above2 + m->r2[dir][j]);
        if (f->cap[j] >= 2) __builtin_prefetch(above4 + m->r4[dir][j]);
    }
}

/* The probability of the goal after move dir (before its spawn). */
static double after_move(const s2048_builder *b, int sum, const moves_of *m, int dir)
{
    const formation *f = &b->f;
    board_t moved = m->moved[dir];
    /* A snake or block goal counts wherever the other tiles are; a chain, or
     * an entry block's goal tile and pair, only within the caps. */
    int capped_goal = f->shape == EG_CHAIN || f->shape == EG_ENTRY;
    if (!capped_goal && eg_goal_reached(f, moved)) return 1.0;
    if (m->kind[dir] < 0) return 0.0;
    if (capped_goal && eg_goal_reached(f, moved)) return 1.0;
    const uint16_t *above2 = window_of(b, sum + 2), *above4 = window_of(b, sum + 4);
    double total = 0.0;
    int empty = 0;
    for (unsigned left = m->empties[dir]; left; left &= left - 1) {
        int j = __builtin_ctz(left);
        /* A spawn over the cell's cap breaks the formation: probability 0. */
        double p2 = eg_entry_prob(above2[m->r2[dir][j]]);
        double p4 = f->cap[j] >= 2 ? eg_entry_prob(above4[m->r4[dir][j]]) : 0.0;
        total += 0.9 * p2 + 0.1 * p4;
        empty++;
    }
    /* An allowed move changes only free cells, so one is empty afterwards. */
    return total / empty;
}

/* The entry of one arrangement: best allowed move, first of equals. */
static uint16_t solve_entry(const s2048_builder *b, int sum, const moves_of *m)
{
    int best_dir = -1;
    double best = 0.0;
    for (int dir = 0; dir < 4; dir++) {
        if (m->kind[dir] == -2) continue;
        double p = after_move(b, sum, m, dir);
        if (best_dir < 0 || p > best) {
            best = p;
            best_dir = dir;
        }
    }
    if (best_dir < 0) return 0;
    uint16_t q = (uint16_t)(best * EG_PROB_ONE + 0.5);
    return (uint16_t)(q << 2 | best_dir);
}

/* Arrangements are solved a batch at a time: first every entry the batch
 * will read or write is asked of the memory, then they are solved. A layer's
 * reads miss the caches, and asked for together they wait for the memory
 * once instead of one after the other. Entries of one layer never read each
 * other, so the order is free. */
#define EG_BATCH 16
#define EG_DEAL_DIGITS 5

typedef struct {
    const s2048_builder *b;
    int sum;
    uint8_t *stored;   /* the table's stored entries, by index, or NULL */
    uint16_t *built;   /* its built entries, by index, or NULL */
    int part, parts;
    int deal_at;      /* the digit below the ones whose values are dealt out */
    uint64_t dealt;   /* prefixes of those digits met so far */
    int64_t written;
    int queued;       /* arrangements waiting in board, at and rank */
    board_t board[EG_BATCH];
    size_t at[EG_BATCH];
    uint32_t rank[EG_BATCH];
} layer_walk;

static void solve_batch(layer_walk *w)
{
    moves_of ms[EG_BATCH];   /* 9 KB */
    uint16_t *layer = window_of(w->b, w->sum);
    for (int i = 0; i < w->queued; i++) {
        find_moves(w->b, w->board[i], &ms[i]);
        for (int dir = 0; dir < 4; dir++)
            if (ms[i].kind[dir] == 0) prefetch_spawns(w->b, w->sum, &ms[i], dir);
        if (w->stored) __builtin_prefetch(w->stored + w->at[i], 1);
        if (w->built) __builtin_prefetch(w->built + w->at[i], 1);
    }
    for (int i = 0; i < w->queued; i++) {
        uint16_t entry = solve_entry(w->b, w->sum, &ms[i]);
        layer[w->rank[i]] = entry;
        if (w->stored) w->stored[w->at[i]] = eg_store(entry);
        if (w->built) w->built[w->at[i]] = entry;
    }
    w->written += w->queued;
    w->queued = 0;
}

static void solve_into(layer_walk *w, board_t board, size_t index, uint32_t rank)
{
    w->board[w->queued] = board;
    w->at[w->queued] = index;
    w->rank[w->queued++] = rank;
    if (w->queued == EG_BATCH) solve_batch(w);
}

/* Visits every arrangement of free cells j, j-1 .. 0 adding up to `left`,
 * from the most significant digit down, so that a layer's entries are met in
 * increasing index order, and rank order. The arrangements are dealt to the
 * parts by the values of their top digits: each part walks only its own
 * prefixes and writes regions of its own (dealt one by one, two threads would
 * share every cache line they write). */
static void walk(layer_walk *w, int j, int left, board_t board, size_t index, uint32_t rank)
{
    const s2048_builder *b = w->b;
    const formation *f = &b->f;
    if (j == w->deal_at && w->dealt++ % (uint64_t)w->parts != (uint64_t)w->part) return;
    if (j == 0) {
        /* The last digit is what is left, if a cell can hold it. */
        if (left == 0) {
            solve_into(w, board, index, rank);
        } else if (!(left & (left - 1)) && left >= 2) {
            int r = __builtin_ctz((unsigned)left);
            if (r <= f->cap[0])
                solve_into(w, board | (board_t)r << f->shift[0], index + (size_t)r, rank + below(b, 0, left, r));
        }
        return;
    }
    const uint8_t *reach = b->reach + (size_t)j * b->stride;
    for (int r = 0; r <= f->cap[j]; r++) {
        int value = r ? 1 << r : 0;
        if (value > left) break;
        if (!reach[(left - value) / 2]) continue;   /* the cells below cannot hold the rest */
        walk(w, j - 1, left - value, board | (board_t)r << f->shift[j],
             index + (size_t)r * f->power[j], rank + below(b, j, left, r));
    }
}

void s2048_builder_free(s2048_builder *b)
{
    if (!b) return;
    for (int i = 0; i < 3; i++) free(b->window[i]);
    free(b->below);
    free(b->reach);
    free(b);
}

/* Counts the arrangements of each sum, cells 0..j-1 at a time, for the walk
 * (reach), the ranks (below) and the windows (widest). */
static int count_layers(s2048_builder *b)
{
    const formation *f = &b->f;
    int n = f->free_count, stride = b->stride;
    uint64_t *count = calloc((size_t)(n + 1) * stride, sizeof *count);
    b->reach = calloc((size_t)(n + 1) * stride, 1);
    b->below = calloc((size_t)n * stride * 16, sizeof *b->below);
    if (!count || !b->reach || !b->below) {
        free(count);
        return -1;
    }
    count[0] = 1;
    for (int j = 0; j < n; j++)
        for (int s = 0; s < stride; s++) {
            /* cells 0..j hold 2s: digit j of value v, cells under it 2s - v */
            uint64_t under = 0;
            for (int r = 0; r <= f->cap[j]; r++) {
                int half = r ? 1 << (r - 1) : 0;
                if (half > s) break;
                if (under > UINT32_MAX) {
                    free(count);
                    return -1;   /* a layer too wide for 32-bit ranks */
                }
                b->below[((size_t)j * stride + s) * 16 + r] = (uint32_t)under;
                under += count[(size_t)j * stride + s - half];
            }
            count[(size_t)(j + 1) * stride + s] = under;
        }
    for (size_t i = 0; i < (size_t)(n + 1) * stride; i++) b->reach[i] = count[i] != 0;
    for (int j = 0; j < n; j++) b->line[j] = b->below + (size_t)j * stride * 16;
    b->widest = 0;
    for (int s = 0; s < stride; s++)
        if (count[(size_t)n * stride + s] > b->widest) b->widest = count[(size_t)n * stride + s];
    free(count);
    return b->widest > UINT32_MAX ? -1 : 0;
}

/* A builder with its counts and no windows yet: enough to say how wide its
 * layers are. NULL for an unsupported triple, or no memory. */
static s2048_builder *counted_builder(int shape, int frozen, int goal)
{
    s2048_builder *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    if (eg_formation_init(&b->f, shape, frozen, goal) != 0) {
        free(b);
        return NULL;
    }
    /* Two sums over the most the cells hold: the terms of a spawn's rank are
     * looked up at the sums of the board with the spawn on it. */
    b->stride = b->f.sum_after[0] / 2 + 3;
    if (count_layers(b) != 0) {
        s2048_builder_free(b);
        return NULL;
    }
    return b;
}

s2048_builder *s2048_builder_new(int shape, int frozen, int goal)
{
    s2048_builder *b = counted_builder(shape, frozen, goal);
    if (!b) return NULL;
    for (int i = 0; i < 3; i++) {
        b->window[i] = calloc(b->widest ? b->widest : 1, sizeof *b->window[i]);
        if (!b->window[i]) {
            s2048_builder_free(b);
            return NULL;
        }
    }
    return b;
}

int64_t s2048_table_widest_layer(int shape, int frozen, int goal)
{
    /* Without the windows: a count needs none of the layers it counts. */
    s2048_builder *b = counted_builder(shape, frozen, goal);
    if (!b) return -1;
    int64_t widest = (int64_t)b->widest;
    s2048_builder_free(b);
    return widest;
}

int64_t s2048_builder_layer(s2048_builder *b, int sum, int part, int parts, uint8_t *stored, uint16_t *built)
{
    const formation *f = &b->f;
    if (sum < 0 || sum & 1 || sum > f->sum_after[0] || parts < 1 || part < 0 || part >= parts)
        return -1;
    /* Dealt by the values of the top five digits: thousands of prefixes,
     * which share a layer within a percent or so. */
    int deal_at = f->free_count > EG_DEAL_DIGITS ? f->free_count - 1 - EG_DEAL_DIGITS : 0;
    layer_walk w = {b, sum, stored, built, part, parts, deal_at, 0, 0, 0, {0}, {0}, {0}};
    if (b->reach[(size_t)f->free_count * b->stride + sum / 2])
        walk(&w, f->free_count - 1, sum, f->placeholders, 0, 0);
    solve_batch(&w);
    return w.written;
}

void s2048_table_store(const uint16_t *built, uint8_t *stored, size_t n)
{
    for (size_t i = 0; i < n; i++) stored[i] = eg_store(built[i]);
}

/* FNV-1a over 64-bit words, then over the bytes left. */
uint64_t s2048_table_checksum(const uint8_t *table, size_t n)
{
    return s2048_table_checksum_more(0xcbf29ce484222325ULL, table, n);
}

uint64_t s2048_table_checksum_more(uint64_t h, const uint8_t *table, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t word;
        memcpy(&word, table + i, sizeof word);
        h = (h ^ word) * 0x100000001b3ULL;
    }
    for (; i < n; i++) h = (h ^ table[i]) * 0x100000001b3ULL;
    return h;
}

uint64_t s2048_table_checksum_v1(const uint16_t *table, size_t n)
{
    uint64_t h = s2048_table_checksum((const uint8_t *)table, 2 * (n - n % 4));
    for (size_t i = n - n % 4; i < n; i++) h = (h ^ table[i]) * 0x100000001b3ULL;
    return h;
}
