/* moves.h -- the row move tables and the board moves built on them. */
#ifndef MOVES_H_INCLUDED
#define MOVES_H_INCLUDED

#include "board.h"

enum { DIR_UP = 0, DIR_DOWN = 1, DIR_LEFT = 2, DIR_RIGHT = 3 };

/* Returns the direction on a board that direction dir on board_symmetry(b, s) is. */
static inline int symmetry_direction_back(int s, int dir)
{
    /* Undo the steps in reverse: a transpose swaps the axes (up <-> left,
     * down <-> right), a flip reverses up/down, a mirror left/right. */
    static const int transposed[4] = {DIR_LEFT, DIR_RIGHT, DIR_UP, DIR_DOWN};
    if (s & 4) dir = transposed[dir];
    if ((s & 2) && dir <= DIR_DOWN) dir ^= 1;
    if ((s & 1) && dir >= DIR_LEFT) dir ^= 1;
    return dir;
}

/* Indexed by a row_t; filled once by move_tables_init(). */
extern row_t row_left_table[65536];      /* the row after sliding left */
extern row_t row_right_table[65536];     /* the row after sliding right */
extern uint32_t row_gain_table[65536];   /* points gained; the same both ways */
extern uint8_t row_overflow_table[65536];/* 1 when two 32768 tiles would merge */

void move_tables_init(void);

/* Slides the four ranks in line[] toward line[0] with the merge rules of
 * docs/rules.md: compact, then merge equal neighbours scanning from the target
 * edge, each tile at most once. Returns the points gained; sets *overflow when
 * two tiles of rank top meet, in which case the merged cell keeps top and the
 * line must not be used. The row tables slide with top 15 (a nibble), the
 * whole ladder (ladder.c) with 17. */
uint32_t slide_line(int line[4], int top, int *overflow);

/* Returns the board with every row replaced by its entry in a row table.
 * Rows 0-1 and 2-3 come from the two 32-bit halves: a 32-bit shift needs no mask. */
static inline board_t move_rows(const row_t table[65536], board_t b)
{
    uint32_t lo = (uint32_t)b, hi = (uint32_t)(b >> 32);
    return (board_t)((uint32_t)table[lo & 0xffff] | (uint32_t)table[lo >> 16] << 16)
         | (board_t)((uint32_t)table[hi & 0xffff] | (uint32_t)table[hi >> 16] << 16) << 32;
}

/* Returns the board with every row slid left (rows are independent). */
static inline board_t move_rows_left(board_t b) { return move_rows(row_left_table, b); }

/* Returns the board with every row slid right. */
static inline board_t move_rows_right(board_t b) { return move_rows(row_right_table, b); }

/* Returns the board after a slide in direction dir (no spawn). Up and down
 * are left and right on the transposed board. */
static inline board_t board_move(board_t b, int dir)
{
    switch (dir) {
    case DIR_UP:    return board_transpose(move_rows_left(board_transpose(b)));
    case DIR_DOWN:  return board_transpose(move_rows_right(board_transpose(b)));
    case DIR_LEFT:  return move_rows_left(b);
    default:        return move_rows_right(b);
    }
}

/* Returns the rows that a move in dir acts on: the board itself for left and
 * right, its transpose for up and down. */
static inline board_t board_lines(board_t b, int dir)
{
    return (dir == DIR_UP || dir == DIR_DOWN) ? board_transpose(b) : b;
}

/* Returns the points a move in direction dir scores. */
static inline uint32_t board_move_gain(board_t b, int dir)
{
    board_t l = board_lines(b, dir);
    return row_gain_table[l & ROW_MASK] + row_gain_table[(l >> 16) & ROW_MASK]
         + row_gain_table[(l >> 32) & ROW_MASK] + row_gain_table[(l >> 48) & ROW_MASK];
}

/* Returns 1 when a move in direction dir would merge two 32768 tiles. */
static inline int board_move_overflows(board_t b, int dir)
{
    board_t l = board_lines(b, dir);
    return row_overflow_table[l & ROW_MASK] | row_overflow_table[(l >> 16) & ROW_MASK]
         | row_overflow_table[(l >> 32) & ROW_MASK] | row_overflow_table[(l >> 48) & ROW_MASK];
}

#endif /* MOVES_H_INCLUDED */
