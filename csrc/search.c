/* search.c -- expectimax over the 64-bit board.
 *
 * Depth D means D player moves looked ahead, the first included. The leaf is
 * the board right after the D-th move, before its spawn, scored by the
 * heuristic (or, with quiescence, a crowded one by one more spawn and move:
 * leaf_value). Depth 1 is greedy on the heuristic.
 *
 *   max node     the board before a move: the best of its legal directions,
 *                the heuristic's lost value when none is legal
 *   chance node  the board after a move: the average over every empty cell
 *                times {2 with p = 0.9, 4 with p = 0.1}, cells equally likely
 *
 * solver/reference_search.py is the same search in plain Python; the two must
 * give the same values for the same settings (with the table off, or without
 * pruning, where the table cannot change a value).
 *
 * From depth SPLIT_DEPTH on, the root is split (docs/search.md, "One search on
 * every core"): the children of each root chance node with a 2 spawned, and
 * those with a 4, are two tasks, each searched with a table of its own,
 * cleared before it; the values are added in the serial order. No task sees
 * another's work, so whichever thread runs which task, and however many
 * threads there are, the values and node counts are the same.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if !defined(_WIN32)
#define HAVE_PTHREADS 1
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>
#endif

#include "api.h"
#include "evaluate.h"
#include "moves.h"
#include "tt.h"

#define TIME_CHECK_NODES 4096  /* nodes between two looks at the clock */
/* The least depth whose search is split at the root. Decided by the depth
 * alone, never by the thread count, so that a result never depends on the
 * machine. Below it the search is today's, one table for the whole tree,
 * whose node counts the bench promises (depths 2 to 5: 1702, 37527, 243569,
 * 912225); a depth-5 search takes 0.2 ms, where a split gains little over
 * starting the threads, and the per-task tables would change its counts. */
#define SPLIT_DEPTH 6
/* Tasks of a split root: 4 directions times 2 spawn values. */
#define MAX_TASKS 8
/* The looks of a search that one crowded leaf's look can reuse: a direct-
 * mapped cache of 2^LOOK_BITS boards and values (64 KB), its own per search
 * and per split task, as a look's value depends on its board alone. */
#define LOOK_BITS 12

struct s2048_searcher {
    tt_table tt;          /* the caller's thread's table: the whole search below SPLIT_DEPTH */
    int threads;          /* 1..S2048_MAX_THREADS */
    size_t tt_bytes;      /* the size of each table */
    int reuse_deeper;
    struct worker_pool *pool;  /* the workers, made at the first split search; NULL until then */
    unsigned long calls;       /* s2048_analyze calls so far */
    unsigned long tt_call;     /* the call the caller's table was last cleared (or kept) for */
};

/* A board whose look (quiescence_look) was computed, and its value; board 0
 * is an empty slot, as a leaf always holds a tile. */
typedef struct {
    board_t board;
    double value;
} look_entry;

typedef struct {
    const s2048_eval *eval;
    tt_table *tt;
    look_entry *looks;  /* 2^LOOK_BITS entries, or NULL: no look is kept */
    double prune;
    double pass;  /* a chance node whose board reads below it is a leaf (see pass_score); -HUGE_VAL: none */
    double lost;  /* the value of a lost board in this search (see pass_score) */
    int quiescence;  /* a leaf with at most this many empty cells looks one move further (-1: never) */
    int tt_top;  /* deepest remaining depth worth a table look-up (see search_root) */
    uint64_t nodes;
    uint64_t cache_hits;
    /* Time control: a deadline, the node count of the next look at the clock
     * (UINT64_MAX when untimed), and a flag that unwinds the search. */
    double deadline;
    uint64_t next_check;
    int aborted;
} search_state;

/* Returns seconds on a monotonic clock. */
static double now_seconds(void)
{
    struct timespec ts;
#if defined(CLOCK_MONOTONIC)
    clock_gettime(CLOCK_MONOTONIC, &ts);
#else
    timespec_get(&ts, TIME_UTC);
#endif
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Returns the index of the lowest nibble flagged in a nonzero mask. */
static inline int lowest_flag_nibble(uint64_t m)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(m) >> 2;
#else
    int cell = 0;
    while (!(m & 1)) { m >>= 4; cell++; }
    return cell;
#endif
}

/* Counts n nodes; in a timed search, sets aborted once the deadline passes. */
static inline void count_nodes(search_state *st, uint64_t n)
{
    /* An untimed search keeps next_check at UINT64_MAX: one test per count. */
    if ((st->nodes += n) >= st->next_check) {
        st->next_check = st->nodes + TIME_CHECK_NODES;
        if (now_seconds() >= st->deadline) st->aborted = 1;
    }
}

static inline void count_node(search_state *st) { count_nodes(st, 1); }

/* A cleared look cache for a search with quiescence, else NULL (also when out
 * of memory: the search is the same without it, only slower). */
static look_entry *looks_new(int quiescence)
{
    return quiescence > 0 ? calloc((size_t)1 << LOOK_BITS, sizeof(look_entry)) : NULL;
}

#if defined(__GNUC__) || defined(__clang__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

/* Fills moved[] with board b after each direction and moved_t[] with the
 * transposes, given t, the transpose of b, and maxed, board_has_two_maxed(b)
 * (a spawn cannot change it, so a chance node finds it for all its children).
 * Boards travel down the tree with their transposes, because a spawn is as
 * cheap to place in both as in one.
 * Returns the mask of directions the search may play: the board changes,
 * and no two 32768s merge (the board cannot hold 65536). */
