/* api.h -- the public header of everything that plays: what Python may call,
 * but for the table builder's functions, which tables_build.h declares.
 *
 * solver/_ffi_build.py feeds the part between the CDEF markers to cffi's cdef,
 * so that part holds plain declarations only (no macros, no includes).
 *
 * Directions are numbered 0 = up, 1 = down, 2 = left, 3 = right.
 * Boards use the layout drawn in board.h.
 */
#ifndef API_H_INCLUDED
#define API_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

/* CDEF BEGIN */

/* ---- rules (rules.c, moves.c) ---- */

/* Builds the row move tables. Idempotent; the Python wrapper calls it at import. */
void s2048_init(void);

/* The board after sliding in direction dir, with no spawn. */
uint64_t s2048_move(uint64_t board, int dir);
/* Points gained by that move (sum of the merged tiles' values). */
uint32_t s2048_move_gain(uint64_t board, int dir);
/* 1 when the move would merge two 32768 tiles, which a 4-bit cell cannot hold. */
int s2048_move_overflows(uint64_t board, int dir);
int s2048_count_empty(uint64_t board);
/* Bit d set when direction d changes the board (a valid move by the rules). */
int s2048_legal_mask(uint64_t board);
/* 1 when the game is lost: every cell full and no direction changes the board. */
int s2048_is_game_over(uint64_t board);
/* One move in one call, for Board.move: the board after sliding in dir and
 * its points; gain is UINT32_MAX (no move scores that) and board 0 when the
 * move would merge two 32768 tiles. Returned by value, so that Python needs
 * no out-parameter, and one field fewer to read than with a flag. */
typedef struct {
    uint64_t board;
    uint32_t gain;
} s2048_moved;
s2048_moved s2048_move_full(uint64_t board, int dir);
/* Moves n boards in direction dir: out[i] and gains[i]. Returns -1, or the index
 * of the first board whose move would overflow (its out is the input board and
 * its gain 0; the other boards are still moved). */
int64_t s2048_move_batch(const uint64_t *boards, size_t n, int dir,
                         uint64_t *out, uint32_t *gains);

/* ---- heuristic (evaluate.c) ---- */

typedef struct {
    double lost_penalty;    /* constant added per row, lifts live boards over a lost one */
    double lost_value;      /* the value of a lost board (no legal move): the
                             * search's max node is its best legal child, this
                             * when it has none */
    double empty_weight;    /* per empty cell */
    double merges_weight;   /* per pair of equal neighbours */
    double mono_power;      /* rank exponent in the monotonicity term */
    double mono_weight;     /* weight of the smaller of the two monotonicity sums */
    double sum_power;       /* rank exponent in the tile-sum term */
    double sum_weight;      /* weight of the tile-sum term */
    double corner_power;    /* rank exponent in the corner term */
    double corner_weight;   /* weight of the rises along a line, read from the
                             * top-left corner (rows left to right, columns top
                             * to bottom): anchors the big tiles there; 0 = off */
    double chain_weight;    /* weight of the chain score: tile weights r*2^r
                             * along a line read from the top-left corner, each
                             * step down added, each step up a loss; 0 = off */
    double chain_penalty;   /* how many times its size a step up costs */
    double pass_from;       /* the pass: from a board holding this tile on, an
                             * untimed search whose root reads well is cut
                             * where a line falls below it (search.c,
                             * pass_score); 0 = never */
} s2048_weights;

typedef struct s2048_eval s2048_eval;

void s2048_default_weights(s2048_weights *out);
/* The weights of a search at `depth` beside the endgame tables (0: any other
 * than 2, such as automatic or timed). */
void s2048_tables_weights(int depth, s2048_weights *out);
/* A heuristic row table built from w; NULL when out of memory. */
s2048_eval *s2048_eval_new(const s2048_weights *w);
void s2048_eval_free(s2048_eval *e);
double s2048_eval_row(const s2048_eval *e, uint16_t row);
/* Sum of the row values over rows 0..3 then columns 0..3. */
double s2048_eval_board(const s2048_eval *e, uint64_t board);

