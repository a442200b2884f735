/* layouts.c -- the board layout not chosen, measured against the one chosen.
 *
 * Issue 18 asked for every tile up to 131072 (rank 17) and left the design open:
 * a fifth bit per cell beside the 64-bit board, with the search on a 64-bit
 * copy (what csrc/ladder.c does), or 5-bit cells throughout. This program times
 * what the search does most, on the same boards in both layouts:
 *
 *   left   a left move alone: four row-table look-ups (the table size's cost)
 *   move   a left and an up move through row tables (up = left on the transpose)
 *   eval   the heuristic's shape: one row-table look-up for each row and column
 *
 * 4-bit cells: a 64-bit board, 16-bit rows, tables of 65,536 entries (the move
 *              table 128 KB, a double per row 512 KB: in L2).
 * 5-bit cells: an 80-bit board in an unsigned __int128, 20-bit rows, tables of
 *              1,048,576 entries (the move table 4 MB, the row values 8 MB:
 *              out of L2, mostly out of L3), and no 64-bit transpose trick.
 *
 * The tables hold the real slide for 4-bit rows; for 5-bit rows any function
 * of the row does for timing (the cost is the look-up, not the content), so
 * the 5-bit move table holds the same slide computed on 5-bit ranks.
 *
 * Build and run (not part of the package, nothing imports it):
 *   gcc -O3 -o /tmp/layouts bench/layouts.c && /tmp/layouts
 * Results: bench/RESULTS.md, "The layout not chosen".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BOARDS (1u << 20)
#define ROUNDS 7

typedef unsigned __int128 u128;

static uint16_t left4[1 << 16];
static double value4[1 << 16];
static uint32_t *left5;   /* 1 << 20 entries */
static double *value5;

/* Slides ranks toward index 0 by the rules: close up, merge equal pairs once. */
static void slide(int *r, int top) {
    int out[4] = {0, 0, 0, 0}, n = 0, last = 0;
    for (int i = 0; i < 4; i++) {
        if (!r[i]) continue;
        if (last && r[i] == last) {
            out[n - 1] = last < top ? last + 1 : last;
            last = 0;
        } else {
            out[n++] = r[i];
            last = r[i];
        }
    }
    for (int i = 0; i < 4; i++) r[i] = out[i];
}

static void build_tables(void) {
    for (uint32_t row = 0; row < (1u << 16); row++) {
        int r[4];
        for (int i = 0; i < 4; i++) r[i] = (row >> (4 * i)) & 15;
        slide(r, 15);
        left4[row] = (uint16_t)(r[0] | r[1] << 4 | r[2] << 8 | r[3] << 12);
        value4[row] = (double)(row % 977) * 0.5;
    }
    left5 = malloc(sizeof(uint32_t) << 20);
    value5 = malloc(sizeof(double) << 20);
    if (!left5 || !value5) exit(1);
    for (uint32_t row = 0; row < (1u << 20); row++) {
        int r[4];
        for (int i = 0; i < 4; i++) r[i] = (row >> (5 * i)) & 31;
        slide(r, 31);
        left5[row] = (uint32_t)(r[0] | r[1] << 5 | r[2] << 10 | r[3] << 15);
        value5[row] = (double)(row % 977) * 0.5;
    }
}

/* ---- 4-bit cells: the layout of csrc/board.h ---- */

static uint64_t transpose4(uint64_t x) {
    uint64_t a1 = x & 0xF0F00F0FF0F00F0FULL;
    uint64_t a2 = x & 0x0000F0F00000F0F0ULL;
    uint64_t a3 = x & 0x0F0F00000F0F0000ULL;
    uint64_t a = a1 | (a2 << 12) | (a3 >> 12);
    uint64_t b1 = a & 0xFF00FF0000FF00FFULL;
    uint64_t b2 = a & 0x00FF00FF00000000ULL;
    uint64_t b3 = a & 0x00000000FF00FF00ULL;
    return b1 | (b2 >> 24) | (b3 << 24);
}

static uint64_t left_rows4(uint64_t b) {
    return (uint64_t)left4[b & 0xFFFF] | (uint64_t)left4[(b >> 16) & 0xFFFF] << 16
         | (uint64_t)left4[(b >> 32) & 0xFFFF] << 32 | (uint64_t)left4[b >> 48] << 48;
}

static uint64_t move4(uint64_t b, int up) {
    return up ? transpose4(left_rows4(transpose4(b))) : left_rows4(b);
}

static double eval4(uint64_t b) {
    uint64_t t = transpose4(b);
    return value4[b & 0xFFFF] + value4[(b >> 16) & 0xFFFF] + value4[(b >> 32) & 0xFFFF] + value4[b >> 48]
         + value4[t & 0xFFFF] + value4[(t >> 16) & 0xFFFF] + value4[(t >> 32) & 0xFFFF] + value4[t >> 48];
}

