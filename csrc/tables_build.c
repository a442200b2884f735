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

/* The probability of the goal after a move to `moved` (before its spawn),
 * whose free cells stand at `index` in the table (-1: one over its cap). */
static double after_move(const formation *f, const uint16_t *table, board_t moved, int64_t index)
{
    /* A snake or block goal counts wherever the other tiles are; a chain, or
     * an entry block's goal tile and pair, only within the caps. */
    int capped_goal = f->shape == EG_CHAIN || f->shape == EG_ENTRY;
    if (!capped_goal && eg_goal_reached(f, moved)) return 1.0;
    if (index < 0) return 0.0;
    if (capped_goal && eg_goal_reached(f, moved)) return 1.0;
    double sum = 0.0;
    int empty = 0;
    for (int j = 0; j < f->free_count; j++) {
        if (moved >> f->shift[j] & 0xf) continue;
        /* A spawn over the cell's cap breaks the formation: probability 0. */
        double p2 = eg_entry_prob(table[(size_t)index + f->power[j]]);
        double p4 = f->cap[j] >= 2 ? eg_entry_prob(table[(size_t)index + 2 * f->power[j]]) : 0.0;
        sum += 0.9 * p2 + 0.1 * p4;
        empty++;
    }
    /* An allowed move changes only free cells, so one is empty afterwards. */
    return sum / empty;
}

/* Asks the memory for every entry after_move will read for `moved`. */
static void prefetch_spawns(const formation *f, const uint16_t *table, board_t moved, int64_t index)
{
    for (int j = 0; j < f->free_count; j++) {
        if (moved >> f->shift[j] & 0xf) continue;
        __builtin_prefetch(table + (size_t)index + f->power[j]);
        if (f->cap[j] >= 2) __builtin_prefetch(table + (size_t)index + 2 * f->power[j]);
    }
}

/* The moves of one arrangement: the board after each, and where its free
 * cells stand in the table (-1: one over its cap; -2: the move is not allowed:
 * it changes nothing or moves a frozen tile). */
typedef struct {
    board_t moved[4];
    int64_t index[4];
} moves_of;

static void find_moves(const formation *f, board_t b, moves_of *m)
{
    for (int dir = 0; dir < 4; dir++) {
        m->moved[dir] = board_move(b, dir);
        int allowed = m->moved[dir] != b && !((m->moved[dir] ^ b) & f->frozen_bits);
        m->index[dir] = allowed ? eg_free_index(f, m->moved[dir]) : -2;
    }
}

/* The entry of one arrangement: best allowed move, first of equals. */
static uint16_t solve_entry(const formation *f, const uint16_t *table, const moves_of *m)
{
    int best_dir = -1;
    double best = 0.0;
    for (int dir = 0; dir < 4; dir++) {
        if (m->index[dir] == -2) continue;
        double p = after_move(f, table, m->moved[dir], m->index[dir]);
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
 * will read or write is asked of the memory, then they are solved. A big
 * table's reads and writes miss the caches (a layer's entries lie about a
 * thousand apart), and asked for together they wait for the memory once
 * instead of one after the other. Entries of one layer never read each
 * other, so the order is free. */
#define EG_BATCH 16
#define EG_DEAL_DIGITS 5

typedef struct {
    const formation *f;
    uint16_t *table;
    int part, parts;
    int deal_at;      /* the digit below the ones whose values are dealt out */
    uint64_t dealt;   /* prefixes of those digits met so far */
    int64_t written;
    const uint8_t *reach;   /* reach[j * stride + s / 2]: cells 0..j-1 can hold s together */
    int stride;
    int queued;       /* arrangements waiting in board and at */
    board_t board[EG_BATCH];
    size_t at[EG_BATCH];
} layer_walk;

static void solve_batch(layer_walk *w)
{
    moves_of m[EG_BATCH];
    for (int i = 0; i < w->queued; i++) {
        find_moves(w->f, w->board[i], &m[i]);
        for (int dir = 0; dir < 4; dir++)
            if (m[i].index[dir] >= 0) prefetch_spawns(w->f, w->table, m[i].moved[dir], m[i].index[dir]);
        __builtin_prefetch(w->table + w->at[i], 1);
    }
    for (int i = 0; i < w->queued; i++) w->table[w->at[i]] = solve_entry(w->f, w->table, &m[i]);
    w->written += w->queued;
    w->queued = 0;
}

static void solve_into(layer_walk *w, board_t b, size_t index)
{
    w->board[w->queued] = b;
    w->at[w->queued++] = index;
    if (w->queued == EG_BATCH) solve_batch(w);
}

/* Visits every arrangement of free cells j, j-1 .. 0 adding up to `left`,
 * from the most significant digit down, so that a layer's entries are written
 * in increasing index order and the ones read for them lie close together.
 * The arrangements are dealt to the parts by the values of their top digits:
 * each part walks only its own prefixes and writes regions of its own (dealt
 * one by one, two threads would share every cache line they write). */
static void walk(layer_walk *w, int j, int left, board_t b, size_t index)
{
    const formation *f = w->f;
    if (j == w->deal_at && w->dealt++ % (uint64_t)w->parts != (uint64_t)w->part) return;
    if (j == 0) {
        /* The last digit is what is left, if a cell can hold it. */
        if (left == 0) {
            solve_into(w, b, index);
        } else if (!(left & (left - 1)) && left >= 2) {
            int rank = __builtin_ctz((unsigned)left);
            if (rank <= f->cap[0]) solve_into(w, b | (board_t)rank << f->shift[0], index + (size_t)rank);
        }
        return;
    }
    const uint8_t *reach = w->reach + (size_t)j * w->stride;
    for (int rank = 0; rank <= f->cap[j]; rank++) {
        int value = rank ? 1 << rank : 0;
        if (value > left) break;
        if (!reach[(left - value) / 2]) continue;   /* the cells below cannot hold the rest */
        walk(w, j - 1, left - value, b | (board_t)rank << f->shift[j],
             index + (size_t)rank * f->power[j]);
    }
}

int64_t s2048_table_build_layer(int shape, int frozen, int goal, uint16_t *table,
                                int sum, int part, int parts)
{
    formation f;
    if (!table || eg_formation_init(&f, shape, frozen, goal) != 0 || sum < 0 || sum & 1
        || parts < 1 || part < 0 || part >= parts)
        return -1;
    /* Dealt by the values of the top five digits: thousands of prefixes,
     * which share a layer within a percent or so. */
    int deal_at = f.free_count > EG_DEAL_DIGITS ? f.free_count - 1 - EG_DEAL_DIGITS : 0;
    /* Which sums the lowest j cells can hold, so that the walk never enters
     * a branch without an arrangement. */
    int stride = f.sum_after[0] / 2 + 1;
    uint8_t *reach = calloc((size_t)(f.free_count + 1) * stride, 1);
    if (!reach) return -1;
    reach[0] = 1;
    for (int j = 0; j < f.free_count; j++)
        for (int s = 0; s < stride; s++)
            for (int rank = 0; rank <= f.cap[j] && reach[(size_t)j * stride + s]; rank++) {
                int to = s + (rank ? 1 << (rank - 1) : 0);
                if (to < stride) reach[(size_t)(j + 1) * stride + to] = 1;
            }
    layer_walk w = {&f, table, part, parts, deal_at, 0, 0, reach, stride, 0, {0}, {0}};
    if (sum / 2 < stride && reach[(size_t)f.free_count * stride + sum / 2])
        walk(&w, f.free_count - 1, sum, f.placeholders, 0);
    solve_batch(&w);
    free(reach);
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