static ALWAYS_INLINE int expand(board_t b, board_t t, int maxed, board_t moved[4], board_t moved_t[4])
{
    moved_t[DIR_UP] = move_rows_left(t);
    moved_t[DIR_DOWN] = move_rows_right(t);
    moved[DIR_UP] = board_transpose(moved_t[DIR_UP]);
    moved[DIR_DOWN] = board_transpose(moved_t[DIR_DOWN]);
    moved[DIR_LEFT] = move_rows_left(b);
    moved[DIR_RIGHT] = move_rows_right(b);
    moved_t[DIR_LEFT] = board_transpose(moved[DIR_LEFT]);
    moved_t[DIR_RIGHT] = board_transpose(moved[DIR_RIGHT]);
    /* Up and down are compared on the transpose, so that a transpose is only
     * needed by a child that is searched. */
    int mask = (moved_t[DIR_UP] != t) << DIR_UP | (moved_t[DIR_DOWN] != t) << DIR_DOWN
             | (moved[DIR_LEFT] != b) << DIR_LEFT | (moved[DIR_RIGHT] != b) << DIR_RIGHT;
    if (maxed)
        for (int dir = 0; dir < 4; dir++)
            if (board_move_overflows(b, dir)) mask &= ~(1 << dir);
    return mask;
}

static double chance_node(search_state *st, board_t b, board_t t, int remaining, double prob);

/* The tile 2 on cell, as a board (*tile) and as a transposed board (*tile_t);
 * shifted left by one, they are the tile 4. */
static inline void spawn_tiles(int cell, board_t *tile, board_t *tile_t)
{
    *tile = (board_t)1 << (4 * cell);
    *tile_t = (board_t)1 << (4 * ((cell & 3) * 4 + (cell >> 2)));
}

#if defined(__GNUC__) || defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

/* A max node's value: its best legal child, found as the greatest value over
 * a start of -HUGE_VAL (every value is finite), or the heuristic's lost value
 * when no direction was legal. A live board is worth its best child even when
 * that is below the lost value; below 0 it used to count as lost, so every move
 * of a board the tables' heuristic scores below 0 looked alike. */
static inline double max_value(const search_state *st, double best)
{
    return best == -HUGE_VAL ? st->lost : best;
}

static double quiescence_look(search_state *st, board_t b, board_t t);

/* The value of a leaf, a board after a move that the depth ends: its
 * heuristic, or, when it has at most `look` empty cells, one more spawn and
 * move (quiescence_look). look is st->quiescence, or -1 (never) for a leaf
 * reached through a pruned branch (pruning means "not worth a look") or moved
 * from a board with two 32768s (leaf_max_node). */
static ALWAYS_INLINE double leaf_value(search_state *st, board_t b, board_t t, int look)
{
    if (look >= 0 && board_count_empty(b) <= look) return quiescence_look(st, b, t);
    return eval_board_t(st->eval, b, t);
}

/* leaf_max_node for a board with two 32768s, where a move may overflow: out
 * of line, as it is rare. Its leaves never look further: the copy the search
 * plays on cannot merge the two, and the rule is the one the quiescence
 * trial's 1,000-game runs played (bench/RESULTS.md). */
static NOINLINE double leaf_max_node_maxed(const search_state *st, board_t b, board_t t)
{
    board_t moved[4], moved_t[4];
    int mask = expand(b, t, 1, moved, moved_t);
    double best = -HUGE_VAL;
    for (int dir = 0; dir < 4; dir++) {
        if (!(mask >> dir & 1)) continue;
        double v = eval_board_t(st->eval, moved[dir], moved_t[dir]);
        if (v > best) best = v;
    }
    return max_value(st, best);
}

/* The value of a max node whose children are leaves (chance_node would
 * return their value at once): the best value of a legal child, the lost
 * value when there is none. The node is already counted. */
static ALWAYS_INLINE double leaf_max_node(search_state *st, board_t b, board_t t, int maxed, int look)
{
    if (maxed) return leaf_max_node_maxed(st, b, t);
    /* No merge can overflow: a direction is legal when it changes the board.
     * The same directions in the same order as expand(), tested directly. */
    board_t up_t = move_rows_left(t), down_t = move_rows_right(t);
    board_t left = move_rows_left(b), right = move_rows_right(b);
    double best = -HUGE_VAL, v;
    if (up_t != t && (v = leaf_value(st, board_transpose(up_t), up_t, look)) > best) best = v;
    if (down_t != t && (v = leaf_value(st, board_transpose(down_t), down_t, look)) > best) best = v;
    if (left != b && (v = leaf_value(st, left, board_transpose(left), look)) > best) best = v;
    if (right != b && (v = leaf_value(st, right, board_transpose(right), look)) > best) best = v;
    return max_value(st, best);
}

/* The mean, over every spawn on b (cells in increasing order, a 2 then a 4),
 * of the value of the max node it makes, whose children are leaves: a chance
 * node one move from the end, reached with probability prob. look as for
 * leaf_value, made -1 for a spawn whose probability is below the pruning
 * threshold. Counts the spawns' max nodes. */
static ALWAYS_INLINE double last_spawns(search_state *st, board_t b, board_t t, double prob, int look)
{
    uint64_t empty = board_empty_mask(b);
    int n = nibble_flags_count(empty);
    double cell_prob = prob / n;
    int look2 = cell_prob * 0.9 < st->prune ? -1 : look;
    int look4 = cell_prob * 0.1 < st->prune ? -1 : look;
    int maxed = board_has_two_maxed(b);
    double sum = 0.0;
    for (; empty; empty &= empty - 1) {
        board_t tile, tile_t;
        spawn_tiles(lowest_flag_nibble(empty), &tile, &tile_t);
        count_node(st);
        double v2 = leaf_max_node(st, b | tile, t | tile_t, maxed, look2);
        count_node(st);
        double v4 = leaf_max_node(st, b | (tile << 1), t | (tile_t << 1), maxed, look4);
        sum += 0.9 * v2 + 0.1 * v4;
    }
    return sum / n;
}

