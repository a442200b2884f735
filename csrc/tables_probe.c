/* tables_probe.c -- looking a board up in the endgame tables: the 8
 * symmetries (board.h), the set of attached tables, and the probe, which tries every
 * formation on every orientation of the board. It is the C half of the
 * look-up in solver/tables.py (TableSet.probe), and the C game loop
 * (selfplay.c) calls it for every move.
 */
#include <stdlib.h>

#include "api.h"
#include "formations.h"
#include "moves.h"

/* ---- looking up ---- */

struct s2048_tableset {
    const uint8_t *table[EG_SHAPES][EG_MAX_FROZEN + 1][EG_MAX_GOAL + 1];
    formation form[EG_SHAPES][EG_MAX_FROZEN + 1][EG_MAX_GOAL + 1];
    /* the least probability at which each table's answer is trusted */
    double min_prob[EG_SHAPES][EG_MAX_FROZEN + 1][EG_MAX_GOAL + 1];
    int entry_top;                /* the highest entry goal attached, 0 = none */
};

s2048_tableset *s2048_tableset_new(void) { return calloc(1, sizeof(s2048_tableset)); }

void s2048_tableset_free(s2048_tableset *ts) { free(ts); }

int s2048_tableset_add(s2048_tableset *ts, int shape, int frozen, int goal,
                       const uint8_t *table, size_t entries, double min_prob)
{
    formation f;
    if (!ts || !table || eg_formation_init(&f, shape, frozen, goal) != 0 || entries != f.entries
        || !(min_prob >= 0.0 && min_prob <= 1.0))
        return -1;
    ts->form[shape][frozen][goal] = f;
    ts->table[shape][frozen][goal] = table;
    ts->min_prob[shape][frozen][goal] = min_prob;
    if (shape == EG_ENTRY && goal > ts->entry_top) ts->entry_top = goal;
    return 0;
}

/* Keeps the table's answer for b when it is more confident than best's.
 * Returns 1 when the table is attached and b's free tiles are within its
 * caps (whatever the answer), else 0. */
static int consider(const s2048_tableset *ts, int shape, int k, int goal, board_t b, int s,
                    s2048_probe *best)
{
    const uint8_t *table = ts->table[shape][k][goal];
    if (!table) return 0;
    int64_t index = eg_free_index(&ts->form[shape][k][goal], b);
    if (index < 0) return 0;   /* a free tile over its cap */
    uint8_t entry = table[index];
    double p = eg_stored_prob(entry);
    int trusted = p >= ts->min_prob[shape][k][goal];
    /* A trusted answer beats any untrusted one, then the more probable wins. */
    if (entry >> 2 && (best->dir < 0 || trusted > best->trusted
                       || (trusted == best->trusted && p > best->probability))) {
        best->dir = symmetry_direction_back(s, eg_stored_dir(entry));
        best->probability = p;
        best->trusted = trusted;
        best->shape = shape;
        best->frozen = k;
        best->goal = goal;
    }
    return 1;
}

/* 1 when cell's frozen neighbours earlier on the path differ from it. */
static int unlike_frozen_neighbours(board_t b, int k)
{
    int cell = eg_path[k], rank = board_cell(b, cell);
    for (int i = 0; i < k; i++) {
        int other = eg_path[i];
        int dr = (other >> 2) - (cell >> 2), dc = (other & 3) - (cell & 3);
        if (dr * dr + dc * dc == 1 && board_cell(b, other) == rank) return 0;
    }
    return 1;
}

/* Tries every formation on one orientation of the board; keeps the best. */
static void probe_oriented(const s2048_tableset *ts, board_t b, int s, s2048_probe *best)
{
    int free_max[17];  /* free_max[k]: the highest rank on path cells k.. */
    free_max[16] = 0;
    for (int i = 15; i >= 0; i--) {
        int rank = board_cell(b, eg_path[i]);
        free_max[i] = rank > free_max[i + 1] ? rank : free_max[i + 1];
    }
    int frozen_min = 16;
    for (int k = 1; k <= EG_MAX_FROZEN; k++) {
        int rank = board_cell(b, eg_path[k - 1]);
        /* An empty or merging frozen cell spoils every longer formation too. */
        if (rank == 0 || !unlike_frozen_neighbours(b, k - 1)) return;
        if (rank < frozen_min) frozen_min = rank;
        /* The anchor must be the smallest frozen tile and above every free one. */
        if (k < EG_MIN_FROZEN || rank != frozen_min || rank > EG_MAX_GOAL
            || free_max[k] >= rank)
            continue;
        consider(ts, EG_SNAKE, k, rank, b, s, best);
    }
}

