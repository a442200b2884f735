/* square_plan.c -- how likely a board can open a merge into its big tiles,
 * played exactly, with those tiles held where they are.
 *
 * A study tool for issue 22 (bench/RESULTS.md, "An exact plan from the
 * square"), not part of the package. Most games that die between 16384 and
 * 32768 die in the corner square (16384 8192 / 4096 2048): the 2048 needs a
 * 2048 beside it, built in the twelve other cells without moving the four.
 * This asks, for a given board, what the best play's probability of that is.
 *
 * Every tile of rank >= F at the start is frozen: a move that shifts or
 * changes one is not allowed. The goal is reached after a move that leaves a
 * free tile beside a frozen tile of the same rank (the next merge into the
 * block is open). A move fails (probability 0) when a free tile reaches rank
 * F elsewhere, or when the free tiles add to more than 2^F + B (the goal's
 * tile and B of small tiles beside it): the budget bounds the boards visited,
 * so the answer is a lower bound that grows with B. Spawns: a 2 (0.9) or a
 * 4 (0.1) on each empty cell alike. The value is expectimax over every
 * reachable board, memoised by board.
 *
 * Usage: square_plan F B [LOG2_SLOTS]   (boards on stdin, one a line: 16 hex
 *   digits, the ranks of cells (0,0), (0,1), ... (3,3) in reading order)
 * Prints a line a board: the board, p, the best first move (u d l r, or -),
 * the boards memoised and the seconds.
 *   gcc -O2 -I csrc -o /tmp/square_plan csrc/moves.c bench/square_plan.c
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "moves.h"

/* Cell (r, c) is nibble 4r + c of the board (csrc/board.h); the moves are
 * the engine's own (csrc/moves.h). */
static uint32_t board_sum(uint64_t b)
{
    uint32_t sum = 0;
    for (int cell = 0; cell < 16; cell++)
        if (board_cell(b, cell)) sum += 1u << board_cell(b, cell);
    return sum;
}

/* The problem: frozen cells and their values, the free cells beside each. */
static uint64_t frozen_mask, frozen_value;
static int frozen_rank_min;            /* F */
static uint32_t frozen_sum, free_limit;
static int pair_frozen[64], pair_free[64], pairs;

static int is_frozen(int cell) { return (int)((frozen_mask >> (4 * cell)) & 1); }

/* The memo: open addressing on the board, 0 is never a board. */
static uint64_t *memo_key;
static float *memo_p;
static uint64_t memo_slots, memo_used;
static int memo_full;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33; x *= 0xFF51AFD7ED558CCDULL;
    x ^= x >> 33; x *= 0xC4CEB9FE1A85EC53ULL;
    return x ^ (x >> 33);
}

static float *memo_slot(uint64_t b, int *found)
{
    uint64_t i = mix(b) & (memo_slots - 1);
    while (memo_key[i] && memo_key[i] != b) i = (i + 1) & (memo_slots - 1);
    *found = memo_key[i] == b;
    if (!*found) {
        if (memo_used * 10 >= memo_slots * 9) { memo_full = 1; return NULL; }
        memo_key[i] = b;
        memo_used++;
    }
    return &memo_p[i];
}

static int goal(uint64_t b)
{
    for (int k = 0; k < pairs; k++)
        if (board_cell(b, pair_free[k]) == board_cell(b, pair_frozen[k])) return 1;
    return 0;
}

/* A free tile of rank F or more off the goal: the cap. */
static int over_cap(uint64_t b)
{
    for (int cell = 0; cell < 16; cell++)
        if (!is_frozen(cell) && board_cell(b, cell) >= frozen_rank_min) return 1;
    return 0;
}

static double after_move(uint64_t a);

