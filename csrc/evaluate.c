/* evaluate.c -- builds the heuristic row table from a set of weights.
 *
 * Most terms are those published with the best-known open-source expectimax
 * 2048 AI (nneonneo/2048-ai): a constant per row, empty cells, runs of equal
 * neighbours, monotonicity and the sum of tile ranks; the corner and chain
 * terms are this project's. The arithmetic below is mirrored operation for
 * operation by solver/reference_search.py, so the C search and the Python
 * oracle agree to the last bit on the same machine.
 */
#include <math.h>
#include <stdlib.h>

#include "evaluate.h"

void s2048_default_weights(s2048_weights *w)
{
    /* The published terms, with empty_weight (270) and mono_weight (47) retuned
     * by bench/tune_weights.py on paired seeds at depths 2, 3 and 4, and the
     * corner term on, which keeps the big tiles in one corner (measured with
     * the snake tables of the time: +23% mean score at depth 3, +7% at depth
     * 4, paired seeds; bench/RESULTS.md, "Heuristic weights"). Beside the
     * endgame tables the search uses s2048_tables_weights instead. */
    w->lost_penalty = 200000.0;
    /* With the constant above a live board scores far above 0, so a lost one
     * at 0 is below any. The tables' heuristic needs a lower one. */
    w->lost_value = 0.0;
    w->empty_weight = 1200.0;
    w->merges_weight = 700.0;
    w->mono_power = 4.0;
    w->mono_weight = 5.0;
    w->sum_power = 3.5;
    w->sum_weight = 11.0;
    w->corner_power = 4.0;
    w->corner_weight = 3.0;
    w->chain_weight = 0.0;
    w->chain_penalty = 12.0;
    w->pass_from = 0.0;
}

void s2048_tables_weights(int depth, s2048_weights *w)
{
    /* Beside the endgame tables: the chain term alone, which scores each line
     * from the top-left corner by rank * 2^rank and charges 12 times every
     * step up. It keeps the big tiles in the tables' corner block and the next
     * ones falling along the row below, so the board keeps coming back to
     * what a table covers: 436,454 against 282,125 with the default weights
     * at depth 4 (300 paired games). Without tables it is worse than the
     * default (-15,800 at depth 3), as it is at depth 1 even beside them, so
     * the search uses it beside tables at depth 2 and more only (Python:
     * SearchSettings.search_weights). bench/RESULTS.md, "Heuristic beside the
     * tables". */
    s2048_default_weights(w);
    w->empty_weight = 0.0;
    w->merges_weight = 0.0;
    w->mono_weight = 0.0;
    w->sum_weight = 0.0;
    w->corner_weight = 0.0;
    w->chain_weight = 1.0;
    /* The value of every line of a live board over a lost one (which scores
     * lost_value): 16,384 rather than 65,536 came out ahead at depths 4 and 5
     * on paired seeds (+7,900 at depth 4 over 1,000 games; +10,400 and 32768
     * in 57.7% instead of 54.8% at depth 5 over 600), level at depth 3,
     * behind at depth 2 (-1,800) and over 100 games at depth 6 (-38,000). */
    w->lost_penalty = 16384.0;
    w->lost_value = 8 * 16384.0 - 4194304.0;  /* 2^22 below the eight lines' share */
    /* At depth 2 the sum term joins it (each tile charged rank^3.5): +24,545
     * +- 5,674 over 1,000 paired games (seeds 2000-2999); at depth 3 +16,195
     * +- 10,302, within the noise, and nothing measurable at depth 4 or in
     * depth 5's games from 16384 to 32768 (bench/RESULTS.md, "The sum term at
     * shallow depths"). */
    if (depth == 2) w->sum_weight = 1.0;
    /* At depths 4 and 5 the search passes over broken lines from the first
     * 16384 on (search.c, pass_score). At depth 5, from the default's games at
     * their first 16384 it played level with the full search (+0.1 +- 0.9
     * points at 32768 over 950 paired games; from their first 32768, 65536 in
     * 20 games against 20 of 704) at 2.8 times its moves/s up to 32768, and
     * level over 1,000 whole games at 1.54 times the moves/s; at depth 4 level
     * over 1,000 whole games (+0.2 +- 0.9 points at 32768) at 1.31 times. From
     * the opening it cost 3.2 +- 1.5 points at 32768 at depth 5 (1,000 games),
     * so not before 16384. Not measured at other depths. bench/RESULTS.md,
     * "The pass from the first 16384" and "The pass at depth 4". */
    if (depth == 4 || depth == 5) w->pass_from = 16384.0;
}