/* Quiescence: a crowded leaf, where the heuristic misjudges most (one spawn
 * can end the game), is worth one more spawn and move, a chance node with one
 * move left whose own leaves are plain (docs/search.md, "Quiescence").
 * Counted as a chance node; not kept in the table, which keys a value by the
 * moves left, not by how its leaves were valued. */
static NOINLINE double quiescence_look(search_state *st, board_t b, board_t t)
{
    look_entry *kept = NULL;
    if (st->looks) {
        kept = &st->looks[(b * 0x9e3779b97f4a7c15ULL) >> (64 - LOOK_BITS)];
        if (kept->board == b) {
            /* Counted as if searched again: node counts do not depend on the cache. */
            count_nodes(st, 1 + 2 * (uint64_t)board_count_empty(b));
            return kept->value;
        }
    }
    count_node(st);
    double value = last_spawns(st, b, t, 1.0, -1);  /* its leaves are plain, whatever their probability */
    if (kept) {
        kept->board = b;
        kept->value = value;
    }
    return value;
}

/* The children of a max node, as expand() gives them. */
typedef struct {
    board_t moved[4], moved_t[4];
    int mask;
} max_children;

/* Expands a max node that is not a leaf, and starts loading the table lines
 * of its children, which chance_node will ask about. */
static ALWAYS_INLINE void max_prepare(const search_state *st, board_t b, board_t t, int maxed, int remaining, max_children *c)
{
    c->mask = expand(b, t, maxed, c->moved, c->moved_t);
    if (remaining <= st->tt_top)
        for (int dir = 0; dir < 4; dir++)
            if (c->mask >> dir & 1) tt_prefetch(st->tt, c->moved[dir]);
}

/* The value of a max node that is not a leaf: its best child, the lost
 * value when none is legal. */
static double max_best_child(search_state *st, const max_children *c, int remaining, double prob)
{
    double best = -HUGE_VAL;
    for (int dir = 0; dir < 4; dir++) {
        if (!(c->mask >> dir & 1)) continue;
        double v = chance_node(st, c->moved[dir], c->moved_t[dir], remaining, prob);
        if (v > best) best = v;
    }
    return max_value(st, best);
}

/* Whether the pass is over the chance node of board b (transpose t): the
 * board reads below it. Such a line is scored as a leaf, *value, and not
 * counted (chance_node, and the split root's moves). */
static ALWAYS_INLINE int pass_over(const search_state *st, board_t b, board_t t, double *value)
{
    if (!(st->pass > -HUGE_VAL)) return 0;
    *value = eval_board_t(st->eval, b, t);
    return *value < st->pass;
}

/* Chance node: b is the board after a move, remaining the moves still to
 * look ahead after its spawn, prob the probability of reaching b. */
static double chance_node(search_state *st, board_t b, board_t t, int remaining, double prob)
{
    /* Step 1. Leaf: no move left to look at, an improbable branch, or a
     * search that ran out of time (its value is thrown away). */
    if (remaining == 0 || prob < st->prune || st->aborted) return eval_board_t(st->eval, b, t);
    double passed;
    if (pass_over(st, b, t, &passed)) return passed;
    count_node(st);

    /* Step 2. A position already searched to the same depth. */
    double cached;
    int use_tt = remaining <= st->tt_top;
    if (use_tt && tt_probe(st->tt, b, remaining, &cached)) {
        st->cache_hits++;
        return cached;
    }

    /* Step 3. Average over every spawn, cells in increasing order. */
    double value;
    if (remaining == 1) {
        /* Every child is a leaf max node. Without quiescence, last_spawns is
         * inlined with look -1, and so is the search of before the setting:
         * a look tested at every leaf cost 12% of the nodes/s. */
        value = st->quiescence < 0 ? last_spawns(st, b, t, prob, -1) : last_spawns(st, b, t, prob, st->quiescence);
    } else {
        uint64_t empty = board_empty_mask(b);
        int n = nibble_flags_count(empty);
        double cell_prob = prob / n;
        int maxed = board_has_two_maxed(b);
        /* The children (2 then 4 in each cell, cells in increasing order),
         * searched two behind their expansion: the table lines of the next
         * children's children load while this child is searched. A board
         * after a move holds a tile, so there are at most 2 * 15 children. */
        board_t kid[32], kid_t[32];
        double kid_prob[32], kid_value[32];
        int kids = 0;
        for (; empty; empty &= empty - 1) {
            board_t tile, tile_t;
            spawn_tiles(lowest_flag_nibble(empty), &tile, &tile_t);
            kid[kids] = b | tile;
            kid_t[kids] = t | tile_t;
            kid_prob[kids++] = cell_prob * 0.9;
            kid[kids] = b | (tile << 1);
            kid_t[kids] = t | (tile_t << 1);
            kid_prob[kids++] = cell_prob * 0.1;
        }
        max_children next[3];
        int ready[3];
        for (int j = 0; j < 2; j++) {
            ready[j] = !(kid_prob[j] < st->prune);
            if (ready[j]) max_prepare(st, kid[j], kid_t[j], maxed, remaining - 1, &next[j]);
        }
        for (int i = 0; i < kids; i++) {
            int j = i + 2;
            if (j < kids) {
                ready[j % 3] = !(kid_prob[j] < st->prune);
                if (ready[j % 3]) max_prepare(st, kid[j], kid_t[j], maxed, remaining - 1, &next[j % 3]);
            }
            /* The child max node: a leaf when improbable or out of time. */
            count_node(st);
            if (ready[i % 3] && !st->aborted)
                kid_value[i] = max_best_child(st, &next[i % 3], remaining - 1, kid_prob[i]);
            else
                kid_value[i] = leaf_max_node(st, kid[i], kid_t[i], maxed, -1);
        }
        double sum = 0.0;
        for (int i = 0; i < kids; i += 2) sum += 0.9 * kid_value[i] + 0.1 * kid_value[i + 1];
        value = sum / n;
    }

    /* Step 4. Remember it, unless the search was cut short inside. */
    if (use_tt && !st->aborted) tt_store(st->tt, b, remaining, value);
    return value;
}