/* ---- search (search.c, tt.c) ---- */

typedef struct s2048_searcher s2048_searcher;

typedef struct {
    double values[4];     /* expected heuristic value per direction; 0 if illegal */
    int legal;            /* bit d set when direction d can be played */
    int best;             /* best direction, or -1 when none is legal */
    int depth;            /* depth of the search the values come from */
    uint64_t nodes;       /* max and chance nodes visited, all iterations */
    uint64_t cache_hits;  /* transposition-table hits */
    double seconds;       /* wall time of the whole call */
} s2048_result;

/* A searcher owns a transposition table of about tt_bytes (0 = no table).
 * NULL when out of memory. One searcher must not be used by two threads at once. */
s2048_searcher *s2048_searcher_new(size_t tt_bytes);
/* A searcher whose searches from depth 6 on run on `threads` threads (1..64):
 * the caller's and threads - 1 workers, each with a table of its own of
 * tt_bytes, made at the first such search and asleep between searches until
 * s2048_searcher_free. Such a search has 8 tasks, so it uses at most 8
 * threads and tables. The result of a search is
 * the same whatever the thread count (docs/search.md). NULL for a bad thread
 * count or when out of memory. */
s2048_searcher *s2048_searcher_new_threads(size_t tt_bytes, int threads);
int s2048_searcher_threads(const s2048_searcher *s);
void s2048_searcher_free(s2048_searcher *s);
/* Forgets every stored position (O(1): bumps a generation counter). */
void s2048_searcher_clear(s2048_searcher *s);
size_t s2048_searcher_tt_entries(const s2048_searcher *s);
/* The table's hit rule: 0 (the default) only a value searched to the same
 * depth, which never changes a value without pruning; 1 also a value searched
 * deeper, which plays stronger but makes values depend on the search order. */
void s2048_searcher_set_reuse_deeper(s2048_searcher *s, int on);

/* The depth that depth "auto" means for this board. */
int s2048_auto_depth(uint64_t board);

/* Expectimax from board. Without a time limit (time_ms = 0) it searches
 * exactly depth moves deep, depth 0 meaning s2048_auto_depth(board); with
 * danger >= 0 (a fixed depth only, untimed) a board with at most danger empty
 * cells is searched one move deeper (up to S2048_MAX_DEPTH), -1 never; with
 * quiescence >= 1 a leaf (a board after the last move looked at, not reached
 * through a pruned branch nor moved from a board with two 32768s) with at
 * most quiescence empty cells is worth one more spawn and move (docs/search.md,
 * "Quiescence"); -1 never, and 0 too, as a board after a move has an empty
 * cell. With time_ms > 0 it deepens 1, 2, ... up to depth (0 = up to 16) and keeps the
 * deepest depth completed in time. prune: a chance node reached with a
 * cumulative probability below it is scored by the heuristic (0 = never);
 * S2048_PRUNE_AUTO (-1) scales it with the depth d searched, 2^-(d + 4).
 * keep_cache: 0 clears the table first, so the answer depends on the board only;
 * 1 keeps what the last call stored, which a call with other settings (prune,
 * quiescence, evaluator) must not read (an untimed search from depth 6 on is split, and each of its tasks clears
 * the table it runs with, whatever keep_cache says; a timed one clears the
 * workers' tables once a call).
 * Returns 0, or -1 for a bad argument. */
int s2048_analyze(s2048_searcher *s, const s2048_eval *e, uint64_t board,
                  int depth, int danger, int quiescence, double time_ms, double prune, int keep_cache,
                  s2048_result *out);
/* The best of the directions set in legal by their values (first of equals,
 * up, down, left, right), as s2048_analyze chooses; -1 when none is set. */
int s2048_best_direction(const double values[4], int legal);

/* ---- endgame tables (formations.c, tables_probe.c; the builder is declared
 *      in tables_build.h, the formations described in formations.h) ---- */

