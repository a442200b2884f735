/* game.c -- the seeded generator and the whole-game loop.
 *
 * The loop lives in C so that at shallow depths a game runs at the speed of
 * the search: Python sees finished chunks of moves, never a single spawn.
 *
 * A spawn draws two numbers, in this order: the cell, uniform over the empty
 * cells taken in increasing index; then the value, 4 when below(10) == 0
 * (p = 0.1) and 2 otherwise. solver/game.py documents the same and replays it.
 */
#include <string.h>

#include "api.h"
#include "moves.h"

/* SplitMix64: spreads one 64-bit seed over the generator's 256-bit state. */
static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void s2048_rng_seed(s2048_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&seed);
}

uint64_t s2048_rng_next(s2048_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint32_t s2048_rng_below(s2048_rng *r, uint32_t n)
{
    /* Lemire: the high half of a 32x32 product, rejecting the few low halves
     * that would favour some results. Uses the top 32 bits of each draw. */
    uint64_t m = (s2048_rng_next(r) >> 32) * n;
    uint32_t low = (uint32_t)m;
    if (low < n) {
        uint32_t threshold = (uint32_t)(-n) % n;
        while (low < threshold) {
            m = (s2048_rng_next(r) >> 32) * n;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

uint64_t s2048_spawn(s2048_rng *r, uint64_t board, int *cell, int *value)
{
    uint64_t empty = board_empty_mask(board);
    uint32_t k = s2048_rng_below(r, (uint32_t)nibble_flags_count(empty));
    int at = 0;
    /* Walk to the k-th empty cell. */
    for (;; at++) {
        if (empty >> (4 * at) & 1) {
            if (k == 0) break;
            k--;
        }
    }
    int rank = s2048_rng_below(r, 10) == 0 ? 2 : 1;
    *cell = at;
    *value = 1 << rank;
    return board | (uint64_t)rank << (4 * at);
}

void s2048_game_new(s2048_game *g, uint64_t seed)
{
    int cell, value;
    memset(g, 0, sizeof *g);  /* every count and flag starts at 0 */
    s2048_rng_seed(&g->rng, seed);
    g->board = s2048_spawn(&g->rng, 0, &cell, &value);
    g->board = s2048_spawn(&g->rng, g->board, &cell, &value);
}

/* Returns the largest exponent on the board. */
static int max_rank(board_t b)
{
    int best = 0;
    for (; b; b >>= 4)
        if ((int)(b & 0xf) > best) best = (int)(b & 0xf);
    return best;
}

/* Chooses the move for g->board: from a table when one is sure enough, else
 * from the search. Fills dir and depth of step; returns 0, or -1 when the
 * search refuses its arguments. */
static int choose_move(s2048_game *g, s2048_searcher *s, const s2048_eval *e,
                       const s2048_tableset *tables,
                       int depth, double time_ms, double prune, int *dir, s2048_step *step)
{
    s2048_probe probe;
    if (tables && s2048_tables_probe(tables, g->board, &probe) && probe.trusted) {
        *dir = probe.dir;
        step->depth = 0;
        step->from_table = 1;
        return 0;
    }
    s2048_result r;
    if (s2048_analyze(s, e, g->board, depth, time_ms, prune, 0, &r) != 0) return -1;
    *dir = r.best;
    step->depth = (uint8_t)r.depth;
    step->from_table = 0;
    return 0;
}

int s2048_game_play(s2048_game *g, s2048_searcher *s, const s2048_eval *e,
                    const s2048_tableset *tables,
                    int depth, double time_ms, double prune, int stop_at_win,
                    s2048_step *steps, int max_steps)
{
    if (!g || !s || !e || (!steps && max_steps > 0) || max_steps < 0) return -1;
    int played = 0;
    while (played < max_steps && !g->over) {
        s2048_step *step = &steps[played];
        int dir;
        if (choose_move(g, s, e, tables, depth, time_ms, prune, &dir, step) != 0)
            return -1;
        if (dir < 0) {
            g->over = 1;
            break;
        }
        played++;
        board_t moved = board_move(g->board, dir);
        step->dir = (uint8_t)dir;
        step->gain = board_move_gain(g->board, dir);
        if (step->from_table) g->table_moves++;
        else g->last_depth = step->depth;
        g->score += step->gain;
        g->moves++;
        if (!g->won_at && max_rank(moved) >= 11) g->won_at = g->moves;

        int cell, value;
        g->board = s2048_spawn(&g->rng, moved, &cell, &value);
        step->board = g->board;
        step->spawn_cell = (uint8_t)cell;
        step->spawn_value = (uint8_t)value;

        if (s2048_is_game_over(g->board)) g->over = 1;
        if (stop_at_win && g->won_at) break;
    }
    return played;
}