/* Searches every root direction to depth; fills values and returns the legal mask. */
static int search_root(search_state *st, board_t b, int depth, double values[4])
{
    board_t moved[4], moved_t[4];
    count_node(st);
    /* The root's children are the only boards with depth - 1 moves left: no
     * other path reaches them, so the table is not asked about them. */
    st->tt_top = depth - 2;
    int maxed = board_has_two_maxed(b);
    int legal = expand(b, board_transpose(b), maxed, moved, moved_t);
    int look = maxed ? -1 : st->quiescence;  /* at depth 1 the children are the leaves */
    for (int dir = 0; dir < 4; dir++) {
        if (!(legal >> dir & 1))
            values[dir] = 0.0;
        else
            values[dir] = depth == 1 ? leaf_value(st, moved[dir], moved_t[dir], look)
                                     : chance_node(st, moved[dir], moved_t[dir], depth - 1, 1.0);
    }
    return legal;
}

int s2048_best_direction(const double values[4], int legal)
{
    int best = -1;
    for (int dir = 0; dir < 4; dir++)
        if ((legal >> dir & 1) && (best < 0 || values[dir] > values[best])) best = dir;
    return best;
}

/* ---- the split root ---------------------------------------------------------- */

/* One task: the 2s (four = 0) or the 4s (four = 1) spawned on every empty
 * cell of one root chance node, and what their searches found. The two
 * halves of a chance node hardly share positions: a board reached through a
 * first 2 holds 2 points less than one reached through a first 4, until a
 * later 4 against a 2 evens them, on paths pruned first. */
typedef struct {
    board_t board, board_t;   /* the root chance node: the board after a root move */
    int four;
    int cells;                /* its empty cells */
    double value[16];         /* each child's value, cells in increasing order */
    uint64_t nodes, cache_hits;
    int aborted;              /* cut short by the deadline, or never started */
} split_task;

typedef struct {
    const s2048_eval *eval;
    double prune, pass, lost, deadline;
    int depth, timed, quiescence;
    unsigned long call;    /* the s2048_analyze call this job belongs to */
    split_task task[MAX_TASKS];
    int order[MAX_TASKS];  /* the tasks in the order threads take them */
    int count;
#if HAVE_PTHREADS
    atomic_int next;       /* the next place in order[] to take */
#else
    int next;
#endif
} split_job;

/* Searches one task with table tt, cleared first, so that what it finds
 * depends on the task alone: each child as chance_node's second loop
 * searches it, the children one after the other. */
static void run_task(const split_job *job, tt_table *tt, unsigned long *tt_call, split_task *task)
{
    search_state st = {0};
    st.eval = job->eval;
    st.tt = tt;
    st.prune = job->prune;
    st.pass = job->pass;
    st.lost = job->lost;
    st.quiescence = job->quiescence;
    st.tt_top = job->depth - 2;
    st.deadline = job->deadline;
    st.next_check = job->timed ? TIME_CHECK_NODES : UINT64_MAX;
    if (job->timed && now_seconds() >= job->deadline) {
        task->aborted = 1;
        return;
    }
    /* Untimed, each task starts from an empty table: its result is the
     * task's alone. Timed, the result depends on the machine anyway, and a
     * table kept for the whole call lets each depth and task reuse what the
     * ones before it found, as the one-table search does: cleared once a call. */
    if (!job->timed || *tt_call != job->call) tt_clear(tt);
    *tt_call = job->call;
    st.looks = looks_new(st.quiescence);
    int remaining = job->depth - 2;  /* of the chance nodes below the children */
    int maxed = board_has_two_maxed(task->board);
    double prob = 1.0 / task->cells * (task->four ? 0.1 : 0.9);
    int i = 0;
    for (uint64_t empty = board_empty_mask(task->board); empty; empty &= empty - 1, i++) {
        board_t tile, tile_t;
        spawn_tiles(lowest_flag_nibble(empty), &tile, &tile_t);
        board_t kid = task->board | (tile << task->four), kid_t = task->board_t | (tile_t << task->four);
        count_node(&st);
        if (!(prob < st.prune) && !st.aborted) {
            max_children c;
            max_prepare(&st, kid, kid_t, maxed, remaining, &c);
            task->value[i] = max_best_child(&st, &c, remaining, prob);
        } else {
            task->value[i] = leaf_max_node(&st, kid, kid_t, maxed, -1);
        }
    }
    free(st.looks);
    task->nodes = st.nodes;
    task->cache_hits = st.cache_hits;
    task->aborted = st.aborted;
}

/* Takes tasks until none is left; whichever thread runs a task writes only
 * that task's fields. */
static void take_tasks(split_job *job, tt_table *tt, unsigned long *tt_call)
{
    for (;;) {
#if HAVE_PTHREADS
        int i = atomic_fetch_add(&job->next, 1);
#else
        int i = job->next++;
#endif
        if (i >= job->count) return;
        run_task(job, tt, tt_call, &job->task[job->order[i]]);
    }
}

/* The threads a split search uses: no more than its tasks. */
static int split_threads(const s2048_searcher *s) { return s->threads < MAX_TASKS ? s->threads : MAX_TASKS; }

#if HAVE_PTHREADS
/* The searcher's workers: threads made at its first split search, each with a
 * table of its own, that sleep between searches. A search opens its job to
 * them; a worker that wakes while it is open joins it and takes tasks; the
 * caller, out of tasks, closes the job and waits only for the workers inside
 * it. A worker that wakes late, on a busy machine, finds the job closed and
 * costs the search nothing, where a thread started per search would have
 * been waited for. */
struct worker_pool;