/* Entries of the table of shape `shape` (0 snake, 1 block, 2 chain, 3 entry)
 * with `frozen` frozen cells and goal rank `goal`: goal ** (16 - frozen) for a
 * snake or a block; for a chain, whose goal is its anchor rank, and for an
 * entry, the product of the free cells' caps plus one. 0 when the formation
 * is not supported. */
size_t s2048_table_entries(int shape, int frozen, int goal);
/* The largest tile sum its free cells can hold. A table is built layer by
 * layer, from that sum down to 0 in steps of 2: a move keeps the sum and a
 * spawn adds 2 or 4, so each layer reads only the two layers above it. */
int s2048_table_max_sum(int shape, int frozen, int goal);
typedef struct s2048_tableset s2048_tableset;

typedef struct {
    int dir;              /* the table's move on the board given, -1 if no table covers it */
    double probability;   /* its success probability */
    int shape;            /* the formation (shape, frozen cells) and goal rank of that table */
    int frozen;
    int goal;
    int trusted;          /* 1 when probability reaches that table's threshold */
} s2048_probe;

s2048_tableset *s2048_tableset_new(void);
void s2048_tableset_free(s2048_tableset *ts);
/* Attaches a finished table, whose answers are trusted from success
 * probability min_prob (0..1) on; its memory stays the caller's and must
 * outlive the set. Returns 0, or -1 for a bad argument or a wrong entry count. */
int s2048_tableset_add(s2048_tableset *ts, int shape, int frozen, int goal,
                       const uint8_t *table, size_t entries, double min_prob);
/* Looks board up under its 8 symmetries in every attached table that covers
 * it and keeps the best answer: a trusted one before any other, then the
 * highest success probability. Returns 1 when some table covers the board,
 * else 0 (out->dir = -1). */
int s2048_tables_probe(const s2048_tableset *ts, uint64_t board, s2048_probe *out);

/* ---- the game's generator (rng.c) ---- */

/* xoshiro256** (Blackman and Vigna), seeded by expanding the 64-bit seed
 * with SplitMix64. solver/rng.py is the same generator in Python. */
typedef struct {
    uint64_t s[4];
} s2048_rng;

void s2048_rng_seed(s2048_rng *r, uint64_t seed);
uint64_t s2048_rng_next(s2048_rng *r);
/* A uniform integer in 0..n-1 (n >= 1), without bias (Lemire's method). */
uint32_t s2048_rng_below(s2048_rng *r, uint32_t n);
/* Places one random tile (cell, then value) on an empty cell of board; fills
 * *cell and *value and returns the new board. board must have an empty cell. */
uint64_t s2048_spawn(s2048_rng *r, uint64_t board, int *cell, int *value);
/* The same draws, over the cells whose bit 4*i is set in empty (at least one):
 * for a board past 32768, where a cell of nibble 0 may hold 65536. */
uint64_t s2048_spawn_on(s2048_rng *r, uint64_t board, uint64_t empty, int *cell, int *value);

/* ---- the whole ladder: tiles past 32768 (ladder.c) ---- */

/* A wide board is a 64-bit board of ranks modulo 16 (low) and a 16-bit word
 * whose bit i is the fifth bit of cell i (high): 65536 is rank 16, 131072
 * rank 17. With high = 0 it is the 64-bit board as above. */

/* The board after sliding in dir, and its points. Returns 1 when the board
 * changed, 0 when not, -1 when the move would make a tile past 131072. */
int s2048_wide_move(uint64_t low, uint16_t high, int dir, uint64_t *out_low, uint16_t *out_high,
                    uint32_t *gain);
/* Bit d set when dir d changes the board; a move that would merge two 131072s
 * is not a move (no game holds two; a given board may). */