/* The best move's probability from a board with the player to move. */
static double to_move(uint64_t b, int *best_dir)
{
    int found;
    float *slot = best_dir ? NULL : memo_slot(b, &found);
    if (slot && found) return *slot;
    if (!best_dir && !slot) return 0.0;  /* memo full: counted, reported */
    double best = 0.0;
    int dir_best = -1;
    for (int dir = 0; dir < 4; dir++) {
        uint64_t a = board_move(b, dir);
        if (a == b || (a & frozen_mask) != frozen_value) continue;
        double p;
        if (goal(a)) p = 1.0;
        else if (over_cap(a) || board_sum(a) - frozen_sum > free_limit) p = 0.0;
        else p = after_move(a);
        if (p > best || dir_best < 0) { best = p; dir_best = dir; }
        if (best >= 1.0) break;
    }
    if (best_dir) *best_dir = dir_best;
    else *slot = (float)best;
    return best;
}

/* The spawn's expectation after a move. */
static double after_move(uint64_t a)
{
    double total = 0.0;
    int empty = 0;
    for (int cell = 0; cell < 16; cell++) {
        if (board_cell(a, cell)) continue;
        empty++;
        total += 0.9 * to_move(a | (1ULL << (4 * cell)), NULL)
               + 0.1 * to_move(a | (2ULL << (4 * cell)), NULL);
    }
    return empty ? total / empty : 0.0;
}

static int parse(const char *text, uint64_t *b)
{
    *b = 0;
    for (int cell = 0; cell < 16; cell++) {
        char c = text[cell];
        int v = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
        if (v < 0) return 0;
        *b |= (uint64_t)v << (4 * cell);
    }
    return 1;
}

static void setup(uint64_t b, int f, uint32_t budget)
{
    static const int step[4][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
    frozen_mask = frozen_value = 0;
    frozen_rank_min = f;
    frozen_sum = 0;
    pairs = 0;
    for (int cell = 0; cell < 16; cell++)
        if (board_cell(b, cell) >= f) {
            frozen_mask |= 0xFULL << (4 * cell);
            frozen_sum += 1u << board_cell(b, cell);
        }
    frozen_value = b & frozen_mask;
    for (int cell = 0; cell < 16; cell++) {
        if (!is_frozen(cell)) continue;
        for (int s = 0; s < 4; s++) {
            int r = cell / 4 + step[s][0], c = cell % 4 + step[s][1];
            if (r < 0 || r > 3 || c < 0 || c > 3) continue;
            int next = 4 * r + c;
            if (is_frozen(next)) continue;
            pair_frozen[pairs] = cell;
            pair_free[pairs++] = next;
        }
    }
    /* The goal's tile alone is 2^F: the budget is the slack above it. */
    free_limit = (1u << f) + budget;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: square_plan F B [LOG2_SLOTS] < boards\n");
        return 2;
    }
    int f = atoi(argv[1]);
    uint32_t budget = (uint32_t)atoi(argv[2]);
    int log2_slots = argc > 3 ? atoi(argv[3]) : 26;
    if (f < 2 || f > 15 || log2_slots < 10 || log2_slots > 34) {
        fprintf(stderr, "square_plan: F must be 2..15 and LOG2_SLOTS 10..34\n");
        return 2;
    }
    move_tables_init();
    memo_slots = 1ULL << log2_slots;
    memo_key = calloc(memo_slots, sizeof *memo_key);
    memo_p = malloc(memo_slots * sizeof *memo_p);
    if (!memo_key || !memo_p) {
        fprintf(stderr, "square_plan: no memory for 2^%d slots\n", log2_slots);
        return 2;
    }
    char line[256];
    while (fgets(line, sizeof line, stdin)) {
        uint64_t b;
        if (!parse(line, &b)) {
            fprintf(stderr, "square_plan: not a board: %s", line);
            return 2;
        }
        memset(memo_key, 0, memo_slots * sizeof *memo_key);
        memo_used = 0;
        memo_full = 0;
        setup(b, f, budget);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        int dir;
        double p = goal(b) ? 1.0 : to_move(b, &dir);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        printf("%.16s %.4f %c %llu %.2f%s\n", line, p, goal(b) || dir < 0 ? '-' : "udlr"[dir],
               (unsigned long long)memo_used, seconds, memo_full ? " FULL" : "");
        fflush(stdout);
    }
    return 0;
}