typedef struct {
    struct worker_pool *pool;
    tt_table tt;
    unsigned long tt_call;  /* the call its table was last cleared for */
    pthread_t id;
} pool_worker;

struct worker_pool {
    pthread_mutex_t lock;
    pthread_cond_t wake;      /* a job opened, or stop */
    pthread_cond_t left;      /* the last worker inside the job left it */
    split_job *job;           /* the open job, NULL when none is */
    unsigned long generation; /* one more per job opened */
    int inside;               /* workers inside the open (or just closed) job */
    /* generation and inside as the spinning threads read them, without the
     * lock; the locked fields above are the ones that decide. */
    atomic_ulong opened;
    atomic_int busy;
    int stop;
    int workers;              /* threads started */
    pid_t pid;                /* the process they run in: a forked child has none of them */
    pool_worker worker[MAX_TASKS - 1];
};

/* How long a thread of the pool spins before it sleeps: searches at depth 6
 * take about a millisecond, and the next one of a game or a bench starts a
 * few microseconds after, where waking a sleeping thread took tens. */
#define SPIN_SECONDS 100e-6

/* Spins until *value differs from old or SPIN_SECONDS pass. */
static void spin_while_equal(const atomic_ulong *value, unsigned long old)
{
    double until = now_seconds() + SPIN_SECONDS;
    for (int i = 1; atomic_load_explicit(value, memory_order_relaxed) == old; i++)
        if (!(i & 63) && now_seconds() >= until) return;
}

static void spin_while_busy(const atomic_int *busy)
{
    double until = now_seconds() + SPIN_SECONDS;
    for (int i = 1; atomic_load_explicit(busy, memory_order_relaxed) > 0; i++)
        if (!(i & 63) && now_seconds() >= until) return;
}

static void *worker_main(void *arg)
{
    pool_worker *w = arg;
    struct worker_pool *p = w->pool;
    unsigned long seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        if (!p->stop && (p->job == NULL || p->generation == seen)) {
            pthread_mutex_unlock(&p->lock);
            spin_while_equal(&p->opened, seen);
            pthread_mutex_lock(&p->lock);
        }
        while (!p->stop && (p->job == NULL || p->generation == seen)) pthread_cond_wait(&p->wake, &p->lock);
        if (p->stop) break;
        seen = p->generation;
        split_job *job = p->job;
        p->inside++;
        atomic_store_explicit(&p->busy, p->inside, memory_order_relaxed);
        pthread_mutex_unlock(&p->lock);
        take_tasks(job, &w->tt, &w->tt_call);
        pthread_mutex_lock(&p->lock);
        atomic_store_explicit(&p->busy, --p->inside, memory_order_relaxed);
        if (p->inside == 0) pthread_cond_signal(&p->left);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* Stops and joins the workers, frees their tables and the pool. */
static void pool_free(struct worker_pool *p)
{
    if (!p) return;
    if (p->pid != getpid()) {
        /* A forked child's copy: its threads are not there to join, and its
         * condition variables still count their waiters, so destroying them
         * would wait forever. The few bytes of the pool are left. */
        for (int i = 0; i < p->workers; i++) tt_free(&p->worker[i].tt);
        return;
    }
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->workers; i++) {
        pthread_join(p->worker[i].id, NULL);
        tt_free(&p->worker[i].tt);
    }
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->left);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

/* Makes the pool at the first split search: split_threads - 1 workers, each
 * with a table of tt_bytes. A table or a thread that cannot be made leaves
 * its worker out: the search is then slower, never different. NULL when
 * there is no worker at all. */
static struct worker_pool *pool_new(const s2048_searcher *s)
{
    int wanted = split_threads(s) - 1;
    if (wanted < 1) return NULL;
    struct worker_pool *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->left, NULL);
    p->pid = getpid();
    while (p->workers < wanted) {
        pool_worker *w = &p->worker[p->workers];
        w->pool = p;
        if (tt_init(&w->tt, s->tt_bytes) != 0) break;
        w->tt.reuse_deeper = s->reuse_deeper;
        if (pthread_create(&w->id, NULL, worker_main, w) != 0) {
            tt_free(&w->tt);
            break;
        }
        p->workers++;
    }
    if (p->workers == 0) {
        pool_free(p);
        return NULL;
    }
    return p;
}

/* The searcher's pool, made on first use (again in a forked child, whose
 * copy has no threads). */
static struct worker_pool *searcher_pool(s2048_searcher *s)
{
    if (s->pool && s->pool->pid != getpid()) {
        pool_free(s->pool);
        s->pool = NULL;
    }
    if (!s->pool) s->pool = pool_new(s);
    return s->pool;
}
#endif

/* ---- the expected size of a task, to start the biggest first --------------
 *
 * Only the speed depends on it, never a result: the threads take the tasks
 * biggest first, so that they finish close together. The number of empty
 * cells alone is a poor guide, because more cells mean more children but also
 * lower probabilities, pruned sooner (on the bench positions at depth 6, one
 * cell's 2s took 33,452 nodes where two cells' took 20,975). So the size is a
 * model of the pruned tree: the children of each spawn in the task and their
 * legal moves are exact; below them every board is taken to have MOVES legal
 * moves and every chance node GROWTH - 1 more empty cells than the one above,
 * and it stops where the real search stops, at the depth or below the pruning
 * probability. The two are fitted, not counted: they make a task that starts
 * bigger grow faster, as the real trees do. They were chosen on 250 positions
 * (the 50 bench ones and 200 from other seeds): 5 and 1.4 beat the first fit
 * (3 and 0.6, made on the bench alone) at depths 6 and 7 on both sets and at
 * depth 8 on the two together; on 2 threads, the bound from the tasks' real
 * node counts went from 1.895 to 1.910 at depth 7 on the 250 (bench/RESULTS.md,
 * "The model refitted"). Shallow searches were worse guides; exact deeper
 * levels were better ones but cost a third of a depth-6 search. */