/* Returns rank^p. For integer and half-integer p up to 13 (the defaults are 4
 * and 3.5) it is an exact integer power times a correctly rounded sqrt, so the
 * table is the same on every IEEE-754 machine, whatever its libm pow does. */
static double rank_power(int rank, double p)
{
    double twice = 2.0 * p;
    if (p >= 0.0 && p <= 13.0 && twice == floor(twice)) {
        double r = 1.0;
        for (int i = 0; i < (int)p; i++) r *= (double)rank;  /* exact: 15^13 < 2^53 */
        if (twice - 2.0 * floor(p) == 1.0) r *= sqrt((double)rank);
        return r;
    }
    return pow((double)rank, p);
}

/* The chain term's weight of a tile of this rank: rank * 2^rank (exact). */
static double chain_tile(int rank) { return (double)rank * (double)(1 << rank); }

/* Returns the heuristic value of one row of four ranks (exponents). */
static double row_value(const s2048_weights *w, const int rank[4])
{
    double sum = 0.0;
    int empty = 0, merges = 0, prev = 0, run = 0;
    for (int i = 0; i < 4; i++) {
        sum += rank_power(rank[i], w->sum_power);
        if (rank[i] == 0) {
            empty++;
            continue;
        }
        /* Equal tiles separated only by empty cells count as a run. */
        if (rank[i] == prev) {
            run++;
        } else if (run > 0) {
            merges += 1 + run;
            run = 0;
        }
        prev = rank[i];
    }
    if (run > 0) merges += 1 + run;

    /* Monotonicity: how far the row is from rising, and from falling;
     * only the smaller of the two is penalised. */
    double mono_left = 0.0, mono_right = 0.0;
    for (int i = 1; i < 4; i++) {
        double a = rank_power(rank[i - 1], w->mono_power);
        double b = rank_power(rank[i], w->mono_power);
        if (rank[i - 1] > rank[i]) mono_left += a - b;
        else mono_right += b - a;
    }
    double mono = mono_left < mono_right ? mono_left : mono_right;

    /* Corner: every rise away from the first cell, whatever the other rises. */
    double rises = 0.0;
    for (int i = 1; i < 4; i++)
        if (rank[i] > rank[i - 1])
            rises += rank_power(rank[i], w->corner_power) - rank_power(rank[i - 1], w->corner_power);

    /* Chain: big tiles count for rank * 2^rank, which grows as fast as the
     * tiles do. The line earns its first tile, each step down (both tiles,
     * and once more when they are equal and can merge), and loses
     * chain_penalty times the size of each step up. */
    double chain = chain_tile(rank[0]);
    for (int i = 1; i < 4; i++) {
        double a = chain_tile(rank[i - 1]), b = chain_tile(rank[i]);
        if (a >= b) chain += (a == b) ? a + b + a : a + b;
        else chain += (a - b) * w->chain_penalty;
    }

    return w->lost_penalty + w->empty_weight * empty + w->merges_weight * merges
         - w->mono_weight * mono - w->sum_weight * sum - w->corner_weight * rises
         + w->chain_weight * chain;
}

s2048_eval *s2048_eval_new(const s2048_weights *w)
{
    s2048_eval *e = malloc(sizeof *e);
    if (!e) return NULL;
    for (unsigned row = 0; row < 65536; row++) {
        int rank[4];
        for (int i = 0; i < 4; i++) rank[i] = (row >> (4 * i)) & 0xf;
        e->row[row] = row_value(w, rank);
    }
    e->lost = w->lost_value;
    e->pass_from = w->pass_from;
    e->chain_weight = w->chain_weight;
    e->lines = 8.0 * w->lost_penalty;
    return e;
}

void s2048_eval_free(s2048_eval *e) { free(e); }

double s2048_eval_row(const s2048_eval *e, uint16_t row) { return e->row[row]; }

double s2048_eval_board(const s2048_eval *e, uint64_t board) { return eval_board(e, board); }
