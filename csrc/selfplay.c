/* selfplay.c -- the loop in which the solver plays whole games.
 *
 * The loop lives in C so that at shallow depths a game runs at the speed of
 * the search: Python (solver/selfplay.py) sees finished chunks of moves, never
 * a single spawn. Each move comes from the endgame tables when one is trusted,
 * else from the search; the spawns come from the game's generator (rng.c).
 */
#include <string.h>

#include "api.h"
#include "moves.h"

/* Set by the build to a digest of csrc/ (solver/_ffi_build.py, engine_id). */
#ifndef S2048_ENGINE_ID
#define S2048_ENGINE_ID "unknown"
#endif

const char *s2048_engine_id(void)
{
    return S2048_ENGINE_ID;
}

void s2048_game_new(s2048_game *g, uint64_t seed)
{
    int cell, value;
    memset(g, 0, sizeof *g);  /* every count and flag starts at 0 */
    s2048_rng_seed(&g->rng, seed);
    g->board = s2048_spawn(&g->rng, 0, &cell, &value);
    g->board = s2048_spawn(&g->rng, g->board, &cell, &value);
}

void s2048_game_start(s2048_game *g, uint64_t seed, uint64_t low, uint16_t high)
{
    memset(g, 0, sizeof *g);
    s2048_rng_seed(&g->rng, seed);
    g->board = low;
    g->high = high;
    g->over = s2048_wide_is_game_over(low, high);
}

/* Returns the largest rank on a wide board: a cell's rank is its nibble,
 * plus 16 where its fifth bit is set. */
static int max_rank(board_t b, uint16_t high)
{
    int best = 0;
    for (int i = 0; i < 16; i++) {
        int rank = (int)(b >> (4 * i) & 0xf) + (high >> i & 1 ? 16 : 0);
        if (rank > best) best = rank;
    }
    return best;
}

/* Whether the game's board needs nothing of the ladder: no fifth bit, and no
 * two 32768s that a move could merge. Then it is its own 64-bit copy. */
static inline int on_fast_path(const s2048_game *g)
{
    return g->high == 0 && !board_has_two_maxed(g->board);
}

/* The lowest direction in a legal-move mask, or -1 for none. */
static int first_legal(int mask)
{
    for (int d = 0; d < 4; d++)
        if (mask >> d & 1) return d;
    return -1;
}

/* The best of the search's directions among the board's legal ones (mask),
 * as the search chooses; the board's first legal move when the search valued
 * none of them. */
static int best_legal(const s2048_result *r, int mask)
{
    int best = s2048_best_direction(r->values, r->legal & mask);
    return best >= 0 ? best : first_legal(mask);
}

/* Chooses the move for the game's board: from a table when one is sure
 * enough, else from the search, both on the board's 64-bit copy (ladder.c;
 * the board itself below 65536). Fills dir and depth of step, and probe with
 * the covering table's answer (dir -1 when none covers the board); returns 0,
 * or -1 when the search refuses its arguments. solver/decide.py makes the same
 * choice. */
static int choose_move(s2048_game *g, s2048_searcher *s, const s2048_eval *e,
                       const s2048_tableset *tables,
                       int depth, int danger, int quiescence, double time_ms, double prune, int *dir, s2048_step *step,
                       s2048_probe *probe)
{
    int fast = on_fast_path(g), lossless = 1;
    uint64_t copy = fast ? g->board : s2048_downgrade(g->board, g->high, &lossless);
    /* The copy may see a move the board cannot play: a merge of two 131072s
     * (no game holds them; a given board may), or, in a copy that had to join
     * two ranks, a merge of tiles that differ. On such a board only the
     * board's own moves are played; on any other the copy's are the board's. */
    int doubtful = !lossless || (!fast && wide_count_131072(g->board, g->high) >= 2);
    int board_legal = doubtful ? s2048_wide_legal_mask(g->board, g->high) : 15;
    probe->dir = -1;
    /* (For a table's move a guard: it leaves the frozen big tiles in place.) */
    if (tables && s2048_tables_probe(tables, copy, probe) && probe->trusted && (board_legal >> probe->dir & 1)) {
        *dir = probe->dir;
        step->depth = 0;
        step->from_table = 1;
        return 0;
    }
    s2048_result r;
    if (s2048_analyze(s, e, copy, depth, danger, quiescence, time_ms, prune, 0, &r) != 0) return -1;
    *dir = r.best;
    /* On a doubtful board the search's move may be one the board cannot play,
     * or none where the board has one (a copy that could not keep every
     * merge): the best of the board's own moves, which is the search's own
     * where the board can play it. */
    if (doubtful) *dir = best_legal(&r, board_legal);
    step->depth = (uint8_t)r.depth;
    step->from_table = 0;
    return 0;
}

