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
#include <string.h>

#include "api.h"
#include "formations.h"
#include "moves.h"

/* The probability of the goal after a move to `moved` (before its spawn). */
static double after_move(const formation *f, const uint16_t *table, board_t moved)
{
    /* A snake or block goal counts wherever the other tiles are; a chain, or
     * an entry block's goal tile and pair, only within the caps. */
    int capped_goal = f->shape == EG_CHAIN || f->shape == EG_ENTRY;
    if (!capped_goal && eg_goal_reached(f, moved)) return 1.0;
    int64_t index = eg_free_index(f, moved);
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

/* The entry of one arrangement: best allowed move, first of equals. */
static uint16_t solve_entry(const formation *f, const uint16_t *table, board_t b)
{
    int best_dir = -1;
    double best = 0.0;
    for (int dir = 0; dir < 4; dir++) {
        board_t moved = board_move(b, dir);
        if (moved == b || ((moved ^ b) & f->frozen_bits)) continue;
        double p = after_move(f, table, moved);
        if (best_dir < 0 || p > best) {
            best = p;
            best_dir = dir;
        }
    }
    if (best_dir < 0) return 0;
    uint16_t q = (uint16_t)(best * EG_PROB_ONE + 0.5);
    return (uint16_t)(q << 2 | best_dir);
}

typedef struct {
    const formation *f;
    uint16_t *table;
    int part, parts;
    uint64_t dealt;   /* arrangements met so far, for the round-robin split */
    int64_t written;
} layer_walk;

/* Visits every arrangement of free cells j.. adding up to `left`. */
static void walk(layer_walk *w, int j, int left, board_t b, size_t index)
{
    const formation *f = w->f;
    if (j == f->free_count) {
        if (left == 0 && w->dealt++ % (uint64_t)w->parts == (uint64_t)w->part) {
            w->table[index] = solve_entry(f, w->table, b);
            w->written++;
        }
        return;
    }
    for (int rank = 0; rank <= f->cap[j]; rank++) {
        int value = rank ? 1 << rank : 0;
        if (value > left) break;
        if (left - value > f->sum_after[j + 1]) continue;
        walk(w, j + 1, left - value, b | (board_t)rank << f->shift[j],
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
    layer_walk w = {&f, table, part, parts, 0, 0};
    walk(&w, 0, sum, f.placeholders, 0);
    return w.written;
}

void s2048_table_store(const uint16_t *built, uint8_t *stored, size_t n)
{
    for (size_t i = 0; i < n; i++) stored[i] = eg_store(built[i]);
}

/* FNV-1a over 64-bit words, then over the bytes left. */
uint64_t s2048_table_checksum(const uint8_t *table, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
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