#define MODEL_MOVES 5.0
#define MODEL_GROWTH 1.4
#define MODEL_LEVELS 17  /* remaining depths 0..16 */

/* The model's node count below a chance node with `empty` cells reached with
 * probability prob and `remaining` moves left. A node's probability depends
 * only on how many of the spawns above it were 4s, so the sizes are kept by
 * (level, fours) in memo (NAN = not yet known): remaining^2 at most. */
typedef struct {
    double prune;
    double memo[MODEL_LEVELS][MODEL_LEVELS];
} size_model;

static double model_size(size_model *m, double empty, double prob, int remaining, int level, int fours)
{
    if (remaining == 0 || prob < m->prune) return 1.0;
    double *known = &m->memo[level][fours];
    if (!isnan(*known)) return *known;
    double next = empty - 1.0 + MODEL_GROWTH;
    next = next < 1.0 ? 1.0 : next > 15.0 ? 15.0 : next;
    double size = 1.0;
    for (int four = 0; four < 2; four++) {
        double p = prob * (four ? 0.1 : 0.9) / empty;
        size += empty * (p < m->prune ? 1.0
                         : 1.0 + MODEL_MOVES * model_size(m, next, p, remaining - 1, level + 1, fours + four));
    }
    return *known = size;
}

/* The expected node count of task t at depth, with pruning prune. */
static double task_size(const split_task *t, int depth, double prune)
{
    double prob = (t->four ? 0.1 : 0.9) / t->cells;
    if (prob < prune) return t->cells;  /* every child a leaf */
    /* One model per empty count of the boards below the children: their
     * probability is prob for all of them. */
    size_model model[16];
    int made[16] = {0};
    int maxed = board_has_two_maxed(t->board);
    double size = 0.0;
    for (uint64_t empty = board_empty_mask(t->board); empty; empty &= empty - 1) {
        board_t tile, tile_t, moved[4], moved_t[4];
        spawn_tiles(lowest_flag_nibble(empty), &tile, &tile_t);
        int legal = expand(t->board | (tile << t->four), t->board_t | (tile_t << t->four), maxed, moved, moved_t);
        size += 1.0;
        for (int dir = 0; dir < 4; dir++) {
            if (!(legal >> dir & 1)) continue;
            int cells = board_count_empty(moved[dir]);
            if (!made[cells]) {
                model[cells].prune = prune;
                for (int i = 0; i <= depth - 2; i++)  /* the levels the model reaches */
                    for (int j = 0; j <= i; j++) model[cells].memo[i][j] = NAN;
                made[cells] = 1;
            }
            size += model_size(&model[cells], cells, prob, depth - 2, 0, 0);
        }
    }
    return size;
}

/* Orders the tasks by decreasing expected size (ties by index), so that the
 * threads finish close together. */
static void order_tasks(split_job *job)
{
    double size[MAX_TASKS];
    for (int i = 0; i < job->count; i++) size[i] = task_size(&job->task[i], job->depth, job->prune);
    for (int i = 0; i < job->count; i++) {
        int j = i;
        for (; j > 0 && size[job->order[j - 1]] < size[i]; j--) job->order[j] = job->order[j - 1];
        job->order[j] = i;
    }
}

/* Runs every task of job on the searcher's threads, the caller's included. */
static void run_job(s2048_searcher *s, split_job *job)
{
    job->next = 0;
#if HAVE_PTHREADS
    struct worker_pool *p = split_threads(s) > 1 ? searcher_pool(s) : NULL;
    if (p) {
        pthread_mutex_lock(&p->lock);
        p->job = job;
        p->generation++;
        atomic_store_explicit(&p->opened, p->generation, memory_order_relaxed);
        pthread_cond_broadcast(&p->wake);
        pthread_mutex_unlock(&p->lock);
    }
    take_tasks(job, &s->tt, &s->tt_call);
    if (p) {
        /* Closed: no worker joins it now; wait for those inside, whose last
         * task may still run, before job (on this stack) goes. */
        pthread_mutex_lock(&p->lock);
        p->job = NULL;
        if (p->inside > 0) {  /* a last task still runs: spin a little, then sleep */
            pthread_mutex_unlock(&p->lock);
            spin_while_busy(&p->busy);
            pthread_mutex_lock(&p->lock);
        }
        while (p->inside > 0) pthread_cond_wait(&p->left, &p->lock);
        pthread_mutex_unlock(&p->lock);
    }
#else
    take_tasks(job, &s->tt, &s->tt_call);
#endif
}

/* search_root, split: the root and its chance nodes here, their children in
 * tasks; the values added as chance_node adds them. Fills values and returns
 * the legal mask; sets st->aborted when the deadline cut a task short. */