/* 1 when the top-left block of 3 columns and `rows` rows, less cell `skip`
 * (-1: none), is full and no two neighbours in it are equal: then it moves as
 * a table's placeholders do. */
static int block_distinct(board_t b, int rows, int skip)
{
    for (int row = 0; row < rows; row++)
        for (int col = 0; col < 3; col++) {
            int cell = 4 * row + col, rank = board_cell(b, cell);
            if (cell == skip) continue;
            if (rank == 0 || (col < 2 && cell + 1 != skip && board_at(b, row, col + 1) == rank)
                || (row + 1 < rows && cell + 4 != skip && board_at(b, row + 1, col) == rank))
                return 0;
        }
    return 1;
}

/* Tries the block formations on one orientation of the board. The free tiles
 * are checked against their caps (below the anchor) by consider(). */
static void probe_blocks(const s2048_tableset *ts, board_t b, int s, s2048_probe *best)
{
    for (int rows = 2; rows <= 3; rows++) {
        /* The anchor, the block's bottom-right cell, names the only table
         * that can cover the board; without it there is nothing to check. */
        int k = 3 * rows, goal = board_at(b, rows - 1, 2);
        if (goal < EG_MIN_GOAL || goal > EG_MAX_GOAL || !ts->table[EG_BLOCK][k][goal]) continue;
        if (!block_distinct(b, rows, -1)) continue;
        /* Every block tile at least the anchor's. */
        int ok = 1;
        for (int row = 0; row < rows && ok; row++)
            for (int col = 0; col < 3 && ok; col++)
                if (board_at(b, row, col) < goal) ok = 0;
        if (ok) consider(ts, EG_BLOCK, k, goal, b, s, best);
    }
}

/* 1 when every free tile of a chain formation is within the caps of anchor a. */
static int within_chain_caps(board_t b, int a)
{
    for (int cell = 3; cell < 16; cell++)
        if (cell != 4 && cell != 5 && cell != 6 && board_cell(b, cell) > eg_chain_cap(cell, a))
            return 0;
    return 1;
}

/* Tries the chain formation on one orientation of the board. Its anchor a is
 * looked up in the smallest chain table attached whose anchor is at least a:
 * a table plays for its own ready chain, one that a smaller anchor's board
 * passes on the way (a board that is ready for a is left to the search).
 * Measured on paired seeds, the anchor-512 table playing every anchor up to
 * 512 beat the tables of each anchor's own by 48,000 and 25,000 at depth 4
 * (bench/RESULTS.md, "Chain formations: one table for every anchor"). */
static void probe_chain(const s2048_tableset *ts, board_t b, int s, s2048_probe *best)
{
    int a = board_at(b, 1, 0);
    if (board_at(b, 1, 1) < a) a = board_at(b, 1, 1);
    if (board_at(b, 1, 2) < a) a = board_at(b, 1, 2);
    if (a < EG_CHAIN_MIN_ANCHOR) return;
    int t = a;
    while (t <= EG_MAX_GOAL && !ts->table[EG_CHAIN][EG_CHAIN_FROZEN][t]) t++;
    if (t > EG_MAX_GOAL) return;
    /* The block must move as the placeholders do, and the free tiles be
     * within a's caps, so that none can merge into the lower row. (0,2) need
     * only be above the free (0,3), not at least a: a top-row tile that has
     * fallen below the anchor (8192 4096 8 / 1024 512 32) is played as if it
     * were frozen, as the tables AI's big build does (its BIG_TUPLES
     * Tuple10::IsRegular). It covers few boards, about 1 in 1,400 of a game,
     * where the top row is being rebuilt, and the table keeps the lower row
     * standing there: 32768 +5.3, +7.7 and +1.8 points at depths 3, 4 and 5
     * (bench/RESULTS.md, "The chain table on a fallen top-row tile"). */
    if (!block_distinct(b, 2, -1) || board_at(b, 0, 2) <= board_at(b, 0, 3) || !within_chain_caps(b, a)
        || eg_chain_ready(b, a))
        return;
    consider(ts, EG_CHAIN, EG_CHAIN_FROZEN, t, b, s, best);
}