/* Whether the game holds a tile of 32768 or more: a fifth bit (65536 and
 * up), or a nibble of 15. */
static int holds_32768(const s2048_game *g)
{
    return g->high != 0 || board_maxed_cells(g->board) != 0;
}

int s2048_game_play(s2048_game *g, s2048_searcher *s, const s2048_eval *e,
                    const s2048_tableset *tables,
                    int depth, int danger, int quiescence, int late_quiescence, double time_ms, double prune,
                    int stop_rank, s2048_step *steps, int max_steps)
{
    if (!g || !s || !e || (!steps && max_steps > 0) || max_steps < 0
        || late_quiescence < -1 || late_quiescence > 15 || stop_rank < 0 || stop_rank > 17) return -1;
    int played = 0;
    while (played < max_steps && !g->over) {
        s2048_step *step = &steps[played];
        int dir;
        s2048_probe probe;
        /* The last phase, from the first 32768 on, may look at other leaves
         * (docs/search.md, "Quiescence by the game's phase"). */
        int look = late_quiescence >= 0 && holds_32768(g) ? late_quiescence : quiescence;
        if (choose_move(g, s, e, tables, depth, danger, look, time_ms, prune, &dir, step, &probe) != 0)
            return -1;
        if (dir < 0) {
            g->over = 1;
            break;
        }
        played++;
        /* Where the tables lost sight of the game, for the death analysis
         * (solve2048.deaths): the last covered move, which table covered it,
         * its probability there and whether its move was played; and where
         * that covered stretch began, at what probability: a table that met
         * a board already lost, or lost one it had judged good. */
        if (probe.dir >= 0) {
            if (g->last_covered != g->moves || g->last_covered == 0) {
                g->stretch_start = g->moves + 1;
                g->stretch_probability = probe.probability;
            }
            g->last_covered = g->moves + 1;
            g->last_probe = probe;
        } else {
            g->uncovered_moves++;
        }
        uint64_t moved;
        uint16_t moved_high;
        uint32_t gain;
        if (on_fast_path(g)) {  /* the 64-bit board, as before the ladder: inlined */
            moved = board_move(g->board, dir);
            moved_high = 0;
            gain = board_move_gain(g->board, dir);
        } else if (s2048_wide_move(g->board, g->high, dir, &moved, &moved_high, &gain) < 0) {
            return -1;
        }
        step->dir = (uint8_t)dir;
        step->gain = gain;
        if (step->from_table) g->table_moves++;
        else g->last_depth = step->depth;
        g->score += step->gain;
        g->moves++;
        /* The win is the merge that makes the first 2048: a game from a given
         * board that already holds one was not won by its first move. The
         * stop, alike, is the merge that first makes a tile of stop_rank. */
        int rank_before = max_rank(g->board, g->high), rank_after = max_rank(moved, moved_high);
        if (!g->won_at && rank_after >= 11 && rank_before < 11)
            g->won_at = g->moves;
        int stop = stop_rank && rank_after >= stop_rank && rank_before < stop_rank;

        int cell, value;
        g->board = moved_high ? s2048_wide_spawn(&g->rng, moved, moved_high, &cell, &value)
                              : s2048_spawn(&g->rng, moved, &cell, &value);
        g->high = moved_high;
        step->board = g->board;
        step->high = g->high;
        step->spawn_cell = (uint8_t)cell;
        step->spawn_value = (uint8_t)value;

        if (g->high ? s2048_wide_is_game_over(g->board, g->high) : s2048_is_game_over(g->board)) g->over = 1;
        if (stop) break;
    }
    return played;
}