/* ---- 5-bit cells: cell i at bits 5i..5i+4, row r at bits 20r..20r+19 ---- */

static u128 transpose5(u128 b) {
    u128 t = 0;
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++)
            t |= ((b >> (5 * (4 * r + c))) & 31) << (5 * (4 * c + r));
    return t;
}

static u128 left_rows5(u128 b) {
    u128 out = 0;
    for (int r = 0; r < 4; r++) out |= (u128)left5[(uint32_t)(b >> (20 * r)) & 0xFFFFF] << (20 * r);
    return out;
}

static u128 move5(u128 b, int up) {
    return up ? transpose5(left_rows5(transpose5(b))) : left_rows5(b);
}

static double eval5(u128 b) {
    u128 t = transpose5(b);
    double v = 0;
    for (int r = 0; r < 4; r++)
        v += value5[(uint32_t)(b >> (20 * r)) & 0xFFFFF] + value5[(uint32_t)(t >> (20 * r)) & 0xFFFFF];
    return v;
}

/* ---- timing ---- */

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *t) {
    qsort(t, ROUNDS, sizeof(double), compare);
    return t[ROUNDS / 2];
}

int main(void) {
    build_tables();
    uint64_t *b4 = malloc(sizeof(uint64_t) * BOARDS);
    u128 *b5 = malloc(sizeof(u128) * BOARDS);
    if (!b4 || !b5) return 1;
    uint64_t seed = 2048;
    for (uint32_t i = 0; i < BOARDS; i++) {   /* mid-game-like: ranks 0..11, 30% empty */
        uint64_t x = 0;
        u128 y = 0;
        for (int c = 0; c < 16; c++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            uint64_t rank = (seed >> 33) % 12;
            if ((seed >> 50) % 10 < 3) rank = 0;
            x |= rank << (4 * c);
            y |= (u128)rank << (5 * c);
        }
        b4[i] = x;
        b5[i] = y;
    }
    double t[6][ROUNDS];
    volatile uint64_t sink = 0;
    volatile double vsink = 0;
    for (int round = 0; round < ROUNDS; round++) {   /* interleaved, so drift hits both alike */
        double s = now();
        uint64_t acc = 0;
        for (uint32_t i = 0; i < BOARDS; i++) acc ^= move4(b4[i], 0) ^ move4(b4[i], 1);
        t[0][round] = now() - s;
        sink ^= acc;

        s = now();
        u128 acc5 = 0;
        for (uint32_t i = 0; i < BOARDS; i++) acc5 ^= move5(b5[i], 0) ^ move5(b5[i], 1);
        t[1][round] = now() - s;
        sink ^= (uint64_t)acc5;

        s = now();
        acc = 0;
        for (uint32_t i = 0; i < BOARDS; i++) acc ^= left_rows4(b4[i]);
        t[4][round] = now() - s;
        sink ^= acc;

        s = now();
        acc5 = 0;
        for (uint32_t i = 0; i < BOARDS; i++) acc5 ^= left_rows5(b5[i]);
        t[5][round] = now() - s;
        sink ^= (uint64_t)acc5;

        s = now();
        double v = 0;
        for (uint32_t i = 0; i < BOARDS; i++) v += eval4(b4[i]);
        t[2][round] = now() - s;
        vsink += v;

        s = now();
        v = 0;
        for (uint32_t i = 0; i < BOARDS; i++) v += eval5(b5[i]);
        t[3][round] = now() - s;
        vsink += v;
    }
    double m4 = median(t[0]), m5 = median(t[1]), e4 = median(t[2]), e5 = median(t[3]);
    double l4 = median(t[4]), l5 = median(t[5]);
    printf("boards %u, medians of %d interleaved rounds\n", BOARDS, ROUNDS);
    printf("left              4-bit %6.1f M boards/s   5-bit %6.1f M boards/s   5-bit/4-bit time %.2fx\n",
           BOARDS / l4 / 1e6, BOARDS / l5 / 1e6, l5 / l4);
    printf("move (left + up)  4-bit %6.1f M boards/s   5-bit %6.1f M boards/s   5-bit/4-bit time %.2fx\n",
           BOARDS / m4 / 1e6, BOARDS / m5 / 1e6, m5 / m4);
    printf("eval (8 lines)    4-bit %6.1f M boards/s   5-bit %6.1f M boards/s   5-bit/4-bit time %.2fx\n",
           BOARDS / e4 / 1e6, BOARDS / e5 / 1e6, e5 / e4);
    printf("tables            4-bit %d KB (move) + %d KB (values)   5-bit %d KB + %d KB\n",
           (int)(sizeof left4 / 1024), (int)(sizeof value4 / 1024), (int)((sizeof(uint32_t) << 20) / 1024),
           (int)((sizeof(double) << 20) / 1024));
    return (int)(sink & 0) + (vsink < 0);
}
