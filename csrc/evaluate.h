/* evaluate.h -- the heuristic: a row table summed over rows and columns. */
#ifndef EVALUATE_H_INCLUDED
#define EVALUATE_H_INCLUDED

#include "api.h"
#include "board.h"

struct s2048_eval {
    double row[65536];   /* heuristic value of each row_t, read left to right */
    double lost;         /* the value of a lost board (s2048_weights.lost_value) */
    double pass_from;    /* s2048_weights.pass_from */
    double chain_weight; /* s2048_weights.chain_weight, the pass's unit */
    double lines;        /* what the eight lines of a live board add over a
                          * lost one: 8 * s2048_weights.lost_penalty */
};

/* Returns the heuristic of board b whose transpose is t: the values of rows
 * 0..3 and of columns 0..3 read top to bottom, added as
 * ((r0 + r1) + (r2 + r3)) + ((c0 + c1) + (c2 + c3)), the order the Python
 * oracle uses too. */
static inline double eval_board_t(const s2048_eval *e, board_t b, board_t t)
{
    /* Added as a tree, not a chain: three additions deep instead of seven,
     * which the leaves of the search feel. */
    /* Rows 0-1 and 2-3 from the two 32-bit halves: a 32-bit shift needs no mask. */
    uint32_t b_lo = (uint32_t)b, b_hi = (uint32_t)(b >> 32);
    uint32_t t_lo = (uint32_t)t, t_hi = (uint32_t)(t >> 32);
    double rows = (e->row[b_lo & 0xffff] + e->row[b_lo >> 16])
                + (e->row[b_hi & 0xffff] + e->row[b_hi >> 16]);
    double cols = (e->row[t_lo & 0xffff] + e->row[t_lo >> 16])
                + (e->row[t_hi & 0xffff] + e->row[t_hi >> 16]);
    return rows + cols;
}

/* The same, when only the board is at hand. */
static inline double eval_board(const s2048_eval *e, board_t b)
{
    return eval_board_t(e, b, board_transpose(b));
}

#endif /* EVALUATE_H_INCLUDED */
