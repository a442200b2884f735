/* board.h -- the 64-bit board and its tiny helpers.
 *
 * One 4-bit exponent per cell: 0 = empty, 1 = tile 2, ..., 15 = tile 32768.
 * Cell (row r, column c) lives in nibble 4*r + c; cell (0,0), the top-left,
 * is the least significant nibble:
 *
 *            column 0   column 1   column 2   column 3
 *   row 0    bits 0-3   bits 4-7   bits 8-11  bits 12-15    <- row_t of row 0
 *   row 1    bits 16-19 bits 20-23 bits 24-27 bits 28-31
 *   row 2    bits 32-35 ...
 *   row 3    bits 48-51 bits 52-55 bits 56-59 bits 60-63
 *
 * A row is a 16-bit row_t whose low nibble is its leftmost cell, so "left"
 * means "toward the low nibble". Columns are handled by transposing the
 * board, after which column c is row c with its top cell in the low nibble.
 */
#ifndef BOARD_H_INCLUDED
#define BOARD_H_INCLUDED

#include <stdint.h>

typedef uint64_t board_t;
typedef uint16_t row_t;

#define ROW_MASK 0xffffULL

/* Returns the exponent of cell (0..15), 0 for an empty cell. */
static inline int board_cell(board_t b, int cell) { return (int)((b >> (4 * cell)) & 0xf); }

/* Returns the exponent at (row, col), 0 for an empty cell. */
static inline int board_at(board_t b, int row, int col) { return board_cell(b, 4 * row + col); }

/* Returns the board with its rows and columns swapped (cell (r,c) <-> (c,r)). */
static inline board_t board_transpose(board_t x)
{
    /* Two delta swaps: the cells 3 nibbles apart inside each 2x2 block, then
     * the 2x2 blocks 6 nibbles apart. */
    board_t d = (x ^ (x >> 12)) & 0x0000f0f00000f0f0ULL;
    x ^= d ^ (d << 12);
    d = (x ^ (x >> 24)) & 0x00000000ff00ff00ULL;
    return x ^ d ^ (d << 24);
}

/* Returns the board mirrored left to right: each row's cells reversed. */
static inline board_t board_mirror_columns(board_t b)
{
    b = (b & 0x0f0f0f0f0f0f0f0fULL) << 4 | (b >> 4 & 0x0f0f0f0f0f0f0f0fULL);
    return (b & 0x00ff00ff00ff00ffULL) << 8 | (b >> 8 & 0x00ff00ff00ff00ffULL);
}

/* Returns the board flipped top to bottom: its rows in reverse order. */
static inline board_t board_flip_rows(board_t b)
{
    b = (b & 0x0000ffff0000ffffULL) << 16 | (b >> 16 & 0x0000ffff0000ffffULL);
    return b << 32 | b >> 32;
}

/* Returns the board under symmetry s (0..7): bit 0 mirrors left-right, bit 1
 * flips top-bottom, bit 2 then transposes. */
static inline board_t board_symmetry(board_t b, int s)
{
    if (s & 1) b = board_mirror_columns(b);
    if (s & 2) b = board_flip_rows(b);
    if (s & 4) b = board_transpose(b);
    return b;
}

/* Returns a mask with bit 4*i set exactly when cell i is empty. */
static inline uint64_t board_empty_mask(board_t x)
{
    x |= (x >> 2) & 0x3333333333333333ULL;
    x |= (x >> 1);
    return ~x & 0x1111111111111111ULL;
}

/* Returns the number of bits set in a mask with at most bit 4*i set per nibble
 * (as board_empty_mask gives). */
static inline int nibble_flags_count(uint64_t m)
{
    /* Add the one-bit counters pairwise into bytes, then all bytes into the top
     * byte with one multiply (no popcount instruction needed). */
    m = (m + (m >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    return (int)((m * 0x0101010101010101ULL) >> 56);
}

/* Returns the number of empty cells (nibbles equal to 0). */
static inline int board_count_empty(board_t x) { return nibble_flags_count(board_empty_mask(x)); }

/* Bit 4i set where cell i holds 15 (tile 32768). */
static inline uint64_t board_maxed_cells(board_t x)
{
    return x & (x >> 1) & (x >> 2) & (x >> 3) & 0x1111111111111111ULL;
}

/* Returns 1 when at least two cells hold 15 (tile 32768): only then can a
 * move overflow the 4-bit cell. */
static inline int board_has_two_maxed(board_t x)
{
    uint64_t m = board_maxed_cells(x);
    return (m & (m - 1)) != 0;
}

/* How many cells of a wide board (ladder.c) hold 131072: rank 17, the
 * fifth bit over the nibble 1. */
static inline int wide_count_131072(board_t low, uint16_t high)
{
    int n = 0;
    for (int i = 0; i < 16; i++) n += (high >> i & 1) && (low >> (4 * i) & 0xf) == 1;
    return n;
}

#endif /* BOARD_H_INCLUDED */
