/* endgame.c -- building the endgame tables, and looking boards up in them.
 *
 * See endgame.h for the formations. solver/reference_tables.py solves the same
 * tables in plain Python from the rules; tests compare the two entry for entry.
 *
 * Building: an entry's probability is the best, over the moves that leave
 * every frozen cell unchanged, of
 *   1                          when the move reaches the goal (rank g on a
 *                              target cell; for a chain, a ready chain),
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
#include "endgame.h"
#include "moves.h"

const int eg_path[16] = {0, 1, 2, 3, 7, 6, 5, 4, 8, 9, 10, 11, 15, 14, 13, 12};

/* One (shape, frozen, goal) triple, with everything the inner loops need. */
typedef struct {
    int shape;             /* EG_SNAKE, EG_BLOCK or EG_CHAIN */
    int frozen;            /* k */
    int goal;              /* g; the anchor rank a of a chain */
    int free_count;        /* n = 16 - k */
    int order[16];         /* the frozen cells (anchor last), then the free ones */
    int targets[2];        /* cells where the goal tile counts, -1 = none */
    board_t frozen_bits;   /* nibble mask of the frozen cells */
    board_t placeholders;  /* the frozen cells as ranks 14/15 */
    int shift[16];         /* free cell j lives at bit shift[j] */
    int cap[16];           /* the highest rank free cell j may hold */
    int sum_after[17];     /* the most free cells j.. can hold together */
    size_t power[16];      /* the weight of digit j: the product of cap + 1 below j */
    size_t entries;        /* the product of every cap + 1 */
} formation;

/* The block shape's cell order: the top-left block of 3 columns in reading
 * order, then the free cells in increasing order. Returns 0, or -1 when k
 * is no block. */
static int block_order(int frozen, int order[16])
{
    if (frozen != 5 && frozen != 6 && frozen != 9) return -1;
    int rows = (frozen + 1) / 3, n = 0, in_block[16];
    for (int cell = 0; cell < 16; cell++)
        in_block[cell] = (cell & 3) < 3 && (cell >> 2) < rows
                      && !(frozen == EG_ENTRY_FROZEN && cell == EG_ENTRY_GOAL_CELL);
    for (int cell = 0; cell < 16; cell++)
        if (in_block[cell]) order[n++] = cell;
    for (int cell = 0; cell < 16; cell++)
        if (!in_block[cell]) order[n++] = cell;
    return 0;
}

/* The chain shape's cap on free cell `cell`, given the anchor rank. */
static int chain_cap(int cell, int anchor)
{
    switch (cell) {
    case 3: case 8: return anchor - 1;   /* beside the block's ends */
    case 7: case 9: return anchor - 2;   /* one step further */
    default:        return anchor - 3;
    }
}

/* The entry shape's cap on free cell `cell`, given the goal rank g: the goal
 * itself on its cell, two below on the bottom row, one below elsewhere. */
static int entry_cap(int cell, int goal)
{
    return cell == EG_ENTRY_GOAL_CELL ? goal : cell >= 12 ? goal - 2 : goal - 1;
}

/* 1 when (shape, frozen, goal) names a formation with a table. */
static int formation_valid(int shape, int frozen, int goal)
{
    if (goal < EG_MIN_GOAL || goal > EG_MAX_GOAL) return 0;
    switch (shape) {
    case EG_SNAKE: return frozen >= EG_MIN_FROZEN && frozen <= EG_MAX_FROZEN;
    case EG_BLOCK: return frozen == 6 || frozen == 9;
    case EG_CHAIN: return frozen == EG_CHAIN_FROZEN && goal >= EG_CHAIN_MIN_ANCHOR;
    case EG_ENTRY: return frozen == EG_ENTRY_FROZEN && goal >= EG_ENTRY_MIN_GOAL;
    default:       return 0;
    }
}