/* 1 when (1,2) holds g and a second g stands beside the block, on (0,3),
 * (1,3) or row 2: a merge or two from g + 1 on (1,2), which then joins the
 * block. The table one goal up would hold the board (its caps allow a g on
 * those cells), but its goal asks for more, a g + 1 there with a ready pair
 * of g, so nothing makes it merge the two soon; the search sees the block
 * grow. The tables AI's big build hands these boards over the same way (its
 * IsGoal). At depth 5 beside the goal-512 table it gained 14,673 +- 9,384
 * over 1,000 paired games (4,007 +- 10,841 on the 700 fresh ones), and
 * beside the goals up to 128 22,313 +- 16,803 over 300 (bench/RESULTS.md,
 * "A second goal tile, and the goal-512 table in the default set"). */
static int entry_second_goal(board_t b, int g)
{
    if (board_at(b, 1, 2) != g) return 0;
    if (board_at(b, 0, 3) == g || board_at(b, 1, 3) == g) return 1;
    for (int col = 0; col < 4; col++)
        if (board_at(b, 2, col) == g) return 1;
    return 0;
}

/* Tries the entry table of goal g (and the one of goal g + 1) on an
 * orientation whose frozen tiles probe_entry has checked. Returns 1 when the
 * search is to be left alone or a table held the board, else 0. */
static int probe_entry_goal(const s2048_tableset *ts, board_t b, int s, int g, s2048_probe *best)
{
    if (eg_entry_ready(b, g) || entry_second_goal(b, g)) return 1;
    int within_caps = consider(ts, EG_ENTRY, EG_ENTRY_FROZEN, g, b, s, best);
    /* Free tiles up to g (g - 1 on the bottom row), one rank over the caps of
     * g's table but still below every frozen tile, are within the caps of the
     * table one goal up: it plays them toward its own goal until the board's
     * own goal is ready, when the search takes over (above). Its goal
     * cell may hold g + 1, which would merge into the block, so that cell
     * must stay at g. Beside the tables' heuristic (s2048_tables_weights) this
     * gained 112,400 at depth 3 and 56,100 at depth 4, on 300 paired seeds
     * (bench/RESULTS.md, "Entry tables"). */
    if (!within_caps && g < ts->entry_top && board_at(b, 1, 2) <= g)
        within_caps = consider(ts, EG_ENTRY, EG_ENTRY_FROZEN, g + 1, b, s, best);
    return within_caps;
}

/* Tries the entry formation on one orientation of the board. */
static void probe_entry(const s2048_tableset *ts, board_t b, int s, s2048_probe *best)
{
    if (!ts->entry_top) return;
    int own = (board_at(b, 1, 1) < board_at(b, 0, 2) ? board_at(b, 1, 1) : board_at(b, 0, 2)) - 1;
    /* The frozen tiles: none empty, no two neighbours equal, the lower row
     * falling away from the corner (so (1,0), beside the free (2,0), is above
     * its cap g-1), and (1,1) unlike (0,2). (1,1) and (0,2) are above g by
     * the choice of g. */
    if (!block_distinct(b, 2, EG_ENTRY_GOAL_CELL) || board_at(b, 1, 0) <= board_at(b, 1, 1)
        || board_at(b, 1, 1) == board_at(b, 0, 2))
        return;
    /* The board is played toward the highest goal up to its own with a table
     * attached. If its free tiles are over that table's caps (and those of
     * the table one goal up, below), a lower table is tried: its caps are
     * lower, save the bottom row of a table from goal 512 on, which may be
     * capped below a lower table's (EG_ENTRY_BOTTOM_CAP). */
    for (int g = own < ts->entry_top ? own : ts->entry_top; g >= EG_ENTRY_MIN_GOAL; g--)
        if (ts->table[EG_ENTRY][EG_ENTRY_FROZEN][g] && probe_entry_goal(ts, b, s, g, best)) return;
}

int s2048_tables_probe(const s2048_tableset *ts, uint64_t board, s2048_probe *out)
{
    out->dir = -1;
    out->trusted = 0;
    out->probability = 0.0;
    out->shape = 0;
    out->frozen = 0;
    out->goal = 0;
    if (!ts) return 0;
    for (int s = 0; s < 8; s++) {
        board_t b = board_symmetry(board, s);
        probe_oriented(ts, b, s, out);
        probe_blocks(ts, b, s, out);
        probe_chain(ts, b, s, out);
        probe_entry(ts, b, s, out);
    }
    /* The formation's conditions make the table's move legal on the board;
     * refuse it anyway should that ever fail. */
    if (out->dir >= 0 && board_move(board, out->dir) == board) out->dir = -1;
    return out->dir >= 0;
}