static int search_root_split(s2048_searcher *s, search_state *st, board_t b, int depth, double values[4])
{
    board_t moved[4], moved_t[4];
    count_node(st);
    int legal = expand(b, board_transpose(b), board_has_two_maxed(b), moved, moved_t);
    split_job job_memory;  /* 11 KB on the caller's stack; the workers end before it does */
    split_job *job = &job_memory;
    job->eval = st->eval;
    job->prune = st->prune;
    job->pass = st->pass;
    job->lost = st->lost;
    job->quiescence = st->quiescence;
    job->deadline = st->deadline;
    job->depth = depth;
    job->timed = st->next_check != UINT64_MAX;
    job->call = s->calls;
    job->count = 0;
    int first[4] = {0, 0, 0, 0};
    double passed[4];  /* the value of a root chance node the pass is over, else -HUGE_VAL */
    for (int dir = 0; dir < 4; dir++) {
        passed[dir] = -HUGE_VAL;
        if (!(legal >> dir & 1)) continue;
        double v;
        if (pass_over(st, moved[dir], moved_t[dir], &v)) {  /* as chance_node */
            passed[dir] = v;
            continue;
        }
        count_node(st);  /* the root chance node */
        first[dir] = job->count;
        for (int four = 0; four < 2; four++) {
            split_task *t = &job->task[job->count++];
            memset(t, 0, sizeof *t);
            t->board = moved[dir];
            t->board_t = moved_t[dir];
            t->four = four;
            t->cells = nibble_flags_count(board_empty_mask(moved[dir]));
        }
    }
    order_tasks(job);
    run_job(s, job);
    for (int dir = 0; dir < 4; dir++) {
        values[dir] = 0.0;
        if (!(legal >> dir & 1)) continue;
        if (passed[dir] > -HUGE_VAL) {
            values[dir] = passed[dir];
            continue;
        }
        const split_task *twos = &job->task[first[dir]], *fours = &job->task[first[dir] + 1];
        /* chance_node's sum, in its order: cells in increasing order, 2 then 4. */
        double sum = 0.0;
        for (int i = 0; i < twos->cells; i++) sum += 0.9 * twos->value[i] + 0.1 * fours->value[i];
        values[dir] = sum / twos->cells;
    }
    for (int i = 0; i < job->count; i++) {
        st->nodes += job->task[i].nodes;
        st->cache_hits += job->task[i].cache_hits;
        if (job->task[i].aborted) st->aborted = 1;
    }
    return legal;
}

/* One root search to depth: split from SPLIT_DEPTH on, else search_root.
 * Returns the legal mask; sets st->aborted when the deadline cut it short. */
static int search_depth(s2048_searcher *s, search_state *st, board_t b, int depth, double values[4])
{
    return depth >= SPLIT_DEPTH ? search_root_split(s, st, b, depth, values) : search_root(st, b, depth, values);
}

s2048_searcher *s2048_searcher_new_threads(size_t tt_bytes, int threads)
{
    if (threads < 1 || threads > S2048_MAX_THREADS) return NULL;
    s2048_searcher *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    if (tt_init(&s->tt, tt_bytes) != 0) {
        free(s);
        return NULL;
    }
    s->threads = threads;
    s->tt_bytes = tt_bytes;
    return s;
}

s2048_searcher *s2048_searcher_new(size_t tt_bytes) { return s2048_searcher_new_threads(tt_bytes, 1); }

void s2048_searcher_free(s2048_searcher *s)
{
    if (!s) return;
#if HAVE_PTHREADS
    pool_free(s->pool);
#endif
    tt_free(&s->tt);
    free(s);
}

void s2048_searcher_clear(s2048_searcher *s) { tt_clear(&s->tt); }

void s2048_searcher_set_reuse_deeper(s2048_searcher *s, int on)
{
    s->reuse_deeper = on != 0;
    s->tt.reuse_deeper = s->reuse_deeper;
#if HAVE_PTHREADS
    /* Workers read their table's rule only inside a job, which is not open now. */
    if (s->pool)
        for (int i = 0; i < s->pool->workers; i++) s->pool->worker[i].tt.reuse_deeper = s->reuse_deeper;
#endif
}

int s2048_searcher_threads(const s2048_searcher *s) { return s->threads; }

size_t s2048_searcher_tt_entries(const s2048_searcher *s)
{
    return s->tt.buckets ? (s->tt.mask + 1) * TT_WAYS : 0;
}

/* The depth a board in danger is searched to: one move deeper than `depth`
 * when it has at most `danger` empty cells (-1: never). Few empty cells mean
 * few ways out, and there one more move of lookahead decides most games: at
 * depth 5, deepening at <= 3 empty cells plays about as strongly as depth 6 on
 * every move, at about one and a half times its speed (the figures, which
 * change with the tables, are in bench/RESULTS.md from "In danger, one move
 * deeper" on). */
static int deepened(board_t board, int depth, int danger)
{
    if (danger < 0 || board_count_empty(board) > danger || depth >= S2048_MAX_DEPTH) return depth;
    return depth + 1;
}

int s2048_auto_depth(uint64_t board)
{
    /* Harder boards get deeper searches: more distinct tiles mean more
     * structure to keep. With the default look it reaches 32768 in 65.6% of
     * games, 6.2 points more than depth 4 and 4.8 fewer than depth 5, at 2.6
     * times depth 5's moves/s. The rule before (2 to 5 by tiles, one deeper
     * at <= 3 empty cells, no look) played weaker than depth 4, at 56.4%
     * (bench/RESULTS.md, "A stronger auto"). */
    int seen = 0, distinct = 0;
    for (int cell = 0; cell < 16; cell++) {
        int rank = board_cell(board, cell);
        if (rank && !(seen >> rank & 1)) {
            seen |= 1 << rank;
            distinct++;
        }
    }
    return distinct <= 6 ? 3 : distinct <= 8 ? 4 : 5;
}

/* The pruning threshold of a search to depth d. The automatic one halves with
 * every move of depth, so each deeper search also looks at rarer spawns: at
 * depths 4 and 5 it played 2.6 and 4.2 times faster than a fixed 1e-4, with
 * mean scores unchanged within noise (bench/RESULTS.md, "Pruning: automatic
 * against fixed"). */
static double prune_for(double prune, int depth)
{
    return prune == S2048_PRUNE_AUTO ? ldexp(1.0, -(depth + 4)) : prune;
}

/* The pass of an untimed search from board, or -HUGE_VAL for none; the
 * tables AI's big build searches this way (macroxue/2048-ai, node.h, Search).
 * From a board holding e->pass_from on, whose largest tile has rank r, the
 * pass is the lines' share (what the eight lines of any live board add) and
 * twice r's chain weight above it (2 * r * 2^r, times chain_weight). A root
 * that reads at least the pass makes a leaf of every chance node below it
 * whose board reads below the pass: a line that has broken the chain is not
 * worth searching when the root holds a sound one. Beside a pass a lost
 * board is worth pass_lost, and if no root move then reads above the lines'
 * share, the search is made again without either (s2048_analyze). Used at
 * depths 4 and 5 only, where it was measured (evaluate.c). */