static int formation_init(formation *f, int shape, int frozen, int goal)
{
    if (!formation_valid(shape, frozen, goal)) return -1;
    memset(f, 0, sizeof *f);
    f->shape = shape;
    f->frozen = frozen;
    f->goal = goal;
    f->free_count = 16 - frozen;
    f->targets[0] = f->targets[1] = -1;
    if (shape == EG_SNAKE) {
        memcpy(f->order, eg_path, sizeof f->order);
        f->targets[0] = eg_path[frozen];
    } else {
        if (block_order(frozen, f->order) != 0) return -1;
        if (shape == EG_BLOCK) {
            int anchor = f->order[frozen - 1];
            f->targets[0] = anchor + 1;   /* right of it */
            f->targets[1] = anchor + 4;   /* below it */
        }
    }
    for (int i = 0; i < frozen; i++) {
        int cell = f->order[i];
        int rank = ((cell >> 2) + (cell & 3)) & 1 ? 14 : 15;
        f->frozen_bits |= (board_t)0xf << (4 * cell);
        f->placeholders |= (board_t)rank << (4 * cell);
    }
    size_t p = 1;
    for (int j = 0; j < f->free_count; j++) {
        int cell = f->order[frozen + j];
        f->shift[j] = 4 * cell;
        f->cap[j] = shape == EG_CHAIN ? chain_cap(cell, goal)
                  : shape == EG_ENTRY ? entry_cap(cell, goal) : goal - 1;
        f->power[j] = p;
        p *= (size_t)f->cap[j] + 1;
    }
    f->entries = p;
    for (int j = f->free_count - 1; j >= 0; j--)
        f->sum_after[j] = f->sum_after[j + 1] + (1 << f->cap[j]);
    return 0;
}

size_t s2048_table_entries(int shape, int frozen, int goal)
{
    formation f;
    return formation_init(&f, shape, frozen, goal) == 0 ? f.entries : 0;
}

int s2048_table_max_sum(int shape, int frozen, int goal)
{
    formation f;
    if (formation_init(&f, shape, frozen, goal) != 0) return -1;
    return f.sum_after[0];
}

/* ---- building ---- */

/* The index of board's free cells, or -1 when one is over its cap. */
static int64_t free_index(const formation *f, board_t b)
{
    size_t index = 0;
    for (int j = 0; j < f->free_count; j++) {
        int rank = (int)(b >> f->shift[j] & 0xf);
        if (rank > f->cap[j]) return -1;
        index += (size_t)rank * f->power[j];
    }
    return (int64_t)index;
}

/* The rank at (row, col) of a board. */
static inline int at(board_t b, int row, int col) { return board_cell(b, 4 * row + col); }

/* 1 when the free cells of a chain formation with anchor rank a hold a ready
 * chain (endgame.h). */
static int chain_ready(board_t b, int a)
{
    int r1 = a - 1, r2 = a - 2, r3 = a - 3;
    int along_row = at(b, 2, 0) == r1 && at(b, 2, 1) == r2
        && ((at(b, 2, 2) == r3 && (at(b, 3, 2) == r3 || at(b, 2, 3) == r3))
            || (at(b, 3, 1) == r3 && (at(b, 3, 0) == r3 || at(b, 3, 2) == r3)));
    int down_column = at(b, 0, 3) == r1 && at(b, 1, 3) == r2 && at(b, 2, 3) == r3
        && (at(b, 2, 2) == r3 || at(b, 3, 3) == r3);
    return along_row || down_column;
}

/* 1 when the free cells of an entry formation with goal rank g hold g on
 * (1,2) and a ready pair of g-1 beside it (endgame.h). */
static int entry_ready(board_t b, int g)
{
    int h = g - 1;
    if (at(b, 1, 2) != g) return 0;
    return (at(b, 1, 3) == h && (at(b, 0, 3) == h || at(b, 2, 3) == h))
        || (at(b, 0, 3) == h && at(b, 1, 3) == h - 1 && at(b, 2, 3) == h - 1)
        || (at(b, 2, 2) == h && (at(b, 2, 1) == h || at(b, 3, 2) == h || at(b, 2, 3) == h));
}

/* 1 when `moved` has reached the formation's goal. */
static int goal_reached(const formation *f, board_t moved)
{
    if (f->shape == EG_CHAIN) return chain_ready(moved, f->goal);
    if (f->shape == EG_ENTRY) return entry_ready(moved, f->goal);
    for (int t = 0; t < 2; t++)
        if (f->targets[t] >= 0 && (int)(moved >> (4 * f->targets[t]) & 0xf) == f->goal) return 1;
    return 0;
}