int s2048_wide_legal_mask(uint64_t low, uint16_t high);
int s2048_wide_count_empty(uint64_t low, uint16_t high);
/* No legal move on a board with a tile (docs/rules.md, "Game over"). */
int s2048_wide_is_game_over(uint64_t low, uint16_t high);
/* s2048_spawn on a wide board: the same draws, over its empty cells. */
uint64_t s2048_wide_spawn(s2048_rng *r, uint64_t low, uint16_t high, int *cell, int *value);
/* The 64-bit copy that the search, the heuristic and the tables play on: the
 * board itself when it needs no fifth bit and holds at most one 32768; else
 * the board with absent ranks taken out and the ranks above moved down, so
 * that the copy keeps the order and equalities of the tiles and every merge
 * fits. *lossless is 0 when that was impossible without taking out a spawn
 * rank (2 or 4), or at all (a board holding every rank). */
uint64_t s2048_downgrade(uint64_t low, uint16_t high, int *lossless);

/* ---- whole games (selfplay.c) ---- */

/* Which engine plays: a digest of the sources in csrc/, made by the build
 * (solver/_ffi_build.py), or "unknown" from a build without it. Every results
 * line records it, so that a batch never resumes a file another engine played. */
const char *s2048_engine_id(void);

typedef struct {
    uint64_t board;   /* the position now, after the last spawn (its low part) */
    uint16_t high;    /* its fifth bits (the ladder above) */
    uint64_t score;
    uint32_t moves;
    uint32_t won_at;  /* the move (1-based) whose merge made 2048; 0 = not yet */
    int over;         /* 1 when the game has ended: no move left */
    int last_depth;   /* the depth the last move was searched to */
    uint32_t table_moves; /* moves taken from the endgame tables */
    uint32_t uncovered_moves; /* moves played on a board no table covered */
    uint32_t last_covered;    /* the last move (1-based) whose board a table covered; 0 = none */
    s2048_probe last_probe;   /* the covering table's answer there: which table, its
                               * success probability, whether it was trusted (played) */
    uint32_t stretch_start;   /* the first move of the last covered stretch, the run of
                               * covered moves that ends at last_covered; 0 = none */
    double stretch_probability; /* the covering table's success probability there */
    s2048_rng rng;
} s2048_game;

typedef struct {
    uint64_t board;       /* the position after this move and its spawn (low part) */
    uint16_t high;        /* its fifth bits */
    uint32_t gain;        /* points of the move */
    uint8_t dir;          /* 0 up, 1 down, 2 left, 3 right */
    uint8_t spawn_cell;   /* 0..15, row-major */
    uint8_t spawn_value;  /* 2 or 4 */
    uint8_t depth;        /* the depth the move was searched to (0: from a table) */
    uint8_t from_table;   /* 1 when an endgame table chose the move */
} s2048_step;

/* A new game from seed: two spawns on the empty board. */
void s2048_game_new(s2048_game *g, uint64_t seed);
/* A game from a given wide board, its spawns drawn from seed. */
void s2048_game_start(s2048_game *g, uint64_t seed, uint64_t low, uint16_t high);
/* Plays up to max_steps moves, writing one step each. A move comes from the
 * endgame tables when the probe's answer is trusted (the set's threshold for
 * that table's shape; tables may be NULL), else from the search (settings as
 * for s2048_analyze, its table cleared before every move; late_quiescence >= 1
 * replaces quiescence once the board holds a tile of 32768 or more, -1
 * never), both on the
 * board's 64-bit copy (s2048_downgrade); the move itself is played on the
 * wide board. Stops early when
 * the game ends, or, when stop_rank is 1 to 17, after the move that first
 * makes a tile of that rank or more (11: the win, 2048); 0 never. Returns the
 * number of moves played, or -1 for a bad argument. */
int s2048_game_play(s2048_game *g, s2048_searcher *s, const s2048_eval *e,
                    const s2048_tableset *tables,
                    int depth, int danger, int quiescence, int late_quiescence, double time_ms, double prune,
                    int stop_rank, s2048_step *steps, int max_steps);

/* CDEF END */

#define S2048_MAX_DEPTH 16
#define S2048_MAX_THREADS 64
#define S2048_PRUNE_AUTO (-1.0)

#endif /* API_H_INCLUDED */