static double pass_score(const s2048_eval *e, board_t board)
{
    if (!(e->pass_from > 0.0)) return -HUGE_VAL;
    int top = 0;
    for (int cell = 0; cell < 16; cell++) {
        int rank = board_cell(board, cell);
        if (rank > top) top = rank;
    }
    if (ldexp(1.0, top) < e->pass_from) return -HUGE_VAL;
    return e->chain_weight * 2.0 * ldexp((double)top, top) + e->lines;
}

/* The value of a lost board beside a pass: as far below the lines' share as
 * the pass is above it, and never above 0 (the tables AI's frame, whose
 * values are ours less the lines' share). */
static double pass_lost(const s2048_eval *e, double pass)
{
    double over = pass - e->lines;
    return e->lines - (over > e->lines ? over : e->lines);
}

/* The symmetry (0..3: mirrored, flipped, or both) the search reads a board
 * in: the corner where it reads best, the board as it is first among equals.
 * Both heuristics want the biggest tiles at the top left (the tables' chain
 * term charges a big tile anywhere else twelve times its weight), so a board
 * built in another corner, as a person's often is, was read against its own
 * plan: below 0 and every move alike, or worse, steered toward a corner it
 * does not use. The AI's games stay in whatever corner they settle in, since
 * their boards read best there. The heuristic reads rows and columns alike,
 * so a transpose would change nothing. */
static int search_symmetry(const s2048_eval *e, board_t board)
{
    double best = eval_board(e, board);
    int chosen = 0;
    for (int s = 1; s < 4; s++) {
        double v = eval_board(e, board_symmetry(board, s));
        if (v > best) {
            best = v;
            chosen = s;
        }
    }
    return chosen;
}

/* Puts the values and legal directions of a search of board_symmetry(b, s)
 * back in b's directions. */
static void result_back(int s, s2048_result *out)
{
    double values[4];
    int legal = 0;
    for (int dir = 0; dir < 4; dir++) {
        int back = symmetry_direction_back(s, dir);
        values[back] = out->values[dir];
        legal |= (out->legal >> dir & 1) << back;
    }
    for (int dir = 0; dir < 4; dir++) out->values[dir] = values[dir];
    out->legal = legal;
}

int s2048_analyze(s2048_searcher *s, const s2048_eval *e, uint64_t board,
                  int depth, int danger, int quiescence, double time_ms, double prune, int keep_cache,
                  s2048_result *out)
{
    if (!s || !e || !out || depth < 0 || depth > S2048_MAX_DEPTH || !(time_ms >= 0.0)
        || !(prune == S2048_PRUNE_AUTO || (prune >= 0.0 && prune <= 1.0))
        || danger < -1 || danger > 16 || (danger >= 0 && (depth == 0 || time_ms > 0.0))
        || quiescence < -1 || quiescence > 15)
        return -1;
    double start = now_seconds();
    int symmetry = search_symmetry(e, board);
    board = board_symmetry(board, symmetry);
    if (!keep_cache) tt_clear(&s->tt);
    s->tt_call = ++s->calls;  /* cleared, or kept as asked: not to be cleared again this call */
    int timed = time_ms > 0.0;
    /* Untimed: exactly depth (0 = auto). Timed: depth is a cap (0 = none). */
    int target = depth > 0 ? deepened(board, depth, danger) : timed ? S2048_MAX_DEPTH : s2048_auto_depth(board);

    search_state st = {0};
    st.next_check = UINT64_MAX;
    st.eval = e;
    st.tt = &s->tt;
    st.quiescence = quiescence;
    st.looks = looks_new(quiescence);
    double pass = timed ? -HUGE_VAL : pass_score(e, board);
    st.pass = pass > -HUGE_VAL && eval_board(e, board) >= pass ? pass : -HUGE_VAL;
    st.lost = pass > -HUGE_VAL ? pass_lost(e, pass) : e->lost;

    double values[4];
    int first = timed ? 1 : target;
    st.prune = prune_for(prune, first);
    out->legal = search_depth(s, &st, board, first, values);
    if (pass > -HUGE_VAL && out->legal && values[s2048_best_direction(values, out->legal)] < e->lines) {
        /* Every move reads below a live board's lines: the search beside the
         * pass, or its lost value, saw no way out. Searched again in full;
         * neither table may keep what the first search found. */
        st.pass = -HUGE_VAL;
        st.lost = e->lost;
        tt_clear(&s->tt);
        if (st.looks) memset(st.looks, 0, ((size_t)1 << LOOK_BITS) * sizeof *st.looks);
        search_depth(s, &st, board, first, values);
    }
    out->depth = first;
    for (int dir = 0; dir < 4; dir++) out->values[dir] = values[dir];

    /* Iterative deepening: each completed depth replaces the last; a depth
     * cut short by the deadline is discarded. Depth 1 always completes. */
    if (timed && out->legal) {
        st.deadline = start + time_ms * 1e-3;
        st.next_check = st.nodes + TIME_CHECK_NODES;
        for (int d = 2; d <= target; d++) {
            if (now_seconds() >= st.deadline) break;
            st.prune = prune_for(prune, d);
            search_depth(s, &st, board, d, values);
            if (st.aborted) break;
            out->depth = d;
            for (int dir = 0; dir < 4; dir++) out->values[dir] = values[dir];
        }
    }

    result_back(symmetry, out);
    out->best = s2048_best_direction(out->values, out->legal);
    out->nodes = st.nodes;
    out->cache_hits = st.cache_hits;
    out->seconds = now_seconds() - start;
    free(st.looks);
    return 0;
}