/* The probability of the goal after a move to `moved` (before its spawn). */
static double after_move(const formation *f, const uint16_t *table, board_t moved)
{
    /* A snake or block goal counts wherever the other tiles are; a chain, or
     * an entry block's goal tile and pair, only within the caps. */
    int capped_goal = f->shape == EG_CHAIN || f->shape == EG_ENTRY;
    if (!capped_goal && goal_reached(f, moved)) return 1.0;
    int64_t index = free_index(f, moved);
    if (index < 0) return 0.0;
    if (capped_goal && goal_reached(f, moved)) return 1.0;
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
    if (!table || formation_init(&f, shape, frozen, goal) != 0 || sum < 0 || sum & 1
        || parts < 1 || part < 0 || part >= parts)
        return -1;
    layer_walk w = {&f, table, part, parts, 0, 0};
    walk(&w, 0, sum, f.placeholders, 0);
    return w.written;
}

uint64_t s2048_table_checksum(const uint16_t *table, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint64_t word;
        memcpy(&word, table + i, sizeof word);
        h = (h ^ word) * 0x100000001b3ULL;
    }
    for (; i < n; i++) h = (h ^ table[i]) * 0x100000001b3ULL;
    return h;
}

/* ---- symmetries ---- */

static board_t mirror_columns(board_t b)
{
    b = (b & 0x0f0f0f0f0f0f0f0fULL) << 4 | (b >> 4 & 0x0f0f0f0f0f0f0f0fULL);
    return (b & 0x00ff00ff00ff00ffULL) << 8 | (b >> 8 & 0x00ff00ff00ff00ffULL);
}

static board_t flip_rows(board_t b)
{
    b = (b & 0x0000ffff0000ffffULL) << 16 | (b >> 16 & 0x0000ffff0000ffffULL);
    return b << 32 | b >> 32;
}

board_t eg_symmetry(board_t b, int s)
{
    if (s & 1) b = mirror_columns(b);
    if (s & 2) b = flip_rows(b);
    if (s & 4) b = board_transpose(b);
    return b;
}

int eg_direction_back(int s, int dir)
{
    /* Undo the steps in reverse: a transpose swaps the axes (up <-> left,
     * down <-> right), a flip reverses up/down, a mirror left/right. */
    static const int transposed[4] = {DIR_LEFT, DIR_RIGHT, DIR_UP, DIR_DOWN};
    if (s & 4) dir = transposed[dir];
    if ((s & 2) && dir <= DIR_DOWN) dir ^= 1;
    if ((s & 1) && dir >= DIR_LEFT) dir ^= 1;
    return dir;
}

/* ---- looking up ---- */

struct s2048_tableset {
    const uint16_t *table[EG_SHAPES][EG_MAX_FROZEN + 1][EG_MAX_GOAL + 1];
    formation form[EG_SHAPES][EG_MAX_FROZEN + 1][EG_MAX_GOAL + 1];
    double min_prob[EG_SHAPES];   /* the least probability trusted, per shape */
    int entry_top;                /* the highest entry goal attached, 0 = none */
};

s2048_tableset *s2048_tableset_new(void) { return calloc(1, sizeof(s2048_tableset)); }

void s2048_tableset_free(s2048_tableset *ts) { free(ts); }

int s2048_tableset_add(s2048_tableset *ts, int shape, int frozen, int goal,
                       const uint16_t *table, size_t entries)
{
    formation f;
    if (!ts || !table || formation_init(&f, shape, frozen, goal) != 0 || entries != f.entries)
        return -1;
    ts->form[shape][frozen][goal] = f;
    ts->table[shape][frozen][goal] = table;
    if (shape == EG_ENTRY && goal > ts->entry_top) ts->entry_top = goal;
    return 0;
}

int s2048_tableset_set_min_prob(s2048_tableset *ts, int shape, double p)
{
    if (!ts || shape < 0 || shape >= EG_SHAPES || !(p >= 0.0 && p <= 1.0)) return -1;
    ts->min_prob[shape] = p;
    return 0;
}

/* Keeps the table's answer for b when it is more confident than best's.
 * Returns 1 when the table is attached and b's free tiles are within its
 * caps (whatever the answer), else 0. */
static int consider(const s2048_tableset *ts, int shape, int k, int goal, board_t b, int s,
                    s2048_probe *best)
{
    const uint16_t *table = ts->table[shape][k][goal];
    if (!table) return 0;
    int64_t index = free_index(&ts->form[shape][k][goal], b);
    if (index < 0) return 0;   /* a free tile over its cap */
    uint16_t entry = table[index];
    double p = eg_entry_prob(entry);
    int trusted = p >= ts->min_prob[shape];
    /* A trusted answer beats any untrusted one, then the more probable wins. */
    if (entry >> 2 && (best->dir < 0 || trusted > best->trusted
                       || (trusted == best->trusted && p > best->probability))) {
        best->dir = eg_direction_back(s, eg_entry_dir(entry));
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
            if (rank == 0 || (col < 2 && cell + 1 != skip && at(b, row, col + 1) == rank)
                || (row + 1 < rows && cell + 4 != skip && at(b, row + 1, col) == rank))
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
        int k = 3 * rows, goal = at(b, rows - 1, 2);
        if (goal < EG_MIN_GOAL || goal > EG_MAX_GOAL || !ts->table[EG_BLOCK][k][goal]) continue;
        if (!block_distinct(b, rows, -1)) continue;
        /* Every block tile at least the anchor's. */
        int ok = 1;
        for (int row = 0; row < rows && ok; row++)
            for (int col = 0; col < 3 && ok; col++)
                if (at(b, row, col) < goal) ok = 0;
        if (ok) consider(ts, EG_BLOCK, k, goal, b, s, best);
    }
}

/* 1 when every free tile of a chain formation is within the caps of anchor a. */
static int within_chain_caps(board_t b, int a)
{
    for (int cell = 3; cell < 16; cell++)
        if (cell != 4 && cell != 5 && cell != 6 && board_cell(b, cell) > chain_cap(cell, a))
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
    int a = at(b, 1, 0);
    if (at(b, 1, 1) < a) a = at(b, 1, 1);
    if (at(b, 1, 2) < a) a = at(b, 1, 2);
    if (a < EG_CHAIN_MIN_ANCHOR) return;
    int t = a;
    while (t <= EG_MAX_GOAL && !ts->table[EG_CHAIN][EG_CHAIN_FROZEN][t]) t++;
    if (t > EG_MAX_GOAL) return;
    /* The block must move as the placeholders do, (0,2), beside the free
     * (0,3), be at least a (the other block tiles beside free cells are, by
     * the choice of a), and the free tiles be within a's caps, so that none
     * can merge into the block. */
    if (!block_distinct(b, 2, -1) || at(b, 0, 2) < a || !within_chain_caps(b, a) || chain_ready(b, a))
        return;
    consider(ts, EG_CHAIN, EG_CHAIN_FROZEN, t, b, s, best);
}

/* Tries the entry formation on one orientation of the board. */
static void probe_entry(const s2048_tableset *ts, board_t b, int s, s2048_probe *best)
{
    if (!ts->entry_top) return;
    int g = (at(b, 1, 1) < at(b, 0, 2) ? at(b, 1, 1) : at(b, 0, 2)) - 1;
    if (g > ts->entry_top) g = ts->entry_top;
    if (g < EG_ENTRY_MIN_GOAL || !ts->table[EG_ENTRY][EG_ENTRY_FROZEN][g]) return;
    /* The frozen tiles: none empty, no two neighbours equal, the lower row
     * falling away from the corner (so (1,0), beside the free (2,0), is above
     * its cap g-1), and (1,1) unlike (0,2). (1,1) and (0,2) are above g by
     * the choice of g. */
    if (!block_distinct(b, 2, EG_ENTRY_GOAL_CELL) || at(b, 1, 0) <= at(b, 1, 1)
        || at(b, 1, 1) == at(b, 0, 2))
        return;
    if (entry_ready(b, g)) return;
    int within_caps = consider(ts, EG_ENTRY, EG_ENTRY_FROZEN, g, b, s, best);
    /* Free tiles up to g (g - 1 on the bottom row), one rank over the caps of
     * g's table but still below every frozen tile, are within the caps of the
     * table one goal up: it plays them toward its own goal until the board's
     * own goal is ready, when the search takes over (above). Its goal
     * cell may hold g + 1, which would merge into the block, so that cell
     * must stay at g. Beside the tables' heuristic (Weights.for_tables) this
     * gained 112,400 at depth 3 and 56,100 at depth 4, on 300 paired seeds
     * (bench/RESULTS.md, "Entry tables"). */
    if (!within_caps && g < ts->entry_top && at(b, 1, 2) <= g)
        consider(ts, EG_ENTRY, EG_ENTRY_FROZEN, g + 1, b, s, best);
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
        board_t b = eg_symmetry(board, s);
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
